/**
 * The read side of the SQLite knowledge store (StoreReader). The reader core does the search:
 * vector search over the in-memory matrix and (keywords 'memory') BM25 over the in-memory
 * keyword index, both kept by store/local-indexes.ts and refreshed incrementally when `PRAGMA
 * data_version` says another connection committed; this module supplies the rows (sqliteRows:
 * visible ids, vectors, and each chunk's FTS5 terms via store/sqlite-terms.ts). Keywords
 * 'fts5' asks FTS5 instead (bm25() over chunks_fts, the on-disk source of truth): no build cost
 * at open, so short-lived readers (one CLI search) use it — docs/SEARCH.md has the measurement.
 * Both arms prune keyword queries by document frequency (store/term-stats.ts). Exact name
 * lookup, chunk fetches and episodes are plain queries. The connection is read-only
 * (store/open.ts); region filters and scopes come from store/reader-core.ts.
 */
import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import type { ChunkKind, ChunkRecord, EpisodeOutcome, EpisodeRecord, Hit, Region, SearchFilter, SourceKind, SourceRecord, StoreInfo, StoreReader } from './types.js';
import { checkSchema, getMeta } from './schema.js';
import { ftsExpression, queryTokens } from './fts-query.js';
import { TermStats, PRUNE_DEFAULTS, type PruneOptions } from './term-stats.js';
import { blobToFloat32, type MatrixFilter, type ScanMethod } from './vector-matrix.js';
import { LocalIndexes, memoryKeywordSearch, type RowSource } from './local-indexes.js';
import { SqliteChunkTerms } from './sqlite-terms.js';
import { BM25_WEIGHTS, KeywordIndex } from './keyword-index.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { openReadonlyDb, unreadableStore } from './open.js';
import { resolve } from 'node:path';
import { SqliteLineage } from './lineage-sql.js';
import { MAX_EPISODES_BY_SIGNATURE, episodeOrder, regionSelection, type RegionSelection } from './reader-core.js';

/** With a region filter, keyword search first asks FTS5 for these multiples of the hits it needs
 *  and filters in memory (cheap); only when that leaves too few does it run the filtered SQL join. */
export const KEYWORD_OVERFETCH = [4, 64] as const;

type NameMatch = 'alias' | 'title' | 'suffix';
const MATCH_SCORE: Record<NameMatch, number> = { alias: 3, title: 2, suffix: 1 };

interface ChunkRow {
  id: number;
  handle: string;
  region: string;
  scope: string;
  kind: SourceKind;
  path: string;
  title: string;
  heading: string;
  text: string;
  ordinal: number;
  created_at: number;
  has_error: number;
  resolved: number;
  aliases: string;
  chunk_kind: ChunkKind;
}

const CHUNK_SELECT = `
  SELECT c.id, c.handle, r.name AS region, r.scope, s.kind, d.path, d.title, c.heading, c.text,
         c.ordinal, c.created_at, c.has_error, c.resolved, c.aliases, c.chunk_kind
  FROM chunks c
  JOIN documents d ON d.id = c.document_id
  JOIN sources s ON s.id = d.source_id
  JOIN regions r ON r.id = c.region_id`;

function toRecord(r: ChunkRow): ChunkRecord {
  return {
    id: r.id,
    handle: r.handle,
    region: r.region,
    regionScope: r.scope,
    kind: r.kind,
    path: r.path,
    title: r.title,
    heading: r.heading,
    text: r.text,
    ordinal: r.ordinal,
    createdAt: r.created_at,
    hasError: r.has_error !== 0,
    resolved: r.resolved !== 0,
    aliases: r.aliases ? r.aliases.split('\n') : [],
    chunkKind: r.chunk_kind,
  };
}


interface EpisodeRow {
  chunkId: number;
  handle: string;
  region: string;
  scope: string;
  regionId: number;
  sig: string;
  head: string;
  words: string;
  sessionId: string;
  tool: string;
  action: string;
  fix: string;
  resolved: number;
  outcome: EpisodeOutcome;
  attempts: number;
  note: string;
  at: number;
  source: 'episode' | 'note';
}

/** Episode rows and note-signature rows in one shape (notes: resolved written knowledge). */
const EPISODE_SELECT = `
  SELECT e.chunk_id AS chunkId, c.handle, r.name AS region, r.scope, c.region_id AS regionId, e.sig, e.head, e.words,
         e.session_id AS sessionId, e.tool, e.action, e.fix, e.resolved, e.outcome, e.attempts, e.note, e.at, 'episode' AS source
  FROM episodes e JOIN chunks c ON c.id = e.chunk_id JOIN regions r ON r.id = c.region_id`;
const NOTE_SIGNATURE_SELECT = `
  SELECT s.chunk_id AS chunkId, c.handle, r.name AS region, r.scope, c.region_id AS regionId, s.sig, s.head, s.words,
         '' AS sessionId, '' AS tool, '' AS action, s.fix, 1 AS resolved, 'succeeded' AS outcome, 1 AS attempts, '' AS note,
         c.created_at AS at, 'note' AS source
  FROM signatures s JOIN chunks c ON c.id = s.chunk_id JOIN regions r ON r.id = c.region_id`;

function toEpisode(r: EpisodeRow): EpisodeRecord {
  return {
    chunkId: r.chunkId,
    handle: r.handle,
    region: r.region,
    regionScope: r.scope,
    sig: r.sig,
    head: r.head ? r.head.split('\n') : [],
    words: r.words ? r.words.split(' ') : [],
    sessionId: r.sessionId,
    tool: r.tool,
    action: r.action,
    fix: r.fix,
    resolved: r.resolved !== 0,
    outcome: r.outcome,
    attempts: r.attempts,
    note: r.note,
    at: r.at,
    source: r.source,
  };
}


type EpisodeIndexEntry = Pick<EpisodeRecord, 'chunkId' | 'sig' | 'words' | 'resolved' | 'sessionId' | 'source' | 'lineage'>;


/** Where the SQLite reader's keyword arm searches. 'auto' (default): FTS5 on disk until warm()
 *  has built the in-memory index page by page (yielding between pages), the index from then on;
 *  'memory': the index, built at the first search; 'fts5': FTS5 always. Why: building the index
 *  costs seconds at 100k chunks (every word of every chunk is read and mapped to FTS5's terms;
 *  docs/SEARCH.md), so the first search after open and a short-lived reader (one CLI search)
 *  answer faster from FTS5, and a long-lived reader (the daemon) faster from memory. */
export const KEYWORD_ARMS = ['auto', 'memory', 'fts5'] as const;
export type KeywordArm = (typeof KEYWORD_ARMS)[number];
/** Chunks read and indexed per step of warm(); between steps the event loop runs. */
export const WARM_PAGE = 2_000;

/** Region ids below this let a chunk's id and region travel as one number (id · REGION_KEY +
 *  region id, exact in a double for ids below 2³¹): the visible-rows listing then returns plain
 *  numbers instead of a [id, region] array per row (at 100k chunks: ~4× faster). */
export const REGION_KEY = 2 ** 21;
/** Vector rows read per statement call while filling the matrix (all() per page: one call into
 *  SQLite per page instead of one per row, without holding every row at once). */
export const VECTOR_PAGE = 5_000;
/** Vector rows per BLOB of a first fill (store/matrix-fill.ts): at 100-d a 400 KB BLOB; at 100k
 *  chunks 1k-row pages cost less CPU than 5k-row ones (measured: 171 vs 199 ms, median of 5). */
export const VECTOR_RUN_ROWS = 1_000;
/** Rows asked for by ascending ids that fill at least 1/FETCH_RANGE_SPAN of their id range (the
 *  chunks an index run appended: all of it) are read with one range scan of each table, the rows
 *  not asked for skipped, instead of one lookup per id through json_each: at 1,000 appended
 *  chunks of a 100k store, 1.1 + 1.4 ms CPU (vectors + texts) instead of 4.1 + 4.7 ms (median of
 *  15). A scan reads the rows between the ids asked for too, ~3× cheaper per row than a lookup
 *  here, so a span of at most twice the ids asked for stays well ahead. */
export const FETCH_RANGE_SPAN = 2;
/** Bytes per stored vector value (Float32). */
const FLOAT_BYTES = 4;

/** Character codes of the id list: digits and the separator. */
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA = 44;

/** The ids of a group_concat(chunk_id) list ("3,4,9"), checked ascending and above `after`. Read
 *  digit by digit: no substring per id (at 100k ids, fewer allocations for the GC to follow). */
export function parseIdList(list: string, after: number): Float64Array {
  let count = 1;
  for (let i = 0; i < list.length; i++) if (list.charCodeAt(i) === COMMA) count++;
  const ids = new Float64Array(count);
  let prev = after;
  let n = 0;
  let id = 0;
  let digits = 0;
  for (let i = 0; i <= list.length; i++) {
    const c = i < list.length ? list.charCodeAt(i) : COMMA;
    if (c >= DIGIT_0 && c <= DIGIT_9) {
      id = id * 10 + (c - DIGIT_0);
      digits++;
      continue;
    }
    if (c !== COMMA || digits === 0 || !(id > prev)) throw new Error(`vector ids out of order or malformed at ${list.slice(Math.max(0, i - 12), i + 1)} (after ${prev})`);
    ids[n++] = prev = id;
    id = 0;
    digits = 0;
  }
  return ids;
}

/** The SQLite file's rows for the reader core (one read transaction per sync). */
export function sqliteRows(db: Database.Database, terms: () => SqliteChunkTerms): RowSource {
  // The region index (region_id, id) is a few bytes per chunk; the table holds the texts: listing
  // through the index and sorting by id here reads ~1 MB instead of the whole table at 100k.
  const visibleKeys = db.prepare(`SELECT id * ${REGION_KEY} + region_id FROM chunks INDEXED BY chunks_region`).pluck();
  const visiblePairs = db.prepare(`SELECT id, region_id FROM chunks ORDER BY id`).raw();
  const maxRegion = db.prepare(`SELECT coalesce(max(id), 0) FROM regions`).pluck();
  // Driven by the id list (a lookup per id), never a scan of the table.
  const vectors = db.prepare(`SELECT v.chunk_id, v.vec FROM json_each(?) j JOIN vectors v ON v.chunk_id = j.value`).raw();
  const texts = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM json_each(?) j JOIN chunks c ON c.id = j.value
                            JOIN documents d ON d.id = c.document_id`).raw();
  const vectorRange = db.prepare(`SELECT chunk_id, vec FROM vectors WHERE chunk_id BETWEEN ? AND ?`).raw();
  const textRange = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
                                WHERE c.id BETWEEN ? AND ?`).raw();
  const vectorPage = db.prepare(`SELECT chunk_id, vec FROM vectors WHERE chunk_id > ? ORDER BY chunk_id LIMIT ?`).raw();
  // Through the region index as well (the count over the table's rowid range reads every page).
  const countUpTo = db.prepare(`SELECT count(*) FROM chunks INDEXED BY chunks_region WHERE id <= ?`).pluck();
  const after = db.prepare(`SELECT id, region_id FROM chunks WHERE id > ? ORDER BY id`).raw();
  const rowKeyOf = db.prepare(`SELECT row_key FROM chunks WHERE id = ?`).pluck();
  // A first fill reads the vectors of one dimension a page at a time as one BLOB and one id list
  // (group_concat: one Buffer and one string per VECTOR_RUN_ROWS rows instead of a row array and
  // a Buffer per chunk). Both aggregates take the rows in the same order, so the k-th id is the
  // k-th vector's; the ids are checked ascending. (group_concat's own ORDER BY would sort again:
  // ~60 ms more at 100k; a separate id listing scans the table again: ~55 ms more.)
  const vectorBlock = db.prepare(`SELECT group_concat(chunk_id), CAST(group_concat(vec, '') AS BLOB)
                                  FROM (SELECT chunk_id, vec FROM vectors WHERE chunk_id > ? AND length(vec) = ? ORDER BY chunk_id LIMIT ?)`).raw();
  /** The content key (store/chunk-key.ts rowKey) of the largest id the last listing returned. */
  let top: { id: number; key: unknown } | null = null;
  const remember = (ids: Int32Array) => {
    if (ids.length) top = { id: ids[ids.length - 1], key: rowKeyOf.get(ids[ids.length - 1]) };
  };
  const columns = (rows: Array<[number, number]>) => {
    const ids = new Int32Array(rows.length);
    const regions = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      ids[i] = rows[i][0];
      regions[i] = rows[i][1];
    }
    remember(ids);
    return { ids, regions };
  };
  const listVisible = () => {
    if ((maxRegion.get() as number) >= REGION_KEY) return columns(visiblePairs.all() as Array<[number, number]>);
    const keys = Float64Array.from(visibleKeys.all() as number[]).sort();
    const ids = new Int32Array(keys.length);
    const regions = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const id = Math.floor(keys[i] / REGION_KEY);
      ids[i] = id;
      regions[i] = keys[i] - id * REGION_KEY;
    }
    remember(ids);
    return { ids, regions };
  };
  const allTexts = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id`).raw();
  return {
    dim: () => {
      const d = getMeta(db, 'dim');
      return d === null ? null : Number(d);
    },
    snapshot: (fn) => db.transaction(fn)(),
    visible: listVisible,
    // Chunk rows are never updated in place: a changed chunk is a new row. Its id is new too
    // unless every row above it was deleted first (SQLite gives max(id) + 1), and then the row
    // at the last id seen was deleted as well: the same count up to that id and the same content
    // key at it mean nothing up to it changed.
    idsReused: true,
    appended: (last, count) =>
      top !== null && top.id === last && countUpTo.get(last) === count && rowKeyOf.get(last) === top.key
        ? columns(after.all(last) as Array<[number, number]>)
        : null,
    fetch: (ids, want) => {
      // Dense ascending ids (FETCH_RANGE_SPAN): range scans, keeping the rows asked for.
      const range = denseRange(ids);
      const json = range ? '' : JSON.stringify(ids);
      const asked = range ? new Set(ids) : null;
      const read = <R extends [number, ...unknown[]]>(byIds: Database.Statement, byRange: Database.Statement): R[] =>
        range ? (byRange.all(range[0], range[1]) as R[]).filter((r) => asked!.has(r[0])) : (byIds.all(json) as R[]);
      const out = new Map<number, { id: number; vec?: Uint8Array | null; terms?: ReturnType<SqliteChunkTerms['termsOf']>[number] | null }>();
      if (want.vec) for (const [id, vec] of read<[number, Buffer]>(vectors, vectorRange)) out.set(id, { id, vec });
      if (want.terms) {
        const rows = read<[number, string, string, string]>(texts, textRange);
        const parsed = terms().termsOf(rows.map((r) => [r[1], r[2], r[3]] as const));
        rows.forEach((r, i) => {
          const e = out.get(r[0]) ?? { id: r[0] };
          e.terms = parsed[i];
          out.set(r[0], e);
        });
      }
      return out.values();
    },
    *vectorRuns(dim) {
      const bytes = dim * FLOAT_BYTES;
      for (let last = 0; ; ) {
        const [list, blob] = vectorBlock.get(last, bytes, VECTOR_RUN_ROWS) as [string | null, Buffer | null];
        if (list === null || blob === null) return;
        const run = parseIdList(list, last);
        if (blob.byteLength !== run.length * bytes) throw new Error(`a vector page of ${blob.byteLength} bytes for ${run.length} ${dim}-d rows`);
        // Buffers of this size get their own memory (offset 0); copied when not Float32-aligned.
        const data = blob.byteOffset % FLOAT_BYTES === 0
          ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / FLOAT_BYTES)
          : new Float32Array(Uint8Array.from(blob).buffer);
        yield { ids: run, data };
        if (run.length < VECTOR_RUN_ROWS) return;
        last = run[run.length - 1];
      }
    },
    *all(want) {
      if (want.vec) {
        for (let last = 0; ; ) {
          const page = vectorPage.all(last, VECTOR_PAGE) as Array<[number, Buffer]>;
          for (const [id, vec] of page) yield { id, vec };
          if (page.length < VECTOR_PAGE) break;
          last = page[page.length - 1][0];
        }
      }
      if (want.terms) {
        const page: Array<[number, string, string, string]> = [];
        const flush = function* () {
          const parsed = terms().termsOf(page.map((r) => [r[1], r[2], r[3]] as const));
          for (let i = 0; i < page.length; i++) yield { id: page[i][0], terms: parsed[i] };
          page.length = 0;
        };
        for (const r of allTexts.iterate() as IterableIterator<[number, string, string, string]>) {
          page.push(r);
          if (page.length >= WARM_PAGE) yield* flush();
        }
        yield* flush();
      }
    },
  };
}

/** [first, last] of `ids` when they ascend and fill at least 1/FETCH_RANGE_SPAN of that range; else null. */
export function denseRange(ids: readonly number[]): [number, number] | null {
  if (ids.length === 0) return null;
  for (let i = 1; i < ids.length; i++) if (!(ids[i] > ids[i - 1])) return null;
  const first = ids[0];
  const last = ids[ids.length - 1];
  return last - first + 1 <= ids.length * FETCH_RANGE_SPAN ? [first, last] : null;
}

export class SqliteStoreReader implements StoreReader {
  private dataVersion = -1;
  private regionCache: Region[] | null = null;
  /** The model and dimension the store records (meta), until the next commit. */
  private modelCache: { model: string | null; dim: string | null } | null = null;
  private readonly local: LocalIndexes;
  private readonly rows: RowSource;
  private chunkTerms: SqliteChunkTerms | null = null;
  /** The data_version the in-memory indexes reflect (-1: never synced). */
  private localVersion = -1;
  private warming: Promise<void> | null = null;
  private closed = false;
  private chunkRegionCache: Map<number, number> | null = null;
  private episodeIndexCache: EpisodeIndexEntry[] | null = null;
  private readonly stmts;
  /** Created on the first keyword query (a short-lived reader, e.g. the writer's info(), never needs it). */
  private termStats: TermStats | null = null;
  /** Sessions that share message uuids (store/lineage-sql.ts). */
  readonly lineage: SqliteLineage;

  constructor(
    readonly path: string,
    private readonly db: Database.Database,
    /** Vector scan implementation; default: WebAssembly SIMD when available. Tests force 'js'. */
    private readonly scanMethod?: ScanMethod,
    /** Keyword-query pruning (default PRUNE_DEFAULTS; tests and measurements change it). */
    private readonly prune: PruneOptions = PRUNE_DEFAULTS,
    /** Where keyword search runs (KEYWORD_ARMS). */
    readonly keywordArm: KeywordArm = 'auto',
  ) {
    checkSchema(db, path);
    this.lineage = new SqliteLineage(db, () => this.refresh());
    this.local = new LocalIndexes({ scanMethod, keywords: keywordArm === 'memory', onRefill: keywordArm === 'auto' ? 'drop' : 'rebuild' });
    this.rows = sqliteRows(db, () => (this.chunkTerms ??= new SqliteChunkTerms()));
    this.stmts = {
      regions: db.prepare(`SELECT r.id, r.name, r.scope, (SELECT count(*) FROM chunks c WHERE c.region_id = r.id) AS chunks FROM regions r ORDER BY r.name`),
      sources: db.prepare(`SELECT s.id, s.region_id AS regionId, r.name AS region, s.path, s.kind
                           FROM sources s JOIN regions r ON r.id = s.region_id ORDER BY r.name, s.path`),
      count: db.prepare(`SELECT (SELECT count(*) FROM regions) AS regions, (SELECT count(*) FROM sources) AS sources,
                                (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks`),
      ftsAll: db.prepare(`SELECT rowid AS id, bm25(chunks_fts, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.text}) AS s
                          FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?`),
      ftsRegions: db.prepare(`SELECT f.rowid AS id, bm25(chunks_fts, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.text}) AS s
                              FROM chunks_fts f JOIN chunks c ON c.id = f.rowid
                              WHERE chunks_fts MATCH ? AND c.region_id IN (SELECT value FROM json_each(?))
                              ORDER BY s LIMIT ?`),
      chunksByIds: db.prepare(`${CHUNK_SELECT} WHERE c.id IN (SELECT value FROM json_each(?))`),
      episodesBySig: db.prepare(`${EPISODE_SELECT} WHERE e.sig IN (SELECT value FROM json_each(@sigs))
                                 UNION ALL ${NOTE_SIGNATURE_SELECT} WHERE s.sig IN (SELECT value FROM json_each(@sigs))`),
      resolvedEpisodes: db.prepare(`${EPISODE_SELECT} WHERE e.resolved = 1 UNION ALL ${NOTE_SIGNATURE_SELECT}`),
      fixEpisodes: db.prepare(`${EPISODE_SELECT} UNION ALL ${NOTE_SIGNATURE_SELECT}`),
      episodeIndex: db.prepare(`SELECT chunk_id AS chunkId, sig, words, resolved, session_id AS sessionId, 'episode' AS source FROM episodes
                                UNION ALL SELECT chunk_id, sig, words, 1, '', 'note' FROM signatures`),
      chunkByHandle: db.prepare(`${CHUNK_SELECT} WHERE c.handle = ?`),
      textPage: db.prepare(`SELECT c.id, c.region_id, d.title, c.heading, c.text, c.row_key FROM chunks c JOIN documents d ON d.id = c.document_id
                            WHERE c.id > ? ORDER BY c.id LIMIT ?`).raw(),
      textsByIds: db.prepare(`SELECT c.id, c.region_id, d.title, c.heading, c.text, c.row_key FROM json_each(?) j JOIN chunks c ON c.id = j.value
                              JOIN documents d ON d.id = c.document_id`).raw(),
      rowKeys: db.prepare(`SELECT id, row_key FROM chunks`).raw(),
      dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
      vector: db.prepare(`SELECT vec FROM vectors WHERE chunk_id = ?`),
      vectorCount: db.prepare(`SELECT count(*) AS n FROM vectors`),
      // Two plain scans instead of a join: chunk rows carry their text, so joining would read it all.
      chunkRegions: db.prepare(`SELECT id, region_id FROM chunks`),
      vectorRows: db.prepare(`SELECT chunk_id, vec FROM vectors`),
      aliasHits: db.prepare(`SELECT a.chunk_id AS id, c.region_id AS regionId, c.created_at AS t
                             FROM aliases a JOIN chunks c ON c.id = a.chunk_id WHERE a.alias = ?`),
      titleHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                             JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.title = ?`),
      nameHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                            JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.name = @t OR d.stem = @t`),
      // A path suffix ends in the file name: the indexed name column narrows the candidates to
      // documents with that name before the LIKE (no scan over every document's path).
      suffixHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                              JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0
                              WHERE d.name = @base AND (d.path = @t OR d.path LIKE @like ESCAPE '\\')`),
    };
  }

  /** `PRAGMA data_version`, prepared once (db.pragma() prepares it on every call: it runs
   *  on every search, twice). */
  private dataVersionNow(): number {
    return this.stmts.dataVersion.get() as number;
  }

  /** Drop caches when another connection committed since we last looked. */
  private refresh(): void {
    const v = this.dataVersionNow();
    if (v !== this.dataVersion) {
      this.dataVersion = v;
      this.modelCache = null;
      this.regionCache = null;
      this.chunkRegionCache = null;
      this.episodeIndexCache = null;
      this.lineage?.invalidate();
      this.termStats?.invalidate();
    }
  }

  info(): StoreInfo {
    this.refresh();
    const c = this.stmts.count.get() as { regions: number; sources: number; documents: number; chunks: number };
    const dim = getMeta(this.db, 'dim');
    let bytes = 0;
    for (const suffix of ['', '-wal']) {
      try {
        bytes += statSync(this.path + suffix).size;
      } catch {
        /* no WAL file: fine */
      }
    }
    return {
      path: this.path,
      schemaVersion: Number(getMeta(this.db, 'schema_version')),
      model: getMeta(this.db, 'model'),
      dim: dim === null ? null : Number(dim),
      ...c,
      bytes,
    };
  }

  regions(): Region[] {
    this.refresh();
    if (!this.regionCache) this.regionCache = this.stmts.regions.all() as Region[];
    return this.regionCache;
  }

  sources(): SourceRecord[] {
    return this.stmts.sources.all() as SourceRecord[];
  }

  /** The regions a filter allows; null when it allows every region. */
  selectRegions(filter: SearchFilter | undefined): RegionSelection | null {
    return regionSelection(filter, () => this.regions());
  }

  /** chunk id → region id for every chunk (cached until the store changes). */
  private chunkRegions(): Map<number, number> {
    this.refresh();
    if (!this.chunkRegionCache) {
      const m = new Map<number, number>();
      for (const [id, region] of this.stmts.chunkRegions.raw().iterate() as IterableIterator<[number, number]>) m.set(id, region);
      this.chunkRegionCache = m;
    }
    return this.chunkRegionCache;
  }

  /** The FTS5 MATCH expression keywordSearch runs for a query (after pruning), or null. */
  keywordExpression(query: string): string | null {
    const tokens = queryTokens(query);
    if (tokens.length === 0) return null;
    this.refresh();
    this.termStats ??= new TermStats(this.db);
    return ftsExpression(this.termStats.select(tokens, this.prune).tokens);
  }

  /** Build the in-memory keyword index (keyword arm 'auto') page by page, letting the event
   *  loop run between pages; FTS5 answers meanwhile, the index from the next search after it is
   *  done. Resolves when built (at once for 'fts5', or when already built); a reader closed
   *  meanwhile stops it. */
  warm(): Promise<void> {
    if (this.keywordArm === 'fts5' || this.local.keywords) return Promise.resolve();
    // One build at a time: a second call waits for the one under way.
    this.warming ??= this.buildKeywords().finally(() => {
      this.warming = null;
    });
    return this.warming;
  }

  private async buildKeywords(): Promise<void> {
    const index = new KeywordIndex();
    const terms = (this.chunkTerms ??= new SqliteChunkTerms());
    const version = () => this.dataVersionNow();
    const start = version();
    // The content key of every chunk read: a commit between pages may give an id read earlier
    // other content (SQLite reuses the largest ids), which only the key tells.
    const keys = new Map<number, string>();
    const add = (rows: Array<[number, number, string, string, string, string]>) => {
      const parsed = terms.termsOf(rows.map((r) => [r[2], r[3], r[4]] as const));
      rows.forEach((r, i) => {
        index.addParsed(r[0], r[1], parsed[i]);
        keys.set(r[0], r[5]);
      });
    };
    for (let after = 0; ; ) {
      if (this.closed) return;
      const rows = this.stmts.textPage.all(after, WARM_PAGE) as Array<[number, number, string, string, string, string]>;
      if (rows.length === 0) break;
      add(rows);
      after = rows[rows.length - 1][0];
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (this.closed) return;
    if (version() !== start) {
      // Re-read the chunks whose content changed under an id already read (gone and new ids
      // are the next sync's work).
      const changed = (this.stmts.rowKeys.all() as Array<[number, string]>).filter(([id, key]) => keys.has(id) && keys.get(id) !== key).map(([id]) => id);
      for (let i = 0; i < changed.length; i += WARM_PAGE) add(this.stmts.textsByIds.all(JSON.stringify(changed.slice(i, i + WARM_PAGE))) as Array<[number, number, string, string, string, string]>);
    }
    index.merge();
    this.local.adoptKeywords(index);
    // The next sync catches what was added or removed while the pages were read.
    this.localVersion = -1;
  }

  /** The in-memory indexes, synced to the store's current rows (incrementally). */
  private syncLocal(): LocalIndexes {
    this.refresh();
    if (this.localVersion !== this.dataVersion || (this.keywordArm === 'memory' && !this.local.keywords)) {
      this.localVersion = -1;
      const warmed = this.local.keywords !== null;
      const { refilled } = this.local.sync(this.rows);
      this.localVersion = this.dataVersion;
      // 'auto' dropped its keyword index for a refill (FTS5 answers): build it again in the background.
      if (refilled && warmed && this.keywordArm === 'auto') this.warm().catch(() => undefined);
    }
    return this.local;
  }

  keywordSearch(query: string, k: number, filter?: SearchFilter): Hit[] {
    if (k <= 0) return [];
    // 'auto' with its index: the sync may drop it (a refill), and FTS5 answers below.
    const keywords = this.keywordArm === 'memory' || (this.keywordArm === 'auto' && this.local.keywords) ? this.syncLocal().keywords : null;
    if (keywords || this.keywordArm === 'memory') {
      const sel = this.selectRegions(filter);
      if (!keywords || (sel && sel.ids.length === 0)) return [];
      const exclude = filter?.excludeChunkIds?.length ? new Set(filter.excludeChunkIds) : null;
      const terms = (this.chunkTerms ??= new SqliteChunkTerms());
      return memoryKeywordSearch(query, k, keywords, { allowedRegions: sel ? sel.mask : null, exclude }, (t) => terms.queryTerms(t), this.prune);
    }
    const expr = this.keywordExpression(query);
    if (!expr) return [];
    const sel = this.selectRegions(filter);
    if (sel && sel.ids.length === 0) return [];
    const exclude = new Set(filter?.excludeChunkIds ?? []);
    const need = k + exclude.size;
    type Row = { id: number; s: number };
    const collect = (rows: Row[], regionOf: Map<number, number> | null): Hit[] => {
      const hits: Hit[] = [];
      for (const r of rows) {
        if (exclude.has(r.id)) continue;
        if (sel && regionOf && !sel.mask[regionOf.get(r.id) ?? 0]) continue;
        hits.push({ chunkId: r.id, score: -r.s, rank: hits.length + 1 });
        if (hits.length >= k) break;
      }
      return hits;
    };
    if (!sel) return collect(this.stmts.ftsAll.all(expr, need) as Row[], null);
    // Region filter: over-fetch unfiltered (fast: FTS5 alone, no row lookups) and filter in
    // memory, widening once; only when the allowed regions are a small minority of the hits
    // does SQL do the filtering (it looks up every matching chunk row: slower).
    const regionOf = this.chunkRegions();
    for (const factor of KEYWORD_OVERFETCH) {
      const limit = need * factor;
      const rows = this.stmts.ftsAll.all(expr, limit) as Row[];
      const hits = collect(rows, regionOf);
      if (hits.length >= k || rows.length < limit) return hits;
    }
    return collect(this.stmts.ftsRegions.all(expr, JSON.stringify(sel.ids), need) as Row[], null);
  }

  vectorSearch(queries: Float32Array[], k: number, filter?: SearchFilter): Hit[][] {
    if (queries.length === 0) return [];
    const m = this.syncLocal().matrix;
    if (!m) return queries.map(() => []);
    const sel = this.selectRegions(filter);
    if (sel && sel.ids.length === 0) return queries.map(() => []);
    const f: MatrixFilter = {
      allowedRegions: sel ? sel.mask : null,
      exclude: filter?.excludeChunkIds?.length ? new Set(filter.excludeChunkIds) : null,
    };
    return m.search(queries, k, f);
  }

  nameSearch(term: string, k: number, filter?: SearchFilter): Array<Hit & { match: NameMatch }> {
    const t = term.trim();
    if (!t || k <= 0) return [];
    const sel = this.selectRegions(filter);
    if (sel && sel.ids.length === 0) return [];
    const exclude = new Set(filter?.excludeChunkIds ?? []);
    type Row = { id: number; regionId: number; t: number };
    const best = new Map<number, { match: NameMatch; t: number }>();
    const add = (rows: Row[], match: NameMatch) => {
      for (const r of rows) {
        if (exclude.has(r.id) || (sel && !sel.mask[r.regionId])) continue;
        const prev = best.get(r.id);
        if (!prev || MATCH_SCORE[match] > MATCH_SCORE[prev.match]) best.set(r.id, { match, t: r.t });
      }
    };
    add(this.stmts.aliasHits.all(t) as Row[], 'alias');
    add(this.stmts.titleHits.all(t) as Row[], 'title');
    if (t.includes('/')) {
      const like = '%/' + t.replace(/^\/+/, '').replace(/[\\%_]/g, (c) => '\\' + c);
      const base = t.slice(t.lastIndexOf('/') + 1);
      if (base) add(this.stmts.suffixHits.all({ t, like, base }) as Row[], 'suffix');
    } else {
      add(this.stmts.nameHits.all({ t }) as Row[], 'suffix');
    }
    return [...best.entries()]
      .sort((a, b) => MATCH_SCORE[b[1].match] - MATCH_SCORE[a[1].match] || b[1].t - a[1].t || a[0] - b[0])
      .slice(0, k)
      .map(([id, v], i) => ({ chunkId: id, score: MATCH_SCORE[v.match], rank: i + 1, match: v.match }));
  }

  getChunks(ids: number[]): ChunkRecord[] {
    if (ids.length === 0) return [];
    const rows = this.stmts.chunksByIds.all(JSON.stringify(ids)) as ChunkRow[];
    const byId = new Map(rows.map((r) => [r.id, toRecord(r)]));
    const out: ChunkRecord[] = [];
    for (const id of ids) {
      const r = byId.get(id);
      if (r) out.push(r);
    }
    return out;
  }

  chunkByHandle(handle: string): ChunkRecord | null {
    const row = this.stmts.chunkByHandle.get(handle) as ChunkRow | undefined;
    return row ? toRecord(row) : null;
  }

  chunkVector(id: number): Float32Array | null {
    const row = this.stmts.vector.get(id) as { vec: Buffer } | undefined;
    return row ? blobToFloat32(row.vec) : null;
  }

  checkModel(modelId: string, dim: number): void {
    // Every search asks: the recorded model is read again only after a commit.
    this.refresh();
    this.modelCache ??= { model: getMeta(this.db, 'model'), dim: getMeta(this.db, 'dim') };
    const { model, dim: d } = this.modelCache;
    if (model === null || d === null) return;
    if (model !== modelId || Number(d) !== dim) {
      throw new StoreModelMismatchError({ model, dim: Number(d) }, { model: modelId, dim });
    }
  }

  episodesBySignature(sigs: string[], filter?: SearchFilter): EpisodeRecord[] {
    const wanted = [...new Set(sigs.filter((x) => typeof x === 'string' && x))];
    if (wanted.length === 0) return [];
    const sel = this.selectRegions(filter);
    if (sel && sel.ids.length === 0) return [];
    const exclude = new Set(filter?.excludeChunkIds ?? []);
    const rows = this.stmts.episodesBySig.all({ sigs: JSON.stringify(wanted) }) as EpisodeRow[];
    return rows
      .filter((r) => !exclude.has(r.chunkId) && (!sel || sel.mask[r.regionId] === 1))
      .map(toEpisode)
      .sort(episodeOrder)
      .slice(0, MAX_EPISODES_BY_SIGNATURE)
      .map((e) => this.withLineage(e));
  }

  /** The episode with its session's lineage, when the session shares messages with others. */
  private withLineage<T extends Pick<EpisodeRecord, 'sessionId'> & { lineage?: string[] }>(e: T): T {
    const group = e.sessionId ? this.lineage.groupsBySession().get(e.sessionId) : undefined;
    return group ? { ...e, lineage: group } : e;
  }

  episodeIndex(): EpisodeIndexEntry[] {
    this.refresh();
    if (!this.episodeIndexCache) {
      type Row = { chunkId: number; sig: string; words: string; resolved: number; sessionId: string; source: 'episode' | 'note' };
      this.episodeIndexCache = (this.stmts.episodeIndex.all() as Row[]).map((r) => ({
        chunkId: r.chunkId, sig: r.sig, words: r.words ? r.words.split(' ') : [], resolved: r.resolved !== 0, sessionId: r.sessionId, source: r.source,
      })).map((e) => this.withLineage(e));
    }
    return this.episodeIndexCache;
  }

  resolvedEpisodes(): EpisodeRecord[] {
    return (this.stmts.resolvedEpisodes.all() as EpisodeRow[]).map(toEpisode).sort(episodeOrder).map((e) => this.withLineage(e));
  }

  fixEpisodes(): EpisodeRecord[] {
    return (this.stmts.fixEpisodes.all() as EpisodeRow[]).map(toEpisode).sort(episodeOrder).map((e) => this.withLineage(e));
  }

  /** @internal The underlying connection: for the store's own tests (proving it cannot write). */
  connectionForTests(): Database.Database {
    return this.db;
  }

  emptyAdvice(): string {
    return `the knowledge store at ${this.path} is empty: add a source with \`active-brain index add <path> --region <name>\`, then run \`active-brain index\``;
  }

  changeStamp(): string {
    const stamp = (f: string) => {
      try {
        const st = statSync(f);
        return `${st.mtimeMs}:${st.size}`;
      } catch {
        return '';
      }
    };
    return `${stamp(this.path)}|${stamp(`${this.path}-wal`)}`;
  }

  close(): void {
    this.closed = true;
    this.local.matrix = null;
    this.local.keywords = null;
    this.chunkTerms?.close();
    this.termStats?.close();
    this.db.close();
  }
}

/** Open the SQLite store read-only (store/open-store.ts chooses between this and the team
 *  store). Throws StoreError STORE_MISSING (file absent), STORE_EMPTY, SCHEMA_OLD /
 *  SCHEMA_TOO_NEW; each message says what to run. */
export function openSqliteStoreReader(path: string, opts: { scanMethod?: ScanMethod; prune?: PruneOptions; keywords?: KeywordArm; pageCacheKiB?: number } = {}): StoreReader {
  const file = resolve(path);
  const db = openReadonlyDb(file, { pageCacheKiB: opts.pageCacheKiB });
  try {
    return new SqliteStoreReader(file, db, opts.scanMethod, opts.prune, opts.keywords);
  } catch (e) {
    db.close();
    throw e instanceof StoreError ? e : unreadableStore(file, e);
  }
}
