/**
 * The write side of the team store on PostgreSQL (StoreWriter, store/types.ts), used by the
 * indexer through the writer role's URL. Same contract as the SQLite writer (store/writer.ts):
 * replaceDocument is one transaction, an identical chunk at its ordinal keeps its row, a null
 * vector reuses the stored one for the same text. Each transaction that changed something
 * bumps meta.generation (readers refresh their in-memory vectors when it moves) and takes a
 * transaction-scoped advisory lock per document path, so two indexers on two machines never
 * write the same document at once. Rows carry the audience of their source (row-level
 * security reads it: store/pg-schema.ts).
 */
import { basename, extname, resolve } from 'node:path';
import { pgStoredTexts, type StoredText } from './stored-texts.js';
import { PG_EPISODE_RULES_META, PG_REDACTION_META } from './pg-schema.js';
import { EPISODE_OUTCOMES, STALE_HASH_PREFIX, type ChunkInput, type DocumentInput, type DocumentStat, type EpisodeInput, type Region, type SourceKind, type SourceRecord, type StoreInfo, type StoreWriter } from './types.js';
import { isOneOf } from '../shared/vocabulary.js';
import { float32ToBlob } from './vector-matrix.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { embedKey, rowKey } from './chunk-key.js';
import { makeHandle, relativeDocPath } from './handles.js';
import { PgSyncConnection, PgError, redactUrl } from './pg-sync.js';
import { PG_TS_CONFIG, checkAudience } from './pg-schema.js';
import { checkPgSchema, connectPg, pgConnectError, pgInfo } from './pg-common.js';

const SCOPE = /^(global|project:.+)$/;
const REGION_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const SOURCE_SELECT = `SELECT s.id, s.region_id AS "regionId", r.name AS region, s.path, s.kind, s.audience FROM sources s JOIN regions r ON r.id = s.region_id`;

export class PgStoreWriter implements StoreWriter {
  private depth = 0;
  private dirty = false;
  private savepoint = 0;

  constructor(readonly path: string, private readonly db: PgSyncConnection) {
    checkPgSchema(db, redactUrl(path));
    this.checkCanWrite();
  }

  private checkCanWrite(): void {
    const r = this.db.one<{ ok: boolean }>(`SELECT has_table_privilege('chunks', 'INSERT') AND has_table_privilege('chunks', 'DELETE') AS ok`);
    if (!r?.ok) {
      throw new StoreError('STORE_UNREADABLE', `the role in ${redactUrl(this.path)} cannot write the team store: index with the writer URL \`active-brain store init\` printed (writerUrl)`);
    }
  }

  transaction<T>(fn: () => T): T {
    if (this.depth > 0) {
      const sp = `sp${++this.savepoint}`;
      this.db.query(`SAVEPOINT ${sp}`);
      this.depth++;
      try {
        const out = fn();
        this.db.query(`RELEASE SAVEPOINT ${sp}`);
        return out;
      } catch (e) {
        this.db.query(`ROLLBACK TO SAVEPOINT ${sp}`);
        throw e;
      } finally {
        this.depth--;
      }
    }
    this.db.query('BEGIN');
    this.depth = 1;
    this.dirty = false;
    try {
      const out = fn();
      if (this.dirty) this.db.query(`UPDATE meta SET value = (value::bigint + 1)::text WHERE key = 'generation'`);
      this.db.query('COMMIT');
      return out;
    } catch (e) {
      try {
        this.db.query('ROLLBACK');
      } catch {
        /* connection gone: the server rolls back on its own */
      }
      throw e;
    } finally {
      this.depth = 0;
    }
  }

  /** A mutating statement (marks the transaction so readers see a new generation). */
  private write<T = Record<string, unknown>>(sql: string, params: unknown[] = []): T[] {
    this.dirty = true;
    return this.db.query<T>(sql, params);
  }

  ensureRegion(name: string, scope: string): Region {
    if (!REGION_NAME.test(name)) throw new StoreError('BAD_INPUT', `region name "${name}" is not allowed: use letters, digits, ".", "_" or "-" (e.g. notes, pg-project)`);
    if (!SCOPE.test(scope)) throw new StoreError('BAD_INPUT', `region scope "${scope}" is not allowed: use "global" or "project:<glob>" (e.g. project:~/work/api/**)`);
    return this.transaction(() => {
      const row = this.write<Region>(
        `INSERT INTO regions (name, scope) VALUES ($1, $2) ON CONFLICT (name) DO UPDATE SET scope = excluded.scope RETURNING id, name, scope`,
        [name, scope],
      )[0];
      return { id: row.id, name: row.name, scope: row.scope };
    });
  }

  addSource(region: string, path: string, kind: SourceKind, audience = 'team'): SourceRecord & { audienceChanged?: boolean } {
    const abs = resolve(path);
    if (kind !== 'notes' && kind !== 'transcripts') throw new StoreError('BAD_INPUT', `source kind "${kind}" is not allowed: use notes or transcripts`);
    checkAudience(audience);
    return this.transaction(() => {
      this.db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`source ${abs}`]);
      const existing = this.db.one<SourceRecord & { audience: string }>(`${SOURCE_SELECT} WHERE s.path = $1`, [abs]);
      if (existing) {
        if (existing.region !== region || existing.kind !== kind) {
          throw new StoreError('SOURCE_CONFLICT', `${abs} is already indexed as ${existing.kind} in region "${existing.region}": remove that source first`);
        }
        const audienceChanged = existing.audience !== audience;
        if (audienceChanged) {
          this.write(`UPDATE sources SET audience = $1 WHERE id = $2`, [audience, existing.id]);
          this.write(`UPDATE documents SET audience = $1 WHERE source_id = $2`, [audience, existing.id]);
          this.write(`UPDATE chunks SET audience = $1 WHERE document_id IN (SELECT id FROM documents WHERE source_id = $2)`, [audience, existing.id]);
        }
        const { audience: _a, ...rec } = existing;
        return audienceChanged ? { ...rec, audienceChanged } : rec;
      }
      const r = this.db.one<{ id: number }>(`SELECT id FROM regions WHERE name = $1`, [region]);
      if (!r) throw new StoreError('BAD_INPUT', `no region "${region}": create it first (ensureRegion)`);
      const id = this.write<{ id: number }>(`INSERT INTO sources (region_id, path, kind, audience) VALUES ($1, $2, $3, $4) RETURNING id`, [r.id, abs, kind, audience])[0].id;
      return { id, regionId: r.id, region, path: abs, kind };
    });
  }

  listSources(): SourceRecord[] {
    return this.db.query<SourceRecord & { audience?: string }>(`${SOURCE_SELECT} ORDER BY r.name, s.path`).map(({ audience: _a, ...s }) => s);
  }

  regions(): Region[] {
    return this.db.query<Region>(`SELECT r.id, r.name, r.scope, (SELECT count(*) FROM chunks c WHERE c.region_id = r.id) AS chunks FROM regions r ORDER BY r.name`);
  }

  removeSource(path: string): number {
    const abs = resolve(path);
    return this.transaction(() => {
      const s = this.db.one<{ id: number }>(`SELECT id FROM sources WHERE path = $1`, [abs]);
      if (!s) return 0;
      const n = this.write<{ n: number }>(`WITH d AS (DELETE FROM documents WHERE source_id = $1 RETURNING 1) SELECT count(*) AS n FROM d`, [s.id])[0].n;
      this.write(`DELETE FROM sources WHERE id = $1`, [s.id]);
      return n;
    });
  }

  getDocument(path: string): DocumentStat | null {
    const row = this.db.one<DocumentStat>(`SELECT path, hash, mtime, size FROM documents WHERE path = $1`, [resolve(path)]);
    return row ?? null;
  }

  listDocuments(sourceId: number): DocumentStat[] {
    return this.db.query<DocumentStat>(`SELECT path, hash, mtime, size FROM documents WHERE source_id = $1 ORDER BY path`, [sourceId]);
  }

  reusableVectors(path: string, title: string, chunks: Array<Pick<ChunkInput, 'heading' | 'text'>>): boolean[] {
    const keys = chunks.map((c) => embedKey(title, c.heading, c.text));
    const rows = this.db.query<{ k: string }>(
      `SELECT DISTINCT c.embed_key AS k FROM chunks c JOIN documents d ON d.id = c.document_id WHERE d.path = $1 AND c.embed_key = ANY($2::text[])`,
      [resolve(path), keys],
    );
    const have = new Set(rows.map((r) => r.k));
    return keys.map((k) => have.has(k));
  }

  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], vectors: Array<Float32Array | null>): { handles: string[] } {
    const path = resolve(doc.path);
    const model = this.model();
    if (chunks.length > 0 && !model) throw new StoreError('NO_MODEL', 'replaceDocument before setModel: record the embedding model first');
    if (vectors.length !== chunks.length) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): ${chunks.length} chunks but ${vectors.length} vectors`);
    for (const v of vectors) {
      if (v && v.length !== model!.dim) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): a vector has dimension ${v.length}; the store's model ${model!.model} has ${model!.dim}`);
    }
    for (const c of chunks) if (c.episode) checkOutcome(c.episode);
    return this.transaction(() => {
      this.db.query(`SELECT pg_advisory_xact_lock(hashtext($1))`, [`document ${path}`]);
      const source = this.db.one<SourceRecord & { audience: string }>(`${SOURCE_SELECT} WHERE s.id = $1`, [doc.sourceId]);
      if (!source) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): no source with id ${doc.sourceId}`);
      const name = basename(path);
      const stem = name.slice(0, name.length - extname(name).length) || name;
      const embedKeys = chunks.map((c) => embedKey(doc.title, c.heading, c.text));
      const rowKeys = chunks.map((c) => rowKey(doc.title, c));
      const existing = this.db.one<{ id: number }>(`SELECT id FROM documents WHERE path = $1`, [path]);
      const stored = new Map<string, string>();
      if (existing && vectors.some((v) => !v)) {
        for (const r of this.db.query<{ k: string; v: string }>(
          `SELECT DISTINCT ON (embed_key) embed_key AS k, encode(vec, 'base64') AS v FROM chunks WHERE document_id = $1 AND embed_key = ANY($2::text[])`,
          [existing.id, embedKeys],
        )) stored.set(r.k, r.v);
      }
      const vecs = vectors.map((v, i) => {
        if (v) return float32ToBlob(v).toString('base64');
        const s = stored.get(embedKeys[i]);
        if (!s) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): chunk ${i} has no vector and none is stored for its text`);
        return s;
      });
      const now = Date.now();
      let docId: number;
      const kept = new Map<number, string>(); // ordinal → handle of the identical stored row
      if (existing) {
        docId = existing.id;
        const gone: number[] = [];
        for (const r of this.db.query<{ id: number; ordinal: number; rowKey: string; handle: string }>(
          `SELECT id, ordinal, row_key AS "rowKey", handle FROM chunks WHERE document_id = $1`, [docId],
        )) {
          if (r.ordinal < chunks.length && r.rowKey && r.rowKey === rowKeys[r.ordinal]) kept.set(r.ordinal, r.handle);
          else gone.push(r.id);
        }
        if (gone.length) this.write(`DELETE FROM chunks WHERE id = ANY($1::int[])`, [gone]);
        this.write(`UPDATE documents SET source_id = $1, hash = $2, mtime = $3, size = $4, title = $5, indexed_at = $6, name = $7, stem = $8, audience = $9 WHERE id = $10`,
          [source.id, doc.hash, Math.round(doc.mtime), doc.size, doc.title, now, name, stem, source.audience, docId]);
      } else {
        docId = this.write<{ id: number }>(
          `INSERT INTO documents (source_id, path, name, stem, hash, mtime, size, title, indexed_at, audience) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id`,
          [source.id, path, name, stem, doc.hash, Math.round(doc.mtime), doc.size, doc.title, now, source.audience],
        )[0].id;
      }
      const rel = relativeDocPath(source.path, path);
      const fresh = chunks.map((_, i) => i).filter((i) => !kept.has(i));
      const wanted = fresh.map((i) => makeHandle(source.region, rel, i));
      const taken = new Set(
        wanted.length ? this.db.query<{ handle: string }>(`SELECT handle FROM chunks WHERE handle = ANY($1::text[])`, [wanted]).map((r) => r.handle) : [],
      );
      const handleOf = new Map<number, string>(fresh.map((i, j) => [i, taken.has(wanted[j]) ? makeHandle(source.region, `s${source.id}/${rel}`, i) : wanted[j]]));
      const aliasesOf = (c: ChunkInput) => (c.aliases ?? []).map((a) => a.trim()).filter((a) => a && !a.includes('\n'));
      if (fresh.length) {
        const col = <T>(f: (i: number) => T) => fresh.map(f);
        const rows = this.write<{ id: number; ordinal: number }>(
          `INSERT INTO chunks (document_id, region_id, ordinal, handle, heading, text, created_at, has_error, resolved, aliases, chunk_kind, embed_key, row_key, audience, vec, fts)
           SELECT $1, $2, u.o, u.h, u.hd, u.t, u.ca, u.he, u.rs, u.al, u.ck, u.ek, u.rk, $3, decode(u.v, 'base64'),
                  setweight(to_tsvector('${PG_TS_CONFIG}', $4), 'A') || setweight(to_tsvector('${PG_TS_CONFIG}', u.hd), 'B') || to_tsvector('${PG_TS_CONFIG}', u.t)
           FROM unnest($5::int[], $6::text[], $7::text[], $8::text[], $9::bigint[], $10::bool[], $11::bool[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[])
                AS u(o, h, hd, t, ca, he, rs, al, ck, ek, rk, v)
           RETURNING id, ordinal`,
          [docId, source.regionId, source.audience, doc.title,
            col((i) => i), col((i) => handleOf.get(i)!), col((i) => chunks[i].heading), col((i) => chunks[i].text),
            col((i) => Math.round(chunks[i].createdAt)), col((i) => !!chunks[i].hasError), col((i) => !!chunks[i].resolved),
            col((i) => aliasesOf(chunks[i]).join('\n')), col((i) => (chunks[i].episode ? 'episode' : 'text')),
            col((i) => embedKeys[i]), col((i) => rowKeys[i]), col((i) => vecs[i])],
        );
        const idOf = new Map(rows.map((r) => [r.ordinal, r.id]));
        const alias: [number[], string[]] = [[], []];
        for (const i of fresh) {
          const id = idOf.get(i)!;
          for (const a of new Set(aliasesOf(chunks[i]))) {
            alias[0].push(id);
            alias[1].push(a);
          }
          const e = chunks[i].episode;
          if (e) this.insertEpisode(id, e);
          for (const q of chunks[i].signatures ?? []) {
            if (q.sig) this.write(`INSERT INTO signatures (chunk_id, sig, head, words, fix) VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING`, [id, q.sig, q.head.join('\n'), q.words.join(' '), q.fix]);
          }
        }
        if (alias[0].length) this.write(`INSERT INTO aliases (chunk_id, alias) SELECT * FROM unnest($1::int[], $2::text[])`, alias);
      }
      return { handles: chunks.map((_, i) => kept.get(i) ?? handleOf.get(i)!) };
    });
  }

  private insertEpisode(chunkId: number, e: EpisodeInput): void {
    const outcome = checkOutcome(e);
    this.write(
      `INSERT INTO episodes (chunk_id, sig, session_id, tool, action, fix, resolved, outcome, attempts, note, at, head, words) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [chunkId, e.sig, e.sessionId, e.tool, e.action, e.fix, e.resolved, outcome, Math.max(1, Math.round(e.attempts ?? 1)), e.note ?? '', Math.round(e.at), e.head.join('\n'), e.words.join(' ')],
    );
  }

  touchDocument(path: string, mtime: number, size: number): void {
    this.transaction(() => this.write(`UPDATE documents SET mtime = $1, size = $2 WHERE path = $3`, [Math.round(mtime), size, resolve(path)]));
  }

  removeDocument(path: string): boolean {
    return this.transaction(() => this.write(`DELETE FROM documents WHERE path = $1 RETURNING id`, [resolve(path)]).length > 0);
  }

  model(): { model: string; dim: number } | null {
    const rows = this.db.query<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN ('model', 'dim')`);
    const m = new Map(rows.map((r) => [r.key, r.value]));
    return m.has('model') && m.has('dim') ? { model: m.get('model')!, dim: Number(m.get('dim')) } : null;
  }

  setModel(modelId: string, dim: number): void {
    if (!modelId || !Number.isInteger(dim) || dim <= 0) throw new StoreError('BAD_INPUT', `setModel: bad model id "${modelId}" or dimension ${dim}`);
    this.transaction(() => {
      this.db.query(`SELECT pg_advisory_xact_lock(hashtext('active-brain model'))`);
      const current = this.model();
      if (current) {
        if (current.model !== modelId || current.dim !== dim) throw new StoreModelMismatchError(current, { model: modelId, dim });
        return;
      }
      this.write(`INSERT INTO meta (key, value) VALUES ('model', $1), ('dim', $2)`, [modelId, String(dim)]);
    });
  }

  clearDocuments(): void {
    this.transaction(() => {
      this.write(`DELETE FROM documents`);
      this.write(`DELETE FROM meta WHERE key IN ('model', 'dim')`);
    });
  }

  redaction(): string | null {
    return this.db.one<{ value: string }>(`SELECT value FROM meta WHERE key = $1`, [PG_REDACTION_META])?.value ?? null;
  }

  setRedaction(fingerprint: string): void {
    this.transaction(() => {
      this.write(`INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [PG_REDACTION_META, fingerprint]);
    });
  }

  episodeRules(): string | null {
    return this.db.one<{ value: string }>(`SELECT value FROM meta WHERE key = $1`, [PG_EPISODE_RULES_META])?.value ?? null;
  }

  setEpisodeRules(version: string): void {
    this.transaction(() => {
      this.write(`INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value`, [PG_EPISODE_RULES_META, version]);
    });
  }

  markAllStale(): number {
    return this.transaction(() => this.write(`UPDATE documents SET hash = $1 || hash WHERE substr(hash, 1, 1) <> $1 RETURNING id`, [STALE_HASH_PREFIX]).length);
  }

  storedTexts(): Iterable<StoredText> {
    return pgStoredTexts(this.db);
  }

  purgeDeleted(): void {
    // Dead row versions are PostgreSQL's to reclaim (autovacuum; the writer role does not own
    // the tables, so it cannot VACUUM them): docs/REDACTION.md says to run VACUUM FULL once.
  }

  info(): StoreInfo {
    return pgInfo(this.db, this.path);
  }

  close(): void {
    this.db.close();
  }
}

function checkOutcome(e: EpisodeInput): string {
  const outcome = e.outcome ?? (e.resolved ? 'succeeded' : 'unresolved');
  if (!isOneOf(EPISODE_OUTCOMES, outcome)) throw new StoreError('BAD_INPUT', `episode outcome "${String(outcome)}" is not one of ${EPISODE_OUTCOMES.join(', ')}`);
  return outcome;
}

/** Open the team store for writing through the writer role's URL (store init made the schema). */
export function openPgStoreWriter(url: string): StoreWriter {
  const db = connectPg(url);
  try {
    return new PgStoreWriter(url, db);
  } catch (e) {
    db.close();
    throw e instanceof StoreError ? e : pgConnectError(url, e);
  }
}

export { PgError };
