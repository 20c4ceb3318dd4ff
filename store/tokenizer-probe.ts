/**
 * Repeatable measurement behind the FTS5 tokenizer choice (docs/STORE.md): index a small
 * corpus into a throw-away in-memory FTS5 table with a given tokenizer, run each query
 * (through the store's sanitizer, or with every word kept) and report Recall@5/@10 of the
 * relevant ids. Used by bench/store.bench.ts with LoCoMo turns; not on any product path.
 */
import Database from 'better-sqlite3';
import { toFtsQuery } from './fts-query.js';

export interface ProbeDoc {
  id: string;
  text: string;
}
export interface ProbeQuery {
  text: string;
  relevant: string[];
}
export type QueryMode = 'stopwords-dropped' | 'all-words';

/** Every word, quoted and OR-ed (the "no stop-word removal" baseline). */
function allWordsQuery(text: string): string | null {
  const words = [...new Set(text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [])];
  return words.length ? words.map((w) => `"${w}"`).join(' OR ') : null;
}

/** Sum of Recall@5 and Recall@10 over the queries (divide by the count for the mean). */
export function ftsRecallProbe(docs: ProbeDoc[], queries: ProbeQuery[], tokenizer: string, mode: QueryMode): { r5: number; r10: number } {
  const db = new Database(':memory:');
  try {
    db.exec(`CREATE VIRTUAL TABLE f USING fts5(text, content = '', contentless_delete = 1, tokenize = '${tokenizer.replace(/'/g, "''")}')`);
    const ins = db.prepare(`INSERT INTO f (rowid, text) VALUES (?, ?)`);
    db.transaction(() => docs.forEach((d, i) => ins.run(i + 1, d.text)))();
    const search = db.prepare(`SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10`);
    let r5 = 0;
    let r10 = 0;
    for (const q of queries) {
      const expr = mode === 'stopwords-dropped' ? toFtsQuery(q.text) : allWordsQuery(q.text);
      const got = expr ? (search.all(expr) as Array<{ rowid: number }>).map((r) => docs[r.rowid - 1].id) : [];
      const rel = new Set(q.relevant);
      if (rel.size === 0) continue;
      r5 += got.slice(0, 5).filter((id) => rel.has(id)).length / rel.size;
      r10 += got.filter((id) => rel.has(id)).length / rel.size;
    }
    return { r5, r10 };
  } finally {
    db.close();
  }
}
