/**
 * Keyword search on the team store (PostgreSQL), ranked like the SQLite store's BM25: each
 * query word weighs by its inverse document frequency among the rows the reader may see, and
 * words too common to tell chunks apart are left out of the match (store/term-stats.ts
 * selectQueryTerms, the rule the SQLite reader uses).
 *
 *   query ─▶ content words (store/fts-query.ts) ─▶ their lexemes (the server's `english`
 *   configuration, cached) ─▶ document frequency of each lexeme, counted through the reader
 *   role (row-level security applies: a count never includes a row the reader cannot see, so
 *   it cannot tell which words private sources hold) — from a sample for frequent words, exact
 *   for rare ones and in small stores — cached until the store's generation moves ─▶ the rarest lexemes, ≤ MAX_OR_TERMS
 *   ─▶ one statement: rows matching any of them, score = Σ idf(t) · ts_rank(fts, t) (title,
 *   heading and text weighted as BM25_WEIGHTS, length normalization 1), top k.
 *
 * Why: plain ts_rank has no IDF (a common word counts as much as a rare one) and ranks every
 * row matching any word before LIMIT — measured at 100k chunks in bench/pg-store.bench.ts and
 * against SQLite on LoCoMo/BEIR (docs/STORE.md). Data in: the reader's connection. Out: Hits.
 */
import type { Hit } from './types.js';
import { queryTokens } from './fts-query.js';
import { BM25_WEIGHTS } from './reader.js';
import { selectQueryTerms } from './term-stats.js';
import { PG_TS_CONFIG } from './pg-schema.js';
import type { PgSyncConnection } from './pg-sync.js';

/** ts_rank weights {D, C, B, A}: body text, -, heading (B), title (A), scaled from BM25_WEIGHTS. */
const tsWeights = () => `{${BM25_WEIGHTS.text / BM25_WEIGHTS.title},${BM25_WEIGHTS.text / BM25_WEIGHTS.title},${BM25_WEIGHTS.heading / BM25_WEIGHTS.title},1}`;
/** ts_rank normalization 1: divide by 1 + log(document length) (long chunks do not win by size). */
const TS_NORMALIZATION = 1;
/** The token → lexemes cache is cleared past this many entries. */
const LEXEME_CACHE_MAX = 50_000;
/** Document frequencies in a store of more than SAMPLE_ROWS chunks come first from a sample of
 *  about that many rows (TABLESAMPLE SYSTEM, fixed seed: one scan for every word of the query);
 *  a word seen fewer than MIN_SAMPLE_HITS times there is rare, and is counted exactly through
 *  the GIN index (cheap for a rare word), up to EXACT_DF_CAP. Counting a common word exactly cost
 *  more than the search itself (a GIN bitmap of every match); the sample's error (±~2 % of the
 *  table at 2,000 rows) barely moves a common word's IDF or which side of the 30 % pruning line
 *  it falls. Smaller stores are counted exactly. */
export const SAMPLE_ROWS = 2_000;
export const MIN_SAMPLE_HITS = 5;
export const EXACT_DF_CAP = 1_000;

/** A lexeme as a tsquery literal (quotes doubled: no operator can get in). */
const literal = (lex: string) => `'${lex.replace(/'/g, "''")}'`;

/** BM25's IDF, ln(1 + (N − n + 0.5) / (n + 0.5)): always positive, as in FTS5's bm25(). */
export function idf(total: number, df: number): number {
  return Math.log(1 + (total - df + 0.5) / (df + 0.5));
}

export class PgKeywordSearch {
  private readonly lexemes = new Map<string, string[]>();
  private readonly df = new Map<string, number>();
  private total: number | null = null;

  constructor(private readonly db: PgSyncConnection) {}

  /** The store changed (another generation): counts are stale. */
  invalidate(): void {
    this.df.clear();
    this.total = null;
  }

  private lexemesOf(tokens: string[]): string[][] {
    const missing = tokens.filter((t) => !this.lexemes.has(t));
    if (missing.length) {
      if (this.lexemes.size + missing.length > LEXEME_CACHE_MAX) this.lexemes.clear();
      const rows = this.db.query<{ t: string; l: string[] }>(
        `SELECT t, tsvector_to_array(to_tsvector('${PG_TS_CONFIG}', t)) AS l FROM unnest($1::text[]) AS t`,
        [missing],
      );
      for (const r of rows) this.lexemes.set(r.t, r.l ?? []);
    }
    return tokens.map((t) => this.lexemes.get(t) ?? []);
  }

  private chunkCount(): number {
    this.total ??= Number(this.db.one<{ n: string }>(`SELECT count(*) AS n FROM chunks`)?.n ?? 0);
    return this.total;
  }

  /** Exact document frequencies (up to `cap`), one GIN-indexed subquery per word: with the word
   *  as a parameter the planner sees it (taken from unnest() inside the subquery, it scanned). */
  private exactCounts(words: string[], cap: number | null): number[] {
    const limit = cap === null ? '' : ' LIMIT $1';
    const off = cap === null ? 1 : 2;
    const counts = words.map((_, i) => `(SELECT count(*) FROM (SELECT 1 FROM chunks c WHERE c.fts @@ $${i + off}::tsquery${limit}) x) AS n${i}`).join(', ');
    const row = this.db.one<Record<string, string>>(`SELECT ${counts}`, [...(cap === null ? [] : [cap]), ...words.map(literal)])!;
    return words.map((_, i) => Number(row[`n${i}`]));
  }

  /** Document frequency of each lexeme (see SAMPLE_ROWS). */
  private frequencies(lexemes: string[], total: number): number[] {
    const missing = [...new Set(lexemes.filter((l) => !this.df.has(l)))];
    if (missing.length && total <= SAMPLE_ROWS) {
      this.exactCounts(missing, null).forEach((n, i) => this.df.set(missing[i], n));
    } else if (missing.length) {
      const pct = (100 * SAMPLE_ROWS) / total;
      const hits = missing.map((_, i) => `count(*) FILTER (WHERE c.fts @@ $${i + 2}::tsquery) AS n${i}`).join(', ');
      const row = this.db.one<Record<string, string>>(`SELECT count(*) AS seen, ${hits} FROM chunks c TABLESAMPLE SYSTEM ($1) REPEATABLE (0)`, [pct, ...missing.map(literal)])!;
      const seen = Math.max(1, Number(row.seen));
      const rare: string[] = [];
      missing.forEach((l, i) => {
        const n = Number(row[`n${i}`]);
        if (n >= MIN_SAMPLE_HITS) this.df.set(l, Math.round((n / seen) * total));
        else rare.push(l);
      });
      if (rare.length) this.exactCounts(rare, EXACT_DF_CAP).forEach((n, i) => this.df.set(rare[i], n));
    }
    return lexemes.map((l) => this.df.get(l) ?? 0);
  }

  search(query: string, k: number, regionIds: number[] | null, exclude: number[]): Hit[] {
    const tokens = queryTokens(query);
    if (!tokens.length || k <= 0) return [];
    // One lexeme per token stands for it (a token the configuration drops has none).
    const lex = [...new Set(this.lexemesOf(tokens).map((l) => l[0]).filter((l): l is string => !!l))];
    if (!lex.length) return [];
    const total = this.chunkCount();
    if (total === 0) return [];
    const df = this.frequencies(lex, total);
    const chosen = selectQueryTerms(lex, df, total).tokens;
    if (!chosen.length) return [];
    const dfOf = new Map(lex.map((l, i) => [l, df[i]]));
    const weights = chosen.map((l) => idf(total, dfOf.get(l)!));
    const score = chosen.map((_, i) => `$${6 + i}::float8 * ts_rank($1::float4[], c.fts, $${6 + chosen.length + i}::tsquery, ${TS_NORMALIZATION})`).join(' + ');
    const rows = this.db.query<{ id: number; s: number }>(
      `SELECT c.id, ${score} AS s
       FROM chunks c
       WHERE c.fts @@ $2::tsquery AND ($3::int[] IS NULL OR c.region_id = ANY($3::int[])) AND NOT (c.id = ANY($4::int[]))
       ORDER BY s DESC, c.id LIMIT $5`,
      [tsWeights(), chosen.map(literal).join(' | '), regionIds, exclude, k, ...weights, ...chosen.map(literal)],
    );
    return rows.map((r, i) => ({ chunkId: r.id, score: r.s, rank: i + 1 }));
  }
}
