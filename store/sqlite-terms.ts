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
/** Column weights in FTS5's column order (title, heading, text). */
const WEIGHTS = [BM25_WEIGHTS.title, BM25_WEIGHTS.heading, BM25_WEIGHTS.text] as const;
const COLUMNS = WEIGHTS.length;

export class SqliteChunkTerms {
  private readonly stemmer = new FtsStemmer(CORPUS_STEM_CACHE_MAX);
  /** Per-chunk term frequencies (reused: one Map for every chunk). */
  private readonly scratch = new Map<string, number>();

  /** The terms of many chunks (title, heading, text each), in order. */
  termsOf(rows: ReadonlyArray<readonly [title: string, heading: string, text: string]>): ParsedTsvector[] {
    // Each word is looked up once (hashing a fresh word string is most of the cost): its terms
    // when cached, else the word itself, stemmed with the others not seen before in batches
    // (one FTS5 round per batch) and looked up again.
    const unseen = new Set<string>();
    const found: Array<Array<Array<readonly string[] | string>>> = new Array(rows.length);
    for (let r = 0; r < rows.length; r++) {
      const cols = rows[r];
      const out: Array<Array<readonly string[] | string>> = [[], [], []];
      for (let c = 0; c < COLUMNS; c++) {
        const ws = cols[c] ? cols[c].toLowerCase().match(WORD) ?? [] : [];
        const col: Array<readonly string[] | string> = new Array(ws.length);
        for (let i = 0; i < ws.length; i++) {
          const t = this.stemmer.cached(ws[i]);
          if (t === undefined) unseen.add(ws[i]);
          col[i] = t ?? ws[i];
        }
        out[c] = col;
      }
      found[r] = out;
    }
    const list = [...unseen];
    for (let i = 0; i < list.length; i += STEM_BATCH) this.stemmer.termsOf(list.slice(i, i + STEM_BATCH));
    const out: ParsedTsvector[] = new Array(rows.length);
    const tf = this.scratch;
    for (let r = 0; r < rows.length; r++) {
      tf.clear();
      let length = 0;
      for (let c = 0; c < COLUMNS; c++) {
        const weight = WEIGHTS[c];
        for (const f of found[r][c]) {
          const terms = typeof f === 'string' ? this.stemmer.cached(f) ?? this.stemmer.termsOf([f])[0] : f;
          for (let t = 0; t < terms.length; t++) tf.set(terms[t], (tf.get(terms[t]) ?? 0) + weight);
          length += terms.length;
        }
      }
      const lexemes = new Array<{ lexeme: string; tf: number }>(tf.size);
      let i = 0;
      for (const [lexeme, f] of tf) lexemes[i++] = { lexeme, tf: f };
      out[r] = { lexemes, length };
    }
    return out;
  }

  /** The terms of query tokens (each usually one). */
  queryTerms(tokens: readonly string[]): string[][] {
    return this.stemmer.termsOf(tokens);
  }

  close(): void {
    this.stemmer.close();
  }
}
