/**
 * Constructed exchange sequences for the trigger tests: unit vectors around topic
 * directions with seeded noise, lexical hashes from topic words, and an affine "rescaling"
 * of a whole sequence (v → [√b·u, √(1−b)·v]) that maps every cosine c to b + (1−b)·c — the
 * way a different embedding model's cosine range differs (MiniLM-like vs GloVe-like).
 */
import type { ExchangeFeatures, SessionConfig } from '../../core/session-state.js';
import type { TriggerThresholds } from '../../core/triggers.js';
import { contentTokenHashes, toolSignatures, errorSignatures } from '../../core/lexical.js';
import { asksQuestion } from '../../core/dialogue-cues.js';
export { seededRandom as rng } from '../../shared/prng.js';

export const DIM = 48;


export function unit(v: Float32Array): Float32Array {
  let n = 0;
  for (const x of v) n += x * x;
  n = Math.sqrt(n);
  return n > 0 ? v.map((x) => x / n) : v;
}

/** A random unit direction. */
export function direction(r: () => number, dim = DIM): Float32Array {
  return unit(Float32Array.from({ length: dim }, () => r() * 2 - 1));
}

/** A unit vector near `topic` (noise = relative size of the random part). */
export function near(topic: Float32Array, r: () => number, noise: number): Float32Array {
  const d = direction(r, topic.length);
  return unit(topic.map((x, i) => x + noise * d[i]));
}

/** Append a shared direction: every cosine c becomes b + (1 − b)·c. */
export function rescale(v: Float32Array | null, b: number): Float32Array | null {
  if (!v) return null;
  const out = new Float32Array(v.length + 1);
  out[0] = Math.sqrt(b);
  for (let i = 0; i < v.length; i++) out[i + 1] = Math.sqrt(1 - b) * v[i];
  return out;
}

export function rescaleFeatures(f: ExchangeFeatures, b: number): ExchangeFeatures {
  return { ...f, vec: rescale(f.vec, b)!, userVec: rescale(f.userVec, b), assistantVec: rescale(f.assistantVec, b) };
}

export interface Spec {
  vec: Float32Array;
  userVec?: Float32Array | null;
  assistantVec?: Float32Array | null;
  text?: string;
  /** The prompt's text (default: `text`). */
  userText?: string;
  toolCalls?: string[];
  toolErrors?: string[];
  assistantVisible?: boolean;
  /** Dialogue cues (default: read from userText/text by core/dialogue-cues.ts; the reply: false). */
  asks?: boolean;
  replyAsks?: boolean;
  followsQuestion?: boolean;
  timestamp?: number;
}

let clock = 1_700_000_000_000;
/** Exchanges are a minute apart unless a timestamp is given. */
export function features(s: Spec): ExchangeFeatures {
  clock += 60_000;
  return {
    vec: s.vec,
    userVec: s.userVec === undefined ? s.vec : s.userVec,
    assistantVec: s.assistantVec === undefined ? s.vec : s.assistantVec,
    tokens: contentTokenHashes(s.text ?? ''),
    userTokens: contentTokenHashes(s.userText ?? s.text ?? ''),
    toolSigs: toolSignatures(s.toolCalls ?? []),
    errorSigs: errorSignatures(s.toolErrors ?? []),
    assistantVisible: s.assistantVisible ?? true,
    asks: s.asks ?? asksQuestion(s.userText ?? s.text ?? ''),
    replyAsks: s.replyAsks ?? false,
    ...(s.followsQuestion === undefined ? {} : { followsQuestion: s.followsQuestion }),
    timestamp: s.timestamp ?? clock,
  };
}

export const SESSION: SessionConfig = {
  alpha: 0.3,
  anchorAlpha: 0.7,
  historySize: 24,
  calibrationSize: 64,
  warmupExchanges: 4,
  cooldownTurns: 0,
  cooldownSeconds: 0,
};

export const MODE: TriggerThresholds = {
  driftZ: 2,
  driftMaxQuantile: 1,
  driftLexicalWeight: 1,
  // the dialogue cues are off here: these tests are about the similarity measures; the cue
  // tests (drift-cues.test.ts) switch them on with the shipped defaults
  driftQuestionBonus: 0,
  driftAnswerPenalty: 0,
  stallZ: 3,
  stallMaxQuantile: 0.1,
  stallWindow: 3,
};

/** Topic words for lexical features: each topic its own vocabulary. */
export const TOPIC_WORDS = [
  'database pool connection timeout postgres socket retry query index migration',
  'react component render state hook props effect router context suspense',
  'docker image container volume compose registry network port deploy layer',
  'invoice customer payment refund currency ledger receipt billing tax discount',
].map((s) => s.split(' '));

/** A short text of `n` words from a topic's vocabulary, rotating with `k`. */
export function topicText(topic: number, k: number, n = 4): string {
  const w = TOPIC_WORDS[topic];
  return Array.from({ length: n }, (_, i) => w[(k * 3 + i) % w.length]).join(' ');
}
