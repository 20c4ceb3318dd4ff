/**
 * The several small queries of one candidate build, and running them against the store.
 *
 * Input: the OfferRequest (newest exchange, its vector, the session centroid) and the
 * strings retrieval/extract.ts pulled from the turn. Output: named hit lists, one per query
 * and arm, for retrieval/fuse.ts:
 *   keyword:exchange      BM25 over the newest exchange's text (prompt, errors, reply)
 *   vector:exchange       cosine to the exchange vector
 *   vector:centroid       cosine to the session centroid (vector only)
 *   keyword:s<i>          BM25 over each extracted string
 *   name:s<i>             exact-name arm (aliases / titles / file-name suffixes) for it,
 *                         scored with honest fixed confidences (NAME_CONFIDENCE)
 * Every list holds at most k hits. All vector queries go to the store in ONE vectorSearch
 * call (one pass over the vectors).
 * planQueries is pure; runQueries only reads the store.
 */
import type { Exchange } from '../shared/types.js';
import type { Hit, SearchFilter, StoreReader } from '../store/types.js';
import type { Extracted, ExtractKind } from './extract.js';
// Pure tokenizer shared with the store's FTS query builder (no SQLite is loaded by it).
import { queryTokens } from '../store/fts-query.js';

export type QueryArm = 'keyword' | 'vector' | 'name';

/** Fixed confidence of an exact-name match, by how it matched. */
export const NAME_CONFIDENCE = { alias: 0.9, title: 0.8, suffix: 0.6 } as const;

/** Characters of the exchange scanned for its keyword query terms. */
export const EXCHANGE_QUERY_CHARS = 4000;
/**
 * Terms in the exchange's keyword query. An FTS5 OR query costs the sum of its terms'
 * posting lists (measured: ~2 ms per very common term per 10k chunks), so the exchange
 * query keeps only a few telling terms (bench/offers.bench.ts).
 */
export const EXCHANGE_QUERY_TERMS = 8;
/** Prompt and error terms rank as if this many characters longer than reply terms. */
const PROMPT_TERM_BONUS = 3;
/** A vector with a smaller norm than this is "no vector" (e.g. an empty centroid). */
const MIN_NORM = 1e-6;

export interface PlannedText {
  id: string;
  text: string;
  /** For extracted strings: what kind of string it is (retrieval/extract.ts) … */
  kind?: ExtractKind;
  /** … and the string itself (the query text may be fewer words of it). */
  original?: string;
}

export interface PlannedVector {
  id: string;
  vector: Float32Array;
}

export interface QueryPlan {
  keyword: PlannedText[];
  vector: PlannedVector[];
  name: PlannedText[];
}

export interface NamedList {
  /** `<arm>:<query id>`, unique per build. */
  id: string;
  arm: QueryArm;
  hits: Hit[];
  /** For extracted-string queries: the string's kind. */
  kind?: ExtractKind;
}

export interface QueryResults {
  lists: NamedList[];
  /** Queries that threw (counted, never fatal). */
  failed: number;
  /** Queries run (vector queries count one each). */
  queries: number;
  /** String queries skipped because the build's query budget was spent. */
  skipped: number;
}

/** Terms in the keyword query of one extracted string (e.g. an error message's words). */
export const STRING_QUERY_TERMS = 3;
/**
 * Words shorter than this are left out of a string's keyword query when it has longer
 * ones: in a message like `TypeError: x is not a function of ti` the short words are the
 * frequent ones, and each very frequent word costs a full posting-list scan.
 */
export const STRING_TERM_MIN_CHARS = 4;

/**
 * At most `max` content words of some texts, longest first (length stands in for rarity:
 * long words are the rarer ones, and common words cost the most in an OR query), earlier
 * texts ranking as if `bonus` characters longer; ties keep their order of appearance; the
 * chosen words are returned in their original order. Numbers alone are skipped.
 */
export function topTerms(texts: Array<{ text: string; bonus: number }>, max: number, minChars = 1): string {
  const seen = new Set<string>();
  let terms: Array<{ t: string; score: number; order: number }> = [];
  for (const { text, bonus } of texts) {
    for (const t of queryTokens(text)) {
      if (seen.has(t) || /^\d+$/.test(t)) continue;
      seen.add(t);
      terms.push({ t, score: t.length + bonus, order: terms.length });
    }
  }
  // Short words are the most frequent ones: drop them when longer ones exist.
  const long = terms.filter((x) => x.t.length >= minChars);
  if (long.length > 0) terms = long;
  else if (terms.length > 1) terms = [terms.reduce((a, b) => (b.t.length > a.t.length ? b : a))];
  return terms
    .sort((a, b) => b.score - a.score || a.order - b.order)
    .slice(0, max)
    .sort((a, b) => a.order - b.order)
    .map((x) => x.t)
    .join(' ');
}

/** The exchange's keyword query: prompt and error words ahead of reply words (topTerms). */
export function exchangeQueryText(ex: Pick<Exchange, 'user' | 'assistant' | 'toolErrors'>, maxTerms = EXCHANGE_QUERY_TERMS): string {
  const head = [String(ex.user ?? ''), ...(ex.toolErrors ?? []).slice(0, 4).map(String)].join('\n').slice(0, EXCHANGE_QUERY_CHARS);
  const tail = String(ex.assistant ?? '').slice(0, EXCHANGE_QUERY_CHARS);
  return topTerms([{ text: head, bonus: PROMPT_TERM_BONUS }, { text: tail, bonus: 0 }], maxTerms);
}

function usable(v: Float32Array | null | undefined, dim: number): v is Float32Array {
  if (!v || v.length !== dim || v.length === 0) return false;
  let n = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (!Number.isFinite(x)) return false;
    n += x * x;
  }
  return Math.sqrt(n) > MIN_NORM;
}

/**
 * Keyword text of an extracted string: at most STRING_QUERY_TERMS of its words (topTerms);
 * a path searches by its file stem only (directory names and extensions such as `src`,
 * `ts` match thousands of chunks and cost the most; the exact-name arm matches the whole
 * path). Empty when nothing is left (e.g. a number).
 */
export function keywordTextOf(s: Extracted): string {
  if (s.kind !== 'path') return topTerms([{ text: s.text, bonus: 0 }], STRING_QUERY_TERMS, STRING_TERM_MIN_CHARS);
  const base = s.text.split('/').pop() ?? '';
  const dot = base.lastIndexOf('.');
  return topTerms([{ text: dot > 0 ? base.slice(0, dot) : base, bonus: 0 }], STRING_QUERY_TERMS, STRING_TERM_MIN_CHARS);
}

/** Decide the queries of one build. Pure. */
export function planQueries(
  input: { exchange: Pick<Exchange, 'user' | 'assistant' | 'toolErrors'>; exchangeVector: Float32Array; centroid: Float32Array; dim: number },
  strings: readonly Extracted[],
): QueryPlan {
  const plan: QueryPlan = { keyword: [], vector: [], name: [] };
  const text = exchangeQueryText(input.exchange);
  if (text.trim()) plan.keyword.push({ id: 'exchange', text });
  if (usable(input.exchangeVector, input.dim)) plan.vector.push({ id: 'exchange', vector: input.exchangeVector });
  if (usable(input.centroid, input.dim)) plan.vector.push({ id: 'centroid', vector: input.centroid });
  // Two strings with the same keyword text (e.g. two paths to one file stem) run once.
  const seenKeyword = new Set<string>([text.toLowerCase()]);
  const seenName = new Set<string>();
  strings.forEach((s, i) => {
    const kw = keywordTextOf(s);
    if (kw && !seenKeyword.has(kw.toLowerCase())) {
      seenKeyword.add(kw.toLowerCase());
      plan.keyword.push({ id: `s${i}`, text: kw, kind: s.kind, original: s.text });
    }
    if (!seenName.has(s.text)) {
      seenName.add(s.text);
      plan.name.push({ id: `s${i}`, text: s.text, kind: s.kind });
    }
  });
  return plan;
}

/** Name hits → a list scored by fixed confidence (best first), re-ranked 1..n. */
export function nameHitsToList(hits: Array<Hit & { match: keyof typeof NAME_CONFIDENCE }>, k: number): Hit[] {
  const best = new Map<number, number>();
  for (const h of hits) {
    const c = NAME_CONFIDENCE[h.match] ?? 0;
    if (c > (best.get(h.chunkId) ?? 0)) best.set(h.chunkId, c);
  }
  return [...best.entries()]
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, k)
    .map(([chunkId, score], i) => ({ chunkId, score, rank: i + 1 }));
}

/**
 * Run a plan against the store: the vector call first, then the exchange's keyword query,
 * then each extracted string's keyword and name queries in priority order (error strings
 * first). Once `budgetMs` has passed, the remaining string queries are skipped (counted),
 * which bounds the tail of a build whose words are all common. A failing query yields no
 * list (counted); never throws.
 */
export function runQueries(store: StoreReader, plan: QueryPlan, k: number, filter: SearchFilter, budgetMs = Infinity): QueryResults {
  const out: QueryResults = { lists: [], failed: 0, queries: 0, skipped: 0 };
  if (plan.vector.length > 0) {
    out.queries += plan.vector.length;
    try {
      const lists = store.vectorSearch(plan.vector.map((v) => v.vector), k, filter);
      plan.vector.forEach((v, i) => out.lists.push({ id: `vector:${v.id}`, arm: 'vector', hits: (lists[i] ?? []).slice(0, k) }));
    } catch {
      out.failed += plan.vector.length;
    }
  }
  const keyword = (q: PlannedText) => {
    out.queries++;
    try {
      out.lists.push({ id: `keyword:${q.id}`, arm: 'keyword', hits: store.keywordSearch(q.text, k, filter).slice(0, k), kind: q.kind });
    } catch {
      out.failed++;
    }
  };
  const name = (q: PlannedText) => {
    out.queries++;
    try {
      out.lists.push({ id: `name:${q.id}`, arm: 'name', hits: nameHitsToList(store.nameSearch(q.text, k, filter), k), kind: q.kind });
    } catch {
      out.failed++;
    }
  };
  const exchange = plan.keyword.find((q) => q.id === 'exchange');
  if (exchange) keyword(exchange);
  // Strings in plan order (extract.ts puts error strings first): keyword, then name.
  const ids = [...new Set([...plan.keyword, ...plan.name].map((q) => q.id).filter((id) => id !== 'exchange'))].sort((a, b) => Number(a.slice(1)) - Number(b.slice(1)));
  // The budget bounds the strings' tail and counts from here: the vector and exchange queries
  // before it always run, and so does the first string (the error's, when there is one), so a
  // loaded machine loses the least likely strings, never the error itself.
  const t0 = performance.now();
  for (const [n, id] of ids.entries()) {
    const qs = [plan.keyword.find((q) => q.id === id), plan.name.find((q) => q.id === id)];
    for (const [i, q] of qs.entries()) {
      if (!q) continue;
      if (n > 0 && performance.now() - t0 > budgetMs) {
        out.skipped++;
        continue;
      }
      if (i === 0) keyword(q);
      else name(q);
    }
  }
  return out;
}
