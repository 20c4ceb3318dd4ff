/**
 * The evaluation loop shared by `eval retrieval` (LoCoMo) and `eval beir`: run every query
 * through the keyword and vector arms of search/search.ts once (queries embedded in batches,
 * vector search batched), then score keyword, vector and hybrid rankings with
 * eval/metrics.ts. Collection reads a StoreReader; scoring is pure, so fusion settings can be
 * compared on the same collected lists (docs/SEARCH.md).
 */
import type { Hit, StoreReader } from '../store/types.js';
import type { Embedder } from '../embed/types.js';
import { armRanking, fuseHybrid, hybridDepth, type Arm, type HybridFusion } from '../search/search.js';
import { ndcgAt, recallAt, mean } from './metrics.js';

export interface EvalQuery {
  id: string;
  text: string;
  /** Judged documents (external ids) → grade; grade > 0 = relevant. */
  qrels: Map<string, number>;
}

/** One query's raw arm lists (best first), fetched deep enough for every metric. */
export interface ArmLists {
  keyword: Hit[];
  vector: Hit[];
}

export interface MetricSpec {
  name: string;
  kind: 'recall' | 'ndcg';
  k: number;
}

/** metric name → arm → mean over queries. */
export type ArmScores = Record<string, Record<Arm, number>>;

export const LOCOMO_METRICS: MetricSpec[] = [
  { name: 'recall@5', kind: 'recall', k: 5 },
  { name: 'recall@10', kind: 'recall', k: 10 },
  { name: 'ndcg@10', kind: 'ndcg', k: 10 },
];

export const BEIR_METRICS: MetricSpec[] = [
  { name: 'ndcg@10', kind: 'ndcg', k: 10 },
  { name: 'recall@100', kind: 'recall', k: 100 },
];

/** Queries embedded per embedder call and vector-searched per store pass. */
export const QUERY_BATCH = 64;

/** Hits to fetch per arm so every metric (and hybrid fusion at its depth) can be computed. */
export function collectDepth(metrics: MetricSpec[], fusion?: Partial<HybridFusion>): number {
  return Math.max(...metrics.map((m) => hybridDepth(m.k, fusion)));
}

/** Fetch keyword and vector lists for every query. */
export async function collectArmLists(
  store: StoreReader,
  embedder: Embedder,
  queries: readonly EvalQuery[],
  depth: number,
  onProgress?: (done: number) => void,
): Promise<ArmLists[]> {
  const out: ArmLists[] = [];
  for (let i = 0; i < queries.length; i += QUERY_BATCH) {
    const batch = queries.slice(i, i + QUERY_BATCH);
    const vectors = await embedder.embed(batch.map((q) => q.text), { kind: 'query' });
    const vectorLists = store.vectorSearch(vectors, depth);
    batch.forEach((q, j) => {
      out.push({ keyword: q.text.trim() === '' ? [] : store.keywordSearch(q.text, depth), vector: vectorLists[j] ?? [] });
    });
    onProgress?.(out.length);
  }
  return out;
}

/** Ranked external ids for one arm at cut-off k (hybrid fused exactly as search() would for k). */
export function rankedIds(lists: ArmLists, arm: Arm, k: number, idOf: (chunkId: number) => string | undefined, fusion?: Partial<HybridFusion>): string[] {
  let ranked;
  if (arm === 'hybrid') {
    const d = hybridDepth(k, fusion);
    ranked = fuseHybrid(lists.keyword.slice(0, d), lists.vector.slice(0, d), k, fusion);
  } else ranked = armRanking(arm, lists[arm], k);
  const ids: string[] = [];
  for (const h of ranked) {
    const id = idOf(h.chunkId);
    if (id !== undefined) ids.push(id);
  }
  return ids;
}

/** Per-query metric values: metric name → arm → values (queries in order). */
export function perQueryScores(
  queries: readonly EvalQuery[],
  lists: readonly ArmLists[],
  idOf: (chunkId: number) => string | undefined,
  metrics: MetricSpec[],
  fusion?: Partial<HybridFusion>,
): Record<string, Record<Arm, number[]>> {
  const out: Record<string, Record<Arm, number[]>> = {};
  for (const m of metrics) out[m.name] = { keyword: [], vector: [], hybrid: [] };
  queries.forEach((q, i) => {
    for (const arm of ['keyword', 'vector', 'hybrid'] as Arm[]) {
      const cache = new Map<number, string[]>();
      for (const m of metrics) {
        let ids = cache.get(m.k);
        if (!ids) cache.set(m.k, (ids = rankedIds(lists[i], arm, m.k, idOf, fusion)));
        const v = m.kind === 'recall' ? recallAt(ids, q.qrels, m.k) : ndcgAt(ids, q.qrels, m.k);
        if (v !== null) out[m.name][arm].push(v);
      }
    }
  });
  return out;
}

/** Mean of each metric per arm. */
export function meanScores(per: Record<string, Record<Arm, number[]>>): ArmScores {
  const out: ArmScores = {};
  for (const [name, arms] of Object.entries(per)) {
    out[name] = { keyword: mean(arms.keyword), vector: mean(arms.vector), hybrid: mean(arms.hybrid) };
  }
  return out;
}
