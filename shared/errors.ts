/**
 * Errors a person can act on. Anything thrown with an `exitCode` is printed by the CLI as
 * one line (`active-brain: <message>`) and exits with that code; anything else is a bug and
 * prints its stack. Exit codes: 1 failed · 2 usage/config · 3 environment (model, store, files).
 */
export class AppError extends Error {
  constructor(message: string, readonly exitCode: number = 1) {
    super(message);
    this.name = 'AppError';
  }
}

export function isAppError(e: unknown): e is { message: string; exitCode: number } {
  return !!e && typeof e === 'object' && typeof (e as { exitCode?: unknown }).exitCode === 'number'
    && typeof (e as { message?: unknown }).message === 'string';
}
