/**
 * A chunk's index terms as the SQLite store's FTS5 table holds them, for the in-memory keyword
 * index (store/keyword-index.ts): each word of the chunk's title, heading and text is mapped to
 * FTS5's own terms (porter stemming, case and diacritics folding) by store/term-stats.ts
 * FtsStemmer — a private in-memory FTS5 table with the store's tokenizer, cached per word — so
 * the index ranks with the same terms, weighted frequencies and lengths as bm25() on
 * chunks_fts. Words are split here on the characters FTS5's unicode61 tokenizer never keeps
 * (anything but letters, digits, marks and private-use); a word FTS5 splits further yields
 * all its terms. Data in: column texts. Out: ParsedTsvector (lexemes with weighted tf, length).
 */
import { BM25_WEIGHTS, type ParsedTsvector } from './keyword-index.js';
import { FtsStemmer } from './term-stats.js';

/** Words kept in the stemmer's cache before it is cleared: a corpus's distinct words (lower-cased)
 *  number tens of thousands; this bounds the cache at a few tens of MB. */
export const CORPUS_STEM_CACHE_MAX = 400_000;
/** Words sent to the stemmer's FTS5 table per batch. */
const STEM_BATCH = 2_000;

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

export class SqliteChunkTerms {
  private readonly stemmer = new FtsStemmer(CORPUS_STEM_CACHE_MAX);

  /** The terms of many chunks (title, heading, text each), in order. */
  termsOf(rows: ReadonlyArray<readonly [title: string, heading: string, text: string]>): ParsedTsvector[] {
    // Stem every word not seen before in batches first (one FTS5 round per batch).
    const unseen = new Set<string>();
    const words = rows.map((cols) =>
      cols.map((text) => {
        const ws = (text ?? '').toLowerCase().match(WORD) ?? [];
        for (const w of ws) if (this.stemmer.cached(w) === undefined) unseen.add(w);
        return ws;
      }),
    );
    const list = [...unseen];
    for (let i = 0; i < list.length; i += STEM_BATCH) this.stemmer.termsOf(list.slice(i, i + STEM_BATCH));
    const weights = [BM25_WEIGHTS.title, BM25_WEIGHTS.heading, BM25_WEIGHTS.text];
    return words.map((cols) => {
      const tf = new Map<string, number>();
      let length = 0;
      cols.forEach((ws, c) => {
        for (const w of ws) {
          for (const term of this.stemmer.cached(w) ?? this.stemmer.termsOf([w])[0]) {
            tf.set(term, (tf.get(term) ?? 0) + weights[c]);
            length++;
          }
        }
      });
      return { lexemes: [...tf].map(([lexeme, f]) => ({ lexeme, tf: f })), length };
    });
  }

  /** The terms of query tokens (each usually one). */
  queryTerms(tokens: readonly string[]): string[][] {
    return this.stemmer.termsOf(tokens);
  }

  close(): void {
    this.stemmer.close();
  }
}
