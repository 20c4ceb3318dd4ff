/**
 * What both store readers (store/reader.ts on SQLite, store/pg-reader.ts on PostgreSQL) decide
 * the same way, with no storage in sight: which regions a search filter allows (scope by the
 * session's cwd, region names), and the order and cap of episode lists. Pure.
 */
import { scopeAllows } from '../shared/modes.js';
import type { EpisodeRecord, Region, SearchFilter } from './types.js';

/** Most records episodesBySignature returns (resolved first, then newest): a signature met
 *  hundreds of times needs only its best few for an offer. */
export const MAX_EPISODES_BY_SIGNATURE = 100;

/** Resolved first, then newest, then by chunk id (deterministic). */
export function episodeOrder(a: EpisodeRecord, b: EpisodeRecord): number {
  return Number(b.resolved) - Number(a.resolved) || b.at - a.at || b.chunkId - a.chunkId;
}

/** Allowed region ids for a filter: null = every region (no restriction). */
export interface RegionSelection {
  ids: number[];
  mask: Uint8Array;
}

/** The regions a filter allows among `regions()`; null when it allows every region. */
export function regionSelection(filter: SearchFilter | undefined, regions: () => Region[]): RegionSelection | null {
  if (!filter || (filter.regions === undefined && filter.cwd === undefined)) return null;
  const names = filter.regions ? new Set(filter.regions) : null;
  const all = regions();
  const ok = all.filter((r) => (!names || names.has(r.name)) && (filter.cwd === undefined || scopeAllows(r.scope, filter.cwd)));
  if (ok.length === all.length) return null;
  const max = all.reduce((m, r) => Math.max(m, r.id), 0);
  const mask = new Uint8Array(max + 1);
  for (const r of ok) mask[r.id] = 1;
  return { ids: ok.map((r) => r.id), mask };
}
