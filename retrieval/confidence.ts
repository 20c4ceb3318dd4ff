/**
 * Offer confidence (0–1), stored in Offer.confidence and compared by the hook with the
 * mode's minConfidence. Input: the candidate's evidence (retrieval/sufficiency.ts, computed
 * for that chunk) and its type evidence (retrieval/offer-type.ts). Output: one number. Pure.
 *
 *   confidence = EVIDENCE_SHARE · evidence + TYPE_SHARE · typeStrength     (clamped 0–1)
 *   typeStrength: past-fix 1.0 (the same error string in a past session where it was
 *                 resolved) · contradicts 0.6 (lexical heuristic) · analogous = the chunk's
 *                 relative similarity · tangent = 0.5 × relative similarity
 *   a wildcard (wander) is capped at WILDCARD_MAX.
 * Reading it: 0.8 means several queries agreed on this chunk, it leads the runner-up,
 * its cosine stands well above the store's own scale AND the type is backed by explicit
 * evidence (e.g. a shared error code in a resolved session). It is a score, not a
 * calibrated probability, until labels (`active-brain label --stats`) calibrate it.
 */
import type { OfferType } from '../shared/types.js';
import type { Evidence } from './sufficiency.js';

export const EVIDENCE_SHARE = 0.6;
export const TYPE_SHARE = 0.4;
export const TYPE_STRENGTH: Record<Exclude<OfferType, 'analogous' | 'tangent'>, number> = { 'past-fix': 1.0, contradicts: 0.6 };
export const TANGENT_SIMILARITY_FACTOR = 0.5;
/** A wander wildcard is a deliberate long shot: never more confident than this. */
export const WILDCARD_MAX = 0.5;

export function typeStrength(type: OfferType, evidence: Evidence): number {
  if (type === 'past-fix' || type === 'contradicts') return TYPE_STRENGTH[type];
  if (type === 'analogous') return evidence.similarity;
  return TANGENT_SIMILARITY_FACTOR * evidence.similarity;
}

export function offerConfidence(type: OfferType, evidence: Evidence, wildcard: boolean): number {
  const raw = EVIDENCE_SHARE * evidence.score + TYPE_SHARE * typeStrength(type, evidence);
  const c = Math.min(1, Math.max(0, Number.isFinite(raw) ? raw : 0));
  const capped = wildcard ? Math.min(c, WILDCARD_MAX) : c;
  return Math.round(capped * 1000) / 1000;
}
