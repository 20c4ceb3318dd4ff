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

/** Exit codes: 0 ok · 1 the thing asked for failed or does not hold · 2 usage or config error ·
 *  3 environment problem (model missing, store unreadable, permission denied). */
export const EXIT = { OK: 0, FAIL: 1, USAGE: 2, ENV: 3 } as const;

/** An error the user can act on: printed as `active-brain: <message>` without a stack. */
export class UserError extends AppError {
  constructor(message: string, exitCode: number = EXIT.FAIL) {
    super(message, exitCode);
    this.name = 'UserError';
  }
}

export function isAppError(e: unknown): e is { message: string; exitCode: number } {
  return !!e && typeof e === 'object' && typeof (e as { exitCode?: unknown }).exitCode === 'number'
    && typeof (e as { message?: unknown }).message === 'string';
}
