/**
 * What both store readers (store/reader.ts on SQLite, store/pg-reader.ts on PostgreSQL) decide
 * the same way, with no storage in sight: which regions a search filter allows (scope by the
 * session's cwd, region names), the order and cap of episode lists, and the name search's merge
 * and ranking over each store's own lookups. Pure.
 */
import { scopeAllows } from '../shared/modes.js';
import type { EpisodeRecord, Hit, NameMatch, Region, SearchFilter } from './types.js';

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

/** The score of each kind of name match (a chunk matched several ways keeps the best). */
export const NAME_MATCH_SCORE: Record<NameMatch, number> = { alias: 3, title: 2, suffix: 1 };

/** One chunk a name lookup found: its id, region and creation time. */
export interface NameRow {
  id: number;
  regionId: number;
  t: number;
}

/** The four exact lookups a store runs for nameSearch (each its own SQL). */
export interface NameLookups {
  /** Chunks with this alias. */
  alias(term: string): NameRow[];
  /** First chunks of documents with this title. */
  title(term: string): NameRow[];
  /** First chunks of documents whose file name is `base` and whose path is `term` or ends
   *  in `/` + the term (`like`: that suffix as a LIKE pattern, `\` escaping). */
  pathSuffix(term: string, like: string, base: string): NameRow[];
  /** First chunks of documents whose file name or stem is the term. */
  fileName(term: string): NameRow[];
}

/**
 * Titles, aliases and file names that match a term exactly (a term with `/`: by path suffix),
 * best match kind first, then newest, then by chunk id; at most k. Both stores run this over
 * their own lookups, so they rank the same.
 */
export function nameSearch(
  term: string,
  k: number,
  filter: SearchFilter | undefined,
  select: (filter: SearchFilter | undefined) => RegionSelection | null,
  lookups: NameLookups,
): Array<Hit & { match: NameMatch }> {
  const t = term.trim();
  if (!t || k <= 0) return [];
  const sel = select(filter);
  if (sel && sel.ids.length === 0) return [];
  const exclude = new Set(filter?.excludeChunkIds ?? []);
  const best = new Map<number, { match: NameMatch; t: number }>();
  const add = (rows: NameRow[], match: NameMatch) => {
    for (const r of rows) {
      if (exclude.has(r.id) || (sel && !sel.mask[r.regionId])) continue;
      const prev = best.get(r.id);
      if (!prev || NAME_MATCH_SCORE[match] > NAME_MATCH_SCORE[prev.match]) best.set(r.id, { match, t: r.t });
    }
  };
  add(lookups.alias(t), 'alias');
  add(lookups.title(t), 'title');
  if (t.includes('/')) {
    const like = '%/' + t.replace(/^\/+/, '').replace(/[\\%_]/g, (c) => '\\' + c);
    const base = t.slice(t.lastIndexOf('/') + 1);
    if (base) add(lookups.pathSuffix(t, like, base), 'suffix');
  } else {
    add(lookups.fileName(t), 'suffix');
  }
  return [...best.entries()]
    .sort((a, b) => NAME_MATCH_SCORE[b[1].match] - NAME_MATCH_SCORE[a[1].match] || b[1].t - a[1].t || a[0] - b[0])
    .slice(0, k)
    .map(([id, v], i) => ({ chunkId: id, score: NAME_MATCH_SCORE[v.match], rank: i + 1, match: v.match }));
}

/** An episode row as both stores' queries return it: the fields the filter reads. */
export interface EpisodeRowRef {
  chunkId: number;
  regionId: number;
}

/**
 * Episodes (and notes' quoted signatures) for some error signatures: the store's rows for the
 * distinct signatures asked, those outside the filter's regions or excluded dropped, resolved
 * first then newest, at most MAX_EPISODES_BY_SIGNATURE. `rows` runs the store's own query;
 * `toEpisode` maps a row.
 */
export function episodesBySignature<R extends EpisodeRowRef>(
  sigs: string[],
  filter: SearchFilter | undefined,
  select: (filter: SearchFilter | undefined) => RegionSelection | null,
  rows: (wanted: string[]) => R[],
  toEpisode: (row: R) => EpisodeRecord,
): EpisodeRecord[] {
  const wanted = [...new Set(sigs.filter((x) => typeof x === 'string' && x))];
  if (wanted.length === 0) return [];
  const sel = select(filter);
  if (sel && sel.ids.length === 0) return [];
  const exclude = new Set(filter?.excludeChunkIds ?? []);
  return rows(wanted)
    .filter((r) => !exclude.has(r.chunkId) && (!sel || sel.mask[r.regionId] === 1))
    .map(toEpisode)
    .sort(episodeOrder)
    .slice(0, MAX_EPISODES_BY_SIGNATURE);
}
