/**
 * Past fixes: the store's error episodes (store/types.ts EpisodeRecord, cut by
 * indexer/episodes.ts) → offers with an honest confidence and a reason line that says what
 * fixed it. Pure. Used by the daemon for its precomputed fixes files (daemon/fixes-writer.ts:
 * `<home>/fixes/<sig>.json`, what the hook reads at a failure), by the daemon's tool-step
 * decisions (core/tool-step.ts: exact and near matches), and by replay and `eval pastfix`.
 *
 * Confidence (docs/PASTFIX.md):
 *   exact signature, resolved episode   EXACT_RESOLVED (+ AGREEMENT_BONUS per further
 *                                        resolved episode with the same signature, capped)
 *   exact signature, unresolved         UNRESOLVED (below every default gate: logged only)
 *   near match (word overlap o ≥ NEAR_MIN_OVERLAP), resolved   NEAR_SCALE · o
 * A near match can only pass the tool channel's default gate (0.7) when its words overlap
 * almost entirely (o ≥ 0.93); exact matches always pass it. Values chosen from what each
 * kind of evidence means, not fitted: the same normalized error head, seen fixed, is the
 * strongest evidence the product has.
 */
import type { EpisodeRecord } from '../store/types.js';
import type { FixFile, FixOffer, Offer } from '../shared/types.js';
import { errorPhrase } from '../shared/error-signature.js';

export const EXACT_RESOLVED = 0.85;
export const AGREEMENT_BONUS = 0.04;
export const MAX_CONFIDENCE = 0.95;
export const UNRESOLVED = 0.4;
export const NEAR_SCALE = 0.75;
/** Word overlap (Jaccard of signature words) from which two errors are near matches. */
export const NEAR_MIN_OVERLAP = 0.6;
/** Fixes kept per signature (best first); the hook shows the first one that may be shown. */
export const MAX_FIXES_PER_SIG = 3;
/** Characters of the session id shown in a reason. */
const SESSION_CHARS = 4;
/** Longest fix description in a reason (the hook caps the whole line again). */
const MAX_FIX_CHARS = 120;
/** Longest error phrase in a reason. */
const MAX_PHRASE_CHARS = 48;

export type MatchKind = 'exact' | 'near';

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
  const like = match === 'exact' ? 'same' : 'similar';
  if (!ep.resolved || !ep.fix) return `not resolved there: ${like} "${phrase}" error in ${where}`;
  return `fixed by ${clip(ep.fix, MAX_FIX_CHARS)} — ${like} "${phrase}" error in ${where}`;
}

/** Confidence of offering `ep` for an error; `agreeing` = other resolved episodes with the same signature. */
export function fixConfidence(ep: EpisodeRecord, match: MatchKind, overlap: number, agreeing: number): number {
  if (!ep.resolved || !ep.fix) return UNRESOLVED;
  if (match === 'near') return Math.round(NEAR_SCALE * Math.max(0, Math.min(1, overlap)) * 10000) / 10000;
  return Math.min(MAX_CONFIDENCE, EXACT_RESOLVED + AGREEMENT_BONUS * Math.max(0, agreeing));
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
    ...(e.lineage && e.lineage.length > 1 ? { sourceSessions: e.lineage } : {}),
    scope: e.regionScope,
  }));
}

/**
 * The hook's fixes files from the store's resolved episodes: one FixFile per signature that
 * has at least one resolved episode. Unresolved ones are left out (they could never pass a
 * gate at the failure; the daemon's own decisions still log them).
 */
export function buildFixFiles(resolved: readonly EpisodeRecord[], storeStamp: string, now: number): Map<string, FixFile> {
  const bySig = new Map<string, EpisodeRecord[]>();
  for (const e of resolved) {
    if (!e.resolved || !e.fix || !/^[0-9a-f]{14}$/.test(e.sig)) continue;
    const list = bySig.get(e.sig);
    if (list) list.push(e);
    else bySig.set(e.sig, [e]);
  }
  const out = new Map<string, FixFile>();
  for (const [sig, eps] of bySig) {
    out.set(sig, { version: 1, sig, storeStamp, createdAt: now, fixes: exactFixes(sig, eps) });
  }
  return out;
}
