/**
 * A pipeline decision → the offer cache the hook will read, and the bookkeeping around it.
 * Pure; the one place this happens: the daemon (daemon/consumer.ts, which then writes the file
 * atomically) and replay (eval/replay-session.ts, which hands it to the hook's gates in
 * memory) both call publishDecision, so what replay measures is what the daemon does.
 *
 * Bookkeeping: an offer decided on a still-open exchange (provisional) may already be in the
 * hook's hands; a later silent decision on the same exchange must not replace that cache.
 */
import type { LineageCache, Offer, OfferCache, ToolCache } from '../shared/types.js';
import { MAX_LINEAGE_SESSIONS } from '../shared/message-uuid.js';
import type { Decision, ToolDecision } from './decision.js';

/** What a cache record says it was computed for (OfferCache's own fields). */
export type CacheStamp = Pick<OfferCache, 'sessionId' | 'mode' | 'turn' | 'transcriptOffset' | 'transcriptPath' | 'exchangeUuid'>;

/** Build the cache record for one decision. */
export function buildOfferCache(stamp: CacheStamp, offer: Offer | null, now: number, ttlSeconds: number): OfferCache {
  return {
    version: 1,
    sessionId: stamp.sessionId,
    mode: stamp.mode,
    turn: stamp.turn,
    transcriptOffset: stamp.transcriptOffset,
    transcriptPath: stamp.transcriptPath,
    exchangeUuid: stamp.exchangeUuid,
    createdAt: now,
    expiresAt: now + ttlSeconds * 1000,
    offer,
  };
}

/** Per transcript file: the exchange whose provisional decision produced an offer, and the
 *  lineage last published for it (publishLineage). */
export interface PublishBook {
  provisionalOffer: string | null;
  lineagePublished?: string;
}

/** The fields of a pipeline Decision (core/decision.ts) this needs. */
export type PublishableDecision = Pick<Decision, 'sessionId' | 'mode' | 'turn' | 'offset' | 'exchangeUuid' | 'offer' | 'cacheable'>;

/**
 * Update the book for decision `d` and return the cache to write, or null when this decision
 * must not reach the hook (not cacheable, no mode, or a silent final decision on an exchange
 * whose provisional offer may be showing). Sets `d.cacheable` to what was decided, so the
 * decision log says whether a cache was written.
 */
export function publishDecision(
  book: PublishBook,
  d: PublishableDecision,
  o: { provisional: boolean; path: string; now: number; ttlSeconds: number },
): OfferCache | null {
  if (book.provisionalOffer === d.exchangeUuid && !d.offer) d.cacheable = false;
  if (o.provisional && d.offer) book.provisionalOffer = d.exchangeUuid;
  else if (!o.provisional && book.provisionalOffer === d.exchangeUuid) book.provisionalOffer = null;
  if (!d.cacheable || d.mode === null) return null;
  return buildOfferCache(
    { sessionId: d.sessionId, mode: d.mode, turn: d.turn, transcriptOffset: d.offset, transcriptPath: o.path, exchangeUuid: d.exchangeUuid },
    d.offer,
    o.now,
    o.ttlSeconds,
  );
}

/** The fields of a tool-channel decision (core/decision.ts ToolDecision) this needs. */
export type PublishableToolDecision = Pick<ToolDecision, 'sessionId' | 'mode' | 'step' | 'toolUseId' | 'sig' | 'trigger' | 'offer' | 'cacheable'>;

/**
 * The session's tool cache for a tool-channel decision, or null when it must not be written:
 * not cacheable, no mode, or a step with no trigger (a successful call: the offer decided at
 * the last failure stays for the hook's next tool event, until it expires).
 */
export function publishToolDecision(d: PublishableToolDecision, o: { now: number; ttlSeconds: number }): ToolCache | null {
  if (!d.cacheable || d.mode === null || d.trigger === null) return null;
  return {
    version: 1,
    sessionId: d.sessionId,
    mode: d.mode,
    step: d.step,
    toolUseId: d.toolUseId,
    sig: d.sig,
    createdAt: o.now,
    expiresAt: o.now + o.ttlSeconds * 1000,
    offer: d.offer,
  };
}

/**
 * The session's lineage file (LineageCache) when the lineage the pipeline learnt from the
 * store (core/sessions.ts learnLineage) names other sessions than this file's book last
 * published (the file names them all: the union); null otherwise. The daemon writes it; replay hands it to the hook's gates.
 */
export function publishLineage(book: PublishBook, sessionId: string, lineage: readonly string[], now: number): LineageCache | null {
  // A lineage never stops being true: what was published stays (a session the pipeline evicted
  // and learns again from fewer records still has it).
  const before = book.lineagePublished ? book.lineagePublished.split(',') : [];
  const sessions = [...new Set([...before, ...lineage])].filter((s) => s !== sessionId && s !== '').sort().slice(0, MAX_LINEAGE_SESSIONS);
  if (!sessions.length) return null;
  const key = sessions.join(',');
  if (book.lineagePublished === key) return null;
  book.lineagePublished = key;
  return { version: 1, sessionId, sessions, createdAt: now };
}
