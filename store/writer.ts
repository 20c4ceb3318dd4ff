/**
 * The write side of the SQLite knowledge store (StoreWriter), used only by the indexer.
 *
 * API (see store/types.ts for the types):
 *   ensureRegion(name, scope)            create a region or update its scope
 *   addSource(region, path, kind)        register a notes folder / transcript root (idempotent)
 *   listSources() / removeSource(path)
 *   getDocument(path)                    → {path, hash, mtime, size} | null (skip unchanged files)
 *   listDocuments(sourceId)              → every indexed file of a source (find deleted ones)
 *   replaceDocument(doc, chunks, vecs)   ONE transaction: old chunks, FTS rows, aliases,
 *                                        episode and signature rows and vectors go, new ones
 *                                        come; a throw leaves the old doc. A chunk identical to
 *                                        the stored one at its ordinal keeps its row (id, handle,
 *                                        vector); vecs[i] = null reuses the document's stored
 *                                        vector for the same title + heading + text
 *   reusableVectors(path, title, chunks) → which chunks need no embedding
 *   messagesHeldElsewhere(path, uuids)   lineage: uuids another document's chunks already hold
 *   touchDocument(path, mtime, size)     same content hash, new stat
 *   removeDocument(path)
 *   setModel(modelId, dim)               first call records it; a different one later throws
 *                                        StoreModelMismatchError ("… re-index with
 *                                        `active-brain index --rebuild`")
 *   clearDocuments()                     for --rebuild: drop content and the recorded model
 *   transaction(fn)                      group calls; nested calls become savepoints
 *
 * Handles are `<region>/<path relative to the source>#<ordinal>`; when two sources of one
 * region hold the same relative path, the later one gets `<region>/s<sourceId>/<rel>#<n>`.
 * Vectors are normalized before they are stored.
 */
import type Database from 'better-sqlite3';
import { basename, extname, relative, resolve, sep } from 'node:path';
import { EPISODE_OUTCOMES, STALE_HASH_PREFIX, type ChunkInput, type DocumentInput, type DocumentStat, type EpisodeInput, type Region, type SourceKind, type SourceRecord, type StoreInfo, type StoreWriter } from './types.js';
import { isOneOf } from '../shared/vocabulary.js';
import { migrate, getMeta, EPISODE_RULES_META, REDACTION_META } from './schema.js';
import { sqliteStoredTexts, type StoredText } from './stored-texts.js';
import { float32ToBlob } from './vector-matrix.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { SqliteStoreReader } from './reader.js';
import { embedKey, rowKey } from './chunk-key.js';
import { openWritableDb, unreadableStore } from './open.js';
import { makeHandle, relativeDocPath } from './handles.js';

export { makeHandle, relativeDocPath };

const SCOPE = /^(global|project:.+)$/;
/** Message uuids per lookup statement (json_each keeps one statement for any count). */
const MESSAGE_BATCH = 500;


export class SqliteStoreWriter implements StoreWriter {
  private readonly stmts;

  constructor(readonly path: string, private readonly db: Database.Database) {
    migrate(db);
    this.stmts = {
      regionByName: db.prepare(`SELECT id, name, scope FROM regions WHERE name = ?`),
      insertRegion: db.prepare(`INSERT INTO regions (name, scope) VALUES (?, ?)`),
      updateScope: db.prepare(`UPDATE regions SET scope = ? WHERE id = ?`),
      sourceByPath: db.prepare(`SELECT s.id, s.region_id AS regionId, r.name AS region, s.path, s.kind
                                FROM sources s JOIN regions r ON r.id = s.region_id WHERE s.path = ?`),
      sourceById: db.prepare(`SELECT s.id, s.region_id AS regionId, r.name AS region, s.path, s.kind
                              FROM sources s JOIN regions r ON r.id = s.region_id WHERE s.id = ?`),
      sources: db.prepare(`SELECT s.id, s.region_id AS regionId, r.name AS region, s.path, s.kind
                           FROM sources s JOIN regions r ON r.id = s.region_id ORDER BY r.name, s.path`),
      insertSource: db.prepare(`INSERT INTO sources (region_id, path, kind) VALUES (?, ?, ?)`),
      deleteSource: db.prepare(`DELETE FROM sources WHERE id = ?`),
      docByPath: db.prepare(`SELECT id, path, hash, mtime, size FROM documents WHERE path = ?`),
      docsOfSource: db.prepare(`SELECT path, hash, mtime, size FROM documents WHERE source_id = ? ORDER BY path`),
      docIdsOfSource: db.prepare(`SELECT id FROM documents WHERE source_id = ?`),
      insertDoc: db.prepare(`INSERT INTO documents (source_id, path, name, stem, hash, mtime, size, title, indexed_at)
                             VALUES (@sourceId, @path, @name, @stem, @hash, @mtime, @size, @title, @now)`),
      updateDoc: db.prepare(`UPDATE documents SET source_id = @sourceId, hash = @hash, mtime = @mtime, size = @size,
                             title = @title, indexed_at = @now WHERE id = @id`),
      touchDoc: db.prepare(`UPDATE documents SET mtime = ?, size = ? WHERE path = ?`),
      deleteDoc: db.prepare(`DELETE FROM documents WHERE id = ?`),
      deleteMessagesOfDoc: db.prepare(`DELETE FROM messages WHERE document_id = ?`),
      insertMessage: db.prepare(`INSERT OR IGNORE INTO messages (uuid, document_id, session_id, held) VALUES (?, ?, ?, ?)`),
      heldElsewhere: db.prepare(`SELECT DISTINCT m.uuid FROM messages m JOIN documents d ON d.id = m.document_id
                                 WHERE m.held = 1 AND d.path <> ? AND m.uuid IN (SELECT value FROM json_each(?))`),
      chunkIdsOfDoc: db.prepare(`SELECT id FROM chunks WHERE document_id = ?`),
      chunkKeysOfDoc: db.prepare(`SELECT id, ordinal, row_key AS rowKey FROM chunks WHERE document_id = ?`),
      vectorOfDocKey: db.prepare(`SELECT v.vec FROM chunks c JOIN vectors v ON v.chunk_id = c.id WHERE c.document_id = ? AND c.embed_key = ? LIMIT 1`),
      hasVectorOfDocKey: db.prepare(`SELECT 1 FROM chunks c JOIN vectors v ON v.chunk_id = c.id WHERE c.document_id = ? AND c.embed_key = ? LIMIT 1`),
      deleteFts: db.prepare(`DELETE FROM chunks_fts WHERE rowid = ?`),
      deleteAliasesOfDoc: db.prepare(`DELETE FROM aliases WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteVectorsOfDoc: db.prepare(`DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteEpisodesOfDoc: db.prepare(`DELETE FROM episodes WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteSignaturesOfDoc: db.prepare(`DELETE FROM signatures WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteChunksOfDoc: db.prepare(`DELETE FROM chunks WHERE document_id = ?`),
      deleteAliasesOfChunk: db.prepare(`DELETE FROM aliases WHERE chunk_id = ?`),
      deleteVectorOfChunk: db.prepare(`DELETE FROM vectors WHERE chunk_id = ?`),
      deleteEpisodeOfChunk: db.prepare(`DELETE FROM episodes WHERE chunk_id = ?`),
      deleteSignaturesOfChunk: db.prepare(`DELETE FROM signatures WHERE chunk_id = ?`),
      deleteChunk: db.prepare(`DELETE FROM chunks WHERE id = ?`),
      handleTaken: db.prepare(`SELECT 1 FROM chunks WHERE handle = ?`),
      handleOf: db.prepare(`SELECT handle FROM chunks WHERE id = ?`),
      insertChunk: db.prepare(`INSERT INTO chunks (document_id, region_id, ordinal, handle, heading, text, created_at, has_error, resolved, aliases, chunk_kind, embed_key, row_key)
                               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
      insertEpisode: db.prepare(`INSERT INTO episodes (chunk_id, sig, session_id, tool, action, fix, resolved, outcome, attempts, note, at, head, words)
                                 VALUES (@chunkId, @sig, @sessionId, @tool, @action, @fix, @resolved, @outcome, @attempts, @note, @at, @head, @words)`),
      insertSignature: db.prepare(`INSERT OR IGNORE INTO signatures (chunk_id, sig, head, words, fix) VALUES (?, ?, ?, ?, ?)`),
      insertFts: db.prepare(`INSERT INTO chunks_fts (rowid, title, heading, text) VALUES (?, ?, ?, ?)`),
      insertAlias: db.prepare(`INSERT INTO aliases (chunk_id, alias) VALUES (?, ?)`),
      insertVector: db.prepare(`INSERT INTO vectors (chunk_id, vec) VALUES (?, ?)`),
      setMeta: db.prepare(`INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value`),
      deleteMeta: db.prepare(`DELETE FROM meta WHERE key = ?`),
    };
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  ensureRegion(name: string, scope: string): Region {
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
      throw new StoreError('BAD_INPUT', `region name "${name}" is not allowed: use letters, digits, ".", "_" or "-" (e.g. notes, pg-project)`);
    }
    if (!SCOPE.test(scope)) {
      throw new StoreError('BAD_INPUT', `region scope "${scope}" is not allowed: use "global" or "project:<glob>" (e.g. project:~/work/api/**)`);
    }
    const row = this.stmts.regionByName.get(name) as Region | undefined;
    if (row) {
      if (row.scope !== scope) this.stmts.updateScope.run(scope, row.id);
      return { ...row, scope };
    }
    const id = Number(this.stmts.insertRegion.run(name, scope).lastInsertRowid);
    return { id, name, scope };
  }

  addSource(region: string, path: string, kind: SourceKind, audience = 'team'): SourceRecord {
    const abs = resolve(path);
    if (audience !== 'team') {
      throw new StoreError('BAD_INPUT', `audience "${audience}" needs the team store: the local SQLite store is one user's; set store.url to a team store (\`active-brain store init\`) or drop --audience`);
    }
    if (kind !== 'notes' && kind !== 'transcripts') throw new StoreError('BAD_INPUT', `source kind "${kind}" is not allowed: use notes or transcripts`);
    return this.transaction(() => {
      const existing = this.stmts.sourceByPath.get(abs) as SourceRecord | undefined;
      if (existing) {
        if (existing.region !== region || existing.kind !== kind) {
          throw new StoreError('SOURCE_CONFLICT', `${abs} is already indexed as ${existing.kind} in region "${existing.region}": remove that source first`);
        }
        return existing;
      }
      const r = this.stmts.regionByName.get(region) as Region | undefined;
      if (!r) throw new StoreError('BAD_INPUT', `no region "${region}": create it first (ensureRegion)`);
      const id = Number(this.stmts.insertSource.run(r.id, abs, kind).lastInsertRowid);
      return { id, regionId: r.id, region, path: abs, kind };
    });
  }

  listSources(): SourceRecord[] {
    return this.stmts.sources.all() as SourceRecord[];
  }

  regions(): Region[] {
    return new SqliteStoreReader(this.path, this.db).regions();
  }

  removeSource(path: string): number {
    const abs = resolve(path);
    return this.transaction(() => {
      const s = this.stmts.sourceByPath.get(abs) as SourceRecord | undefined;
      if (!s) return 0;
      const docs = this.stmts.docIdsOfSource.all(s.id) as Array<{ id: number }>;
      for (const d of docs) this.deleteDocRows(d.id);
      this.stmts.deleteSource.run(s.id);
      return docs.length;
    });
  }

  getDocument(path: string): DocumentStat | null {
    const row = this.stmts.docByPath.get(resolve(path)) as (DocumentStat & { id: number }) | undefined;
    return row ? { path: row.path, hash: row.hash, mtime: row.mtime, size: row.size } : null;
  }

  listDocuments(sourceId: number): DocumentStat[] {
    return this.stmts.docsOfSource.all(sourceId) as DocumentStat[];
  }

  private deleteChunkRows(docId: number): void {
    for (const c of this.stmts.chunkIdsOfDoc.all(docId) as Array<{ id: number }>) this.stmts.deleteFts.run(c.id);
    this.stmts.deleteAliasesOfDoc.run(docId);
    this.stmts.deleteVectorsOfDoc.run(docId);
    this.stmts.deleteEpisodesOfDoc.run(docId);
    this.stmts.deleteSignaturesOfDoc.run(docId);
    this.stmts.deleteChunksOfDoc.run(docId);
  }

  private deleteOneChunk(id: number): void {
    this.stmts.deleteFts.run(id);
    this.stmts.deleteAliasesOfChunk.run(id);
    this.stmts.deleteVectorOfChunk.run(id);
    this.stmts.deleteEpisodeOfChunk.run(id);
    this.stmts.deleteSignaturesOfChunk.run(id);
    this.stmts.deleteChunk.run(id);
  }

  reusableVectors(path: string, title: string, chunks: Array<Pick<ChunkInput, 'heading' | 'text'>>): boolean[] {
    const doc = this.stmts.docByPath.get(resolve(path)) as { id: number } | undefined;
    if (!doc) return chunks.map(() => false);
    return chunks.map((c) => this.stmts.hasVectorOfDocKey.get(doc.id, embedKey(title, c.heading, c.text)) !== undefined);
  }

  private deleteDocRows(docId: number): void {
    this.deleteChunkRows(docId);
    this.stmts.deleteMessagesOfDoc.run(docId);
    this.stmts.deleteDoc.run(docId);
  }

  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], vectors: Array<Float32Array | null>): { handles: string[] } {
    const path = resolve(doc.path);
    const model = this.model();
    if (chunks.length > 0 && !model) {
      throw new StoreError('NO_MODEL', 'replaceDocument before setModel: record the embedding model first');
    }
    if (vectors.length !== chunks.length) {
      throw new StoreError('BAD_INPUT', `replaceDocument(${path}): ${chunks.length} chunks but ${vectors.length} vectors`);
    }
    for (const v of vectors) {
      if (v && v.length !== model!.dim) {
        throw new StoreError('BAD_INPUT', `replaceDocument(${path}): a vector has dimension ${v.length}; the store's model ${model!.model} has ${model!.dim}`);
      }
    }
    return this.transaction(() => {
      const source = this.stmts.sourceById.get(doc.sourceId) as SourceRecord | undefined;
      if (!source) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): no source with id ${doc.sourceId}`);
      const now = Date.now();
      const name = basename(path);
      const fields = {
        sourceId: source.id, path, name, stem: name.slice(0, name.length - extname(name).length) || name,
        hash: doc.hash, mtime: Math.round(doc.mtime), size: doc.size, title: doc.title, now,
      };
      const embedKeys = chunks.map((c) => embedKey(doc.title, c.heading, c.text));
      const rowKeys = chunks.map((c) => rowKey(doc.title, c));
      const existing = this.stmts.docByPath.get(path) as { id: number } | undefined;
      // Vectors to reuse are read before any old row goes.
      const blobs: Array<Buffer | null> = vectors.map((v, i) => {
        if (v) return float32ToBlob(v);
        const row = existing ? (this.stmts.vectorOfDocKey.get(existing.id, embedKeys[i]) as { vec: Buffer } | undefined) : undefined;
        if (!row) throw new StoreError('BAD_INPUT', `replaceDocument(${path}): chunk ${i} has no vector and none is stored for its text`);
        return row.vec;
      });
      let docId: number;
      const kept = new Map<number, number>(); // ordinal → id of the identical stored row
      if (existing) {
        docId = existing.id;
        for (const r of this.stmts.chunkKeysOfDoc.all(docId) as Array<{ id: number; ordinal: number; rowKey: string }>) {
          if (r.ordinal < chunks.length && r.rowKey && r.rowKey === rowKeys[r.ordinal]) kept.set(r.ordinal, r.id);
          else this.deleteOneChunk(r.id);
        }
        this.stmts.updateDoc.run({ ...fields, id: docId });
      } else {
        docId = Number(this.stmts.insertDoc.run(fields).lastInsertRowid);
      }
      if (doc.messages) {
        this.stmts.deleteMessagesOfDoc.run(docId);
        const copied = new Set(doc.messages.copied);
        for (const u of new Set(doc.messages.uuids)) if (u) this.stmts.insertMessage.run(u, docId, doc.messages.sessionId, copied.has(u) ? 0 : 1);
      }
      const rel = relativeDocPath(source.path, path);
      const handles: string[] = [];
      chunks.forEach((c, ordinal) => {
        if (kept.has(ordinal)) {
          handles.push((this.stmts.handleOf.get(kept.get(ordinal)!) as { handle: string }).handle);
          return;
        }
        let handle = makeHandle(source.region, rel, ordinal);
        if (this.stmts.handleTaken.get(handle)) handle = makeHandle(source.region, `s${source.id}/${rel}`, ordinal);
        const aliases = (c.aliases ?? []).map((a) => a.trim()).filter((a) => a && !a.includes('\n'));
        const id = Number(
          this.stmts.insertChunk.run(
            docId, source.regionId, ordinal, handle, c.heading, c.text, Math.round(c.createdAt),
            c.hasError ? 1 : 0, c.resolved ? 1 : 0, aliases.join('\n'), c.episode ? 'episode' : 'text', embedKeys[ordinal], rowKeys[ordinal],
          ).lastInsertRowid,
        );
        this.stmts.insertFts.run(id, doc.title, c.heading, c.text);
        for (const a of new Set(aliases)) this.stmts.insertAlias.run(id, a);
        this.stmts.insertVector.run(id, blobs[ordinal]);
        if (c.episode) this.insertEpisode(id, c.episode);
        for (const q of c.signatures ?? []) {
          if (q.sig) this.stmts.insertSignature.run(id, q.sig, q.head.join('\n'), q.words.join(' '), q.fix);
        }
        handles.push(handle);
      });
      return { handles };
    });
  }

  private insertEpisode(chunkId: number, e: EpisodeInput): void {
    const outcome = e.outcome ?? (e.resolved ? 'succeeded' : 'unresolved');
    if (!isOneOf(EPISODE_OUTCOMES, outcome)) throw new StoreError('BAD_INPUT', `episode outcome "${String(outcome)}" is not one of ${EPISODE_OUTCOMES.join(', ')}`);
    this.stmts.insertEpisode.run({
      chunkId, sig: e.sig, sessionId: e.sessionId, tool: e.tool, action: e.action, fix: e.fix, resolved: e.resolved ? 1 : 0,
      outcome, attempts: Math.max(1, Math.round(e.attempts ?? 1)), note: e.note ?? '', at: Math.round(e.at),
      head: e.head.join('\n'), words: e.words.join(' '),
    });
  }

  messagesHeldElsewhere(path: string, uuids: string[]): Set<string> {
    const out = new Set<string>();
    const all = [...new Set(uuids.filter((u) => typeof u === 'string' && u !== ''))];
    for (let i = 0; i < all.length; i += MESSAGE_BATCH) {
      for (const r of this.stmts.heldElsewhere.all(resolve(path), JSON.stringify(all.slice(i, i + MESSAGE_BATCH))) as Array<{ uuid: string }>) out.add(r.uuid);
    }
    return out;
  }

  touchDocument(path: string, mtime: number, size: number): void {
    this.stmts.touchDoc.run(Math.round(mtime), size, resolve(path));
  }

  removeDocument(path: string): boolean {
    return this.transaction(() => {
      const row = this.stmts.docByPath.get(resolve(path)) as { id: number } | undefined;
      if (!row) return false;
      this.deleteDocRows(row.id);
      return true;
    });
  }

  model(): { model: string; dim: number } | null {
    const model = getMeta(this.db, 'model');
    const dim = getMeta(this.db, 'dim');
    return model !== null && dim !== null ? { model, dim: Number(dim) } : null;
  }

  setModel(modelId: string, dim: number): void {
    if (!modelId || !Number.isInteger(dim) || dim <= 0) throw new StoreError('BAD_INPUT', `setModel: bad model id "${modelId}" or dimension ${dim}`);
    const current = this.model();
    if (current) {
      if (current.model !== modelId || current.dim !== dim) throw new StoreModelMismatchError(current, { model: modelId, dim });
      return;
    }
    this.transaction(() => {
      this.stmts.setMeta.run('model', modelId);
      this.stmts.setMeta.run('dim', String(dim));
    });
  }

  clearDocuments(): void {
    this.transaction(() => {
      this.db.exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all'); DELETE FROM aliases; DELETE FROM vectors; DELETE FROM episodes; DELETE FROM signatures; DELETE FROM chunks; DELETE FROM messages; DELETE FROM documents;`);
      this.stmts.deleteMeta.run('model');
      this.stmts.deleteMeta.run('dim');
    });
  }

  redaction(): string | null {
    return getMeta(this.db, REDACTION_META);
  }

  setRedaction(fingerprint: string): void {
    this.stmts.setMeta.run(REDACTION_META, fingerprint);
  }

  episodeRules(): string | null {
    return getMeta(this.db, EPISODE_RULES_META);
  }

  setEpisodeRules(version: string): void {
    this.stmts.setMeta.run(EPISODE_RULES_META, version);
  }

  markAllStale(): number {
    return this.db.prepare(`UPDATE documents SET hash = ? || hash WHERE substr(hash, 1, 1) <> ?`).run(STALE_HASH_PREFIX, STALE_HASH_PREFIX).changes;
  }

  storedTexts(): Iterable<StoredText> {
    return sqliteStoredTexts(this.db);
  }

  purgeDeleted(): void {
    // contentless FTS5 keeps a deleted row's terms until its segments merge; VACUUM rewrites
    // the file without free pages; the checkpoint empties the WAL.
    this.db.exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('optimize')`);
    this.db.pragma('wal_checkpoint(TRUNCATE)');
    this.db.exec('VACUUM');
    this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  info(): StoreInfo {
    const r = new SqliteStoreReader(this.path, this.db);
    return r.info();
  }

  close(): void {
    try {
      this.db.pragma('optimize');
    } catch {
      /* best effort */
    }
    this.db.close();
  }
}

/** Open (creating if needed: dir 0700, file 0600) the SQLite store for writing; migrates the
 *  schema. (store/open-store.ts chooses between this and the team store.) */
export function openSqliteStoreWriter(path: string): StoreWriter {
  const file = resolve(path);
  let db: Database.Database;
  try {
    db = openWritableDb(file);
  } catch (e) {
    throw unreadableStore(file, e);
  }
  try {
    return new SqliteStoreWriter(file, db);
  } catch (e) {
    db.close();
    throw e instanceof StoreError ? e : unreadableStore(file, e);
  }
}
