/**
 * The store's own similarity scale: a fixed sample of stored chunk vectors against which a
 * build's query vectors are compared, so "how similar is the best chunk" is measured as a
 * robust z over what this store + this model give an ordinary chunk (MiniLM's cosines and
 * the offline model's live on different scales). Input: the StoreReader (read-only).
 * Output: the sampled vectors, cached until the store's chunk count or model changes.
 *
 * Sampling: the nearest chunks to SCALE_DIRECTIONS fixed pseudo-random directions (one
 * batched vectorSearch), up to SCALE_PER_DIRECTION each, deduplicated — a spread of chunks
 * from all over the space without knowing the store's ids. Costs one scan per store change;
 * per build it is a few hundred dot products.
 */
import type { StoreInfo, StoreReader } from '../store/types.js';
import { randomUnit, seededRandom as mulberry32 } from '../shared/prng.js';

export const SCALE_DIRECTIONS = 8;
export const SCALE_PER_DIRECTION = 16;
/** Seed of the fixed directions (deterministic across runs). */
const SCALE_SEED = 0x5eed;


/** Fixed unit directions of a dimension (Box–Muller, seeded). */
export function fixedDirections(dim: number, count = SCALE_DIRECTIONS): Float32Array[] {
  const rand = mulberry32(SCALE_SEED + dim);
  return Array.from({ length: count }, () => randomUnit(rand, dim));
}

export interface ScaleSampler {
  /** Sampled chunk vectors (may be empty for an empty store); `info` = the build's store.info(). */
  sample(dim: number, info: Pick<StoreInfo, 'model' | 'dim' | 'chunks'>): Float32Array[];
}

export function createScaleSampler(store: StoreReader): ScaleSampler {
  let key = '';
  let cached: Float32Array[] = [];
  return {
    sample(dim: number, info: Pick<StoreInfo, 'model' | 'dim' | 'chunks'>): Float32Array[] {
      const k = `${info.model}|${info.dim}|${info.chunks}|${dim}`;
      if (k === key) return cached;
      const lists = store.vectorSearch(fixedDirections(dim), SCALE_PER_DIRECTION);
      const ids = [...new Set(lists.flat().map((h) => h.chunkId))];
      cached = [];
      for (const id of ids) {
        const v = store.chunkVector(id);
        if (v && v.length === dim) cached.push(v);
      }
      key = k;
      return cached;
    },
  };
}

/** Cosines of each query vector with each sampled vector (all pooled). */
export function baselineCosines(sample: readonly Float32Array[], queries: readonly Float32Array[]): number[] {
  const out: number[] = [];
  for (const q of queries) {
    for (const v of sample) {
      if (v.length !== q.length) continue;
      let s = 0;
      for (let i = 0; i < q.length; i++) s += q[i] * v[i];
      if (Number.isFinite(s)) out.push(s);
    }
  }
  return out;
}
