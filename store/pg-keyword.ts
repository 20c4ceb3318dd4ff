/**
 * Keyword search on the team store (PostgreSQL), ranked as the SQLite store ranks it: FTS5's
 * BM25 over the chunks the reader may see, scored in the reader's memory (store/keyword-index.ts,
 * filled by store/pg-reader.ts from the rows row-level security lets it read — so document
 * frequencies never include a row the reader cannot see and cannot tell which words private
 * sources hold), with the SQLite reader's pruning of words too common to tell chunks apart
 * (store/term-stats.ts selectQueryTerms).
 *
 *   query ─▶ content words (store/fts-query.ts) ─▶ their lexemes (the server's `english`
 *   configuration, one round trip for words not seen before, cached: this module) ─▶ document
 *   frequencies from the index ─▶ the rarest lexemes, ≤ MAX_OR_TERMS ─▶ BM25 top k in the index
 *   (the reader core's arm, store/local-indexes.ts memoryKeywordSearch, as on SQLite).
 *
 * Why in memory: on the server every row matching any kept word is ranked before LIMIT
 * (PostgreSQL has no top-k shortcut for ts_rank): 125 ms p50 at 100k chunks against a 20 ms
 * target for the whole hybrid search (docs/STORE.md). Data in: the reader's connection (for
 * lexemes) and its KeywordIndex. Out: Hits.
 */
import type { Hit } from './types.js';
import { memoryKeywordSearch } from './local-indexes.js';
import { PG_TS_CONFIG } from './pg-schema.js';
import type { PgSyncConnection } from './pg-sync.js';
import type { KeywordFilter, KeywordIndex } from './keyword-index.js';

/** The token → lexemes cache is cleared past this many entries. */
const LEXEME_CACHE_MAX = 50_000;

export class PgKeywordSearch {
  private readonly lexemes = new Map<string, string[]>();

  constructor(private readonly db: PgSyncConnection) {}

  /** The server's lexemes of each token (usually one; none for a word the configuration drops). */
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

  search(query: string, k: number, index: KeywordIndex, filter: KeywordFilter): Hit[] {
    return memoryKeywordSearch(query, k, index, filter, (tokens) => this.lexemesOf(tokens));
  }
}
