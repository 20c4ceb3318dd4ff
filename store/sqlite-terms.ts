/**
 * A chunk's index terms as the SQLite store's FTS5 table holds them, for the in-memory keyword
 * index (store/keyword-index.ts): each word of the chunk's title, heading and text is mapped to
 * FTS5's own terms (porter stemming, case and diacritics folding) by store/term-stats.ts
 * FtsStemmer — a private in-memory FTS5 table with the store's tokenizer; each word's terms are
 * cached here as term numbers, and a chunk's frequencies summed by number — so
 * the index ranks with the same terms, weighted frequencies and lengths as bm25() on
 * chunks_fts. Words are split here on the characters FTS5's unicode61 tokenizer never keeps
 * (anything but letters, digits, marks and private-use); a word FTS5 splits further yields
 * all its terms. A column of ASCII text is read character by character against the word cache
 * (store/word-table.ts: no substring per word); other text goes through the regular expression
 * on its lower-cased form. Data in: column texts. Out: ParsedTsvector (lexemes with weighted tf,
 * length).
 */
import { BM25_WEIGHTS, type ParsedTsvector } from './keyword-index.js';
import { FtsStemmer } from './term-stats.js';
import { WordTable, HASH_SEED, hashStep, foldAscii } from './word-table.js';

/** Words kept in the word → terms cache before it is cleared (at the start of a call): a corpus's
 *  distinct words (lower-cased) number tens of thousands; this bounds the cache at a few tens of MB. */
export const CORPUS_STEM_CACHE_MAX = 400_000;
/** Words sent to the stemmer's FTS5 table per batch (also its own cache's bound: the words'
 *  terms are kept here, numbered, not twice). */
const STEM_BATCH = 2_000;
/** Initial size of the per-term scratch arrays (grown by doubling). */
const INITIAL_TERMS = 1_024;

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
/** A character outside ASCII: the column takes the regular-expression path. */
const NON_ASCII = /[^\x00-\x7f]/;
/** In ASCII, WORD's characters are the digits and letters (after lower-casing: 'a'…'z'). */
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const LOWER_A = 97;
const LOWER_Z = 122;
/** Column weights in FTS5's column order (title, heading, text). */
const WEIGHTS = [BM25_WEIGHTS.title, BM25_WEIGHTS.heading, BM25_WEIGHTS.text] as const;
const COLUMNS = WEIGHTS.length;

type Row = readonly [title: string, heading: string, text: string];

/** Each word's terms are cached as numbers (one term: the number; else an array), and a chunk's
 *  weighted frequencies summed in a Float64Array by term number: a word costs one lookup in the
 *  word table and no per-word allocation (a Map of term strings per chunk cost ~3× as much). */
export class SqliteChunkTerms {
  private readonly stemmer = new FtsStemmer(STEM_BATCH);
  private readonly wordTerms = new WordTable<number | Int32Array>();
  private readonly termNumber = new Map<string, number>();
  private readonly termNames: string[] = [];
  private tf = new Float64Array(INITIAL_TERMS);
  private touched = new Int32Array(INITIAL_TERMS);

  constructor(private readonly cacheMax: number = CORPUS_STEM_CACHE_MAX) {}

  /** The terms of many chunks (title, heading, text each), in order. */
  termsOf(rows: ReadonlyArray<Row>): ParsedTsvector[] {
    if (this.wordTerms.size > this.cacheMax) this.clearCache();
    const out: ParsedTsvector[] = new Array(rows.length);
    // Rows holding a word not seen before wait until those words are stemmed (in batches: one
    // FTS5 round per batch).
    const unseen = new Set<string>();
    const pending: number[] = [];
    for (let r = 0; r < rows.length; r++) {
      const parsed = this.parse(rows[r], unseen);
      if (parsed) out[r] = parsed;
      else pending.push(r);
    }
    if (pending.length === 0) return out;
    const list = [...unseen];
    for (let i = 0; i < list.length; i += STEM_BATCH) {
      const batch = list.slice(i, i + STEM_BATCH);
      this.stemmer.termsOf(batch).forEach((terms, j) => this.remember(batch[j], terms));
    }
    for (const r of pending) out[r] = this.parse(rows[r], unseen)!;
    return out;
  }

  /** The terms of query tokens (each usually one). */
  queryTerms(tokens: readonly string[]): string[][] {
    const missing = tokens.filter((t) => this.wordTerms.get(t) === undefined);
    if (missing.length) this.stemmer.termsOf(missing).forEach((terms, j) => this.remember(missing[j], terms));
    return tokens.map((t) => {
      const n = this.wordTerms.get(t);
      return n === undefined ? [] : typeof n === 'number' ? [this.termNames[n]] : Array.from(n, (x) => this.termNames[x]);
    });
  }

  close(): void {
    this.stemmer.close();
  }

  /** One chunk's terms, or null (and its unknown words added to `unseen`) when a word is not cached. */
  private parse(cols: Row, unseen: Set<string>): ParsedTsvector | null {
    const tf = this.tf;
    const touched = this.touched;
    let n = 0;
    let length = 0;
    let complete = true;
    for (let c = 0; c < COLUMNS; c++) {
      const col = cols[c];
      if (!col) continue;
      const weight = WEIGHTS[c];
      if (NON_ASCII.test(col)) {
        const ws = col.toLowerCase().match(WORD);
        if (!ws) continue;
        for (let i = 0; i < ws.length; i++) {
          const terms = this.wordTerms.get(ws[i]);
          if (terms === undefined) {
            complete = false;
            unseen.add(ws[i]);
          } else if (complete) {
            n = this.count(terms, weight, n);
            length += typeof terms === 'number' ? 1 : terms.length;
          }
        }
        continue;
      }
      // ASCII: the runs of digits and letters, lower-cased as they are hashed.
      let start = -1;
      let h = HASH_SEED;
      for (let i = 0; i <= col.length; i++) {
        const code = i < col.length ? foldAscii(col.charCodeAt(i)) : 0;
        if ((code >= LOWER_A && code <= LOWER_Z) || (code >= DIGIT_0 && code <= DIGIT_9)) {
          if (start < 0) {
            start = i;
            h = HASH_SEED;
          }
          h = hashStep(h, code);
        } else if (start >= 0) {
          const terms = this.wordTerms.getSpan(col, start, i, h);
          if (terms === undefined) {
            complete = false;
            unseen.add(col.slice(start, i).toLowerCase());
          } else if (complete) {
            n = this.count(terms, weight, n);
            length += typeof terms === 'number' ? 1 : terms.length;
          }
          start = -1;
        }
      }
    }
    let out: ParsedTsvector | null = null;
    if (complete) {
      const lexemes = new Array<string>(n);
      const tfs = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        lexemes[i] = this.termNames[touched[i]];
        tfs[i] = tf[touched[i]];
      }
      out = { lexemes, tf: tfs, length };
    }
    for (let i = 0; i < n; i++) tf[touched[i]] = 0;
    return out;
  }

  /** Add one word's terms at `weight` to the chunk's frequencies (this.tf; a term's first one is
   *  listed in this.touched at n); returns the new count of listed terms. */
  private count(terms: number | Int32Array, weight: number, n: number): number {
    const tf = this.tf;
    if (typeof terms === 'number') {
      if (tf[terms] === 0) this.touched[n++] = terms;
      tf[terms] += weight;
      return n;
    }
    for (let j = 0; j < terms.length; j++) {
      if (tf[terms[j]] === 0) this.touched[n++] = terms[j];
      tf[terms[j]] += weight;
    }
    return n;
  }

  /** Cache a word's terms as term numbers. */
  private remember(word: string, terms: readonly string[]): void {
    const nums = terms.map((term) => {
      let t = this.termNumber.get(term);
      if (t === undefined) {
        t = this.termNames.length;
        this.termNumber.set(term, t);
        this.termNames.push(term);
        if (t >= this.tf.length) {
          const tf = new Float64Array(this.tf.length * 2);
          tf.set(this.tf);
          this.tf = tf;
          const touched = new Int32Array(this.touched.length * 2);
          touched.set(this.touched);
          this.touched = touched;
        }
      }
      return t;
    });
    this.wordTerms.set(word, nums.length === 1 ? nums[0] : Int32Array.from(nums));
  }

  private clearCache(): void {
    this.wordTerms.clear();
    this.termNumber.clear();
    this.termNames.length = 0;
  }
}
