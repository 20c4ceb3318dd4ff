/**
 * The write side of the SQLite knowledge store (StoreWriter), used only by the indexer.
 *
 * API (see store/types.ts for the types):
 *   ensureRegion(name, scope)            create a region or update its scope
 *   addSource(region, path, kind)        register a notes folder / transcript root (idempotent)
 *   listSources() / removeSource(path)
 *   getDocument(path)                    → {path, hash, mtime, size} | null (skip unchanged files)
 *   listDocuments(sourceId)              → every indexed file of a source (find deleted ones)
 *   replaceDocument(doc, chunks, vecs)   ONE transaction: old chunks, FTS rows, aliases and
 *                                        vectors go, new ones come; a throw leaves the old doc
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
import type { ChunkInput, DocumentInput, DocumentStat, Region, SourceKind, SourceRecord, StoreInfo, StoreWriter } from './types.js';
import { migrate, getMeta } from './schema.js';
import { float32ToBlob } from './vector-matrix.js';
import { StoreError, StoreModelMismatchError } from './errors.js';
import { SqliteStoreReader } from './reader.js';
import { openWritableDb, unreadableStore } from './open.js';

const SCOPE = /^(global|project:.+)$/;

/** The handle of chunk `ordinal` of a file at `relPath` (relative to its source) in `region`. */
export function makeHandle(region: string, relPath: string, ordinal: number): string {
  return `${region}/${relPath}#${ordinal}`;
}

/** The path of a document relative to its source, `/`-separated (a file source → its name). */
export function relativeDocPath(sourcePath: string, docPath: string): string {
  const rel = relative(sourcePath, docPath);
  if (!rel || rel.startsWith('..')) return basename(docPath);
  return rel.split(sep).join('/');
}

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
      chunkIdsOfDoc: db.prepare(`SELECT id FROM chunks WHERE document_id = ?`),
      deleteFts: db.prepare(`DELETE FROM chunks_fts WHERE rowid = ?`),
      deleteAliasesOfDoc: db.prepare(`DELETE FROM aliases WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteVectorsOfDoc: db.prepare(`DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE document_id = ?)`),
      deleteChunksOfDoc: db.prepare(`DELETE FROM chunks WHERE document_id = ?`),
      handleTaken: db.prepare(`SELECT 1 FROM chunks WHERE handle = ?`),
      insertChunk: db.prepare(`INSERT INTO chunks (document_id, region_id, ordinal, handle, heading, text, created_at, has_error, resolved, aliases)
                               VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
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

  addSource(region: string, path: string, kind: SourceKind): SourceRecord {
    const abs = resolve(path);
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
    this.stmts.deleteChunksOfDoc.run(docId);
  }

  private deleteDocRows(docId: number): void {
    this.deleteChunkRows(docId);
    this.stmts.deleteDoc.run(docId);
  }

  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): { handles: string[] } {
    const path = resolve(doc.path);
    const model = this.model();
    if (chunks.length > 0 && !model) {
      throw new StoreError('NO_MODEL', 'replaceDocument before setModel: record the embedding model first');
    }
    if (vectors.length !== chunks.length) {
      throw new StoreError('BAD_INPUT', `replaceDocument(${path}): ${chunks.length} chunks but ${vectors.length} vectors`);
    }
    for (const v of vectors) {
      if (v.length !== model!.dim) {
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
      const existing = this.stmts.docByPath.get(path) as { id: number } | undefined;
      let docId: number;
      if (existing) {
        docId = existing.id;
        this.deleteChunkRows(docId);
        this.stmts.updateDoc.run({ ...fields, id: docId });
      } else {
        docId = Number(this.stmts.insertDoc.run(fields).lastInsertRowid);
      }
      const rel = relativeDocPath(source.path, path);
      const handles: string[] = [];
      chunks.forEach((c, ordinal) => {
        let handle = makeHandle(source.region, rel, ordinal);
        if (this.stmts.handleTaken.get(handle)) handle = makeHandle(source.region, `s${source.id}/${rel}`, ordinal);
        const aliases = (c.aliases ?? []).map((a) => a.trim()).filter((a) => a && !a.includes('\n'));
        const id = Number(
          this.stmts.insertChunk.run(
            docId, source.regionId, ordinal, handle, c.heading, c.text, Math.round(c.createdAt),
            c.hasError ? 1 : 0, c.resolved ? 1 : 0, aliases.join('\n'),
          ).lastInsertRowid,
        );
        this.stmts.insertFts.run(id, doc.title, c.heading, c.text);
        for (const a of new Set(aliases)) this.stmts.insertAlias.run(id, a);
        this.stmts.insertVector.run(id, float32ToBlob(vectors[ordinal]));
        handles.push(handle);
      });
      return { handles };
    });
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
      this.db.exec(`INSERT INTO chunks_fts (chunks_fts) VALUES ('delete-all'); DELETE FROM aliases; DELETE FROM vectors; DELETE FROM chunks; DELETE FROM documents;`);
      this.stmts.deleteMeta.run('model');
      this.stmts.deleteMeta.run('dim');
    });
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

/** Open (creating if needed: dir 0700, file 0600) the store for writing; migrates the schema. */
export function openStoreWriter(path: string): StoreWriter {
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
