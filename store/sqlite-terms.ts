/**
 * A chunk's index terms as the SQLite store's FTS5 table holds them, for the in-memory keyword
 * index (store/keyword-index.ts): each word of the chunk's title, heading and text is mapped to
 * FTS5's own terms (porter stemming, case and diacritics folding) by store/term-stats.ts
 * FtsStemmer — a private in-memory FTS5 table with the store's tokenizer; each word's terms are
 * cached here as term numbers, and a chunk's frequencies summed by number — so
 * the index ranks with the same terms, weighted frequencies and lengths as bm25() on
 * chunks_fts. Words are split here on the characters FTS5's unicode61 tokenizer never keeps
 * (anything but letters, digits, marks and private-use); a word FTS5 splits further yields
 * all its terms. Data in: column texts. Out: ParsedTsvector (lexemes with weighted tf, length).
 */
import { BM25_WEIGHTS, type ParsedTsvector } from './keyword-index.js';
import { FtsStemmer } from './term-stats.js';

/** Words kept in the word → terms cache before it is cleared (at the start of a call): a corpus's
 *  distinct words (lower-cased) number tens of thousands; this bounds the cache at a few tens of MB. */
export const CORPUS_STEM_CACHE_MAX = 400_000;
/** Words sent to the stemmer's FTS5 table per batch (also its own cache's bound: the words'
 *  terms are kept here, numbered, not twice). */
const STEM_BATCH = 2_000;
/** Initial size of the per-term scratch arrays (grown by doubling). */
const INITIAL_TERMS = 1_024;

const WORD = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;
/** Column weights in FTS5's column order (title, heading, text). */
const WEIGHTS = [BM25_WEIGHTS.title, BM25_WEIGHTS.heading, BM25_WEIGHTS.text] as const;
const COLUMNS = WEIGHTS.length;

type Row = readonly [title: string, heading: string, text: string];

/** Each word's terms are cached as numbers (one term: the number; else an array), and a chunk's
 *  weighted frequencies summed in a Float64Array by term number: a word costs one Map lookup of
 *  the word and no per-word allocation (a Map of term strings per chunk cost ~3× as much). */
export class SqliteChunkTerms {
  private readonly stemmer = new FtsStemmer(STEM_BATCH);
  private readonly wordTerms = new Map<string, number | Int32Array>();
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
    const missing = tokens.filter((t) => !this.wordTerms.has(t));
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
    let n = 0;
    let length = 0;
    let complete = true;
    const add = (t: number, weight: number) => {
      if (tf[t] === 0) this.touched[n++] = t;
      tf[t] += weight;
    };
    for (let c = 0; c < COLUMNS; c++) {
      if (!cols[c]) continue;
      const ws = cols[c].toLowerCase().match(WORD);
      if (!ws) continue;
      const weight = WEIGHTS[c];
      for (let i = 0; i < ws.length; i++) {
        const terms = this.wordTerms.get(ws[i]);
        if (terms === undefined) {
          complete = false;
          unseen.add(ws[i]);
        } else if (complete) {
          if (typeof terms === 'number') {
            add(terms, weight);
            length++;
          } else {
            for (let j = 0; j < terms.length; j++) add(terms[j], weight);
            length += terms.length;
          }
        }
      }
    }
    const lexemes = complete ? new Array<{ lexeme: string; tf: number }>(n) : null;
    for (let i = 0; i < n; i++) {
      const t = this.touched[i];
      if (lexemes) lexemes[i] = { lexeme: this.termNames[t], tf: tf[t] };
      tf[t] = 0;
    }
    return lexemes ? { lexemes, length } : null;
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
