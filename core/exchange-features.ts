/**
 * Build the trigger features of one exchange (core/session-state.ts ExchangeFeatures) from a
 * parsed transcript Exchange (shared/types.ts) and the vectors the caller embedded. The
 * caller (daemon pipeline, replay, evals) owns embedding; this adds the lexical parts:
 * content-token hashes (of the whole exchange and of the prompt alone), tool-call and tool-error
 * signatures, and the dialogue cues (the prompt asks a question; the reply ends asking one). Pure.
 */
import type { Exchange } from '../shared/types.js';
import type { ExchangeFeatures } from './session-state.js';
import { contentTokenHashes, errorSignatures, toolSignatures } from './lexical.js';
import { asksQuestion, endsAskingQuestion } from './dialogue-cues.js';

export interface ExchangeVectors {
  /** The whole exchange. */
  vec: Float32Array;
  /** The human's prompt (null when there is none). */
  userVec: Float32Array | null;
  /** The assistant's visible side (null when none is visible). */
  assistantVec: Float32Array | null;
}

/** The exchange fields the features read. */
export type ExchangeText = Pick<Exchange, 'user' | 'assistant' | 'toolCalls' | 'toolErrors' | 'assistantVisible' | 'timestamp'>;

export function exchangeFeatures(ex: ExchangeText, v: ExchangeVectors): ExchangeFeatures {
  const text = [ex.user, ex.assistant, ...ex.toolCalls].filter(Boolean).join('\n');
  return {
    vec: v.vec,
    userVec: v.userVec,
    assistantVec: v.assistantVec,
    tokens: contentTokenHashes(text),
    userTokens: contentTokenHashes(ex.user),
    toolSigs: toolSignatures(ex.toolCalls),
    errorSigs: errorSignatures(ex.toolErrors),
    assistantVisible: ex.assistantVisible,
    asks: asksQuestion(ex.user),
    replyAsks: endsAskingQuestion(ex.assistant),
    timestamp: ex.timestamp,
  };
}
