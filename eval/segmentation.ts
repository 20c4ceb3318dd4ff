/**
 * Segmentation metrics (pure) for the drift evaluation: boundary precision / recall / F1 and
 * Pk (Beeferman et al.), over boundary flags per utterance (true = a new topic starts here).
 * Input comes from eval/drift.ts (gold TIAGE labels vs trigger firings); output is numbers.
 */

export interface BoundaryCounts {
  tp: number;
  fp: number;
  fn: number;
}

export interface PRF {
  precision: number;
  recall: number;
  f1: number;
}

/** Exact-position boundary matches (position 0 is never a boundary and is ignored). */
export function countBoundaries(gold: readonly boolean[], hyp: readonly boolean[]): BoundaryCounts {
  const c: BoundaryCounts = { tp: 0, fp: 0, fn: 0 };
  for (let i = 1; i < gold.length; i++) {
    if (gold[i] && hyp[i]) c.tp++;
    else if (hyp[i]) c.fp++;
    else if (gold[i]) c.fn++;
  }
  return c;
}

export function addCounts(a: BoundaryCounts, b: BoundaryCounts): BoundaryCounts {
  return { tp: a.tp + b.tp, fp: a.fp + b.fp, fn: a.fn + b.fn };
}

export function prf(c: BoundaryCounts): PRF {
  const precision = c.tp + c.fp > 0 ? c.tp / (c.tp + c.fp) : 0;
  const recall = c.tp + c.fn > 0 ? c.tp / (c.tp + c.fn) : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { precision, recall, f1 };
}

/** Segment id of every position, from boundary flags. */
function segmentIds(bounds: readonly boolean[]): number[] {
  const ids: number[] = [];
  let s = 0;
  for (let i = 0; i < bounds.length; i++) {
    if (i > 0 && bounds[i]) s++;
    ids.push(s);
  }
  return ids;
}

/** Mean gold segment length of one sequence. */
export function meanSegmentLength(gold: readonly boolean[]): number {
  const segments = 1 + gold.slice(1).filter(Boolean).length;
  return gold.length / segments;
}

/**
 * Pk error counts for one sequence: over every pair (i, i+k), does the hypothesis agree with
 * the reference on "same segment or not"? Returns {errors, comparisons} so callers can pool
 * across dialogues. k defaults to half the mean gold segment length (at least 1).
 */
export function pkCounts(gold: readonly boolean[], hyp: readonly boolean[], k?: number): { errors: number; comparisons: number } {
  const n = gold.length;
  const w = Math.max(1, Math.round(k ?? meanSegmentLength(gold) / 2));
  const g = segmentIds(gold);
  const h = segmentIds(hyp);
  let errors = 0;
  let comparisons = 0;
  for (let i = 0; i + w < n; i++) {
    const sameG = g[i] === g[i + w];
    const sameH = h[i] === h[i + w];
    if (sameG !== sameH) errors++;
    comparisons++;
  }
  return { errors, comparisons };
}
