/**
 * Embedding errors. EmbedderError (exit 3): the embedder cannot work — a model that does not
 * load, a server that is down, answers garbage or refuses the key; the message says what to
 * do. EmbedBatchRefused: the server answered one batch with an HTTP error (the texts of that
 * batch have no vectors; the server itself works). EmbedderUnavailable: thrown by the
 * daemon's resilient embedder (embed/resilient.ts) instead of waiting for a server that is
 * down; its `reason` is the decision's silence code.
 */
import { AppError } from '../shared/errors.js';

export class EmbedderError extends AppError {
  constructor(message: string) {
    super(message, 3);
    this.name = 'EmbedderError';
  }
}

export class EmbedBatchRefused extends EmbedderError {
  constructor(
    message: string,
    readonly status: number,
  ) {
    super(message);
    this.name = 'EmbedBatchRefused';
  }
}

/** Silence codes of a decision made without vectors. */
export const EMBEDDER_SILENCES = ['embedder-unavailable', 'embedder-refused'] as const;
export type EmbedderSilence = (typeof EMBEDDER_SILENCES)[number];

export class EmbedderUnavailable extends Error {
  constructor(
    readonly reason: EmbedderSilence,
    message: string,
  ) {
    super(message);
    this.name = 'EmbedderUnavailable';
  }
}
