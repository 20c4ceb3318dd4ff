/**
 * Reads the embedded SQLite store (store.path) document by document for `active-brain store
 * push` (store/push.ts): each source with its region, each document's stat and title, its
 * chunks as the indexer wrote them (ChunkInput: heading, text, flags, aliases, episode,
 * quoted signatures) and their stored vectors, so the team store receives the same chunks
 * without re-embedding. Read-only connection (store/open.ts); the schema must be current.
 */
import type Database from 'better-sqlite3';
import { openReadonlyDb } from './open.js';
import { getMeta, REDACTION_META, SCHEMA_VERSION } from './schema.js';
import { StoreError } from './errors.js';
import { blobToFloat32 } from './vector-matrix.js';
import type { ChunkInput, DocumentStat, EpisodeOutcome, QuotedSignature, SourceKind } from './types.js';

export interface ExportSource {
  region: string;
  scope: string;
  path: string;
  kind: SourceKind;
  documents: DocumentStat[];
}

export interface ExportDocument {
  title: string;
  chunks: ChunkInput[];
  vectors: Float32Array[];
}

export class SqliteExport {
  private constructor(readonly path: string, private readonly db: Database.Database) {}

  static open(path: string): SqliteExport {
    const db = openReadonlyDb(path);
    try {
      const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
      const v = row ? Number(row.value) : 0;
      if (v !== SCHEMA_VERSION) {
        throw new StoreError(v > SCHEMA_VERSION ? 'SCHEMA_TOO_NEW' : 'SCHEMA_OLD',
          `the local store ${path} has schema version ${v}, this active-brain reads ${SCHEMA_VERSION}: ${v > SCHEMA_VERSION ? 'upgrade active-brain' : 'run `active-brain index` once to migrate it'}, then push again`);
      }
      return new SqliteExport(path, db);
    } catch (e) {
      db.close();
      if (e instanceof StoreError) throw e;
      throw new StoreError('STORE_UNREADABLE', `cannot read the local store ${path} (${(e as Error).message}): check store.path`);
    }
  }

  model(): { model: string; dim: number } | null {
    const m = new Map((this.db.prepare(`SELECT key, value FROM meta WHERE key IN ('model', 'dim')`).all() as Array<{ key: string; value: string }>).map((r) => [r.key, r.value]));
    return m.has('model') && m.has('dim') ? { model: m.get('model')!, dim: Number(m.get('dim')) } : null;
  }

  /** The redaction fingerprint the local store's text was redacted with ('' or null: none). */
  redaction(): string | null {
    return getMeta(this.db, REDACTION_META);
  }

  sources(): ExportSource[] {
    const rows = this.db.prepare(`SELECT s.id, r.name AS region, r.scope, s.path, s.kind FROM sources s JOIN regions r ON r.id = s.region_id ORDER BY r.name, s.path`).all() as Array<{ id: number; region: string; scope: string; path: string; kind: SourceKind }>;
    const docs = this.db.prepare(`SELECT path, hash, mtime, size FROM documents WHERE source_id = ? ORDER BY path`);
    return rows.map((r) => ({ region: r.region, scope: r.scope, path: r.path, kind: r.kind, documents: docs.all(r.id) as DocumentStat[] }));
  }

  /** One document's chunks (in ordinal order) and vectors; null when it is gone. */
  document(path: string): ExportDocument | null {
    const d = this.db.prepare(`SELECT id, title FROM documents WHERE path = ?`).get(path) as { id: number; title: string } | undefined;
    if (!d) return null;
    const rows = this.db.prepare(`
      SELECT c.id, c.heading, c.text, c.created_at, c.has_error, c.resolved, c.aliases, v.vec,
             e.sig, e.session_id, e.tool, e.action, e.fix, e.resolved AS e_resolved, e.outcome, e.attempts, e.note, e.at, e.head, e.words
      FROM chunks c LEFT JOIN vectors v ON v.chunk_id = c.id LEFT JOIN episodes e ON e.chunk_id = c.id
      WHERE c.document_id = ? ORDER BY c.ordinal`).all(d.id) as ChunkRow[];
    const sigs = this.db.prepare(`SELECT sig, head, words, fix FROM signatures WHERE chunk_id = ? ORDER BY sig`);
    const chunks: ChunkInput[] = [];
    const vectors: Float32Array[] = [];
    for (const r of rows) {
      if (!r.vec) throw new StoreError('STORE_UNREADABLE', `the local store ${this.path} has a chunk of ${path} without a vector: run \`active-brain index\` to repair it, then push again`);
      const quoted = (sigs.all(r.id) as Array<{ sig: string; head: string; words: string; fix: string }>).map<QuotedSignature>((s) => ({ sig: s.sig, head: split(s.head, '\n'), words: split(s.words, ' '), fix: s.fix }));
      chunks.push({
        heading: r.heading, text: r.text, createdAt: r.created_at, hasError: r.has_error !== 0, resolved: r.resolved !== 0,
        aliases: split(r.aliases, '\n'),
        ...(r.sig !== null ? { episode: {
          sig: r.sig, head: split(r.head!, '\n'), words: split(r.words!, ' '), sessionId: r.session_id!, tool: r.tool!, action: r.action!,
          fix: r.fix!, resolved: r.e_resolved !== 0, at: r.at!, outcome: r.outcome!, attempts: r.attempts!, note: r.note!,
        } } : {}),
        ...(quoted.length ? { signatures: quoted } : {}),
      });
      vectors.push(blobToFloat32(r.vec));
    }
    return { title: d.title, chunks, vectors };
  }

  close(): void {
    this.db.close();
  }
}

interface ChunkRow {
  id: number; heading: string; text: string; created_at: number; has_error: number; resolved: number; aliases: string; vec: Buffer | null;
  sig: string | null; session_id: string | null; tool: string | null; action: string | null; fix: string | null; e_resolved: number | null;
  outcome: EpisodeOutcome | null; attempts: number | null; note: string | null; at: number | null; head: string | null; words: string | null;
}

function split(s: string, sep: string): string[] {
  return s ? s.split(sep) : [];
}
