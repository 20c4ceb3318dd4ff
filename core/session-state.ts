/**
 * Per-session state for the triggers: an EWMA centroid of exchange vectors, a ring buffer of
 * the last N exchanges (whole / user-side / assistant-side vectors kept apart, plus lexical
 * hashes), the session's own history of trigger measurements (its calibration), cooldown
 * bookkeeping and the FIFO of chunk ids already offered. Plain data + functions; the daemon
 * pipeline (core/pipeline.ts), replay and the evals (eval/drift.ts, eval/stall.ts) feed it
 * exchange features built by core/exchange-features.ts. Bounded in size; serializable
 * (toJSON/fromJSON) with numbers and hashes only, never conversation text.
 *
 * Two EWMAs `c ← α·v + (1−α)·c`, both stored *unnormalized* (seeded with the first vector,
 * their weights sum to 1), so `v·c` is an EWMA-weighted mean cosine of v to the past — an
 * affine function of cosines, which keeps trigger decisions invariant to a model's cosine
 * scale. `centroid` (session.alpha) averages whole exchanges: what the session is about,
 * `centroidUnit()` gives its direction for retrieval. `anchor` (session.anchorAlpha) averages
 * the user side (the prompts; the whole exchange when there is no user text): what the human
 * was recently asking about; it is logged (drift.cos) but no longer decides drift — the drift
 * trigger compares the newest exchange with the prompts of the last few ring entries
 * (core/trigger-measures.ts, docs/TRIGGERS.md).
 */
import type { Measures } from './trigger-measures.js';

/** What the caller knows about one exchange (vectors are unit length; see exchange-features.ts). */
export interface ExchangeFeatures {
  /** Embedding of the whole exchange (prompt + reply, tool noise reduced). */
  vec: Float32Array;
  /** Embedding of the human's prompt; null when there is no human text (e.g. agent steps). */
  userVec: Float32Array | null;
  /** Embedding of the assistant side; null when no assistant text is visible. */
  assistantVec: Float32Array | null;
  /** Content-token hashes of the exchange text (core/lexical.ts). */
  tokens: number[];
  /** Content-token hashes of the human's prompt alone (the left block of the drift window). */
  userTokens: number[];
  /** Normalized tool-call signature hashes. */
  toolSigs: number[];
  /** Tool-error signature hashes. */
  errorSigs: number[];
  /** Whether any assistant record was visible for this exchange. */
  assistantVisible: boolean;
  /** The prompt asks a question (core/dialogue-cues.ts): a drift cue. */
  asks: boolean;
  /** The reply ends by asking the human something: the next prompt answers it. */
  replyAsks: boolean;
  /** The other side's last words before this prompt asked a question. Absent: taken from the
   *  previous exchange's `replyAsks` (the daemon); datasets whose exchanges overlap (TIAGE,
   *  eval/drift.ts) say it themselves. */
  followsQuestion?: boolean;
  /** Epoch ms of the exchange. */
  timestamp: number;
}

/** One exchange as kept in the ring buffer: its index and the features the triggers read
 *  again (replyAsks: the reply ended by asking the human something). */
export type RingEntry = { turn: number } & Pick<ExchangeFeatures, 'vec' | 'userVec' | 'assistantVec' | 'tokens' | 'userTokens' | 'toolSigs' | 'errorSigs' | 'replyAsks'>;

/** The session's own history of measurements (oldest first, bounded): its calibration. */
export interface Calibration {
  /** Mean cosine of each exchange to the prompts of the drift window before it. */
  affinity: number[];
  /** Lexical cohesion (set cosine of content words) of each exchange with the same prompts. */
  cohesion: number[];
  /** Smallest pairwise cosine of the stall window ending at each exchange. */
  windowSim: number[];
  /** The same, user side only / assistant side only (flow-repair guard). */
  userSim: number[];
  assistantSim: number[];
}

export interface SessionState {
  sessionId: string;
  /** Vector dimension (fixed by the first exchange; a mismatch is an error). */
  dim: number | null;
  /** Exchanges recorded so far (the next exchange's 0-based turn index). */
  turns: number;
  /** Unnormalized EWMA of exchange vectors (weights sum to 1); null before the first exchange. */
  centroid: Float32Array | null;
  /** Unnormalized EWMA of user-side vectors (whole vector when none): the prompt anchor (logged as drift.cos). */
  anchor: Float32Array | null;
  /** The last `session.historySize` exchanges, oldest first. */
  ring: RingEntry[];
  calibration: Calibration;
  /** Exchanges with visible assistant text. */
  assistantSeen: number;
  /** Turn and epoch ms of the last candidate build (cooldown); null when none yet. */
  lastBuildTurn: number | null;
  lastBuildAt: number | null;
  /** Chunk ids offered (or would-fire offered) recently, oldest first (bounded FIFO). */
  offered: number[];
}

/** The `session` config section this module reads. */
export interface SessionConfig {
  alpha: number;
  anchorAlpha: number;
  historySize: number;
  calibrationSize: number;
  warmupExchanges: number;
  cooldownTurns: number;
  cooldownSeconds: number;
}

export function createSessionState(sessionId: string): SessionState {
  return {
    sessionId,
    dim: null,
    turns: 0,
    centroid: null,
    anchor: null,
    ring: [],
    calibration: { affinity: [], cohesion: [], windowSim: [], userSim: [], assistantSim: [] },
    assistantSeen: 0,
    lastBuildTurn: null,
    lastBuildAt: null,
    offered: [],
  };
}

/** True when no exchange of this session so far showed assistant text (and there was one). */
export function isPromptOnly(state: SessionState): boolean {
  return state.turns > 0 && state.assistantSeen === 0;
}

/** The centroid as a unit vector (for retrieval queries); null before the first exchange. */
export function centroidUnit(state: SessionState): Float32Array | null {
  if (!state.centroid) return null;
  let n = 0;
  for (const x of state.centroid) n += x * x;
  n = Math.sqrt(n);
  const out = new Float32Array(state.centroid.length);
  if (n === 0) return out;
  for (let i = 0; i < out.length; i++) out[i] = state.centroid[i] / n;
  return out;
}

function pushBounded(xs: number[], x: number | null, max: number): void {
  if (x === null || !Number.isFinite(x)) return;
  xs.push(x);
  if (xs.length > max) xs.splice(0, xs.length - max);
}

function ewma(c: Float32Array | null, v: Float32Array, alpha: number): Float32Array {
  if (!c) return Float32Array.from(v);
  for (let i = 0; i < c.length; i++) c[i] = alpha * v[i] + (1 - alpha) * c[i];
  return c;
}

/**
 * Add one exchange: record its measurements (from evaluateTriggers(...).measures or
 * measureExchange()) into the calibration, then update the centroid and the ring buffer.
 * Throws when the vector dimension differs from the session's.
 */
export function recordExchange(state: SessionState, f: ExchangeFeatures, m: Measures, cfg: SessionConfig): void {
  const dim = f.vec.length;
  if (state.dim === null) state.dim = dim;
  else if (state.dim !== dim) throw new Error(`session ${state.sessionId}: vector dimension ${dim} ≠ ${state.dim}`);
  const cal = state.calibration;
  pushBounded(cal.affinity, m.affinity, cfg.calibrationSize);
  pushBounded(cal.cohesion, m.cohesion, cfg.calibrationSize);
  pushBounded(cal.windowSim, m.windowSim, cfg.calibrationSize);
  pushBounded(cal.userSim, m.userSim, cfg.calibrationSize);
  pushBounded(cal.assistantSim, m.assistantSim, cfg.calibrationSize);

  state.centroid = ewma(state.centroid, f.vec, cfg.alpha);
  state.anchor = ewma(state.anchor, f.userVec ?? f.vec, cfg.anchorAlpha);

  state.ring.push({
    turn: state.turns,
    vec: f.vec,
    userVec: f.userVec,
    assistantVec: f.assistantVec,
    tokens: f.tokens,
    userTokens: f.userTokens,
    toolSigs: f.toolSigs,
    errorSigs: f.errorSigs,
    replyAsks: f.replyAsks,
  });
  if (state.ring.length > cfg.historySize) state.ring.splice(0, state.ring.length - cfg.historySize);
  if (f.assistantVisible) state.assistantSeen++;
  state.turns++;
}

/** Note a candidate build at the last recorded turn (starts the cooldown). */
export function markBuild(state: SessionState, atMs: number, turn: number = state.turns - 1): void {
  state.lastBuildTurn = turn;
  state.lastBuildAt = atMs;
}

/** Remember offered chunk ids (FIFO of at most `window` ids; 0 keeps none). */
export function rememberOffered(state: SessionState, chunkIds: readonly number[], window: number): void {
  for (const id of chunkIds) {
    const at = state.offered.indexOf(id);
    if (at >= 0) state.offered.splice(at, 1);
    state.offered.push(id);
  }
  if (state.offered.length > window) state.offered.splice(0, state.offered.length - window);
}

// ---------- serialization ----------

interface RingEntryJson {
  turn: number;
  vec: number[];
  userVec: number[] | null;
  assistantVec: number[] | null;
  tokens: number[];
  userTokens?: number[];
  toolSigs: number[];
  errorSigs: number[];
  replyAsks?: boolean;
}

export interface SessionStateJson extends Omit<SessionState, 'centroid' | 'anchor' | 'ring'> {
  version: 1;
  centroid: number[] | null;
  anchor: number[] | null;
  ring: RingEntryJson[];
}

const arr = (v: Float32Array | null): number[] | null => (v ? Array.from(v) : null);

export function toJSON(state: SessionState): SessionStateJson {
  return {
    version: 1,
    sessionId: state.sessionId,
    dim: state.dim,
    turns: state.turns,
    centroid: arr(state.centroid),
    anchor: arr(state.anchor),
    ring: state.ring.map((e) => ({ ...e, vec: Array.from(e.vec), userVec: arr(e.userVec), assistantVec: arr(e.assistantVec) })),
    calibration: {
      affinity: [...state.calibration.affinity],
      cohesion: [...state.calibration.cohesion],
      windowSim: [...state.calibration.windowSim],
      userSim: [...state.calibration.userSim],
      assistantSim: [...state.calibration.assistantSim],
    },
    assistantSeen: state.assistantSeen,
    lastBuildTurn: state.lastBuildTurn,
    lastBuildAt: state.lastBuildAt,
    offered: [...state.offered],
  };
}

function isNumArray(x: unknown): x is number[] {
  return Array.isArray(x) && x.every((n) => typeof n === 'number' && Number.isFinite(n));
}
function vecOrNull(x: unknown, dim: number | null, what: string): Float32Array | null {
  if (x === null) return null;
  if (!isNumArray(x) || (dim !== null && x.length !== dim)) throw new Error(`session state: bad ${what}`);
  return Float32Array.from(x);
}
function intOrNull(x: unknown, what: string): number | null {
  if (x === null) return null;
  if (typeof x !== 'number' || !Number.isFinite(x)) throw new Error(`session state: bad ${what}`);
  return x;
}

/** Parse a persisted state; throws (with the bad field named) on anything malformed. */
export function fromJSON(raw: unknown): SessionState {
  const o = raw as Partial<SessionStateJson> | null;
  if (!o || typeof o !== 'object' || o.version !== 1) throw new Error('session state: unknown version');
  if (typeof o.sessionId !== 'string') throw new Error('session state: bad sessionId');
  const dim = intOrNull(o.dim ?? null, 'dim');
  if (typeof o.turns !== 'number' || !Number.isInteger(o.turns) || o.turns < 0) throw new Error('session state: bad turns');
  const c = o.calibration;
  if (!c || !['affinity', 'windowSim', 'userSim', 'assistantSim'].every((k) => isNumArray((c as unknown as Record<string, unknown>)[k])))
    throw new Error('session state: bad calibration');
  // `cohesion` is newer than the first persisted states: absent → an empty history (it refills).
  const cohesion = (c as unknown as Record<string, unknown>).cohesion;
  if (cohesion !== undefined && !isNumArray(cohesion)) throw new Error('session state: bad calibration');
  if (!Array.isArray(o.ring)) throw new Error('session state: bad ring');
  const ring: RingEntry[] = o.ring.map((e, i) => {
    if (!e || typeof e.turn !== 'number' || !isNumArray(e.tokens) || !isNumArray(e.toolSigs) || !isNumArray(e.errorSigs))
      throw new Error(`session state: bad ring entry ${i}`);
    return {
      turn: e.turn,
      vec: vecOrNull(e.vec, dim, `ring[${i}].vec`) ?? (() => { throw new Error(`session state: bad ring[${i}].vec`); })(),
      userVec: vecOrNull(e.userVec ?? null, dim, `ring[${i}].userVec`),
      assistantVec: vecOrNull(e.assistantVec ?? null, dim, `ring[${i}].assistantVec`),
      tokens: [...e.tokens],
      userTokens: e.userTokens === undefined ? [...e.tokens] : isNumArray(e.userTokens) ? [...e.userTokens] : (() => { throw new Error(`session state: bad ring[${i}].userTokens`); })(),
      toolSigs: [...e.toolSigs],
      errorSigs: [...e.errorSigs],
      // newer than the first persisted states: absent → false (no cue)
      replyAsks: e.replyAsks === undefined ? false : typeof e.replyAsks === 'boolean' ? e.replyAsks : (() => { throw new Error(`session state: bad ring[${i}].replyAsks`); })(),
    };
  });
  if (!isNumArray(o.offered)) throw new Error('session state: bad offered');
  return {
    sessionId: o.sessionId,
    dim,
    turns: o.turns,
    centroid: vecOrNull(o.centroid ?? null, dim, 'centroid'),
    anchor: vecOrNull(o.anchor ?? null, dim, 'anchor'),
    ring,
    calibration: {
      affinity: [...c.affinity],
      cohesion: cohesion === undefined ? [] : [...cohesion],
      windowSim: [...c.windowSim],
      userSim: [...c.userSim],
      assistantSim: [...c.assistantSim],
    },
    assistantSeen: intOrNull(o.assistantSeen ?? 0, 'assistantSeen') ?? 0,
    lastBuildTurn: intOrNull(o.lastBuildTurn ?? null, 'lastBuildTurn'),
    lastBuildAt: intOrNull(o.lastBuildAt ?? null, 'lastBuildAt'),
    offered: [...o.offered],
  };
}
