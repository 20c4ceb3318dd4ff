/**
 * Multi-query fusion for a candidate build: a thin layer over search/fusion.ts (weighted
 * reciprocal rank fusion — no second RRF here). Input: the named lists of
 * retrieval/queries.ts. Output: one ranking with, per chunk, its fused score, its support
 * (how many distinct query/arm lists returned it), its best absolute cosine and its best
 * exact-name confidence — the evidence retrieval/sufficiency.ts and offer-type.ts read.
 * Each list is passed to fuse() under its own arm name (`vector:centroid`, …), so the
 * per-arm evidence search/fusion keeps is per query here. Also per chunk: the best fixed
 * confidence of an extracted string whose keyword query returned it (STRING_CONFIDENCE). Pure.
 */
import { fuse } from '../search/fusion.js';
import type { NamedList, QueryArm } from './queries.js';
import type { ExtractKind } from './extract.js';

/**
 * Fixed confidence that a keyword hit on an extracted string is specific evidence: an error
 * code or message, a stack frame or a file path shared with the chunk says much more than a
 * shared capitalised name (speaker names match every turn of a chat).
 */
export const STRING_CONFIDENCE: Record<ExtractKind, number> = {
  'error-code': 0.8,
  'error-message': 0.8,
  frame: 0.7,
  path: 0.6,
  handle: 0.5,
  'http-status': 0.4,
  'exit-code': 0.3,
  name: 0,
};

/**
 * RRF weight of each list. The keyword arm carries the most (plain BM25 beats the offline
 * vector arm on LoCoMo, DESIGN "Measured facts"); the exchange's own queries weigh more than
 * the session centroid; exact-name hits are rare and precise. Extracted strings each get a
 * smaller share so that eight of them cannot drown the exchange itself.
 */
export const LIST_WEIGHTS = {
  'keyword:exchange': 1.0,
  'vector:exchange': 0.6,
  'vector:centroid': 0.35,
  keywordString: 0.5,
  /** Capitalised names are the least specific strings (a speaker's name is in every turn). */
  keywordName: 0.2,
  nameString: 0.8,
} as const;

export interface FusedCandidate {
  chunkId: number;
  /** Weighted RRF score (higher is better). */
  fused: number;
  /** 1-based fused rank. */
  rank: number;
  /** Distinct lists (query × arm) that returned the chunk. */
  support: number;
  /** Best cosine from a vector list, or null when no vector list returned it. */
  bestCos: number | null;
  /** Best fixed exact-name confidence (0.9 alias / 0.8 title / 0.6 suffix), or null. */
  bestName: number | null;
  /** Best STRING_CONFIDENCE of an extracted string whose keyword query returned it, or null. */
  bestString: number | null;
  /** Ids of the lists that returned it (e.g. `keyword:exchange`). */
  lists: string[];
}

export function listWeight(list: Pick<NamedList, 'id' | 'arm' | 'kind'>): number {
  const fixed = (LIST_WEIGHTS as Record<string, number>)[list.id];
  if (fixed !== undefined) return fixed;
  if (list.arm === 'name') return LIST_WEIGHTS.nameString;
  if (list.arm === 'keyword') return list.kind === 'name' ? LIST_WEIGHTS.keywordName : LIST_WEIGHTS.keywordString;
  return LIST_WEIGHTS['vector:centroid'];
}

function armOf(listId: string): QueryArm {
  return listId.slice(0, listId.indexOf(':')) as QueryArm;
}

/** Fuse the lists of one build into one ranking with per-chunk evidence. */
export function fuseQueries(lists: readonly NamedList[], rrfK: number): FusedCandidate[] {
  const kindOf = new Map(lists.map((l) => [l.id, l.kind]));
  const fused = fuse(
    lists.filter((l) => l.hits.length > 0).map((l) => ({ hits: l.hits, weight: listWeight(l), arm: l.id })),
    { method: 'rrf', rrfK },
  );
  return fused.map((f) => {
    let bestCos: number | null = null;
    let bestName: number | null = null;
    let bestString: number | null = null;
    const ids = Object.keys(f.arms);
    for (const id of ids) {
      const ev = f.arms[id];
      const arm = armOf(id);
      if (arm === 'vector' && (bestCos === null || ev.score > bestCos)) bestCos = ev.score;
      if (arm === 'name' && (bestName === null || ev.score > bestName)) bestName = ev.score;
      const kind = kindOf.get(id);
      if (arm === 'keyword' && kind) {
        const c = STRING_CONFIDENCE[kind];
        if (c > 0 && (bestString === null || c > bestString)) bestString = c;
      }
    }
    return { chunkId: f.chunkId, fused: f.score, rank: f.rank, support: f.support, bestCos, bestName, bestString, lists: ids.sort() };
  });
}
