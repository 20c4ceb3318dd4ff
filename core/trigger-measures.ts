/**
 * The raw measurements the triggers decide on, computed from a session's state (before the
 * newest exchange is recorded) and the newest exchange's features. Pure. Every vector
 * measure is an affine function of cosines (dot products with unit vectors or with the
 * weights-sum-to-1 EWMA), so rescaling a model's cosine range rescales them affinely and the
 * robust z-scores in core/triggers.ts stay the same.
 */
import type { ExchangeFeatures, RingEntry, SessionState } from './session-state.js';
import { jaccard } from './lexical.js';

/** Exchanges before the newest whose content words count as "the recent window" (novelty, logged). */
export const COHESION_WINDOW = 3;
/**
 * Drift window: the prompts of this many exchanges before the newest are the "left block" the
 * newest exchange (prompt + reply: the "right block") is compared with, by vectors (mean
 * cosine) and by lexical cohesion — TextTiling's block comparison made causal. 2 was the only
 * value chosen in 5-fold cross-validation on TIAGE train (docs/TRIGGERS.md).
 */
export const DRIFT_WINDOW = 2;
/** Two exchanges' tool-call signature sets this similar (Jaccard) count as the same action. */
export const TOOL_REPEAT_JACCARD = 0.5;

export interface Measures {
  /** Mean cosine of the newest exchange to the prompts of the last DRIFT_WINDOW exchanges (null: no past). */
  affinity: number | null;
  /** Lexical cohesion: set cosine |A∩B|/√(|A||B|) of the newest exchange's content words with
   *  the content words of the same prompts (0 when either side has none; null: no past). */
  cohesion: number | null;
  /** Dialogue cues (core/dialogue-cues.ts): the newest prompt asks a question, and it follows
   *  a question from the other side (it answers rather than opens). */
  asks: boolean;
  followsQuestion: boolean;
  /** Plain cosine of the newest exchange to the normalized prompt anchor (for logs). */
  cosToAnchor: number | null;
  /** Share of the newest exchange's content tokens absent from the recent window (logs only; null: no tokens or no window). */
  novelty: number | null;
  /** Smallest pairwise cosine across the stall window (the newest and the previous window−1):
   *  high only when *every* exchange in the window resembles every other — repetition, not
   *  one lucky pair. The stall decision and its calibration use this. */
  windowSim: number | null;
  /** Mean pairwise cosine across the same window (reported in logs). */
  windowMeanSim: number | null;
  /** The smallest pairwise cosine over user-side / assistant-side vectors (null when a side is missing in the window). */
  userSim: number | null;
  assistantSim: number | null;
  /** Consecutive exchanges ending at the newest with near-identical tool calls (0 when it has none). */
  toolRepeat: number;
  /** Tool errors of the newest exchange not seen anywhere in the ring buffer. */
  newErrors: number;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

function norm(a: Float32Array): number {
  return Math.sqrt(dot(a, a));
}

/** Mean and smallest pairwise dot product of unit vectors; null when fewer than 2 or any is missing. */
export function pairwise(vs: readonly (Float32Array | null)[]): { mean: number; min: number } | null {
  if (vs.length < 2 || vs.some((v) => v === null)) return null;
  let s = 0;
  let n = 0;
  let min = Infinity;
  for (let i = 0; i < vs.length; i++)
    for (let j = i + 1; j < vs.length; j++) {
      const d = dot(vs[i]!, vs[j]!);
      s += d;
      n++;
      if (d < min) min = d;
    }
  return { mean: s / n, min };
}

/** |A∩B| / √(|A|·|B|) of two sets (0 when either is empty). */
export function setCosine(a: ReadonlySet<number>, b: ReadonlySet<number>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let inter = 0;
  for (const x of a) if (b.has(x)) inter++;
  return inter / Math.sqrt(a.size * b.size);
}

/**
 * The drift block comparison: the newest exchange against the prompts of the last
 * DRIFT_WINDOW ring entries (their whole exchange when a prompt is missing). The vector part
 * is the mean of dot products with unit vectors — an affine function of cosines, so the
 * robust z over the session's history is the same under any model's cosine scale.
 */
function driftBlock(ring: readonly RingEntry[], newest: ExchangeFeatures): { affinity: number; cohesion: number } | null {
  const left = ring.slice(-DRIFT_WINDOW);
  if (left.length === 0) return null;
  let s = 0;
  const words = new Set<number>();
  for (const e of left) {
    s += dot(newest.vec, e.userVec ?? e.vec);
    for (const t of e.userVec ? e.userTokens : e.tokens) words.add(t);
  }
  return { affinity: s / left.length, cohesion: setCosine(new Set(newest.tokens), words) };
}

function toolRepeatRun(ring: readonly RingEntry[], newest: ExchangeFeatures): number {
  if (newest.toolSigs.length === 0) return 0;
  let run = 1;
  for (let i = ring.length - 1; i >= 0; i--) {
    if (jaccard(ring[i].toolSigs, newest.toolSigs) < TOOL_REPEAT_JACCARD) break;
    run++;
  }
  return run;
}

/** Measure the newest exchange against the state as it was before it (the state is not changed). */
export function measureExchange(state: SessionState, newest: ExchangeFeatures, stallWindow: number): Measures {
  const ring = state.ring;
  let cosToAnchor: number | null = null;
  if (state.anchor) {
    const n = norm(state.anchor);
    cosToAnchor = n > 0 ? dot(newest.vec, state.anchor) / n : null;
  }
  const block = driftBlock(ring, newest);

  let novelty: number | null = null;
  const recent = ring.slice(-COHESION_WINDOW);
  if (newest.tokens.length > 0 && recent.length > 0) {
    const seen = new Set<number>();
    for (const e of recent) for (const t of e.tokens) seen.add(t);
    let fresh = 0;
    for (const t of newest.tokens) if (!seen.has(t)) fresh++;
    novelty = fresh / newest.tokens.length;
  }

  const win = ring.slice(-(stallWindow - 1));
  const full = win.length === stallWindow - 1;
  const whole = full ? pairwise([...win.map((e) => e.vec), newest.vec]) : null;
  const userSim = full ? (pairwise([...win.map((e) => e.userVec), newest.userVec])?.min ?? null) : null;
  const assistantSim = full ? (pairwise([...win.map((e) => e.assistantVec), newest.assistantVec])?.min ?? null) : null;

  let newErrors = 0;
  if (newest.errorSigs.length > 0) {
    const seen = new Set<number>();
    for (const e of ring) for (const s of e.errorSigs) seen.add(s);
    for (const s of newest.errorSigs) if (!seen.has(s)) newErrors++;
  }

  const followsQuestion = newest.followsQuestion ?? ring[ring.length - 1]?.replyAsks ?? false;

  return { affinity: block?.affinity ?? null, cohesion: block?.cohesion ?? null, asks: newest.asks, followsQuestion, cosToAnchor, novelty, windowSim: whole?.min ?? null, windowMeanSim: whole?.mean ?? null, userSim, assistantSim, toolRepeat: toolRepeatRun(ring, newest), newErrors };
}
