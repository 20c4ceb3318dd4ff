/**
 * The tallies the replay reports keep (eval/replay-summary.ts, eval/locomo-replay.ts): counts
 * by reason code or type, written sorted so the JSON's key order is stable. Pure.
 */
import { OFFER_TYPES, type OfferType } from '../shared/vocabulary.js';

/** Add one to `o[k]`. */
export function bump(o: Record<string, number>, k: string): void {
  o[k] = (o[k] ?? 0) + 1;
}

/** Sorted copy of a counts object (stable key order in JSON). */
export function sortedCounts(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** A zero count per offer type, in OFFER_TYPES order. */
export function offerTypeCounts(): Record<OfferType, number> {
  return Object.fromEntries(OFFER_TYPES.map((t) => [t, 0])) as Record<OfferType, number>;
}
