/**
 * Past fixes: the store's error episodes (store/types.ts EpisodeRecord, cut by
 * indexer/episodes.ts) → offers with an honest confidence and a reason line that says what
 * fixed it. Pure. Used by the daemon for its precomputed fixes files (daemon/fixes-writer.ts:
 * `<home>/fixes/<sig>.json`, what the hook reads at a failure), by the daemon's tool-step
 * decisions (core/tool-step.ts: exact and near matches), and by replay and `eval pastfix`.
 *
 * Confidence (docs/PASTFIX.md; consensusFixes for the fixes files):
 *   exact signature, resolved episode   EXACT_RESOLVED (+ AGREEMENT_BONUS per further
 *                                        resolved episode with the same signature, capped)
 *   exact signature, unresolved         UNRESOLVED (below every default gate: logged only)
 *   near match (word overlap o ≥ NEAR_MIN_OVERLAP), resolved   NEAR_SCALE · o
 * A near match can only pass the tool channel's default gate (0.7) when its words overlap
 * almost entirely (o ≥ 0.93); exact matches always pass it. Values chosen from what each
 * kind of evidence means, not fitted: the same normalized error head, seen fixed, is the
 * strongest evidence the product has.
 */
import { swapsNamedForAll } from '../shared/stage-all.js';
import { fixTaskFiles } from '../shared/task-files.js';
import type { EpisodeRecord } from '../store/types.js';
import type { FixFile, FixOffer, Offer } from '../shared/types.js';
import { errorPhrase } from '../shared/error-signature.js';
import { errorKeys } from '../shared/error-keys.js';
import { codeError, genericKind } from '../shared/error-class.js';
import { PASTFIX_VALUES, pastfixValue, ruleOn } from '../shared/pastfix-rules.js';
import { fixDirectory, fixEdits, fixPlace, fixStaged } from '../shared/fix-place.js';
import { MAX_ACTION_KEYS, MAX_ACTION_KEY_CHARS, actionKeys } from '../shared/command-keys.js';
import { isDestructive } from '../shared/destructive.js';
import { MAX_LINEAGE_SESSIONS } from '../shared/message-uuid.js';
import { MAX_TOOL_NAME_CHARS } from '../shared/fix-choice.js';
import { EDIT_TOOLS_ALT } from '../shared/edit-tools.js';

export const EXACT_RESOLVED = 0.85;
export const AGREEMENT_BONUS = 0.04;
export const MAX_CONFIDENCE = 0.95;
export const UNRESOLVED = 0.4;
export const NEAR_SCALE = 0.75;
/** Word overlap (Jaccard of signature words) from which two errors are near matches. */
export const NEAR_MIN_OVERLAP = 0.6;
/** Fixes kept per key (best first); the hook shows the first one that may be shown there
 *  (not from its own session or lineage, in scope, at a place the session works at). */
export const MAX_FIXES_PER_SIG = 12;
/** Sessions kept per group of agreeing fixes: enough to skip one's own lineage and to hold
 *  the group's fixes met at different actions (the hook prefers the one met at the failing
 *  call's action: `git add … && git commit` rather than `git log`), while a second group — a
 *  second place, the commonest split in the real projects (two repositories under one home
 *  folder) — still fits within MAX_FIXES_PER_SIG: half of it. At 3, -home-ken's sources of
 *  three judged items were cut from their files; docs/PASTFIX.md. */
export const MAX_SESSIONS_PER_GROUP = PASTFIX_VALUES['sessions-per-group'].value;
/** Characters of the session id shown in a reason. */
const SESSION_CHARS = 4;
/** Longest fix description in a reason (the hook caps the whole line again). */
const MAX_FIX_CHARS = 100;
/** Longest error phrase in a reason. */
const MAX_PHRASE_CHARS = 44;

/** A resolved episode met by one of its key lines (shared/error-keys.ts), not its whole head:
 *  the same telling line under another lead. Below an exact match, above the gate (0.7) only
 *  while the sessions that met it agree. */
export const LINE_RESOLVED = 0.8;
/** Confidence taken off per earlier session that met the same error and did not fix it (an
 *  outcome that contradicts the fix), and per session that fixed it another way (half as
 *  much: two fixes may both work, but the error's fix then depends on more than the error). */
export const CONTRADICTION = 0.05;
/** Confidence taken off per session that fixed the error another way (half a contradiction:
 *  two fixes may both work, but the error's fix then depends on more than the error). */
export const DISAGREEMENT = 0.025;
/** Most confidence taken off by contradictions and disagreements together. */
export const MAX_PENALTY = 0.3;
/** Failures of the same error within one episode from which an unresolved episode counts as
 *  a contradiction: the agent tried again and it failed again. */
export const CONTRADICTING_ATTEMPTS = 2;

export type MatchKind = 'exact' | 'near' | 'line';

function day(ms: number): string {
  return Number.isFinite(ms) && ms > 0 ? new Date(ms).toISOString().slice(0, 10) : 'an earlier session';
}

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? `${t.slice(0, n - 1).trimEnd()}…` : t;
}

/** The one-line reason: what fixed it first (a line cut to the hook's byte cap keeps the
 *  part that helps), then which error, where and when it was met. */
export function fixReason(ep: EpisodeRecord, match: MatchKind): string {
  const phrase = errorPhrase(ep, MAX_PHRASE_CHARS) || 'error';
  const where = ep.source === 'note' ? `a note (${ep.handle})` : `session ${ep.sessionId.slice(0, SESSION_CHARS)}… (${day(ep.at)})`;
  const like = match === 'near' ? 'similar' : 'same';
  if (!ep.resolved || !ep.fix) return `not resolved there: ${like} "${phrase}" error in ${where}`;
  return `fixed by ${clip(ep.fix, MAX_FIX_CHARS)} — ${like} "${phrase}" error in ${where}`;
}

/** Confidence of offering `ep` for an error; `agreeing` = other resolved episodes with the same signature. */
export function fixConfidence(ep: EpisodeRecord, match: MatchKind, overlap: number, agreeing: number): number {
  if (!ep.resolved || !ep.fix) return UNRESOLVED;
  if (match === 'near') return Math.round(NEAR_SCALE * Math.max(0, Math.min(1, overlap)) * 10000) / 10000;
  return Math.min(MAX_CONFIDENCE, (match === 'line' ? LINE_RESOLVED : EXACT_RESOLVED) + AGREEMENT_BONUS * Math.max(0, agreeing));
}

/** A deterministic offer id: the same episode for the same signature is the same offer. */
export function fixOfferId(sig: string, chunkId: number): string {
  return `fix-${sig}-${chunkId}`;
}

export function fixOffer(sig: string, ep: EpisodeRecord, match: MatchKind, overlap: number, agreeing: number): Offer {
  return {
    id: fixOfferId(sig, ep.chunkId),
    chunkId: ep.chunkId,
    handle: ep.handle,
    type: 'past-fix',
    confidence: fixConfidence(ep, match, overlap, agreeing),
    reason: fixReason(ep, match),
    region: ep.region,
    wildcard: false,
    trigger: 'error',
    reasoned: false,
    channel: 'tool',
  };
}

/** Best first: resolved before unresolved, episodes before notes, most recent first, then id. */
export function rankEpisodes(eps: readonly EpisodeRecord[]): EpisodeRecord[] {
  return [...eps].sort(
    (a, b) =>
      Number(b.resolved && !!b.fix) - Number(a.resolved && !!a.fix) ||
      Number(a.source === 'note') - Number(b.source === 'note') ||
      b.at - a.at ||
      a.chunkId - b.chunkId,
  );
}

/** Exact-signature fixes for one signature, best first (at most MAX_FIXES_PER_SIG). */
export function exactFixes(sig: string, eps: readonly EpisodeRecord[]): FixOffer[] {
  const same = rankEpisodes(eps.filter((e) => e.sig === sig));
  const resolved = same.filter((e) => e.resolved && e.fix);
  // "Agreeing" counts other sessions only: one session failing the same way twice is one fix.
  const sessions = new Set(resolved.map((e) => e.sessionId || e.handle));
  return same.slice(0, MAX_FIXES_PER_SIG).map((e) => ({
    offer: fixOffer(sig, e, 'exact', 1, Math.max(0, sessions.size - 1)),
    sourceSession: e.sessionId,
    ...lineageOf(e),
    scope: e.regionScope,
  }));
}

/** The sessions of an episode's lineage (resumed or forked copies: issue 25), when it has more
 *  than itself: the hook never offers a fix back to any of them. */
function lineageOf(e: EpisodeRecord): Pick<FixOffer, 'sourceSessions'> {
  return e.lineage && e.lineage.length > 1 ? { sourceSessions: [...e.lineage].sort().slice(0, MAX_LINEAGE_SESSIONS) } : {};
}

const WORDS_RE = /[a-z0-9][\w.@/+-]*/g;

/** What a fix does, for telling agreeing sessions from disagreeing ones: the directory it
 *  moved to when it moved (`dir api`: "run it there" is the fix, whatever command followed;
 *  shared/fix-place.ts), else the action words of its first step (`git push`, `pnpm install`). */
export function fixKey(fix: string): string {
  const dir = fixDirectory(fix);
  if (dir) return `dir ${fixPlace(fix) ?? dir}`;
  const t = fix.replace(/<[a-z]+>/g, ' ').replace(/\s+/g, ' ').trim();
  const first = t.toLowerCase().split(/;|&&|\bthen\b/)[0] ?? '';
  return (first.match(WORDS_RE) ?? []).slice(0, 2).join(' ');
}

/** Fixes that ran somewhere else are one kind of fix ("run it where the project is"): two
 *  sessions that moved to two different projects do not contradict each other — each fix
 *  holds where its project is, and the hook offers one only there (FixOffer.where). */
const fixKind = (key: string) => (key.startsWith('dir ') ? 'dir' : key);

/** An episode that may be a Past fix: resolved, with a fix that is not destructive
 *  (shared/destructive.ts: the indexer already leaves such fixes out; this holds for stores
 *  indexed before, and for notes), that did not stage every file in place of the ones the
 *  failing call named (rule named-not-all, shared/stage-all.ts), not a generic error, keyed. */
function usable(e: EpisodeRecord): boolean {
  return e.resolved && !!e.fix && !isDestructive(e.fix) && !(ruleOn('named-not-all') && swapsNamedForAll(e.fix, e.action)) && /^[0-9a-f]{14}$/.test(e.sig) && (!ruleOn('generic-error') || genericKind('', e.head) === null);
}

const sessionOf = (e: EpisodeRecord) => e.sessionId || e.handle;



/** A fix line that edits a file (indexer/episodes.ts fixStepText: `Edit src/x.ts`). */
const EDIT_STEP_RE = new RegExp(`(?:^|;\\s*|then\\s+)(?:${EDIT_TOOLS_ALT})\\b`);

/** The action keys of an episode's failing shell call (FixOffer.actions), bounded; null for
 *  other tools and notes. */
function actionsOf(e: EpisodeRecord): string[] | null {
  if (e.tool !== 'Bash') return null;
  // The last keys: a chain's acting part is mostly at its end (`mkdir … && cp … && git push`).
  // The episode keeps the failing call's summary (160 characters), so a key past its cut is not
  // here while the hook reads the whole command: a fix can then miss the preference, never
  // get another's.
  const keys = actionKeys(e.action.replace(/^Bash:\s*/, '')).filter((k) => k.length <= MAX_ACTION_KEY_CHARS).slice(-MAX_ACTION_KEYS);
  return keys.length ? keys : null;
}

/**
 * The fixes for one key (a signature, or a line key), best first: the fix most sessions
 * agree on (then the most recent), at most MAX_FIXES_PER_SIG, its confidence raised by the
 * sessions that agree and lowered by those that met the error without fixing it
 * (`unresolvedSessions`) or fixed it another way.
 */
export function consensusFixes(key: string, match: Exclude<MatchKind, 'near'>, eps: readonly EpisodeRecord[], unresolvedSessions: number): FixOffer[] {
  const ok = eps.filter((e) => e.resolved && e.fix);
  const keyOf = new Map(ok.map((e) => [e, fixKey(e.fix)]));
  const byFix = new Map<string, EpisodeRecord[]>();
  for (const e of rankEpisodes(ok)) byFix.set(keyOf.get(e)!, [...(byFix.get(keyOf.get(e)!) ?? []), e]);
  const sessions = (list: EpisodeRecord[]) => new Set(list.map(sessionOf)).size;
  const groups = [...byFix.values()].sort((a, b) => sessions(b) - sessions(a) || b[0].at - a[0].at || a[0].chunkId - b[0].chunkId);
  const out: FixOffer[] = [];
  for (const g of groups) {
    const agree = sessions(g);
    const kind = fixKind(keyOf.get(g[0])!);
    const otherWay = sessions(ok.filter((e) => fixKind(keyOf.get(e)!) !== kind));
    const penalty = Math.min(MAX_PENALTY, CONTRADICTION * unresolvedSessions + DISAGREEMENT * otherWay);
    // One fix per session of the group (newest first): the hook skips the ones it may not
    // show (its own session or lineage, another project's scope or place) and takes the next.
    const seen = new Set<string>();
    for (const e of g) {
      if (seen.size >= pastfixValue('sessions-per-group')) break;
      if (seen.has(sessionOf(e))) continue;
      seen.add(sessionOf(e));
      const base = fixOffer(key, e, match, 1, agree - 1);
      const confidence = Math.max(0, Math.round((base.confidence - penalty) * 10000) / 10000);
      const where = fixPlace(e.fix);
      const actions = actionsOf(e);
      // Files it only edited; or files it staged by name on the way to another action's success.
      const edits = fixEdits(e.fix) ?? (actions?.includes('git add') ? null : fixStaged(e.fix));
      // Files of the task it was met in (rule task-files): offered only where one is named. A
      // note is the person's own knowledge, not a task's work: never gated by the files it names.
      const files = e.source === 'note' ? null : fixTaskFiles(e.fix, e.action);
      out.push({ offer: { ...base, confidence }, sourceSession: e.sessionId, scope: e.regionScope, ...lineageOf(e), ...(where ? { where } : {}), ...(edits ? { edits } : {}), ...(files ? { files } : {}), ...(actions ? { actions } : {}), ...(e.source !== 'note' && e.tool && e.tool.length <= MAX_TOOL_NAME_CHARS ? { tool: e.tool } : {}) });
      if (out.length >= MAX_FIXES_PER_SIG) return out;
    }
  }
  return out;
}

/** The store's episodes by the keys their fixes files are written under: exact (signature) and
 *  line keys of the usable resolved ones, and the unresolved ones that contradict a key. */
interface KeyedEpisodes {
  exact: Map<string, EpisodeRecord[]>;
  line: Map<string, EpisodeRecord[]>;
  unresolved: Map<string, EpisodeRecord[]>;
}

function keyEpisodes(episodes: readonly EpisodeRecord[]): KeyedEpisodes {
  const k: KeyedEpisodes = { exact: new Map(), line: new Map(), unresolved: new Map() };
  const add = (m: Map<string, EpisodeRecord[]>, key: string, e: EpisodeRecord) => {
    const list = m.get(key);
    if (list) list.push(e);
    else m.set(key, [e]);
  };
  for (const e of episodes) {
    const keys = errorKeys(e.head.length ? e.head : []);
    const lineKeys = keys ? keys.lineKeys : [];
    if (!e.resolved || !e.fix) {
      // Met, tried again and still not fixed: contradicts the fixes of its signature and of its
      // key lines. (Met once and left — the work moved on — says nothing against a fix.)
      if ((e.attempts ?? 1) < CONTRADICTING_ATTEMPTS) continue;
      for (const key of new Set([e.sig, ...lineKeys])) add(k.unresolved, key, e);
      continue;
    }
    if (!usable(e)) continue;
    // An error in the code being written: only its very same complaint, and only a fix that
    // changed no code (rule code-being-written).
    const code = ruleOn('code-being-written') && codeError(e.head);
    if (code && EDIT_STEP_RE.test(e.fix)) continue;
    add(k.exact, e.sig, e);
    if (!code) for (const key of lineKeys) if (key !== e.sig) add(k.line, key, e);
  }
  return k;
}

/** The fixes file of one key from its episodes (those met by `asOf` when given). */
function fileOf(k: KeyedEpisodes, key: string, storeStamp: string, now: number, asOf?: number): FixFile | undefined {
  const met = (list: readonly EpisodeRecord[] | undefined) => (list && asOf !== undefined ? list.filter((e) => e.at <= asOf) : list ?? []);
  const exact = met(k.exact.get(key));
  const kind: Exclude<MatchKind, 'near'> = exact.length ? 'exact' : 'line';
  const eps = exact.length ? exact : met(k.line.get(key));
  if (!eps.length) return undefined;
  const fixed = new Set(eps.map(sessionOf));
  const contra = new Set(met(k.unresolved.get(key)).map(sessionOf).filter((x) => !fixed.has(x))).size;
  return { version: 1, sig: key, storeStamp, createdAt: now, fixes: consensusFixes(key, kind, eps, contra) };
}

/**
 * The hook's fixes files from the store's episodes (every one: the unresolved are the
 * outcomes that contradict a fix): one FixFile per key — each signature, and each key line
 * (shared/error-keys.ts) — that has a usable resolved episode. Generic errors
 * (shared/error-class.ts) never get one. An exact file wins over a line file of the same key
 * space (they cannot collide: line keys are hashed with a prefix).
 */
export function buildFixFiles(episodes: readonly EpisodeRecord[], storeStamp: string, now: number): Map<string, FixFile> {
  const k = keyEpisodes(episodes);
  const out = new Map<string, FixFile>();
  for (const key of [...k.exact.keys(), ...k.line.keys()]) {
    if (out.has(key)) continue;
    const f = fileOf(k, key, storeStamp, now);
    if (f) out.set(key, f);
  }
  return out;
}

/**
 * The same fixes files, one key at a time, for a decision made from the store directly (the
 * daemon's tool step, core/tool-step.ts; a replay of history, where only the episodes met before
 * the replayed step count: `asOf`). Keys the episodes once; builds a key's file when asked.
 */
export class FixIndex {
  private readonly keyed: KeyedEpisodes;
  constructor(episodes: readonly EpisodeRecord[], private readonly storeStamp = 'store') {
    this.keyed = keyEpisodes(episodes);
  }
  file(key: string, asOf?: number): FixFile | undefined {
    return fileOf(this.keyed, key, this.storeStamp, 0, asOf);
  }
}
