/**
 * Contracts shared by the daemon, the hook, the CLI and replay. Types only (no runtime
 * code), so the hook bundle stays tiny; the vocabularies are in shared/vocabulary.ts.
 * JSON Schemas for the files in logs-schema/.
 */

import type { Channel, ModeState, OfferType, TriggerKind } from './vocabulary.js';
export type { Channel, ModeState, OfferType, TriggerKind } from './vocabulary.js';

/** One exchange: a user prompt and the assistant's reply to it (transcript/exchanges.ts). */
export interface Exchange {
  sessionId: string;
  /** uuid of the user prompt record that opened the exchange. */
  uuid: string;
  /** 0-based exchange index within the session. */
  index: number;
  /** Byte offset of the first line / just past the last line of this exchange in its file. */
  startOffset: number;
  endOffset: number;
  /** Epoch ms of the prompt record (transcript timestamp; Date.now() when absent). */
  timestamp: number;
  cwd: string | null;
  gitBranch: string | null;
  /** From transcript `entrypoint` when present (e.g. `cli`, `sdk-cli`). */
  entrypoint: string | null;
  isSidechain: boolean;
  /** The human's prompt text (tool results excluded, system reminders stripped). */
  user: string;
  /** The assistant's visible text. */
  assistant: string;
  /** Tool calls, each summarised as `Name: short input`. */
  toolCalls: string[];
  /** Error texts from tool results flagged as errors (or clearly failing output). */
  toolErrors: string[];
  /** True once any assistant record was seen for this exchange. */
  assistantVisible: boolean;
  /** True when the prompt was injected (meta / command / task notification), not typed. */
  injected: boolean;
}

/** What the daemon offers: one chunk, a type, a confidence and a one-line reason. */
export interface Offer {
  /** Unique id of this offer (for labels and recall tracking). */
  id: string;
  chunkId: number;
  /** Stable recall handle: `<region>/<relative path>#<ordinal>`. */
  handle: string;
  type: OfferType;
  /** 0–1; see docs/OFFERS.md for how it is computed. */
  confidence: number;
  /** One line, already escaped; the hook escapes again. */
  reason: string;
  region: string;
  /** True when the chunk came from the wander step. */
  wildcard: boolean;
  /** Which trigger produced it. */
  trigger: TriggerKind;
  /** Whether the reasoner phrased it. */
  reasoned: boolean;
}

/** <home>/cache/<session>.json — written atomically by the daemon, read by the hook. */
export interface OfferCache {
  version: 1;
  sessionId: string;
  /** Mode name and its state at computation time. */
  mode: string;
  /** Exchange index and transcript byte offset this was computed for. */
  turn: number;
  transcriptOffset: number;
  transcriptPath: string;
  exchangeUuid: string;
  createdAt: number;
  expiresAt: number;
  /** null = the daemon decided on silence for this turn. */
  offer: Offer | null;
}

/** <home>/hook-settings.json — precomputed by the daemon/CLI so the hook never parses config. */
export interface HookSettings {
  version: 1;
  transcriptsRoot: string;
  deadlineMs: number;
  maxBytes: number;
  tokenCeiling: number;
  maxLagBytes: number;
  workers: { cwdGlobs: string[]; envMarker: string };
  modes: Array<{
    name: string;
    state: ModeState;
    cwdGlobs: string[];
    minConfidence: number;
    sessionBudget: number;
    minGapTurns: number;
    minGapSeconds: number;
  }>;
}

/** <home>/hook-state/<session>.json — the hook's own per-session memory. */
export interface HookState {
  version: 1;
  sessionId: string;
  /** Prompts seen by the hook in this session. */
  turns: number;
  /** Offers printed (live) in this session. */
  shown: number;
  lastShownTurn: number | null;
  lastShownAt: number | null;
  /** Offer ids already printed or would-fire logged: never twice. */
  seenOfferIds: string[];
  /** Handles already shown: the same chunk is never shown twice in a session, even under a
   *  new offer id. Optional: state files written before it existed stay valid. */
  seenHandles?: string[];
}

/** <home>/canary.json — rewritten every daemon cycle. */
export interface Canary {
  version: 1;
  pid: number;
  startedAt: number;
  cycles: number;
  lastCycleAt: number;
  cycleMs: number;
  sessionsWatched: number;
  killed: boolean;
  lastError: string | null;
}
