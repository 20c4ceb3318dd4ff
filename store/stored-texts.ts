/**
 * Every piece of text the store keeps, field by field, for the secret scan
 * (store/secret-scan.ts: `active-brain store scan`, doctor, the indexer's check after a
 * re-scrub): document titles, chunk headings, texts and aliases, episode fields (action, fix,
 * note, head, words) and quoted-signature fields. The same tables and columns exist in the
 * SQLite file (store/schema.ts) and the team store (store/pg-schema.ts); read in id pages so
 * a large store is never held in memory at once.
 */
import type Database from 'better-sqlite3';
import type { PgSyncConnection } from './pg-sync.js';

/** One stored text: where it is (a chunk handle, or `doc:<path>` for a title) and which field. */
export interface StoredText {
  handle: string;
  field: string;
  text: string;
}

/** Rows read per query. */
const PAGE = 2000;

/** [table alias SQL, fields]: each query returns id, handle and the fields as columns. */
const QUERIES: ReadonlyArray<{ from: string; fields: readonly string[]; id: string; handle: string }> = [
  { from: 'documents d', fields: ['title'], id: 'd.id', handle: `'doc:' || d.path` },
  { from: 'chunks c', fields: ['heading', 'text', 'aliases'], id: 'c.id', handle: 'c.handle' },
  { from: 'episodes e JOIN chunks c ON c.id = e.chunk_id', fields: ['action', 'fix', 'note', 'head', 'words'], id: 'e.chunk_id', handle: 'c.handle' },
  { from: 'signatures s JOIN chunks c ON c.id = s.chunk_id', fields: ['head', 'words', 'fix'], id: 's.rowid', handle: 'c.handle' },
];

function* rowsToTexts(rows: Array<Record<string, unknown>>, fields: readonly string[], prefix: string): Generator<StoredText> {
  for (const r of rows) {
    for (const f of fields) {
      const t = r[f];
      if (typeof t === 'string' && t) yield { handle: String(r.handle), field: `${prefix}.${f}`, text: t };
    }
  }
}

const PREFIX = ['document', 'chunk', 'episode', 'signature'] as const;

export function* sqliteStoredTexts(db: Database.Database): Generator<StoredText> {
  for (const [i, q] of QUERIES.entries()) {
    const cols = q.fields.map((f) => `${q.from.split(' ')[1]}.${f} AS ${f}`).join(', ');
    const stmt = db.prepare(`SELECT ${q.id} AS k, ${q.handle} AS handle, ${cols} FROM ${q.from} WHERE ${q.id} > ? ORDER BY ${q.id} LIMIT ${PAGE}`);
    let after = -1;
    for (;;) {
      const rows = stmt.all(after) as Array<Record<string, unknown>>;
      if (rows.length === 0) break;
      yield* rowsToTexts(rows, q.fields, PREFIX[i]);
      after = Number(rows[rows.length - 1].k);
    }
  }
}

/** The team store's rows the connected role may see (a writer sees all; a reader its audiences). */
export function* pgStoredTexts(db: PgSyncConnection): Generator<StoredText> {
  for (const [i, q] of QUERIES.entries()) {
    // signatures have no id column in PostgreSQL: page by (chunk_id, sig) through ctid-free ordering.
    const id = q.id === 's.rowid' ? 's.chunk_id' : q.id;
    const cols = q.fields.map((f) => `${q.from.split(' ')[1]}.${f} AS ${f}`).join(', ');
    if (id === 's.chunk_id') {
      let after = -1;
      for (;;) {
        const ids = db.query<{ k: number }>(`SELECT DISTINCT s.chunk_id AS k FROM signatures s WHERE s.chunk_id > $1 ORDER BY k LIMIT ${PAGE}`, [after]);
        if (ids.length === 0) break;
        const last = Number(ids[ids.length - 1].k);
        const rows = db.query(`SELECT c.handle AS handle, ${cols} FROM ${q.from} WHERE s.chunk_id > $1 AND s.chunk_id <= $2`, [after, last]);
        yield* rowsToTexts(rows, q.fields, PREFIX[i]);
        after = last;
      }
      continue;
    }
    let after = -1;
    for (;;) {
      const rows = db.query(`SELECT ${id} AS k, ${q.handle} AS handle, ${cols} FROM ${q.from} WHERE ${id} > $1 ORDER BY ${id} LIMIT ${PAGE}`, [after]);
      if (rows.length === 0) break;
      yield* rowsToTexts(rows, q.fields, PREFIX[i]);
      after = Number(rows[rows.length - 1].k);
    }
  }
}
