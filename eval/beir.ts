/**
 * BEIR-format loader (pure parsing): corpus.jsonl (`{_id, title, text}`), queries.jsonl
 * (`{_id, text}`) and qrels TSV (`query-id corpus-id score`, one header line) → documents,
 * and the queries that have at least one judged-relevant document with their graded qrels.
 * Used by cli/commands/eval/beir-cmd.ts. Bad lines are counted and skipped, never fatal; a file with no
 * usable line at all is an error that says what was expected.
 */
import type { EvalQuery } from './arms.js';

export interface BeirDoc {
  id: string;
  title: string;
  text: string;
}

export interface BeirData {
  docs: BeirDoc[];
  queries: EvalQuery[];
  /** Lines skipped per file (malformed JSON, missing fields, bad qrels rows). */
  skipped: { corpus: number; queries: number; qrels: number };
  /** Queries in queries.jsonl without any relevant judged document (not scored). */
  unjudged: number;
}

function lines(text: string): string[] {
  return text.split(/\r?\n/).filter((l) => l.trim() !== '');
}

function idOf(v: unknown): string | null {
  if (typeof v === 'string' && v !== '') return v;
  if (typeof v === 'number' && Number.isFinite(v)) return String(v);
  return null;
}

/** Parse corpus.jsonl text. */
export function parseCorpus(text: string): { docs: BeirDoc[]; skipped: number } {
  const docs: BeirDoc[] = [];
  const seen = new Set<string>();
  let skipped = 0;
  for (const line of lines(text)) {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      const id = idOf(o._id);
      const body = typeof o.text === 'string' ? o.text : '';
      const title = typeof o.title === 'string' ? o.title : '';
      if (id === null || seen.has(id) || (body.trim() === '' && title.trim() === '')) {
        skipped++;
        continue;
      }
      seen.add(id);
      docs.push({ id, title, text: body });
    } catch {
      skipped++;
    }
  }
  return { docs, skipped };
}

/** Parse queries.jsonl text → id → query text. */
export function parseQueries(text: string): { queries: Map<string, string>; skipped: number } {
  const queries = new Map<string, string>();
  let skipped = 0;
  for (const line of lines(text)) {
    try {
      const o = JSON.parse(line) as Record<string, unknown>;
      const id = idOf(o._id);
      if (id === null || typeof o.text !== 'string' || o.text.trim() === '') {
        skipped++;
        continue;
      }
      queries.set(id, o.text);
    } catch {
      skipped++;
    }
  }
  return { queries, skipped };
}

/** Parse a qrels TSV (header `query-id corpus-id score`) → query id → (doc id → grade). */
export function parseQrels(text: string): { qrels: Map<string, Map<string, number>>; skipped: number } {
  const qrels = new Map<string, Map<string, number>>();
  let skipped = 0;
  lines(text).forEach((line, i) => {
    const cols = line.split('\t').map((c) => c.trim());
    if (i === 0 && !/^-?\d+(\.\d+)?$/.test(cols[2] ?? '')) return; // the header row
    const [q, d, s] = cols;
    const grade = Number(s);
    if (cols.length < 3 || !q || !d || !Number.isFinite(grade)) {
      skipped++;
      return;
    }
    let m = qrels.get(q);
    if (!m) qrels.set(q, (m = new Map()));
    m.set(d, grade);
  });
  return { qrels, skipped };
}

/** Combine the three files' texts: keep queries with text and at least one relevant document in the corpus. */
export function parseBeir(corpusText: string, queriesText: string, qrelsText: string): BeirData {
  const c = parseCorpus(corpusText);
  const q = parseQueries(queriesText);
  const r = parseQrels(qrelsText);
  if (c.docs.length === 0) throw new Error('the corpus has no usable documents (expected JSON lines {"_id","title","text"})');
  if (q.queries.size === 0) throw new Error('the queries file has no usable queries (expected JSON lines {"_id","text"})');
  if (r.qrels.size === 0) throw new Error('the qrels file has no usable rows (expected TSV "query-id<TAB>corpus-id<TAB>score" with a header)');
  const inCorpus = new Set(c.docs.map((d) => d.id));
  const queries: EvalQuery[] = [];
  let unjudged = 0;
  for (const [id, text] of q.queries) {
    const judged = r.qrels.get(id);
    const rel = new Map<string, number>();
    if (judged) for (const [d, g] of judged) if (inCorpus.has(d)) rel.set(d, g);
    if (![...rel.values()].some((g) => g > 0)) {
      unjudged++;
      continue;
    }
    queries.push({ id, text, qrels: rel });
  }
  return { docs: c.docs, queries, skipped: { corpus: c.skipped, queries: q.skipped, qrels: r.skipped }, unjudged };
}

/** Chunk text of a BEIR document: title and body. */
export function beirDocText(d: BeirDoc): string {
  return d.title ? `${d.title}\n${d.text}` : d.text;
}
