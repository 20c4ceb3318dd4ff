/**
 * Search over the knowledge store: keyword (FTS5 BM25), vector (cosine), or hybrid (both,
 * fused by search/fusion.ts). One code path for the CLI (`active-brain search`), the evals
 * (eval retrieval / eval beir), the MCP server and, as building blocks, the daemon's
 * retrieval. Reads the store through StoreReader and embeds the query with the Embedder;
 * writes nothing.
 *
 *   rankChunks(store, {text, vector}, opts)   sync, ids + scores per arm (query vector given)
 *   search(store, embedder, text, opts)       async: embeds the query, loads the chunks
 */
import type { ChunkRecord, Hit, SearchFilter, StoreReader } from '../store/types.js';
import type { Embedder } from '../embed/types.js';
import { fuse, HYBRID_DEFAULTS, type FusionMethod, type ArmEvidence } from './fusion.js';

export type Arm = 'keyword' | 'vector' | 'hybrid';
export const ARMS: readonly Arm[] = ['keyword', 'vector', 'hybrid'];

/** Default number of results. */
export const DEFAULT_K = 10;
/** The keyword score (negated BM25) of a chunk that matches no query term. */
export const KEYWORD_NO_MATCH_SCORE = 0;

export interface HybridFusion {
  method: FusionMethod;
  keywordWeight: number;
  vectorWeight: number;
  /** Hits fetched from each arm before fusion (at least k). */
  candidates: number;
  /** RRF constant (method `rrf` only). */
  rrfK?: number;
}

export interface SearchOptions {
  k?: number;
  arm?: Arm;
  filter?: SearchFilter;
  /** Hybrid fusion settings (default: HYBRID_DEFAULTS, chosen by measurement). */
  fusion?: Partial<HybridFusion>;
}

export interface RankedHit {
  chunkId: number;
  /** Score of the requested arm (BM25 negated / cosine / fused). */
  score: number;
  rank: number;
  /** Per-arm evidence: rank and raw score in the keyword and/or vector list. */
  arms: Partial<Record<'keyword' | 'vector', ArmEvidence>>;
}

export interface Ranking {
  arm: Arm;
  hits: RankedHit[];
}

export interface SearchHit extends RankedHit {
  chunk: ChunkRecord;
}

export interface SearchResult {
  query: string;
  arm: Arm;
  hits: SearchHit[];
}

/** True when an arm needs the query embedded. */
export function needsVector(arm: Arm): boolean {
  return arm !== 'keyword';
}

function fromArm(arm: 'keyword' | 'vector', hits: Hit[], k: number): RankedHit[] {
  return hits.slice(0, k).map((h, i) => ({ chunkId: h.chunkId, score: h.score, rank: i + 1, arms: { [arm]: { rank: h.rank, score: h.score } } }));
}

/**
 * Rank chunk ids for one query. `vector` is required for the vector and hybrid arms
 * (a unit-length query embedding from the store's model).
 */
export function rankChunks(store: StoreReader, query: { text: string; vector?: Float32Array | null }, opts: SearchOptions = {}): Ranking {
  const k = opts.k ?? DEFAULT_K;
  const arm = opts.arm ?? 'hybrid';
  if (!Number.isInteger(k) || k < 1) throw new RangeError(`k must be a positive integer (got ${k})`);
  if (query.text.trim() === '') return { arm, hits: [] };
  if (needsVector(arm) && !query.vector) throw new Error(`the ${arm} arm needs a query vector`);

  if (arm === 'keyword') return { arm, hits: fromArm('keyword', store.keywordSearch(query.text, k, opts.filter), k) };
  if (arm === 'vector') return { arm, hits: fromArm('vector', store.vectorSearch([query.vector!], k, opts.filter)[0] ?? [], k) };

  const depth = hybridDepth(k, opts.fusion);
  const keyword = store.keywordSearch(query.text, depth, opts.filter);
  const vector = store.vectorSearch([query.vector!], depth, opts.filter)[0] ?? [];
  return { arm, hits: fuseHybrid(keyword, vector, k, opts.fusion) };
}

/** Hits to fetch from each arm before hybrid fusion. */
export function hybridDepth(k: number, fusion?: Partial<HybridFusion>): number {
  return Math.max(k, fusion?.candidates ?? HYBRID_DEFAULTS.candidates);
}

/** The hybrid ranking from the two arms' lists (fetched at hybridDepth): pure. */
export function fuseHybrid(keyword: Hit[], vector: Hit[], k: number, fusion?: Partial<HybridFusion>): RankedHit[] {
  const f: HybridFusion = { ...HYBRID_DEFAULTS, ...fusion };
  // A keyword list shorter than the depth holds every chunk that matched: the rest score 0.
  const keywordFloor = keyword.length < hybridDepth(k, fusion) ? KEYWORD_NO_MATCH_SCORE : undefined;
  const fused = fuse(
    [
      { arm: 'keyword', hits: keyword, weight: f.keywordWeight, floorScore: keywordFloor },
      { arm: 'vector', hits: vector, weight: f.vectorWeight },
    ],
    { method: f.method, rrfK: f.rrfK, limit: k },
  );
  return fused.map((h) => ({ chunkId: h.chunkId, score: h.score, rank: h.rank, arms: h.arms as RankedHit['arms'] }));
}

/** The top k of one arm's list as RankedHits. */
export function armRanking(arm: 'keyword' | 'vector', hits: Hit[], k: number): RankedHit[] {
  return fromArm(arm, hits, k);
}

/** Embed one query text (unit length). */
export async function embedQuery(embedder: Embedder, text: string): Promise<Float32Array> {
  const [v] = await embedder.embed([text], { kind: 'query' });
  return v;
}

/**
 * Search the store: embeds the query when the arm needs it (after checking the store was
 * built with the embedder's model — a mismatch throws the store's error), ranks, and loads
 * the chunks in rank order.
 */
export async function search(store: StoreReader, embedder: Embedder | null, text: string, opts: SearchOptions = {}): Promise<SearchResult> {
  const arm = opts.arm ?? 'hybrid';
  let vector: Float32Array | null = null;
  if (needsVector(arm) && text.trim() !== '') {
    if (!embedder) throw new Error(`the ${arm} arm needs an embedder`);
    store.checkModel(embedder.modelId, embedder.dim);
    vector = await embedQuery(embedder, text);
  }
  const ranking = rankChunks(store, { text, vector }, { ...opts, arm });
  const chunks = new Map(store.getChunks(ranking.hits.map((h) => h.chunkId)).map((c) => [c.id, c]));
  const hits: SearchHit[] = [];
  for (const h of ranking.hits) {
    const chunk = chunks.get(h.chunkId);
    if (chunk) hits.push({ ...h, rank: hits.length + 1, chunk });
  }
  return { query: text, arm, hits };
}
