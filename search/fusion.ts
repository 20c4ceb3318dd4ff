/**
 * Rank fusion (pure): several ranked hit lists (arms: keyword BM25, vector cosine, name
 * match; or the same arm over several queries) in, one fused ranking out. No I/O.
 *
 * Used by search/search.ts (hybrid = keyword + vector) and by retrieval/ for multi-query
 * fusion. Methods:
 *   rrf     Σ w / (rrfK + rank)                          (reciprocal rank fusion)
 *   minmax  Σ w · (s − min) / (max − min)   per list      (score-normalized convex combination)
 *   zscore  Σ w · (s − mean) / sd           per list
 * A hit missing from a list gets that list's floor (0 for rrf and minmax, the lowest z of
 * the list for zscore), so lists only add evidence. Ties break on the best single rank, then
 * on the chunk id: the result is deterministic and independent of list order.
 *
 * Which method and weights search uses by default, and why, is measured in docs/SEARCH.md
 * (`HYBRID_DEFAULTS` below).
 */
import type { Hit } from '../store/types.js';

export type FusionMethod = 'rrf' | 'minmax' | 'zscore';

export interface RankedList {
  /** Hits, best first (rank 1 = best). Higher `score` = better within a list. */
  hits: Hit[];
  /** Weight of this list in the fused score (≥ 0; 0 = the list only breaks ties). */
  weight: number;
  /** Arm name (`keyword`, `vector`, `name`, …); lists may share an arm (multi-query). */
  arm: string;
  /** The score every chunk missing from the list is known to have, when the list is exhaustive
   *  (e.g. a keyword list shorter than the depth asked for: every other chunk scores 0). minmax
   *  then normalizes from it instead of from the list's own lowest score, so the weakest listed
   *  hit still counts above chunks that did not match at all. */
  floorScore?: number;
}

export interface FuseOptions {
  method?: FusionMethod;
  /** RRF constant (larger = flatter rank curve). */
  rrfK?: number;
  /** Keep this many fused hits (default: all). */
  limit?: number;
}

export interface ArmEvidence {
  /** Best (lowest) rank of this chunk among the arm's lists. */
  rank: number;
  /** Its arm score at that rank. */
  score: number;
}

export interface FusedHit {
  chunkId: number;
  /** Fused score (method-specific scale; higher = better). */
  score: number;
  /** 1-based fused rank. */
  rank: number;
  /** Number of lists that contain the chunk (agreement across queries and arms). */
  support: number;
  /** Per arm: the best rank and score the chunk had there. */
  arms: Record<string, ArmEvidence>;
}

/** Default RRF constant (Cormack et al. 2009). */
export const DEFAULT_RRF_K = 60;

/**
 * Hybrid defaults chosen by measurement (docs/SEARCH.md): min-max convex combination with
 * the keyword arm weighted above the vector arm (LoCoMo Recall@10 0.646 vs BM25 0.628 and
 * equal-weight RRF 0.577; held in leave-one-conversation-out cross-validation and on a
 * second corpus). `candidates` = hits fetched per arm before fusion (deeper than k so that
 * min-max floors are stable and the vector arm can add hits).
 */
export const HYBRID_DEFAULTS = {
  method: 'minmax' as FusionMethod,
  keywordWeight: 0.7,
  vectorWeight: 0.3,
  candidates: 50,
};

/** Per-list normalizer: score at a given position → fused contribution, plus the floor. */
interface Normalizer {
  value(hit: Hit, index: number): number;
  floor: number;
}

function normalizer(list: RankedList, method: FusionMethod, rrfK: number): Normalizer {
  const hits = list.hits;
  if (method === 'rrf') return { value: (h) => 1 / (rrfK + h.rank), floor: 0 };
  if (hits.length === 0) return { value: () => 0, floor: 0 };
  let min = Infinity;
  let max = -Infinity;
  let sum = 0;
  for (const h of hits) {
    if (h.score < min) min = h.score;
    if (h.score > max) max = h.score;
    sum += h.score;
  }
  if (method === 'minmax') {
    if (list.floorScore !== undefined && list.floorScore < min) min = list.floorScore;
    const span = max - min;
    // One distinct score: every hit is as good as the best one.
    return { value: (h) => (span > 0 ? (h.score - min) / span : 1), floor: 0 };
  }
  const avg = sum / hits.length;
  let ss = 0;
  for (const h of hits) ss += (h.score - avg) ** 2;
  const sd = Math.sqrt(ss / hits.length);
  if (!(sd > 0)) return { value: () => 0, floor: 0 };
  return { value: (h) => (h.score - avg) / sd, floor: (min - avg) / sd };
}

/**
 * Fuse ranked lists into one ranking. A chunk appearing twice in one list counts once
 * (its best position). Weights must be finite and ≥ 0.
 */
export function fuse(lists: readonly RankedList[], opts: FuseOptions = {}): FusedHit[] {
  const method = opts.method ?? 'rrf';
  const rrfK = opts.rrfK ?? DEFAULT_RRF_K;
  for (const l of lists) {
    if (!Number.isFinite(l.weight) || l.weight < 0) throw new RangeError(`fusion weight for arm "${l.arm}" must be finite and ≥ 0 (got ${l.weight})`);
  }
  interface Acc {
    chunkId: number;
    score: number;
    bestRank: number;
    support: number;
    arms: Record<string, ArmEvidence>;
    /** Lists (by index) that contain it. */
    inList: Set<number>;
  }
  const acc = new Map<number, Acc>();
  const norms = lists.map((l) => normalizer(l, method, rrfK));

  lists.forEach((list, li) => {
    const norm = norms[li];
    list.hits.forEach((hit, i) => {
      let a = acc.get(hit.chunkId);
      if (!a) {
        a = { chunkId: hit.chunkId, score: 0, bestRank: Infinity, support: 0, arms: {}, inList: new Set() };
        acc.set(hit.chunkId, a);
      }
      if (a.inList.has(li)) return; // duplicate inside one list: first (best) position counts
      a.inList.add(li);
      a.support++;
      a.score += list.weight * norm.value(hit, i);
      if (hit.rank < a.bestRank) a.bestRank = hit.rank;
      const prev = a.arms[list.arm];
      if (!prev || hit.rank < prev.rank) a.arms[list.arm] = { rank: hit.rank, score: hit.score };
    });
  });

  // Lists that miss a chunk contribute their floor (non-zero only for zscore).
  for (const a of acc.values()) {
    lists.forEach((list, li) => {
      if (!a.inList.has(li)) a.score += list.weight * norms[li].floor;
    });
  }

  const out = [...acc.values()].sort((x, y) => y.score - x.score || x.bestRank - y.bestRank || x.chunkId - y.chunkId);
  const limited = opts.limit !== undefined ? out.slice(0, Math.max(0, opts.limit)) : out;
  return limited.map((a, i) => ({ chunkId: a.chunkId, score: a.score, rank: i + 1, support: a.support, arms: a.arms }));
}

/** Re-rank a plain list of hits (e.g. after filtering) so ranks are 1..n in order. */
export function rerank(hits: readonly Hit[]): Hit[] {
  return hits.map((h, i) => ({ ...h, rank: i + 1 }));
}
