/**
 * The read side of the team store on PostgreSQL (StoreReader), connected through a reader
 * role: SELECT only, default_transaction_read_only, row-level security limiting every row to
 * the role's audiences (store/pg-schema.ts). Opening refuses a role that could write.
 *
 * Searches run in the reader's memory over the rows this role may see: vectors in a matrix
 * (store/vector-matrix.ts, as the SQLite store does), words in a BM25 index of the rows'
 * tsvectors (store/keyword-index.ts via store/pg-keyword.ts). When meta.generation moves (the
 * writer bumps it on every commit) both are refreshed incrementally in one snapshot: the
 * visible ids are listed, rows gone are dropped and only new rows' vectors and tsvectors are
 * fetched. Name lookups, chunk fetches and episodes are plain queries. Calls are synchronous
 * over store/pg-sync.ts.
 */
import type { ChunkKind, ChunkRecord, EpisodeOutcome, EpisodeRecord, Hit, NameMatch, Region, SearchFilter, SourceKind, SourceRecord, StoreInfo, StoreReader } from './types.js';
import { blobToFloat32, type MatrixFilter, type ScanMethod, type VectorMatrix } from './vector-matrix.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { episodeOrder, episodesBySignature, nameSearch, regionSelection, type NameRow, type RegionSelection } from './reader-core.js';
import { PgSyncConnection, redactUrl } from './pg-sync.js';
import { checkPgSchema, connectPg, pgConnectError, pgInfo, roleRights } from './pg-common.js';
import { PgKeywordSearch } from './pg-keyword.js';
import { parseTsvector, type KeywordIndex } from './keyword-index.js';
import { LocalIndexes, type RowSource } from './local-indexes.js';

/** The reader asks the server whether the store changed at most this often (ms): the bound on how
 *  stale a search may be, against one round trip per call (a hybrid search makes three). */
export const GENERATION_CHECK_MS = 250;



const CHUNK_SELECT = `
  SELECT c.id, c.handle, r.name AS region, r.scope, s.kind, d.path, d.title, c.heading, c.text,
         c.ordinal, c.created_at, c.has_error, c.resolved, c.aliases, c.chunk_kind
  FROM chunks c JOIN documents d ON d.id = c.document_id JOIN sources s ON s.id = d.source_id JOIN regions r ON r.id = c.region_id`;

interface ChunkRow {
  id: number; handle: string; region: string; scope: string; kind: SourceKind; path: string; title: string; heading: string;
  text: string; ordinal: number; created_at: number; has_error: boolean; resolved: boolean; aliases: string; chunk_kind: ChunkKind;
}

function toRecord(r: ChunkRow): ChunkRecord {
  return {
    id: r.id, handle: r.handle, region: r.region, regionScope: r.scope, kind: r.kind, path: r.path, title: r.title, heading: r.heading,
    text: r.text, ordinal: r.ordinal, createdAt: r.created_at, hasError: r.has_error, resolved: r.resolved,
    aliases: r.aliases ? r.aliases.split('\n') : [], chunkKind: r.chunk_kind,
  };
}

const EPISODE_SELECT = `
  SELECT e.chunk_id AS "chunkId", c.handle, r.name AS region, r.scope, c.region_id AS "regionId", e.sig, e.head, e.words,
         e.session_id AS "sessionId", e.tool, e.action, e.fix, e.resolved, e.outcome, e.attempts, e.note, e.at, 'episode' AS source
  FROM episodes e JOIN chunks c ON c.id = e.chunk_id JOIN regions r ON r.id = c.region_id`;
const NOTE_SIGNATURE_SELECT = `
  SELECT s.chunk_id, c.handle, r.name, r.scope, c.region_id, s.sig, s.head, s.words,
         '', '', '', s.fix, true, 'succeeded', 1, '', c.created_at, 'note'
  FROM signatures s JOIN chunks c ON c.id = s.chunk_id JOIN regions r ON r.id = c.region_id`;

interface EpisodeRow {
  chunkId: number; handle: string; region: string; scope: string; regionId: number; sig: string; head: string; words: string;
  sessionId: string; tool: string; action: string; fix: string; resolved: boolean; outcome: EpisodeOutcome; attempts: number;
  note: string; at: number; source: 'episode' | 'note';
}

function toEpisode(r: EpisodeRow): EpisodeRecord {
  return {
    chunkId: r.chunkId, handle: r.handle, region: r.region, regionScope: r.scope, sig: r.sig,
    head: r.head ? r.head.split('\n') : [], words: r.words ? r.words.split(' ') : [], sessionId: r.sessionId, tool: r.tool,
    action: r.action, fix: r.fix, resolved: r.resolved, outcome: r.outcome, attempts: r.attempts, note: r.note, at: r.at, source: r.source,
  };
}

type EpisodeIndexEntry = Pick<EpisodeRecord, 'chunkId' | 'sig' | 'words' | 'resolved' | 'sessionId' | 'source'>;

/** The ids (ascending) and regions of every chunk the role may see, as two aggregated binary
 *  strings of big-endian int4 (the cheapest form measured: 100k row objects through the bridge,
 *  or one text aggregate, cost several times more — docs/STORE.md). */
function visibleRows(db: PgSyncConnection): { ids: Int32Array; regions: Int32Array } {
  const row = db.one<{ ids: Uint8Array | null; regions: Uint8Array | null }>(
    `SELECT string_agg(int4send(id), '') AS ids, string_agg(int4send(region_id), '') AS regions FROM chunks`,
  );
  const decode = (b: Uint8Array | null | undefined): Int32Array => {
    if (!b) return new Int32Array(0);
    const view = new DataView(b.buffer, b.byteOffset, b.byteLength);
    const out = new Int32Array(b.byteLength >> 2);
    for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4);
    return out;
  };
  const ids = decode(row?.ids);
  const regions = decode(row?.regions);
  if (ids.length !== regions.length) throw new StoreError('STORE_UNREADABLE', `the team store listed ${ids.length} chunk ids but ${regions.length} regions: run the command again`);
  // In table order (sorting on the server cost more than here); usually ascending already.
  let sorted = true;
  for (let i = 1; i < ids.length && sorted; i++) sorted = ids[i - 1] < ids[i];
  if (sorted) return { ids, regions };
  const order = Array.from(ids.keys()).sort((a, b) => ids[a] - ids[b]);
  return { ids: Int32Array.from(order, (i) => ids[i]), regions: Int32Array.from(order, (i) => regions[i]) };
}

/** The team store's rows for the reader core: visible ids, vectors and tsvectors, in one
 *  repeatable-read snapshot per sync. */
function pgRowSource(db: PgSyncConnection): RowSource {
  return {
    dim: () => {
      const row = db.one<{ value: string }>(`SELECT value FROM meta WHERE key = 'dim'`);
      return row ? Number(row.value) : null;
    },
    snapshot: <T>(fn: () => T): T => {
      db.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      try {
        const out = fn();
        db.query('COMMIT');
        return out;
      } catch (e) {
        try {
          db.query('ROLLBACK');
        } catch {
          /* connection gone */
        }
        throw e;
      }
    },
    visible: () => visibleRows(db),
    fetch: (ids) =>
      db.query<{ id: number; vec: Uint8Array; fts: string }>(`SELECT id, vec, fts::text AS fts FROM chunks WHERE id = ANY($1::int[])`, [ids])
        .map((r) => ({ id: r.id, vec: r.vec, terms: parseTsvector(r.fts) })),
  };
}

export class PgStoreReader implements StoreReader {
  private generation: string | null = null;
  private checkedAt = 0;
  private regionCache: Region[] | null = null;
  private readonly local: LocalIndexes;
  private readonly rows: RowSource;
  private localGeneration: string | null = null;
  private episodeIndexCache: EpisodeIndexEntry[] | null = null;
  /** meta's model and dim, read once per generation (every search checks them). */
  private modelCache: Map<string, string> | null = null;
  private readonly keyword: PgKeywordSearch;

  constructor(readonly url: string, private readonly db: PgSyncConnection, private readonly scanMethod?: ScanMethod) {
    checkPgSchema(db, redactUrl(url));
    this.keyword = new PgKeywordSearch(db);
    this.local = new LocalIndexes({ scanMethod, keywords: true });
    this.rows = pgRowSource(db);
  }

  /** Drop caches when the writer committed since we last looked (checked at most every GENERATION_CHECK_MS). */
  private refresh(): void {
    const now = Date.now();
    if (this.generation !== null && now - this.checkedAt < GENERATION_CHECK_MS) return;
    this.checkedAt = now;
    const g = this.db.one<{ value: string }>(`SELECT value FROM meta WHERE key = 'generation'`)?.value ?? '0';
    if (g !== this.generation) {
      this.generation = g;
      this.regionCache = null;
      this.episodeIndexCache = null;
      this.modelCache = null;
    }
  }

  info(): StoreInfo {
    return pgInfo(this.db, this.url);
  }

  regions(): Region[] {
    this.refresh();
    this.regionCache ??= this.db.query<Region>(`SELECT r.id, r.name, r.scope, (SELECT count(*) FROM chunks c WHERE c.region_id = r.id) AS chunks FROM regions r ORDER BY r.name`);
    return this.regionCache;
  }

  sources(): SourceRecord[] {
    return this.db.query<SourceRecord>(`SELECT s.id, s.region_id AS "regionId", r.name AS region, s.path, s.kind FROM sources s JOIN regions r ON r.id = s.region_id ORDER BY r.name, s.path`);
  }

  private select(filter: SearchFilter | undefined): RegionSelection | null {
    return regionSelection(filter, () => this.regions());
  }

  keywordSearch(query: string, k: number, filter?: SearchFilter): Hit[] {
    if (k <= 0) return [];
    const { keywords } = this.loadLocal();
    const sel = this.select(filter);
    if (sel && sel.ids.length === 0) return [];
    const exclude = filter?.excludeChunkIds?.length ? new Set(filter.excludeChunkIds) : null;
    return this.keyword.search(query, k, keywords, { allowedRegions: sel ? sel.mask : null, exclude });
  }

  /** The in-memory indexes of the visible rows (vector matrix, keyword index), refreshed
   *  incrementally (store/local-indexes.ts) when the generation moved. */
  private loadLocal(): { matrix: VectorMatrix | null; keywords: KeywordIndex } {
    this.refresh();
    if (!this.local.keywords || this.localGeneration !== this.generation) {
      const generation = this.generation;
      this.localGeneration = null;
      this.local.sync(this.rows);
      this.localGeneration = generation;
    }
    return { matrix: this.local.matrix, keywords: this.local.keywords! };
  }

  vectorSearch(queries: Float32Array[], k: number, filter?: SearchFilter): Hit[][] {
    const m = this.loadLocal().matrix;
    if (!m || k <= 0) return queries.map(() => []);
    const sel = this.select(filter);
    if (sel && sel.ids.length === 0) return queries.map(() => []);
    const f: MatrixFilter = { allowedRegions: sel ? sel.mask : null, exclude: filter?.excludeChunkIds?.length ? new Set(filter.excludeChunkIds) : null };
    return m.search(queries, k, f);
  }

  nameSearch(term: string, k: number, filter?: SearchFilter): Array<Hit & { match: NameMatch }> {
    const first = `SELECT c.id, c.region_id AS "regionId", c.created_at AS t FROM documents d JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0`;
    return nameSearch(term, k, filter, (f) => this.select(f), {
      alias: (t) => this.db.query<NameRow>(`SELECT a.chunk_id AS id, c.region_id AS "regionId", c.created_at AS t FROM aliases a JOIN chunks c ON c.id = a.chunk_id WHERE lower(a.alias) = lower($1)`, [t]),
      title: (t) => this.db.query<NameRow>(`${first} WHERE lower(d.title) = lower($1)`, [t]),
      pathSuffix: (t, like, base) => this.db.query<NameRow>(`${first} WHERE lower(d.name) = lower($1) AND (d.path = $2 OR d.path LIKE $3)`, [base, t, like]),
      fileName: (t) => this.db.query<NameRow>(`${first} WHERE lower(d.name) = lower($1) OR lower(d.stem) = lower($1)`, [t]),
    });
  }

  getChunks(ids: number[]): ChunkRecord[] {
    if (ids.length === 0) return [];
    const byId = new Map(this.db.query<ChunkRow>(`${CHUNK_SELECT} WHERE c.id = ANY($1::int[])`, [ids]).map((r) => [r.id, toRecord(r)]));
    return ids.flatMap((id) => (byId.has(id) ? [byId.get(id)!] : []));
  }

  chunkByHandle(handle: string): ChunkRecord | null {
    const row = this.db.one<ChunkRow>(`${CHUNK_SELECT} WHERE c.handle = $1`, [handle]);
    return row ? toRecord(row) : null;
  }

  chunkVector(id: number): Float32Array | null {
    const row = this.db.one<{ vec: Uint8Array }>(`SELECT vec FROM chunks WHERE id = $1`, [id]);
    return row ? blobToFloat32(row.vec) : null;
  }

  checkModel(modelId: string, dim: number): void {
    this.refresh();
    this.modelCache ??= new Map(this.db.query<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN ('model', 'dim')`).map((r) => [r.key, r.value]));
    const m = this.modelCache;
    if (!m.has('model') || !m.has('dim')) return;
    if (m.get('model') !== modelId || Number(m.get('dim')) !== dim) {
      throw new StoreModelMismatchError({ model: m.get('model')!, dim: Number(m.get('dim')) }, { model: modelId, dim });
    }
  }

  episodesBySignature(sigs: string[], filter?: SearchFilter): EpisodeRecord[] {
    return episodesBySignature(
      sigs,
      filter,
      (f) => this.select(f),
      (wanted) => this.db.query<EpisodeRow>(`${EPISODE_SELECT} WHERE e.sig = ANY($1::text[]) UNION ALL ${NOTE_SIGNATURE_SELECT} WHERE s.sig = ANY($1::text[])`, [wanted]),
      toEpisode,
    );
  }

  episodeIndex(): EpisodeIndexEntry[] {
    this.refresh();
    this.episodeIndexCache ??= this.db
      .query<{ chunkId: number; sig: string; words: string; resolved: boolean; sessionId: string; source: 'episode' | 'note' }>(
        `SELECT chunk_id AS "chunkId", sig, words, resolved, session_id AS "sessionId", 'episode' AS source FROM episodes
         UNION ALL SELECT chunk_id, sig, words, true, '', 'note' FROM signatures`,
      )
      .map((r) => ({ chunkId: r.chunkId, sig: r.sig, words: r.words ? r.words.split(' ') : [], resolved: r.resolved, sessionId: r.sessionId, source: r.source }));
    return this.episodeIndexCache;
  }

  resolvedEpisodes(): EpisodeRecord[] {
    return this.db.query<EpisodeRow>(`${EPISODE_SELECT} WHERE e.resolved UNION ALL ${NOTE_SIGNATURE_SELECT}`).map(toEpisode).sort(episodeOrder);
  }

  fixEpisodes(): EpisodeRecord[] {
    return this.db.query<EpisodeRow>(`${EPISODE_SELECT} UNION ALL ${NOTE_SIGNATURE_SELECT}`).map(toEpisode).sort(episodeOrder);
  }

  /** @internal The connection, for the store's own tests (proving the role cannot write). */
  connectionForTests(): PgSyncConnection {
    return this.db;
  }

  emptyAdvice(): string {
    // A reader sees its own rows of reader_audiences (policy own_rows), never anyone else's.
    const audiences = this.db.query<{ audience: string }>(`SELECT audience FROM reader_audiences ORDER BY audience`).map((r) => r.audience);
    const where = redactUrl(this.url);
    if (audiences.length === 0) {
      return `the team store at ${where} shows this reader nothing: its role has no audience granted — ask the administrator to run \`active-brain store init --url <administrator URL>\` (it grants \`team\` to every reader) or \`active-brain store grant\``;
    }
    return `the team store at ${where} holds no chunks for this reader's audiences (${audiences.join(', ')}): index or push notes with the writer URL (\`active-brain index add <path> --region <name> --audience team\`, or \`active-brain store push --to <writer URL>\`)`;
  }

  /** meta.generation, asked now (not the GENERATION_CHECK_MS cache): the writer bumps it on every commit. */
  changeStamp(): string {
    return `generation:${this.db.one<{ value: string }>(`SELECT value FROM meta WHERE key = 'generation'`)?.value ?? '0'}`;
  }

  close(): void {
    this.local.matrix = null;
    this.local.keywords = null;
    this.db.close();
  }
}

/** Open the team store read-only through a reader role's URL. Refuses (ROLE_CAN_WRITE) a role
 *  that could write: the daemon, search, recall and MCP never hold write rights. */
export function openPgStoreReader(url: string, opts: { scanMethod?: ScanMethod } = {}): PgStoreReader {
  const db = connectPg(url);
  try {
    const rights = roleRights(db);
    if (rights.problems.length) {
      throw new StoreError(
        'ROLE_CAN_WRITE',
        `refusing the team store at ${redactUrl(url)}: readers must be read-only — set store.url (or ACTIVE_BRAIN_STORE_URL) to the readerUrl \`active-brain store init\` printed, never the writer or administrator URL (role ${rights.role} ${rights.problems.join(', ')})`,
      );
    }
    return new PgStoreReader(url, db, opts.scanMethod);
  } catch (e) {
    db.close();
    throw e instanceof StoreError ? e : pgConnectError(url, e);
  }
}
