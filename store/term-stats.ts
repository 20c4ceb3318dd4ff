/**
 * Keyword-query pruning for the reader's FTS5 arm. An FTS5 OR query walks the whole doclist of
 * every term, and BM25 ranks all matches before LIMIT applies (no top-k shortcut), so a query
 * word found in most chunks costs a scan of most of the index while adding almost nothing to
 * the ranking (FTS5's IDF, ln((N − n + 0.5)/(n + 0.5)), is ≤ 0.85 above 30% of the corpus and
 * clamped to ~0 from 50%). This module:
 *
 *   - maps query tokens to the index's own terms (porter stemming and diacritics exactly as
 *     FTS5 does them: a private in-memory FTS5 table with the same tokenizer, read back through
 *     fts5vocab 'instance'), cached per token;
 *   - reads each term's document frequency from the store's fts5vocab 'row' table
 *     (chunks_fts_vocab, created by schema migration 2), cached until the store changes;
 *   - chooses the terms to search (selectQueryTerms, pure): drop terms that match nothing,
 *     drop terms above MAX_DF_SHARE of the chunks, keep the rarest MAX_OR_TERMS — and when every
 *     term is common, fall back to the (capped) full query, so a query of common words only
 *     still gets answers.
 *
 * Data in: the read-only store connection (fts5vocab, chunk count). Data out: the token list
 * store/fts-query.ts turns into the MATCH expression. Writes nothing to the store.
 */
import Database from 'better-sqlite3';
import { FTS_TOKENIZER, FTS_VOCAB_TABLE } from './schema.js';

/** Terms found in more than this share of chunks are dropped from OR queries (when a rarer term remains). */
export const MAX_DF_SHARE = 0.3;
/** At most this many terms (the rarest) go into one OR query. */
export const MAX_OR_TERMS = 16;
/** Below this many chunks every query is cheap and document frequencies are noisy: no share-based dropping. */
export const PRUNE_MIN_CHUNKS = 2_000;
/** The token → terms and term → frequency caches are cleared when they grow past this many entries. */
const STEM_CACHE_MAX = 50_000;

export interface PruneOptions {
  maxDfShare: number;
  maxTerms: number;
  minChunks: number;
}

export const PRUNE_DEFAULTS: PruneOptions = { maxDfShare: MAX_DF_SHARE, maxTerms: MAX_OR_TERMS, minChunks: PRUNE_MIN_CHUNKS };

export interface TermSelection {
  /** Tokens to OR together (query order kept); empty = nothing in the index can match. */
  tokens: string[];
  /** Tokens dropped as too common. */
  common: string[];
  /** True when every matching token was common and the full (capped) query was kept. */
  fallback: boolean;
}

/**
 * Choose the tokens of one keyword query (pure). `df[i]` is the document frequency of
 * tokens[i] (0 = matches nothing); `total` the number of chunks.
 */
export function selectQueryTerms(tokens: readonly string[], df: readonly number[], total: number, opts: PruneOptions = PRUNE_DEFAULTS): TermSelection {
  const matching: number[] = [];
  for (let i = 0; i < tokens.length; i++) if (df[i] > 0) matching.push(i);
  const limit = total >= opts.minChunks ? opts.maxDfShare * total : Infinity;
  const rare = matching.filter((i) => df[i] <= limit);
  const fallback = rare.length === 0 && matching.length > 0;
  const pool = fallback ? matching : rare;
  const kept = new Set([...pool].sort((a, b) => df[a] - df[b] || a - b).slice(0, Math.max(1, opts.maxTerms)));
  return {
    tokens: matching.filter((i) => kept.has(i)).map((i) => tokens[i]),
    common: fallback ? [] : matching.filter((i) => df[i] > limit).map((i) => tokens[i]),
    fallback,
  };
}

/** Maps words to FTS5 index terms with the store's tokenizer (a private in-memory FTS5 table):
 *  query tokens here, chunk words for the in-memory keyword index (store/sqlite-terms.ts). */
export class FtsStemmer {
  private readonly db = new Database(':memory:');
  private readonly cache = new Map<string, string[]>();
  private readonly clear;
  private readonly insert;
  private readonly terms;

  constructor(private readonly cacheMax: number = STEM_CACHE_MAX) {
    this.db.exec(`CREATE VIRTUAL TABLE t USING fts5(x, tokenize = '${FTS_TOKENIZER}');
                  CREATE VIRTUAL TABLE v USING fts5vocab(t, 'instance');`);
    this.clear = this.db.prepare(`DELETE FROM t`);
    this.insert = this.db.prepare(`INSERT INTO t (rowid, x) VALUES (?, ?)`);
    this.terms = this.db.prepare(`SELECT doc, term FROM v ORDER BY doc, offset`);
  }

  /** The index terms of each token (usually exactly one). */
  termsOf(tokens: readonly string[]): string[][] {
    const missing = [...new Set(tokens.filter((t) => !this.cache.has(t)))];
    if (missing.length > 0) {
      if (this.cache.size + missing.length > this.cacheMax) this.cache.clear();
      const rows = this.db.transaction(() => {
        this.clear.run();
        missing.forEach((t, i) => this.insert.run(i + 1, t));
        return this.terms.all() as Array<{ doc: number; term: string }>;
      })();
      const out = missing.map(() => [] as string[]);
      for (const r of rows) out[r.doc - 1].push(r.term);
      missing.forEach((t, i) => this.cache.set(t, out[i]));
    }
    return tokens.map((t) => this.cache.get(t) ?? []);
  }

  /** The cached terms of one word, or undefined (then ask termsOf). */
  cached(word: string): string[] | undefined {
    return this.cache.get(word);
  }

  close(): void {
    this.db.close();
  }
}

/** Document frequencies of query tokens in one store (cached until invalidate()). */
export class TermStats {
  private readonly stemmer = new FtsStemmer();
  private readonly dfCache = new Map<string, number>();
  private total: number | null = null;
  private readonly dfStmt;
  private readonly totalStmt;

  constructor(db: Database.Database) {
    this.dfStmt = db.prepare(`SELECT doc FROM ${FTS_VOCAB_TABLE} WHERE term = ?`).pluck();
    this.totalStmt = db.prepare(`SELECT count(*) FROM chunks`).pluck();
  }

  /** Call when the store changed (another connection committed). */
  invalidate(): void {
    this.dfCache.clear();
    this.total = null;
  }

  chunkCount(): number {
    if (this.total === null) this.total = this.totalStmt.get() as number;
    return this.total;
  }

  /** Document frequency of each token: of its term, or the smallest of its terms (a phrase is no
   *  more frequent than its rarest word); 0 when it has none in the index. */
  docFrequencies(tokens: readonly string[]): number[] {
    return this.stemmer.termsOf(tokens).map((terms) => {
      if (terms.length === 0) return 0;
      let min = Infinity;
      for (const term of terms) {
        let n = this.dfCache.get(term);
        if (n === undefined) {
          if (this.dfCache.size >= STEM_CACHE_MAX) this.dfCache.clear();
          n = (this.dfStmt.get(term) as number | undefined) ?? 0;
          this.dfCache.set(term, n);
        }
        min = Math.min(min, n);
      }
      return min;
    });
  }

  /** Pick the tokens of one query (see selectQueryTerms). */
  select(tokens: readonly string[], opts: PruneOptions = PRUNE_DEFAULTS): TermSelection {
    if (tokens.length === 0) return { tokens: [], common: [], fallback: false };
    return selectQueryTerms(tokens, this.docFrequencies(tokens), this.chunkCount(), opts);
  }

  close(): void {
    this.stemmer.close();
  }
}
