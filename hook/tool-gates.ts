/**
 * The tool channel's decisions (PostToolUseFailure / PostToolUse), as pure functions; the
 * prelude they follow (kill, settings, stdin, payload, event, worker refusal, mode, the
 * channel's state) is hook/gates.ts. Input: the payload's error and its signature (sign()),
 * this session's hook state, the ONE fixes file of that signature (<home>/fixes/<sig>.json,
 * FixFile) or — when there is none — the session's tool cache (<home>/cache/<session>.tool.json,
 * ToolCache), the clock. Output: a Decision, as on the prompt channel.
 *
 * Order (the prompt channel's, with tool steps for turns), each failing to silence:
 *   state → interrupted / no error → fixes file (invalid, all from this session, none in
 *   scope, none at a place the session works at) or tool cache (none, invalid, other session, no offer, another error, stale) →
 *   confidence ≥ mode.tool.minConfidence → tool budget → repeat (offer ids and handles shared
 *   with the prompt channel) → gap in tool steps and seconds → byte cap / token ceiling →
 *   deadline → soak (would-fire) → print.
 *
 * Every gate is one line ending in `// gate:<name>` (scripts/check-gates.mjs).
 */
import type { FixFile, FixOffer, HookSettings, HookState, ModeState, Offer, ToolCache, ToolChannelSettings } from '../shared/types.js';
import type { HookEvent } from '../shared/vocabulary.js';
import { signingRedactor, type Redactor } from '../shared/redact.js';
import { formatOfferLine } from '../shared/offer-format.js';
import { MAX_EDIT_NAMES, MAX_PLACE_CHARS } from '../shared/fix-place.js';
import { MAX_ACTION_KEYS, MAX_ACTION_KEY_CHARS, MAX_COMMAND_CHARS } from '../shared/command-keys.js';
import { fixKeys, signError, type ToolSignal } from '../shared/tool-signal.js';
import { MAX_TOOL_NAME_CHARS, chooseFix } from '../shared/fix-choice.js';
import { MAX_LINEAGE_SESSIONS } from '../shared/message-uuid.js';
import { isObj } from '../shared/json-object.js';
import { isValidOffer, type Decision, type HookMode, type Reason } from './gates.js';
import { toolErrorOf } from './tool-error.js';

/** Reason codes only the tool channel gives (the rest are shared with the prompt channel). */
export const TOOL_ONLY_REASONS = ['interrupted', 'no-error', 'fixes-invalid', 'own-session', 'out-of-scope', 'elsewhere', 'no-fix', 'other-error', 'gap-steps', 'generic-error', 'other-program'] as const satisfies readonly Reason[];

/** Most fixes read from one file (the daemon writes a few, best first). */
export const MAX_FIXES_PER_FILE = 32;

export type { ToolSignal } from '../shared/tool-signal.js';

export interface ToolInput {
  sessionId: string;
  mode: HookMode;
  settings: HookSettings;
  event: Extract<HookEvent, 'PostToolUseFailure' | 'PostToolUse'>;
  cwd: string | null;
  /** The payload's tool_use_id when it is id-shaped (for the log), else null. */
  toolUseId: string | null;
  signal: ToolSignal;
  /** null = no state file yet; 'invalid' = it exists but does not parse. */
  state: HookState | null | 'invalid';
  /** Parsed fixes file JSON (findFixFile: the signature's, else the first key line's);
   *  undefined = no file for any key; 'invalid' = unreadable. */
  fixes: unknown;
  /** The key the fixes file was read under (default: the signature). */
  fixesKey?: string;
  /** Sessions this one was resumed or forked from: the session ids its transcript's first
   *  records carry (hook/inputs.ts transcriptLineage; read only when a fixes file was found). */
  lineage?: readonly string[];
  /** The session's lineage file as read (LineageCache JSON, hook/inputs.ts readLineageCache):
   *  the sessions the daemon found sharing its message uuids; undefined when absent or not read. */
  lineageCache?: unknown;
  /** The session's transcript just before the failure (its last TAIL_BYTES: hook/inputs.ts
   *  transcriptTail; read only when a fix has a place), where a fix's place must show. */
  recent?: string;
  /** Parsed tool cache JSON (read only when there is no fixes file); undefined = none. */
  toolCache: unknown;
  now: number;
  pastDeadline: boolean;
}

const isFiniteNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const ID_RE = /^[A-Za-z0-9._:-]{1,128}$/;

/** The payload's error, signed (shared/tool-signal.ts signError: as the daemon and the indexer
 *  sign it — redacted, the folder it ran in marked — so it meets the fixes stored under it). */
export function sign(payload: Record<string, unknown>, event: string, redactor: Redactor = signingRedactor()): ToolSignal {
  const e = toolErrorOf(payload, event);
  if (e.kind !== 'error') return e;
  const tool = typeof payload.tool_name === 'string' ? payload.tool_name.slice(0, MAX_TOOL_NAME_CHARS) : '';
  return signError(e.text, typeof payload.cwd === 'string' && payload.cwd ? payload.cwd : null, shellCommandOf(payload), redactor, tool);
}

/** The payload's shell command (`tool_input.command` of a Bash call), bounded; '' for none. */
function shellCommandOf(payload: Record<string, unknown>): string {
  const input = payload.tool_input;
  return payload.tool_name === 'Bash' && isObj(input) && typeof input.command === 'string' ? input.command.slice(0, MAX_COMMAND_CHARS) : '';
}

export { ERROR_TEXT_CHARS } from '../shared/tool-signal.js';

/** The fixes file for an error: its signature's, else the first of its key lines' that
 *  exists (`read` returns undefined for no file). At most 1 + MAX_LINE_KEYS reads. */
export function findFixFile(signal: ToolSignal, read: (key: string) => unknown): { key: string; file: unknown } | undefined {
  for (const key of fixKeys(signal)) {
    const file = read(key);
    if (file !== undefined) return { key, file };
  }
  return undefined;
}

/** Whether a fixes file (parsed JSON, not yet checked) has a fix with a place: then the hook
 *  reads the transcript's tail to see where the session works. */
export function hasPlace(file: unknown): boolean {
  return isObj(file) && Array.isArray(file.fixes) && file.fixes.some((f) => isObj(f) && typeof f.where === 'string');
}

/** A tool_use_id fit for the log (ids only), else null. */
export function toolUseIdOf(v: unknown): string | null {
  return typeof v === 'string' && ID_RE.test(v) ? v : null;
}

function isFixOffer(f: unknown): f is FixOffer {
  const whereOk = !isObj(f) || f.where === undefined || (typeof f.where === 'string' && f.where.length > 0 && f.where.length <= MAX_PLACE_CHARS);
  const actionsOk = !isObj(f) || f.actions === undefined ||
    (Array.isArray(f.actions) && f.actions.length <= MAX_ACTION_KEYS && f.actions.every((k: unknown) => typeof k === 'string' && k.length > 0 && k.length <= MAX_ACTION_KEY_CHARS));
  const editsOk = !isObj(f) || f.edits === undefined ||
    (Array.isArray(f.edits) && f.edits.length > 0 && f.edits.length <= MAX_EDIT_NAMES && f.edits.every((n: unknown) => typeof n === 'string' && n.length > 0 && n.length <= MAX_PLACE_CHARS));
  const filesOk = !isObj(f) || f.files === undefined ||
    (Array.isArray(f.files) && f.files.length > 0 && f.files.length <= MAX_EDIT_NAMES && f.files.every((n: unknown) => typeof n === 'string' && n.length > 0 && n.length <= MAX_PLACE_CHARS));
  const toolOk = !isObj(f) || f.tool === undefined || (typeof f.tool === 'string' && f.tool.length > 0 && f.tool.length <= MAX_TOOL_NAME_CHARS);
  const lineageOk = f === null || typeof f !== 'object' || !('sourceSessions' in f) ||
    (Array.isArray(f.sourceSessions) && f.sourceSessions.length <= MAX_LINEAGE_SESSIONS && f.sourceSessions.every((s: unknown) => typeof s === 'string'));
  return isObj(f) && isValidOffer(f.offer) && typeof f.sourceSession === 'string' && typeof f.scope === 'string' && lineageOk && whereOk && editsOk && filesOk && actionsOk && toolOk;
}

/** The other sessions a lineage file names, if it has the LineageCache shape and is this
 *  session's; [] otherwise (no file, another session's, malformed: the transcript head and the
 *  fix's own lineage still apply). */
export function lineageFromCache(v: unknown, sessionId: string): string[] {
  if (!isObj(v) || v.version !== 1 || v.sessionId !== sessionId || !isFiniteNum(v.createdAt)) return [];
  const s = v.sessions;
  if (!Array.isArray(s) || s.length > MAX_LINEAGE_SESSIONS || !s.every((x: unknown) => typeof x === 'string')) return [];
  return s as string[];
}

/** The fixes file, if it has the FixFile shape and is the one for `sig`; null otherwise. */
export function parseFixFile(v: unknown, sig: string): FixFile | null {
  if (!isObj(v) || v.version !== 1 || v.sig !== sig || !isFiniteNum(v.createdAt) || typeof v.storeStamp !== 'string') return null;
  if (!Array.isArray(v.fixes) || v.fixes.length > MAX_FIXES_PER_FILE || !v.fixes.every(isFixOffer)) return null;
  return v as unknown as FixFile;
}

/** The tool cache, if it has the ToolCache shape (offer may be null); null otherwise. */
export function parseToolCache(v: unknown): ToolCache | null {
  if (!isObj(v) || v.version !== 1 || typeof v.sessionId !== 'string' || !isFiniteNum(v.step)) return null;
  if (!isFiniteNum(v.createdAt) || !isFiniteNum(v.expiresAt)) return null;
  if (!(v.sig === null || typeof v.sig === 'string') || !(v.toolUseId === null || typeof v.toolUseId === 'string')) return null;
  if (v.offer !== null && !isValidOffer(v.offer)) return null;
  return v as unknown as ToolCache;
}

function silent(reason: Reason, base: Partial<Decision>): Decision {
  return { sessionId: null, mode: null, modeState: null, ...base, outcome: 'silent', reason };
}

type Picked = { offer: Offer; source: NonNullable<Decision['source']> } | { done: Decision };

/** The offer for this error: the best fix of the signature's file, else the tool cache's. */
function pickOffer(input: ToolInput, state: HookState | null, sig: string, base: Partial<Decision>): Picked {
  const { settings, now } = input;
  if (input.fixes !== undefined) {
    const file = input.fixes === 'invalid' ? null : parseFixFile(input.fixes, input.fixesKey ?? sig);
    if (!file) return { done: silent('fixes-invalid', base) }; // gate:fixes-invalid
    if (input.signal.kind !== 'error') return { done: silent('no-error', base) };
    const lineage = [...(input.lineage ?? []), ...lineageFromCache(input.lineageCache, input.sessionId)];
    const chosen = chooseFix({
      file, key: input.fixesKey ?? sig, signal: input.signal, sessionId: input.sessionId, cwd: input.cwd, lineage, recent: input.recent ?? '',
      seen: (o) => !!state?.seenOfferIds.includes(o.id) || !!state?.seenHandles?.includes(o.handle),
    });
    if ('silence' in chosen) return { done: silent(chosen.silence, base) };
    return { offer: chosen.offer, source: 'fixes' };
  }
  if (input.toolCache === undefined) return { done: silent('no-fix', base) }; // gate:tool-no-cache
  const cache = input.toolCache === 'invalid' ? null : parseToolCache(input.toolCache);
  if (!cache) return { done: silent('cache-invalid', base) }; // gate:tool-cache-invalid
  if (cache.sessionId !== input.sessionId) return { done: silent('stale-session', base) }; // gate:tool-stale-session
  if (!cache.offer) return { done: silent('no-offer', base) }; // gate:tool-no-offer
  // A decision made at another error is not about this one (sig null: a loop, any error).
  if (cache.sig !== null && cache.sig !== sig) return { done: silent('other-error', base) }; // gate:tool-other-error
  const ttl = settings.toolCacheTtlMs;
  if (now > cache.expiresAt || ttl === undefined || now - cache.createdAt > ttl) return { done: silent('stale-expired', base) }; // gate:tool-stale
  return { offer: cache.offer, source: 'tool-cache' };
}

/** The tool channel's gates, in order, ending in print / would-fire. */
export function toolGates(input: ToolInput): Decision {
  const { settings, now } = input;
  const tool: ToolChannelSettings | undefined = input.mode.tool;
  const modeState: ModeState = tool?.state ?? 'off';
  const base: Partial<Decision> = {
    sessionId: input.sessionId, mode: input.mode.name, modeState, channel: 'tool', event: input.event,
    ...(input.toolUseId ? { toolUseId: input.toolUseId } : {}),
  };
  // The prelude lets only a mode whose tool channel is on through; this keeps the function total.
  if (!tool || modeState === 'off') return silent('mode-off', base);
  if (input.state === 'invalid') return silent('state-invalid', base); // gate:tool-state-invalid
  const state = input.state;
  const t = state?.tool;
  const step = (t?.steps ?? 0) + 1;
  base.step = step;
  if (input.signal.kind === 'interrupted') return silent('interrupted', base); // gate:interrupted
  if (input.signal.kind !== 'error') return silent('no-error', base); // gate:no-error
  const sig = input.signal.sig;
  base.sig = sig;
  // An error whose fix is the person's, the code's at hand, or stated in the message itself.
  if (input.signal.generic) return silent('generic-error', base); // gate:generic-error
  const picked = pickOffer(input, state, sig, base);
  if ('done' in picked) return picked.done;
  const { offer } = picked;
  base.source = picked.source;
  base.offer = { id: offer.id, handle: offer.handle, type: offer.type, confidence: offer.confidence };
  if (offer.confidence < tool.minConfidence) return silent('low-confidence', base); // gate:tool-confidence
  if ((t?.shown ?? 0) >= tool.sessionBudget) return silent('budget', base); // gate:tool-budget
  // Shared with the prompt channel: a chunk shown at a failure is not shown again at a prompt.
  if (state?.seenOfferIds.includes(offer.id) || state?.seenHandles?.includes(offer.handle)) return silent('repeat', base); // gate:tool-repeat
  if (t?.lastShownStep != null && step - t.lastShownStep < tool.minGapSteps) return silent('gap-steps', base); // gate:gap-steps
  // The seconds gap is per error: the agent is still acting on the offer shown at this error;
  // another error is another problem, and its fix is news now (budget and steps gap still hold).
  const sameError = t?.lastShownSig === undefined || t.lastShownSig === sig;
  if (t?.lastShownAt != null && sameError && (now - t.lastShownAt) / 1000 < tool.minGapSeconds) return silent('gap-seconds', base); // gate:tool-gap-seconds
  const line = formatOfferLine(offer, { maxBytes: settings.maxBytes, maxTokens: settings.tokenCeiling });
  if (!line) return silent('byte-cap', base); // gate:tool-byte-cap
  if (line.tokens > settings.tokenCeiling) return silent('token-ceiling', base); // gate:tool-token-ceiling
  if (input.pastDeadline) return silent('deadline', base); // gate:tool-deadline
  const out: Decision = { ...(base as Decision), text: line.text, bytes: line.bytes, outcome: 'print', reason: 'printed' };
  if (modeState !== 'live') return { ...out, outcome: 'would-fire', reason: 'would-fire' }; // gate:tool-soak
  return out;
}
