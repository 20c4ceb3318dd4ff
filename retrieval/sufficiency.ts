/**
 * Evidence sufficiency (0–1): is there anything worth offering at all? Input: the fused
 * ranking of retrieval/fuse.ts (after session dedup and scope) and the cosines of the query
 * vectors with a fixed sample of the store's chunks (retrieval/scale.ts: the store's own
 * similarity scale). Output: the score and its parts,
 * logged as decision figures. Below config.retrieval.minSufficiency the build is silent
 * (`insufficient-evidence`). Pure.
 *
 *   support     (support − 1) / (SUPPORT_FULL − 1)      one list alone is no agreement
 *   margin      ((f₁ − f₂) / f₁) / MARGIN_FULL          lead of the top chunk over the runner-up
 *   similarity  z / Z_FULL, z = (cos − median) / spread  the top chunk's best cosine measured
 *               against what the same query vectors give the store's sampled chunks (median
 *               and a robust spread), so it holds on MiniLM's scale and the offline model's
 *   exact       max(best exact-name confidence (0.9 alias / 0.8 title / 0.6 suffix), best
 *               fixed confidence of an extracted string whose keyword query returned it
 *               (retrieval/fuse.ts STRING_CONFIDENCE: error code/message 0.8, frame 0.7, …)),
 *               0 when none
 *   score = W.support·support + W.margin·margin + W.similarity·similarity + W.exact·exact
 * Each part is clamped to [0, 1]; the weights sum to 1.
 */
import type { FusedCandidate } from './fuse.js';

/** Support at which agreement counts as full (the exchange's keyword + vector + centroid). */
export const SUPPORT_FULL = 3;
/** Relative lead over the runner-up that counts as a full margin. */
export const MARGIN_FULL = 0.3;
/**
 * Robust z above the sampled cosines' median that counts as fully similar. The nearest
 * neighbour of any query in a store of a few hundred chunks already sits near z ≈ 2 (the
 * best of many ordinary chunks), so "clearly more than that" is z = 3.
 */
export const Z_FULL = 3;
/** Fewer sampled cosines than this: the scale is unknown and similarity counts 0. */
export const SCALE_MIN_COSINES = 3;
/** Spread floor (cosine units) so a flat list of equal cosines does not divide by ~0. */
export const MIN_SPREAD = 0.02;
/**
 * Weights of the parts. Similarity leads: on a LoCoMo replay (bench/offers.bench.ts) the
 * scale-relative similarity was the part most predictive of a gold-linked chunk; support
 * alone hardly was (most builds have three agreeing lists on chit-chat). Exact evidence
 * (a shared error code, path, title) is rare and specific, so it weighs a quarter.
 */
export const SUFFICIENCY_WEIGHTS = { support: 0.2, margin: 0.15, similarity: 0.4, exact: 0.25 } as const;

export interface SimilarityScale {
  median: number;
  /** Robust spread: 1.4826 × median absolute deviation, floored at MIN_SPREAD. */
  spread: number;
  n: number;
}

export interface Evidence {
  score: number;
  support: number;
  margin: number;
  similarity: number;
  exact: number;
}

const clamp01 = (x: number): number => (Number.isFinite(x) ? Math.min(1, Math.max(0, x)) : 0);

function median(sorted: number[]): number {
  const n = sorted.length;
  return n % 2 ? sorted[(n - 1) / 2] : (sorted[n / 2 - 1] + sorted[n / 2]) / 2;
}

/** Median and robust spread of baseline cosines; null when too few. */
export function similarityScale(cosines: readonly number[]): SimilarityScale | null {
  const xs = cosines.filter((c) => Number.isFinite(c)).sort((a, b) => a - b);
  if (xs.length < SCALE_MIN_COSINES) return null;
  const m = median(xs);
  const dev = xs.map((x) => Math.abs(x - m)).sort((a, b) => a - b);
  return { median: m, spread: Math.max(MIN_SPREAD, 1.4826 * median(dev)), n: xs.length };
}

/** How far a cosine stands above the scale, 0–1. */
export function relativeSimilarity(cos: number | null, scale: SimilarityScale | null): number {
  if (cos === null || scale === null) return 0;
  return clamp01((cos - scale.median) / scale.spread / Z_FULL);
}

/**
 * Evidence for one candidate against the one it must beat (the runner-up for the top
 * chunk; the top chunk itself for any other, so a non-top candidate has no margin).
 */
export function evidenceFor(c: FusedCandidate, rival: FusedCandidate | null, scale: SimilarityScale | null): Evidence {
  const support = clamp01((c.support - 1) / (SUPPORT_FULL - 1));
  const margin = rival === null ? 1 : c.fused > 0 ? clamp01((c.fused - rival.fused) / c.fused / MARGIN_FULL) : 0;
  const similarity = relativeSimilarity(c.bestCos, scale);
  const exact = clamp01(Math.max(c.bestName ?? 0, c.bestString ?? 0));
  const W = SUFFICIENCY_WEIGHTS;
  const score = clamp01(W.support * support + W.margin * margin + W.similarity * similarity + W.exact * exact);
  return { score, support, margin, similarity, exact };
}

/** Sufficiency of a ranking: the evidence of its top chunk. Empty ranking → 0. */
export function sufficiency(ranked: readonly FusedCandidate[], scale: SimilarityScale | null): Evidence {
  if (ranked.length === 0) return { score: 0, support: 0, margin: 0, similarity: 0, exact: 0 };
  return evidenceFor(ranked[0], ranked[1] ?? null, scale);
}
