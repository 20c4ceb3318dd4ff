/**
 * The knowledge store's SQLite schema and its versioned migrations. The writer
 * (store/writer.ts) runs migrate() on open; the read-only reader only checks the version
 * (checkSchema) and asks the user to run the indexer when the file is older.
 *
 * Layout: meta (schema_version, model, dim) · regions · sources · documents · chunks
 * (+ aliases for exact name lookup) · chunks_fts (FTS5, contentless, rowid = chunk id)
 * · vectors (chunk id → normalized Float32 BLOB, little-endian as stored by the machine)
 * · chunks_fts_vocab (v2: fts5vocab 'row' view of chunks_fts — per-term document counts, read by
 *   the reader to drop near-zero-IDF query terms; it must exist after indexing because the
 *   daemon's read-only connection cannot create it).
 * · v3: chunks.chunk_kind ('text' | 'episode') and chunks.embed_key (hash of the text the
 *   vector was computed from: a re-indexed document reuses the stored vector of an unchanged
 *   chunk instead of embedding it again) and chunks.row_key (hash of everything stored for
 *   the chunk: an identical chunk at the same ordinal keeps its row, id and handle) · episodes (one row per episode chunk: its error
 *   signature and fields, indexer/episodes.ts) · signatures (error signatures a note chunk
 *   quotes). Migrating back-fills embed_key and marks every document stale
 *   (STALE_HASH_PREFIX) so the next index run re-chunks it — adding episodes and quoted
 *   signatures — while reusing every stored vector.
 * · v4: messages (lineage, docs/STORE.md): every message uuid a transcript document holds, with
 *   its session id and whether this document's chunks hold its text (`held`). Claude Code copies
 *   a session's records, uuids kept, into a new session file on resume / fork / continue /
 *   compaction: sessions sharing a uuid are one lineage, and a copied message is chunked once.
 *   Migrating marks every transcript document stale so the next index run records its messages.
 * · v5: secrets are redacted at index time (shared/redact.ts). A store written before holds
 *   them: the migration records it as unscrubbed (meta `redaction` = '') and marks every
 *   document stale, so the next `index` re-reads and redacts it (indexer/indexer.ts; unchanged
 *   chunks keep their vectors) and records the rules' fingerprint once no secret is left.
 */
import type Database from 'better-sqlite3';
import { StoreError } from './errors.js';
import { embedKey } from './chunk-key.js';
import { STALE_HASH_PREFIX } from './types.js';

/** FTS5 tokenizer: porter stemming over unicode61 (measured against plain unicode61 in docs/STORE.md). */
export const FTS_TOKENIZER = 'porter unicode61 remove_diacritics 2';

/** The fts5vocab table over chunks_fts (term, doc, cnt): document frequency per indexed term. */
export const FTS_VOCAB_TABLE = 'chunks_fts_vocab';

export interface Migration {
  version: number;
  up: string;
  /** Data work after `up`, in the same transaction (back-fills that SQL alone cannot compute). */
  backfill?: (db: Database.Database) => void;
}

/** v3 back-fill: embed_key of every existing chunk; every document marked stale. */
function backfillV3(db: Database.Database): void {
  const rows = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id`);
  const set = db.prepare(`UPDATE chunks SET embed_key = ? WHERE id = ?`);
  for (const r of rows.all() as Array<{ id: number; title: string; heading: string; text: string }>) set.run(embedKey(r.title, r.heading, r.text), r.id);
  db.prepare(`UPDATE documents SET hash = ? || hash WHERE substr(hash, 1, 1) <> ?`).run(STALE_HASH_PREFIX, STALE_HASH_PREFIX);
}

/** v4 back-fill: transcript documents stale (their messages are recorded on the next run). */
function backfillV4(db: Database.Database): void {
  db.prepare(
    `UPDATE documents SET hash = ? || hash WHERE substr(hash, 1, 1) <> ? AND source_id IN (SELECT id FROM sources WHERE kind = 'transcripts')`,
  ).run(STALE_HASH_PREFIX, STALE_HASH_PREFIX);
}

/** Meta key of the redaction fingerprint the stored text was redacted with ('' = unscrubbed). */
export const REDACTION_META = 'redaction';
/** Meta key of the episode rules' version the stored episodes were cut with. */
export const EPISODE_RULES_META = 'episode_rules';

/** v5 back-fill: the store holds text from before redaction: unscrubbed, every document stale. */
function backfillV5(db: Database.Database): void {
  db.prepare(`INSERT INTO meta (key, value) VALUES (?, '') ON CONFLICT (key) DO UPDATE SET value = ''`).run(REDACTION_META);
  db.prepare(`UPDATE documents SET hash = ? || hash WHERE substr(hash, 1, 1) <> ?`).run(STALE_HASH_PREFIX, STALE_HASH_PREFIX);
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    up: `
      CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
      CREATE TABLE regions (
        id INTEGER PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        scope TEXT NOT NULL DEFAULT 'global'
      );
      CREATE TABLE sources (
        id INTEGER PRIMARY KEY,
        region_id INTEGER NOT NULL REFERENCES regions(id),
        path TEXT NOT NULL UNIQUE,
        kind TEXT NOT NULL CHECK (kind IN ('notes', 'transcripts'))
      );
      CREATE TABLE documents (
        id INTEGER PRIMARY KEY,
        source_id INTEGER NOT NULL REFERENCES sources(id),
        path TEXT NOT NULL UNIQUE,
        name TEXT NOT NULL COLLATE NOCASE,
        stem TEXT NOT NULL COLLATE NOCASE,
        hash TEXT NOT NULL,
        mtime INTEGER NOT NULL,
        size INTEGER NOT NULL,
        title TEXT NOT NULL DEFAULT '' COLLATE NOCASE,
        indexed_at INTEGER NOT NULL
      );
      CREATE INDEX documents_source ON documents(source_id);
      CREATE INDEX documents_title ON documents(title);
      CREATE INDEX documents_name ON documents(name);
      CREATE INDEX documents_stem ON documents(stem);
      CREATE TABLE chunks (
        id INTEGER PRIMARY KEY,
        document_id INTEGER NOT NULL REFERENCES documents(id),
        region_id INTEGER NOT NULL REFERENCES regions(id),
        ordinal INTEGER NOT NULL,
        handle TEXT NOT NULL UNIQUE,
        heading TEXT NOT NULL DEFAULT '',
        text TEXT NOT NULL,
        created_at INTEGER NOT NULL,
        has_error INTEGER NOT NULL DEFAULT 0,
        resolved INTEGER NOT NULL DEFAULT 0,
        aliases TEXT NOT NULL DEFAULT '',
        UNIQUE (document_id, ordinal)
      );
      CREATE INDEX chunks_region ON chunks(region_id);
      CREATE TABLE aliases (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id),
        alias TEXT NOT NULL COLLATE NOCASE
      );
      CREATE INDEX aliases_alias ON aliases(alias);
      CREATE INDEX aliases_chunk ON aliases(chunk_id);
      CREATE VIRTUAL TABLE chunks_fts USING fts5(
        title, heading, text,
        content = '', contentless_delete = 1,
        tokenize = '${FTS_TOKENIZER}'
      );
      CREATE TABLE vectors (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id),
        vec BLOB NOT NULL
      );
    `,
  },
  {
    // Document frequency per indexed term (stemmed), for keyword-query pruning (store/reader.ts).
    // fts5vocab is a read-only view over the FTS5 index: no data to back-fill.
    version: 2,
    up: `CREATE VIRTUAL TABLE IF NOT EXISTS ${FTS_VOCAB_TABLE} USING fts5vocab(chunks_fts, 'row');`,
  },
  {
    // Error episodes and quoted error signatures (found by signature), chunk kinds, and the
    // key that lets a re-indexed document keep the vectors of its unchanged chunks.
    version: 3,
    up: `
      ALTER TABLE chunks ADD COLUMN chunk_kind TEXT NOT NULL DEFAULT 'text' CHECK (chunk_kind IN ('text', 'episode'));
      ALTER TABLE chunks ADD COLUMN embed_key TEXT NOT NULL DEFAULT '';
      ALTER TABLE chunks ADD COLUMN row_key TEXT NOT NULL DEFAULT '';
      CREATE INDEX chunks_doc_key ON chunks(document_id, embed_key);
      CREATE TABLE episodes (
        chunk_id INTEGER PRIMARY KEY REFERENCES chunks(id),
        sig TEXT NOT NULL,
        session_id TEXT NOT NULL,
        tool TEXT NOT NULL,
        action TEXT NOT NULL,
        fix TEXT NOT NULL,
        resolved INTEGER NOT NULL,
        outcome TEXT NOT NULL,
        attempts INTEGER NOT NULL,
        note TEXT NOT NULL,
        at INTEGER NOT NULL,
        head TEXT NOT NULL,
        words TEXT NOT NULL
      );
      CREATE INDEX episodes_sig ON episodes(sig);
      CREATE TABLE signatures (
        chunk_id INTEGER NOT NULL REFERENCES chunks(id),
        sig TEXT NOT NULL,
        head TEXT NOT NULL,
        words TEXT NOT NULL,
        fix TEXT NOT NULL,
        UNIQUE (chunk_id, sig)
      );
      CREATE INDEX signatures_sig ON signatures(sig);
    `,
    backfill: backfillV3,
  },
  {
    // Lineage: the message uuids of each transcript document (indexer/lineage.ts).
    version: 4,
    up: `
      CREATE TABLE messages (
        uuid TEXT NOT NULL,
        document_id INTEGER NOT NULL REFERENCES documents(id),
        session_id TEXT NOT NULL,
        held INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY (uuid, document_id)
      ) WITHOUT ROWID;
      CREATE INDEX messages_session ON messages(session_id);
      CREATE INDEX messages_document ON messages(document_id);
    `,
    backfill: backfillV4,
  },
  {
    // Redaction at index time: existing text is unscrubbed until the next index run.
    version: 5,
    up: ``,
    backfill: backfillV5,
  },
];

export const SCHEMA_VERSION = MIGRATIONS[MIGRATIONS.length - 1].version;

/** The version recorded in the file; 0 for an empty/uninitialised database. */
export function schemaVersion(db: Database.Database): number {
  const hasMeta = db.prepare(`SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'`).get();
  if (!hasMeta) return 0;
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema_version'`).get() as { value: string } | undefined;
  return row ? Number(row.value) : 0;
}

/** Bring the database up to SCHEMA_VERSION, one transaction per migration. Returns the version. */
export function migrate(db: Database.Database, migrations: readonly Migration[] = MIGRATIONS): number {
  const target = migrations[migrations.length - 1].version;
  const current = schemaVersion(db);
  if (current > target) {
    throw new StoreError(
      'SCHEMA_TOO_NEW',
      `store schema version ${current} is newer than this active-brain supports (${target}): upgrade active-brain`,
    );
  }
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.up);
      m.backfill?.(db);
      db.prepare(`INSERT INTO meta (key, value) VALUES ('schema_version', ?)
                  ON CONFLICT (key) DO UPDATE SET value = excluded.value`).run(String(m.version));
    })();
  }
  return target;
}

/** Reader-side check: the file must be exactly at SCHEMA_VERSION (a reader cannot migrate). */
export function checkSchema(db: Database.Database, path: string, expected: number = SCHEMA_VERSION): number {
  const v = schemaVersion(db);
  if (v === 0) {
    throw new StoreError('STORE_EMPTY', `the knowledge store at ${path} is not initialised: run \`active-brain index add <path> --region <name>\``);
  }
  if (v > expected) {
    throw new StoreError('SCHEMA_TOO_NEW', `store schema version ${v} is newer than this active-brain supports (${expected}): upgrade active-brain`);
  }
  if (v < expected) {
    throw new StoreError('SCHEMA_OLD', `store schema version ${v} is older than ${expected}: run \`active-brain index\` once to migrate it`);
  }
  return v;
}

export function getMeta(db: Database.Database, key: string): string | null {
  const row = db.prepare(`SELECT value FROM meta WHERE key = ?`).get(key) as { value: string } | undefined;
  return row ? row.value : null;
}
