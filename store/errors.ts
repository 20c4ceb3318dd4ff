/**
 * Errors the store raises, each with a stable code and a message that says what to do next.
 * The CLI maps `exitCode` (3 = environment problem, 2 = usage) onto process exit codes.
 */
export type StoreErrorCode =
  | 'STORE_MISSING'
  | 'STORE_EMPTY'
  | 'STORE_UNREADABLE'
  | 'SCHEMA_TOO_NEW'
  | 'SCHEMA_OLD'
  | 'MODEL_MISMATCH'
  | 'NO_MODEL'
  | 'BAD_INPUT'
  | 'SOURCE_CONFLICT'
  /** A team-store reader URL whose role could write (the daemon refuses it). */
  | 'ROLE_CAN_WRITE'
  /** A local store indexed before redaction (or with other rules): push refuses it. */
  | 'UNSCRUBBED';

export class StoreError extends Error {
  readonly exitCode: number;
  constructor(readonly code: StoreErrorCode, message: string) {
    super(message);
    this.name = 'StoreError';
    this.exitCode = code === 'BAD_INPUT' || code === 'SOURCE_CONFLICT' || code === 'ROLE_CAN_WRITE' ? 2 : 3;
  }
}

/** The message every part of the product uses for a model/dimension mismatch. */
export function modelMismatchMessage(stored: { model: string; dim: number }, current: { model: string; dim: number }): string {
  return `store was built with model ${stored.model} (dim ${stored.dim}); current model is ${current.model} (dim ${current.dim}): re-index with \`active-brain index --rebuild\``;
}

export class StoreModelMismatchError extends StoreError {
  constructor(readonly stored: { model: string; dim: number }, readonly current: { model: string; dim: number }) {
    super('MODEL_MISMATCH', modelMismatchMessage(stored, current));
    this.name = 'StoreModelMismatchError';
  }
}
