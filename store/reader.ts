/**
 * The read side of the SQLite knowledge store (StoreReader). The reader core does the search:
 * vector search over the in-memory matrix and (keywords 'memory') BM25 over the in-memory
 * keyword index, both kept by store/local-indexes.ts and refreshed incrementally when `PRAGMA
 * data_version` says another connection committed; store/sqlite-rows.ts supplies the rows (sqliteRows:
 * visible ids, vectors, and each chunk's FTS5 terms via store/sqlite-terms.ts). Keywords
 * 'fts5' asks FTS5 instead (bm25() over chunks_fts, the on-disk source of truth): no build cost
 * at open, so short-lived readers (one CLI search) use it — docs/SEARCH.md has the measurement.
 * Both arms prune keyword queries by document frequency (store/term-stats.ts). Exact name
 * lookup, chunk fetches and episodes are plain queries (store/sqlite-queries.ts). The
 * connection is read-only (store/open.ts); region filters, scopes and the name search's
 * ranking come from store/reader-core.ts.
 */
import type Database from 'better-sqlite3';
import { statSync } from 'node:fs';
import type { ChunkRecord, EpisodeRecord, Hit, NameMatch, Region, SearchFilter, SourceRecord, StoreInfo, StoreReader } from './types.js';
import { checkSchema, getMeta } from './schema.js';
import { ftsExpression, queryTokens } from './fts-query.js';
import { TermStats, PRUNE_DEFAULTS, type PruneOptions } from './term-stats.js';
import { blobToFloat32, type MatrixFilter, type ScanMethod } from './vector-matrix.js';
import { LocalIndexes, memoryKeywordSearch, type RowSource } from './local-indexes.js';
import { SqliteChunkTerms } from './sqlite-terms.js';
import { KeywordIndex } from './keyword-index.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { openReadonlyDb, unreadableStore } from './open.js';
import { resolve } from 'node:path';
import { SqliteLineage } from './lineage-sql.js';
import { sqliteRows, WARM_PAGE } from './sqlite-rows.js';
import { readerStatements, toEpisode, toRecord, type ChunkRow, type EpisodeRow, type ReaderStatements } from './sqlite-queries.js';
import { episodeOrder, episodesBySignature, nameSearch, regionSelection, type NameRow, type RegionSelection } from './reader-core.js';

/** With a region filter, keyword search first asks FTS5 for these multiples of the hits it needs
 *  and filters in memory (cheap); only when that leaves too few does it run the filtered SQL join. */
export const KEYWORD_OVERFETCH = [4, 64] as const;

type EpisodeIndexEntry = Pick<EpisodeRecord, 'chunkId' | 'sig' | 'words' | 'resolved' | 'sessionId' | 'source' | 'lineage'>;

/** Where the SQLite reader's keyword arm searches. 'auto' (default): FTS5 on disk until warm()
 *  has built the in-memory index page by page (yielding between pages), the index from then on;
 *  'memory': the index, built at the first search; 'fts5': FTS5 always. Why: building the index
 *  costs seconds at 100k chunks (every word of every chunk is read and mapped to FTS5's terms;
 *  docs/SEARCH.md), so the first search after open and a short-lived reader (one CLI search)
 *  answer faster from FTS5, and a long-lived reader (the daemon) faster from memory. */
export const KEYWORD_ARMS = ['auto', 'memory', 'fts5'] as const;
export type KeywordArm = (typeof KEYWORD_ARMS)[number];

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
  private readonly stmts: ReaderStatements;
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
    this.stmts = readerStatements(db);
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
    const st = this.stmts;
    return nameSearch(term, k, filter, (f) => this.selectRegions(f), {
      alias: (t) => st.aliasHits.all(t) as NameRow[],
      title: (t) => st.titleHits.all(t) as NameRow[],
      pathSuffix: (t, like, base) => st.suffixHits.all({ t, like, base }) as NameRow[],
      fileName: (t) => st.nameHits.all({ t }) as NameRow[],
    });
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
    return episodesBySignature(
      sigs,
      filter,
      (f) => this.selectRegions(f),
      (wanted) => this.stmts.episodesBySig.all({ sigs: JSON.stringify(wanted) }) as EpisodeRow[],
      toEpisode,
    ).map((e) => this.withLineage(e));
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
