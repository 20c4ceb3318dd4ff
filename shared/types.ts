/**
 * Contracts shared by the daemon, the hook, the CLI and replay. Types only (no runtime
 * code), so the hook bundle stays tiny; the vocabularies are in shared/vocabulary.ts.
 * JSON Schemas for the files in logs-schema/.
 */

import type { Channel, ModeState, OfferType, TriggerKind } from './vocabulary.js';
import type { UnattendedPolicy } from './workers.js';
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
  /** Where it is shown (absent: the prompt channel). */
  channel?: Channel;
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
  /** Codex CLI's rollouts root: a Codex payload's transcript_path must lie under it.
   *  Optional: settings written before Codex support stay valid (a Codex transcript is then
   *  untrusted, as any path outside the roots). */
  codexSessionsRoot?: string;
  deadlineMs: number;
  maxBytes: number;
  tokenCeiling: number;
  maxLagBytes: number;
  /** The worker rule (shared/workers.ts). `entrypoints` / `unattended` are optional: settings
   *  written before them read as the defaults (sdk-cli, sdk-ts, sdk-py; unattended = worker). */
  workers: { cwdGlobs: string[]; envMarker: string; entrypoints?: string[]; unattended?: UnattendedPolicy };
  /** A tool-channel cache (ToolCache) older than this is stale (ms). Optional: settings
   *  written before the tool channel existed stay valid (the tool channel is then silent). */
  toolCacheTtlMs?: number;
  modes: Array<{
    name: string;
    /** The prompt channel's rollout state (and the mode's, for older readers). */
    state: ModeState;
    cwdGlobs: string[];
    minConfidence: number;
    sessionBudget: number;
    minGapTurns: number;
    minGapSeconds: number;
    /** The tool channel (PostToolUseFailure / PostToolUse). Absent: the tool channel is off. */
    tool?: ToolChannelSettings;
  }>;
}

/** A mode's tool channel, as the hook sees it (config/schema.ts ModeSchema.tool). */
export interface ToolChannelSettings {
  state: ModeState;
  minConfidence: number;
  /** At most this many tool-channel offers per session. */
  sessionBudget: number;
  /** At least this many tool events (as the hook counts them) between two tool offers. */
  minGapSteps: number;
  minGapSeconds: number;
}

/** One precomputed Past fix: a resolved episode of a past session (core/fixes.ts). */
export interface FixOffer {
  /** The offer as the hook would show it (id deterministic: `fix-<sig>-<chunkId>`). */
  offer: Offer;
  /** Session the episode came from: never offered back to that same session. */
  sourceSession: string;
  /** The source session's lineage (itself and every session sharing message uuids with it:
   *  resumed / forked copies), when it has other members: never offered to any of them. */
  sourceSessions?: string[];
  /** Scope of the episode's region (`global` or `project:<glob>`), checked against the cwd. */
  scope: string;
  /** Where the fix ran when it moved to another directory (its last segment: `api-gateway`;
   *  shared/fix-place.ts): offered only to a session that works there. Absent: anywhere. */
  where?: string;
  /** The files the fix only edited (their last segments; shared/fix-place.ts fixEdits): offered
   *  only at an error that names one of them. Absent: the fix does more than edit. */
  edits?: string[];
  /** The files the fix names that are its task's own (their last segments; shared/task-files.ts):
   *  offered only at a failure whose error or command names one of them (rule task-files).
   *  Absent: it names none, or it moved to another folder. */
  files?: string[];
  /** The action keys of the call that failed there (shared/command-keys.ts actionKeys: `git
   *  add`, `git commit -m`): among the fixes the hook may show, one met at the same action as
   *  the failing call at hand comes first. Absent: not a shell call, or written before. */
  actions?: string[];
  /** The tool whose call failed there (`Bash`, `Glob`): offered only at a failure of the same
   *  tool (rule same-program). Absent: a note, or written before. */
  tool?: string;
}

/** <home>/fixes/<sig>.json — written atomically by the daemon from the store's resolved
 *  episodes (daemon/fixes-writer.ts), read by the hook at a failure with this signature. */
export interface FixFile {
  version: 1;
  sig: string;
  /** Store fingerprint it was computed from (the set is rebuilt when the store changes). */
  storeStamp: string;
  createdAt: number;
  /** Best first. */
  fixes: FixOffer[];
}

/** <home>/cache/<session>.tool.json — the daemon's decision on the newest tool step of a
 *  session it read from the transcript (near-match Past fix, loop stall): the hook shows it
 *  at the next tool event of that session (the transcript lags the hook). */
export interface ToolCache {
  version: 1;
  sessionId: string;
  mode: string;
  /** Main-lane tool-call ordinal and id the decision was made at. */
  step: number;
  toolUseId: string | null;
  /** Signature of that step's error (null for a loop on successful calls). */
  sig: string | null;
  createdAt: number;
  expiresAt: number;
  offer: Offer | null;
}

/** <home>/cache/<session>.lineage.json — the sessions the daemon found sharing this session's
 *  message uuids (a resumed, forked, continued or compacted copy: store/lineage-sql.ts), written
 *  by core/publish.ts publishLineage when that set grows. The hook reads it at a failure that
 *  has a fix: a fix from one of these sessions is the session's own past, never a Past fix.
 *  No expiry: a lineage never stops being true. */
export interface LineageCache {
  version: 1;
  sessionId: string;
  /** Other sessions of the lineage, sorted (never the session itself). */
  sessions: string[];
  createdAt: number;
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
  /** The tool channel's own counts (optional: older state files stay valid). The offer ids
   *  and handles above are shared by both channels: a chunk shown at a failure is not shown
   *  again at the next prompt. */
  tool?: HookToolState;
}

export interface HookToolState {
  /** Tool events (PostToolUseFailure / PostToolUse) seen by the hook in this session. */
  steps: number;
  shown: number;
  lastShownStep: number | null;
  lastShownAt: number | null;
  /** Signature of the error the last tool offer was shown at (the seconds gap holds for it
   *  only); absent in state files written before it was kept: the gap holds for any error. */
  lastShownSig?: string | null;
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
  /** Only with an embedding server (embedding.url): whether it answers (embed/resilient.ts). */
  embedder?: EmbedderHealth;
  /** The store as the daemon last saw it (daemon/store-health.ts); absent until it was opened or lost. */
  store?: StoreHealth;
  /** The daemon's own index schedule (indexer.schedule = "daemon", daemon/index-schedule.ts);
   *  absent when the service manager's timer runs it. */
  indexSchedule?: IndexScheduleState;
}

/** The daemon's own index schedule, as the canary carries it. */
export interface IndexScheduleState {
  intervalMinutes: number;
  /** When the last run started (ms epoch; from logs/index.jsonl before this daemon's first). */
  lastRunAt: number | null;
  /** When the next run is due (ms epoch); null while one runs. */
  nextRunAt: number | null;
  /** The run under way, if any. */
  runningPid: number | null;
  /** Exit code of this daemon's last run (null: none yet, or ended by a signal). */
  lastExit: number | null;
}

/** The daemon's store: `down` while its server cannot be reached (the daemon reconnects with
 *  backoff, decisions are silent `store-down` meanwhile). Written in the canary, shown by `status`. */
export interface StoreHealth {
  state: 'ok' | 'down';
  /** The store location (a URL without its password). */
  location: string;
  /** When the state last changed (ms epoch). */
  since: number;
  /** Why it is down (the last error), null when ok. */
  message: string | null;
  /** Failed reconnect attempts since it was lost. */
  failures: number;
  /** When the next reconnect attempt is due (ms epoch), null when ok. */
  nextRetryAt: number | null;
}

/** The daemon's embedding server as it last saw it. Written in the canary, shown by `status`. */
export interface EmbedderHealth {
  /** ok: it answers. unavailable: down, too slow, refusing the key, answering garbage or
   *  with another dimension; decisions are silent (`embedder-unavailable`) meanwhile. */
  state: 'ok' | 'unavailable';
  /** The embeddings endpoint. */
  url: string;
  /** When the state last changed (ms epoch). */
  since: number;
  /** Why it is unavailable (what to do), null when ok. */
  message: string | null;
  /** Failed connection attempts since it last answered. */
  failures: number;
  /** When the next attempt is due (ms epoch), null when ok. */
  nextRetryAt: number | null;
}
