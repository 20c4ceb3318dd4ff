/**
 * Retrieval metrics (pure): Recall@k and nDCG@k with graded relevance, plus a mean helper.
 * Input: a ranked list of ids (best first) and the judged relevance of ids (grade > 0 is
 * relevant). Used by eval/locomo.ts and eval/beir.ts; nDCG uses linear gain (grade / log2(rank+1)),
 * the trec_eval / BEIR convention.
 */

export type Qrels = ReadonlyMap<string, number>;

/** The first k distinct ids (a repeated id earns nothing and takes no rank). */
export function firstUnique(ranked: readonly string[], k: number): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const id of ranked) {
    if (out.length >= k) break;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
  }
  return out;
}

/** Share of relevant ids (grade > 0) found in the first k of `ranked`; null when nothing is relevant. */
export function recallAt(ranked: readonly string[], qrels: Qrels, k: number): number | null {
  let relevant = 0;
  for (const g of qrels.values()) if (g > 0) relevant++;
  if (relevant === 0) return null;
  let found = 0;
  for (const id of firstUnique(ranked, k)) if ((qrels.get(id) ?? 0) > 0) found++;
  return found / relevant;
}

/** Normalized discounted cumulative gain at k; null when nothing is relevant. */
export function ndcgAt(ranked: readonly string[], qrels: Qrels, k: number): number | null {
  const grades = [...qrels.values()].filter((g) => g > 0).sort((a, b) => b - a);
  if (grades.length === 0) return null;
  let ideal = 0;
  grades.slice(0, k).forEach((g, i) => (ideal += g / Math.log2(i + 2)));
  let dcg = 0;
  firstUnique(ranked, k).forEach((id, i) => {
    const g = qrels.get(id) ?? 0;
    if (g > 0) dcg += g / Math.log2(i + 2);
  });
  return dcg / ideal;
}

/** Arithmetic mean; 0 for an empty list. */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return 0;
  let s = 0;
  for (const x of xs) s += x;
  return s / xs.length;
}

/** Round for reports (4 decimals). */
export function round4(x: number): number {
  return Math.round(x * 1e4) / 1e4;
}
