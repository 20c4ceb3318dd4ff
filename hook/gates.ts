/**
 * The hook's decisions, as pure functions: the prelude shared by both channels and the
 * prompt channel's gates (the tool channel's are in hook/tool-gates.ts). Input: the parsed
 * payload, the hook settings, this session's offer cache and hook state, the clock, the
 * environment and a few file facts that hook/main.ts gathered (kill file, stdin status,
 * transcript size). Output: print / silent / would-fire with a reason code and the line.
 *
 * Order (../shared/DESIGN.md "The hook"), each failing to silence:
 *   kill file → settings → stdin → payload → event (→ channel) → worker refusal (the one rule
 *   of shared/workers.ts: sidechain, subagent, own home, env marker, cwd glob, entrypoint,
 *   unattended — from the host's environment and the payload, never the transcript) →
 *   mode → the channel's state off → state → cache → stale → confidence → session budget →
 *   minimum gap (repeat, turns, seconds) → byte cap / token ceiling → deadline →
 *   soak (would-fire) → print.
 *
 * Every gate is one line ending in `// gate:<name>`; scripts/check-gates.mjs disables each
 * in turn and checks that some test fails.
 */
import type { Channel, HookSettings, HookState, HookToolState, ModeState, Offer, OfferCache, OfferType } from '../shared/types.js';
import { modeFor } from '../shared/modes.js';
import { homeDir, safeSessionId } from '../shared/paths.js';
import { hookFacts, workerReason } from '../shared/workers.js';
import { formatOfferLine } from '../shared/offer-format.js';
import { EVENT_CHANNEL, HOOK_EVENTS, OFFER_TYPES, isOneOf, type HookEvent } from '../shared/vocabulary.js';
import { isObj } from '../shared/json-object.js';

export type Outcome = 'print' | 'silent' | 'would-fire';

/** Every reason code the hook logs (logs-schema/hook-record.schema.json lists the same). */
export const REASONS = [
  'printed', 'would-fire',
  'killed', 'settings-invalid', 'stdin-too-large', 'stdin-timeout', 'bad-payload', 'wrong-event',
  // one per worker reason (shared/workers.ts WORKER_REASONS), as the daemon logs them
  'worker-sidechain', 'worker-subagent', 'worker-active-brain-home', 'worker-env-marker', 'worker-cwd-glob',
  'worker-entrypoint', 'worker-unattended',
  'no-mode', 'mode-off',
  'state-locked', 'state-invalid', 'no-cache', 'cache-invalid', 'no-offer',
  'stale-session', 'stale-expired', 'transcript-untrusted', 'stale-lag',
  'low-confidence', 'budget', 'repeat', 'gap-turns', 'gap-seconds', 'byte-cap', 'token-ceiling',
  'deadline', 'error',
  // the tool channel (hook/tool-gates.ts)
  'interrupted', 'no-error', 'fixes-invalid', 'own-session', 'out-of-scope', 'elsewhere', 'no-fix', 'other-error', 'gap-steps', 'generic-error', 'other-program',
] as const;
export type Reason = (typeof REASONS)[number];

export type HookMode = HookSettings['modes'][number];

/** The fields of the Claude Code hook payloads the hook uses (the prompt is never read).
 *  Tool events add tool_name, tool_input (only a Bash call's `command`, for its action keys), tool_use_id, and `error` +
 *  `is_interrupt` (PostToolUseFailure) or `tool_response` (PostToolUse). */
export interface HookPayload {
  session_id: string;
  transcript_path?: string;
  cwd?: string;
  hook_event_name?: string;
  agent_id?: string;
  agent_type?: string;
  tool_name?: unknown;
  tool_use_id?: unknown;
  error?: unknown;
  is_interrupt?: unknown;
  tool_response?: unknown;
}

export type StdinStatus = 'ok' | 'too-large' | 'timeout';

/** What main.ts found on disk about the payload's transcript. */
export type TranscriptFacts =
  | { status: 'ok'; size: number }
  | { status: 'untrusted' | 'missing' | 'absent' };

export interface PreludeInput {
  /** Parsed stdin JSON (undefined when it did not parse). */
  payload: unknown;
  stdin: StdinStatus;
  settings: HookSettings | null;
  env: Readonly<Record<string, string | undefined>>;
  killed: boolean;
  /** The state dir (the worker rule's own home); default homeDir(env). */
  home?: string;
}

export interface OfferInput {
  sessionId: string;
  mode: HookMode;
  settings: HookSettings;
  /** null = no state file yet; 'invalid' = it exists but does not parse. */
  state: HookState | null | 'invalid';
  /** Parsed cache JSON; undefined = no cache file; 'invalid' = unreadable or not JSON. */
  cache: unknown;
  transcript: TranscriptFacts;
  now: number;
  /** True when the hook's own deadline has passed. */
  pastDeadline: boolean;
}

export interface Decision {
  outcome: Outcome;
  reason: Reason;
  sessionId: string | null;
  mode: string | null;
  /** The rollout state of the channel that decided (the mode's `state` or `tool.state`). */
  modeState: ModeState | null;
  /** Which channel and event (known once the payload names one the hook answers). */
  channel?: Channel;
  event?: HookEvent;
  /** This prompt's number in the session (set once the state was read). */
  turn?: number;
  /** Tool channel: this tool event's number in the session, as the hook counts them. */
  step?: number;
  /** Tool channel: the error's signature, the payload's tool_use_id (when id-shaped). */
  sig?: string;
  toolUseId?: string;
  /** Tool channel: where the offer came from (the fixes file or the session's tool cache). */
  source?: 'fixes' | 'tool-cache';
  offer?: Pick<Offer, 'id' | 'handle' | 'type' | 'confidence'>;
  text?: string;
  bytes?: number;
}

export type Prelude =
  | { done: Decision }
  | { done: null; sessionId: string; mode: HookMode; payload: HookPayload; event: HookEvent; channel: Channel; modeState: ModeState };

const isFiniteNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const optStr = (v: unknown) => v === undefined || v === null || typeof v === 'string';

/** The payload, if it is a usable hook payload object; null otherwise. */
export function parsePayload(v: unknown): HookPayload | null {
  if (!isObj(v) || typeof v.session_id !== 'string') return null;
  if (!optStr(v.transcript_path) || !optStr(v.cwd) || !optStr(v.hook_event_name)) return null;
  return v as unknown as HookPayload;
}

/** An offer as the hook needs it: id, handle, a known type, confidence in [0, 1], a reason. */
export function isValidOffer(o: unknown): o is Offer {
  if (!isObj(o) || typeof o.id !== 'string' || !o.id || typeof o.handle !== 'string' || !o.handle) return false;
  if (!OFFER_TYPES.includes(o.type as OfferType) || !isFiniteNum(o.confidence) || typeof o.reason !== 'string') return false;
  return o.confidence >= 0 && o.confidence <= 1;
}

/** The cache, if it has the OfferCache shape (offer may be null); null otherwise. */
export function parseCache(v: unknown): OfferCache | null {
  if (!isObj(v) || v.version !== 1 || typeof v.sessionId !== 'string') return null;
  if (!isFiniteNum(v.transcriptOffset) || !isFiniteNum(v.expiresAt) || !isFiniteNum(v.createdAt) || !isFiniteNum(v.turn)) return null;
  if (v.offer !== null && !isValidOffer(v.offer)) return null;
  return v as unknown as OfferCache;
}

/** The event a raw payload names, when it is one the hook answers (absent: UserPromptSubmit,
 *  as before tool events existed); null for any other value. For logging and the event gate. */
export function eventOf(payload: unknown): HookEvent | null {
  if (!isObj(payload)) return null;
  const e = payload.hook_event_name;
  if (e === undefined || e === null) return 'UserPromptSubmit';
  return isOneOf(HOOK_EVENTS, e) ? e : null;
}

function silent(reason: Reason, base: Partial<Decision> = {}): Decision {
  return { sessionId: null, mode: null, modeState: null, ...base, outcome: 'silent', reason };
}

/** Gates that need no file of the session: kill, settings, payload, worker refusal, mode. */
export function prelude(input: PreludeInput): Prelude {
  const { settings, env } = input;
  // Channel and event, when the payload names one the hook answers: logged from the first gate on.
  const named = eventOf(input.payload);
  const early: Partial<Decision> = named ? { channel: EVENT_CHANNEL[named], event: named } : {};
  if (input.killed) return { done: silent('killed', early) }; // gate:kill
  if (!settings) return { done: silent('settings-invalid', early) }; // gate:settings
  if (input.stdin !== 'ok') return { done: silent(input.stdin === 'timeout' ? 'stdin-timeout' : 'stdin-too-large') }; // gate:stdin
  const payload = parsePayload(input.payload);
  const sessionId = payload ? safeSessionId(payload.session_id) : null;
  if (!payload || !sessionId) return { done: silent('bad-payload', early) }; // gate:payload
  const event = named;
  if (!event) return { done: silent('wrong-event', { sessionId }) }; // gate:event
  const channel = EVENT_CHANNEL[event];
  const base = { sessionId, channel, event };
  // The one worker rule (shared/workers.ts), on the facts of the host's environment and the
  // payload; one gate per reason, each the twin of the daemon's `worker-<reason>` silence.
  const worker = workerReason(hookFacts(payload as unknown as Record<string, unknown>, env, settings.workers), settings.workers, input.home ?? homeDir(env));
  if (worker === 'sidechain') return { done: silent('worker-sidechain', base) }; // gate:worker-sidechain
  if (worker === 'subagent') return { done: silent('worker-subagent', base) }; // gate:worker-subagent
  if (worker === 'active-brain-home') return { done: silent('worker-active-brain-home', base) }; // gate:worker-home
  if (worker === 'env-marker') return { done: silent('worker-env-marker', base) }; // gate:worker-env
  if (worker === 'cwd-glob') return { done: silent('worker-cwd-glob', base) }; // gate:worker-cwd
  if (worker === 'entrypoint') return { done: silent('worker-entrypoint', base) }; // gate:worker-entrypoint
  if (worker === 'unattended') return { done: silent('worker-unattended', base) }; // gate:worker-unattended
  const cwd = typeof payload.cwd === 'string' && payload.cwd ? payload.cwd : null;
  const mode = modeFor(settings.modes, cwd);
  if (!mode) return { done: silent('no-mode', base) }; // gate:no-mode
  // Each channel has its own rollout state; a mode without a tool channel has it off.
  const modeState: ModeState = channel === 'tool' ? mode.tool?.state ?? 'off' : mode.state;
  const withMode = { ...base, mode: mode.name, modeState };
  if (modeState === 'off') return { done: silent('mode-off', withMode) }; // gate:mode-off
  return { done: null, sessionId, mode, payload, event, channel, modeState };
}

/** Gates over this session's state and cache, in order, ending in print / would-fire. */
export function offerGates(input: OfferInput): Decision {
  const { mode, settings, now } = input;
  const base: Partial<Decision> = { sessionId: input.sessionId, mode: mode.name, modeState: mode.state, channel: 'prompt', event: 'UserPromptSubmit' };
  if (input.state === 'invalid') return silent('state-invalid', base); // gate:state-invalid
  const state = input.state;
  const turn = (state?.turns ?? 0) + 1;
  base.turn = turn;
  if (input.cache === undefined) return silent('no-cache', base); // gate:no-cache
  const cache = parseCache(input.cache);
  if (!cache) return silent('cache-invalid', base); // gate:cache-invalid
  if (cache.sessionId !== input.sessionId) return silent('stale-session', base); // gate:stale-session
  if (!cache.offer) return silent('no-offer', base); // gate:no-offer
  const offer = cache.offer;
  base.offer = { id: offer.id, handle: offer.handle, type: offer.type, confidence: offer.confidence };
  if (now > cache.expiresAt) return silent('stale-expired', base); // gate:stale-expired
  if (input.transcript.status !== 'ok') return silent('transcript-untrusted', base); // gate:transcript
  const growth = input.transcript.size - cache.transcriptOffset;
  if (growth < 0 || growth > settings.maxLagBytes) return silent('stale-lag', base); // gate:stale-lag
  if (offer.confidence < mode.minConfidence) return silent('low-confidence', base); // gate:confidence
  const shown = state?.shown ?? 0;
  if (shown >= mode.sessionBudget) return silent('budget', base); // gate:budget
  // Never the same offer twice — nor the same chunk under a new offer id (a restarted or
  // evicted daemon forgets its session FIFO; the hook's own memory does not).
  if (state?.seenOfferIds.includes(offer.id) || state?.seenHandles?.includes(offer.handle)) return silent('repeat', base); // gate:repeat
  if (state?.lastShownTurn != null && turn - state.lastShownTurn < mode.minGapTurns) return silent('gap-turns', base); // gate:gap-turns
  if (state?.lastShownAt != null && (now - state.lastShownAt) / 1000 < mode.minGapSeconds) return silent('gap-seconds', base); // gate:gap-seconds
  const line = formatOfferLine(offer, { maxBytes: settings.maxBytes, maxTokens: settings.tokenCeiling });
  if (!line) return silent('byte-cap', base); // gate:byte-cap
  if (line.tokens > settings.tokenCeiling) return silent('token-ceiling', base); // gate:token-ceiling
  if (input.pastDeadline) return silent('deadline', base); // gate:deadline
  const out: Decision = { ...(base as Decision), text: line.text, bytes: line.bytes, outcome: 'print', reason: 'printed' };
  if (mode.state !== 'live') return { ...out, outcome: 'would-fire', reason: 'would-fire' }; // gate:soak
  return out;
}

/** Both stages of the prompt channel in one call (what main.ts does around its state lock). */
export function decide(pre: PreludeInput, rest: Omit<OfferInput, 'sessionId' | 'mode' | 'settings'>): Decision {
  const p = prelude(pre);
  if (p.done) return p.done;
  if (p.channel !== 'prompt') return silent('wrong-event', { sessionId: p.sessionId, channel: p.channel, event: p.event });
  return offerGates({ ...rest, sessionId: p.sessionId, mode: p.mode, settings: pre.settings as HookSettings });
}

/** Longest list of offer ids remembered per session (oldest dropped first). */
export const MAX_SEEN_OFFER_IDS = 256;

const NO_TOOL_STATE: HookToolState = { steps: 0, shown: 0, lastShownStep: null, lastShownAt: null };

/** The session's hook state after this decision: one more turn (prompt channel) or tool step
 *  (tool channel); one more shown on that channel when it fired. The offer ids and handles
 *  seen are shared by both channels. */
export function nextState(prev: HookState | null, sessionId: string, d: Decision, now: number): HookState {
  const s: HookState = prev
    ? { ...prev, seenOfferIds: [...prev.seenOfferIds], seenHandles: [...(prev.seenHandles ?? [])] }
    : { version: 1, sessionId, turns: 0, shown: 0, lastShownTurn: null, lastShownAt: null, seenOfferIds: [], seenHandles: [] };
  const fired = (d.outcome === 'print' || d.outcome === 'would-fire') && !!d.offer;
  if (d.channel === 'tool') {
    const t: HookToolState = { ...(prev?.tool ?? NO_TOOL_STATE) };
    t.steps = d.step ?? t.steps + 1;
    if (fired) {
      t.shown += 1;
      t.lastShownStep = t.steps;
      t.lastShownAt = now;
      t.lastShownSig = d.sig ?? null;
    }
    s.tool = t;
  } else {
    s.turns = d.turn ?? s.turns + 1;
    if (fired) {
      s.shown += 1;
      s.lastShownTurn = s.turns;
      s.lastShownAt = now;
    }
  }
  if (fired && d.offer) {
    s.seenOfferIds.push(d.offer.id);
    if (s.seenOfferIds.length > MAX_SEEN_OFFER_IDS) s.seenOfferIds.splice(0, s.seenOfferIds.length - MAX_SEEN_OFFER_IDS);
    const handles = s.seenHandles!;
    if (!handles.includes(d.offer.handle)) handles.push(d.offer.handle);
    if (handles.length > MAX_SEEN_OFFER_IDS) handles.splice(0, handles.length - MAX_SEEN_OFFER_IDS);
  }
  return s;
}

/** A state file's content, if it has the HookState shape for this session. */
export function parseState(v: unknown, sessionId: string): HookState | null {
  if (!isObj(v) || v.version !== 1 || v.sessionId !== sessionId) return null;
  if (!isFiniteNum(v.turns) || !isFiniteNum(v.shown) || !Array.isArray(v.seenOfferIds)) return null;
  if (!(v.lastShownTurn === null || isFiniteNum(v.lastShownTurn)) || !(v.lastShownAt === null || isFiniteNum(v.lastShownAt))) return null;
  if (!v.seenOfferIds.every((x) => typeof x === 'string')) return null;
  if (v.seenHandles !== undefined && !(Array.isArray(v.seenHandles) && v.seenHandles.every((x) => typeof x === 'string'))) return null;
  if (v.tool !== undefined && !isToolState(v.tool)) return null;
  return v as unknown as HookState;
}

function isToolState(t: unknown): t is HookToolState {
  if (!isObj(t) || !isFiniteNum(t.steps) || !isFiniteNum(t.shown)) return false;
  if (!(t.lastShownSig === undefined || t.lastShownSig === null || typeof t.lastShownSig === 'string')) return false;
  return (t.lastShownStep === null || isFiniteNum(t.lastShownStep)) && (t.lastShownAt === null || isFiniteNum(t.lastShownAt));
}
