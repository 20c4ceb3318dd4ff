/**
 * An in-memory keyword index scored with BM25 exactly as SQLite FTS5's bm25() does it, for
 * both readers (store/local-indexes.ts fills it from the rows a reader may see, as it fills
 * the vector matrix). No SQL here; pure data structure and arithmetic.
 *
 * Data in: per chunk its id, region id and its lexemes — the SQLite store's from FTS5's own
 * tokenizer (store/sqlite-terms.ts), the team store's from the server's tsvector in text form
 * (`'lexeme':1A,5 'other':3`, parsed by parseTsvector): the tsvector's weight letters say which
 * column a position came from (A title, B heading, D text), its largest position is the
 * chunk's length in tokens (PostgreSQL counts stop-words in positions, as FTS5 counts every
 * token). Data out: Hits, best first.
 *
 * Layout: a main segment in compressed-sparse-row form (per term an offset into one Int32
 * array of slots and one Float32 array of weighted term frequencies) plus a delta of the
 * chunks added since the last merge (per term a linked list through flat typed arrays: adding a
 * chunk allocates nothing per word). Removed chunks are marked dead in place.
 * The delta is merged, and dead slots squeezed out, when either passes a share of the main
 * segment (DELTA_SHARE, DEAD_SHARE): growing a store by pages costs amortized linear time and
 * a search never walks more than a bounded share of stale entries.
 */
import type { Hit } from './types.js';

/** BM25 column weights: a hit in the document title or heading trail counts more than in the
 *  body (both backends; the SQLite store's FTS5 bm25() gets the same weights). */
export const BM25_WEIGHTS = { title: 2.0, heading: 1.5, text: 1.0 } as const;

/** FTS5's bm25() parameters (sqlite/ext/fts5/fts5_aux.c: k1 = 1.2, b = 0.75). */
export const BM25_K1 = 1.2;
export const BM25_B = 0.75;
/** FTS5 clamps a non-positive IDF (a term in half the rows or more) to this. */
const MIN_IDF = 1e-6;
/** maintain() merges the delta into the main segment once it holds more postings than this share
 *  of the main segment's (and at least DELTA_MIN): the main segment grows at least by that factor
 *  per merge, so a store growing by small commits costs amortized linear time in merges. (A bulk
 *  load adds everything to the delta first and merges once.) */
export const DELTA_SHARE = 0.25;
export const DELTA_MIN = 20_000;
/** Dead slots are squeezed out once they pass this share of all slots: a search walks at most
 *  ~10 % stale postings, and a store that replaces a few documents per commit merges rarely. */
export const DEAD_SHARE = 0.1;

/** The weight of a tsvector position by its label: A = title, B = heading, none (D) = text. */
function labelWeight(label: string): number | undefined {
  return label === 'A' ? BM25_WEIGHTS.title : label === 'B' ? BM25_WEIGHTS.heading : label === 'C' || label === 'D' ? BM25_WEIGHTS.text : undefined;
}

/** A chunk's index terms as parallel arrays (one array of strings and one of numbers per chunk,
 *  not an object per lexeme: an index run reads tens of thousands of lexemes at once). */
export interface ParsedTsvector {
  /** The chunk's lexemes. */
  lexemes: string[];
  /** tf[i]: Σ over lexemes[i]'s positions of the position's column weight (a stripped lexeme
   *  counts once as text). */
  tf: ArrayLike<number>;
  /** The largest position: the chunk's length in tokens. */
  length: number;
}

/** Parse PostgreSQL's text output of a tsvector (tsvectorout: lexemes in single quotes with `'`
 *  and `\` doubled, then `:` and comma-separated positions, each optionally followed by its
 *  weight letter). Malformed input yields the lexemes read up to the fault, never a throw. */
export function parseTsvector(text: string): ParsedTsvector {
  const lexemes: string[] = [];
  const tfs: number[] = [];
  let length = 0;
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && text[i] === ' ') i++;
    if (i >= n || text[i] !== "'") break;
    i++;
    // The closing quote: the first single quote not doubled.
    let j = i;
    let escaped = false;
    for (;;) {
      j = text.indexOf("'", j);
      if (j < 0) return { lexemes, tf: tfs, length };
      if (text[j + 1] !== "'") break;
      escaped = true;
      j += 2;
    }
    let lex = text.slice(i, j);
    if (escaped || lex.includes('\\')) lex = lex.replace(/''|\\\\/g, (m) => m[0]);
    i = j + 1;
    let tf = 0;
    if (text[i] === ':') {
      i++;
      for (;;) {
        let pos = 0;
        const start = i;
        while (i < n && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57) pos = pos * 10 + (text.charCodeAt(i++) - 48);
        if (i === start) break;
        let w: number = BM25_WEIGHTS.text;
        const labelled = i < n ? labelWeight(text[i]) : undefined;
        if (labelled !== undefined) {
          w = labelled;
          i++;
        }
        tf += w;
        if (pos > length) length = pos;
        if (text[i] !== ',') break;
        i++;
      }
    } else {
      tf = BM25_WEIGHTS.text;
    }
    lexemes.push(lex);
    tfs.push(tf);
  }
  return { lexemes, tf: tfs, length };
}

/** FTS5's IDF: ln((N − n + 0.5) / (n + 0.5)), clamped to MIN_IDF when not positive. */
export function bm25Idf(total: number, df: number): number {
  const v = Math.log((total - df + 0.5) / (df + 0.5));
  return v > 0 ? v : MIN_IDF;
}

export interface KeywordFilter {
  /** allowed[regionId] !== 0 → chunks of that region may be returned; null = all regions. */
  allowedRegions: Uint8Array | null;
  exclude: ReadonlySet<number> | null;
}

/** Growable typed arrays for the per-slot columns. */
class Column<T extends Int32Array | Uint8Array | Float64Array | Float32Array> {
  constructor(public a: T, private readonly make: (n: number) => T) {}
  set(i: number, v: number): void {
    if (i >= this.a.length) {
      const b = this.make(Math.max(16, this.a.length * 2, i + 1));
      b.set(this.a);
      this.a = b;
    }
    this.a[i] = v;
  }
  /** Make room for indexes below n (grown by doubling, as set does). */
  reserve(n: number): void {
    if (n > this.a.length) {
      const b = this.make(Math.max(16, this.a.length * 2, n));
      b.set(this.a);
      this.a = b;
    }
  }
}

export class KeywordIndex {
  private readonly termIds = new Map<string, number>();
  private readonly terms: string[] = [];
  // Main segment: postings of term t are [offsets[t], offsets[t + 1]) in postSlot / postTf.
  private offsets = new Int32Array(1);
  private postSlot = new Int32Array(0);
  private postTf = new Float32Array(0);
  // Delta: posting p holds (deltaSlot[p], deltaTf[p]) of term deltaTerm[p]; the next posting of
  // its term is deltaNext[p] (−1 ends); deltaHead[t] is term t's first (−1 = none).
  private readonly deltaSlot = new Column(new Int32Array(0), (n) => new Int32Array(n));
  private readonly deltaTf = new Column(new Float32Array(0), (n) => new Float32Array(n));
  private readonly deltaNext = new Column(new Int32Array(0), (n) => new Int32Array(n));
  private readonly deltaTerm = new Column(new Int32Array(0), (n) => new Int32Array(n));
  private readonly deltaHead = new Column(new Int32Array(0), (n) => new Int32Array(n).fill(-1));
  private deltaPostings = 0;
  /** The last slot each term was added for (a lexeme listed twice in one tsvector counts once). */
  private readonly lastSlot = new Column(new Int32Array(0), (n) => new Int32Array(n).fill(-1));
  // Per slot.
  private readonly chunkIds = new Column(new Float64Array(0), (n) => new Float64Array(n));
  private readonly regionIds = new Column(new Int32Array(0), (n) => new Int32Array(n));
  private readonly lengths = new Column(new Int32Array(0), (n) => new Int32Array(n));
  private readonly alive = new Column(new Uint8Array(0), (n) => new Uint8Array(n));
  private slots = 0;
  private dead = 0;
  private readonly slotOf = new Map<number, number>();
  private totalLength = 0;
  // Search scratch (reused): score per slot, and the slots a query touched.
  private scores = new Float64Array(0);
  private touched = new Int32Array(0);

  /** Chunks in the index. */
  get size(): number {
    return this.slotOf.size;
  }

  /** Bring the index to a new list of visible chunks (`ids` ascending, `regions[i]` the region
   *  of ids[i]): chunks no longer listed, or listed under another region, are removed. Returns
   *  a flag per listed chunk: 1 = not in the index (fetch and add it). */
  syncTo(ids: Int32Array, regions: Int32Array): Uint8Array {
    const mine = new Float64Array(this.slotOf.size);
    let j = 0;
    for (const id of this.slotOf.keys()) mine[j++] = id;
    mine.sort();
    const missing = new Uint8Array(ids.length);
    let i = 0;
    for (const id of mine) {
      while (i < ids.length && ids[i] < id) missing[i++] = 1;
      if (i < ids.length && ids[i] === id) {
        if (regions[i] !== this.regionIds.a[this.slotOf.get(id)!]) {
          this.remove(id);
          missing[i] = 1;
        }
        i++;
      } else this.remove(id);
    }
    while (i < ids.length) missing[i++] = 1;
    return missing;
  }

  /** Add a chunk from PostgreSQL's tsvector text (a chunk id already present is replaced). */
  add(chunkId: number, regionId: number, tsvector: string): void {
    this.addParsed(chunkId, regionId, parseTsvector(tsvector));
  }

  /** Add a chunk from its lexemes and length (a chunk id already present is replaced): the
   *  SQLite store's terms come from FTS5's own tokenizer (store/sqlite-terms.ts). */
  addParsed(chunkId: number, regionId: number, { lexemes, tf, length }: ParsedTsvector): void {
    if (this.slotOf.has(chunkId)) this.remove(chunkId);
    const slot = this.slots++;
    this.chunkIds.set(slot, chunkId);
    this.regionIds.set(slot, regionId);
    this.lengths.set(slot, length);
    this.alive.set(slot, 1);
    this.slotOf.set(chunkId, slot);
    this.totalLength += length;
    // Room for every lexeme's posting at once: the loop below writes the typed arrays directly.
    const end = this.deltaPostings + lexemes.length;
    this.deltaSlot.reserve(end);
    this.deltaTf.reserve(end);
    this.deltaNext.reserve(end);
    this.deltaTerm.reserve(end);
    const dSlot = this.deltaSlot.a;
    const dTf = this.deltaTf.a;
    const dNext = this.deltaNext.a;
    const dTerm = this.deltaTerm.a;
    let head = this.deltaHead.a;
    let last = this.lastSlot.a;
    let p = this.deltaPostings;
    for (let i = 0; i < lexemes.length; i++) {
      let t = this.termIds.get(lexemes[i]);
      if (t === undefined) {
        t = this.newTerm(lexemes[i]);
        head = this.deltaHead.a;
        last = this.lastSlot.a;
      }
      if (last[t] === slot) continue;
      last[t] = slot;
      dSlot[p] = slot;
      dTf[p] = tf[i];
      dNext[p] = head[t];
      dTerm[p] = t;
      head[t] = p++;
    }
    this.deltaPostings = p;
  }

  /** Number a lexeme the index has not seen (no postings yet). */
  private newTerm(lexeme: string): number {
    const t = this.terms.length;
    this.termIds.set(lexeme, t);
    this.terms.push(lexeme);
    this.deltaHead.set(t, -1);
    this.lastSlot.set(t, -1);
    return t;
  }

  remove(chunkId: number): void {
    const slot = this.slotOf.get(chunkId);
    if (slot === undefined) return;
    this.slotOf.delete(chunkId);
    this.alive.a[slot] = 0;
    this.dead++;
    this.totalLength -= this.lengths.a[slot];
  }

  /** Merge the delta and squeeze out dead slots when either passed its share (call after a batch of changes). */
  maintain(): void {
    const main = this.postSlot.length;
    if (this.deltaPostings > Math.max(DELTA_MIN, DELTA_SHARE * main) || this.dead > DEAD_SHARE * Math.max(1, this.slots)) this.merge();
  }

  /** Rebuild the main segment from the live postings of main and delta, slots renumbered densely. */
  merge(): void {
    const remap = new Int32Array(this.slots).fill(-1);
    let next = 0;
    for (let s = 0; s < this.slots; s++) if (this.alive.a[s]) remap[s] = next++;
    const nTerms = this.terms.length;
    const counts = new Int32Array(nTerms + 1);
    const oldOffsets = this.offsets;
    const oldTerms = oldOffsets.length - 1;
    for (let t = 0; t < oldTerms; t++) for (let p = oldOffsets[t]; p < oldOffsets[t + 1]; p++) if (remap[this.postSlot[p]] >= 0) counts[t + 1]++;
    const head = this.deltaHead.a;
    const dSlot = this.deltaSlot.a;
    const dTf = this.deltaTf.a;
    const dTerm = this.deltaTerm.a;
    const nDelta = this.deltaPostings;
    // The delta in insertion order (sequential reads; its per-term lists jump around memory).
    for (let p = 0; p < nDelta; p++) if (remap[dSlot[p]] >= 0) counts[dTerm[p] + 1]++;
    for (let t = 0; t < nTerms; t++) counts[t + 1] += counts[t];
    const slotsOut = new Int32Array(counts[nTerms]);
    const tfOut = new Float32Array(counts[nTerms]);
    const cursor = new Int32Array(nTerms);
    for (let t = 0; t < nTerms; t++) {
      let w = counts[t];
      if (t < oldTerms) {
        for (let p = oldOffsets[t]; p < oldOffsets[t + 1]; p++) {
          const s = remap[this.postSlot[p]];
          if (s >= 0) {
            slotsOut[w] = s;
            tfOut[w++] = this.postTf[p];
          }
        }
      }
      cursor[t] = w;
    }
    for (let p = 0; p < nDelta; p++) {
      const s = remap[dSlot[p]];
      if (s < 0) continue;
      const w = cursor[dTerm[p]]++;
      slotsOut[w] = s;
      tfOut[w] = dTf[p];
    }
    // Per-slot columns, compacted in place (remap is monotonic: s' ≤ s).
    for (let s = 0; s < this.slots; s++) {
      const to = remap[s];
      if (to < 0) continue;
      this.chunkIds.a[to] = this.chunkIds.a[s];
      this.regionIds.a[to] = this.regionIds.a[s];
      this.lengths.a[to] = this.lengths.a[s];
      this.alive.a[to] = 1;
    }
    this.alive.a.fill(0, next, this.slots);
    this.slotOf.clear();
    for (let s = 0; s < next; s++) this.slotOf.set(this.chunkIds.a[s], s);
    this.slots = next;
    this.dead = 0;
    this.offsets = counts;
    this.postSlot = slotsOut;
    this.postTf = tfOut;
    head.fill(-1);
    this.lastSlot.a.fill(-1);
    this.deltaPostings = 0;
    // A bulk load grew the delta's arrays: give that memory back.
    if (this.deltaSlot.a.length > 2 * DELTA_MIN) {
      this.deltaSlot.a = new Int32Array(0);
      this.deltaTf.a = new Float32Array(0);
      this.deltaNext.a = new Int32Array(0);
      this.deltaTerm.a = new Int32Array(0);
    }
  }

  /** Document frequency of each lexeme among the live chunks (0 for one the index lacks). */
  docFrequencies(lexemes: readonly string[]): number[] {
    return lexemes.map((l) => {
      const t = this.termIds.get(l);
      if (t === undefined) return 0;
      let n = 0;
      if (t < this.offsets.length - 1) {
        const from = this.offsets[t];
        const to = this.offsets[t + 1];
        if (this.dead === 0) n += to - from;
        else for (let p = from; p < to; p++) n += this.alive.a[this.postSlot[p]];
      }
      for (let p = this.deltaHead.a[t]; p >= 0; p = this.deltaNext.a[p]) n += this.alive.a[this.deltaSlot.a[p]];
      return n;
    });
  }

  /** BM25 top k over the chunks holding any of `lexemes` (`df`: their document frequencies, when
   *  the caller counted them already) (FTS5's formula: Σ idf · tf·(k1+1) /
   *  (tf + k1·(1 − b + b·len/avglen)), tf weighted by column). Ties: lower chunk id first. */
  search(lexemes: readonly string[], k: number, filter: KeywordFilter, df: readonly number[] = this.docFrequencies(lexemes)): Hit[] {
    const live = this.size;
    if (k <= 0 || live === 0 || lexemes.length === 0) return [];
    const avg = this.totalLength / live || 1;
    if (this.scores.length < this.slots) {
      this.scores = new Float64Array(this.slots);
      this.touched = new Int32Array(this.slots);
    }
    const scores = this.scores;
    const touched = this.touched;
    let nTouched = 0;
    const lengths = this.lengths.a;
    const alive = this.alive.a;
    // Per slot: k1·(1 − b + b·len/avg), the length part of BM25's denominator.
    const norm = (slot: number) => BM25_K1 * (1 - BM25_B + (BM25_B * lengths[slot]) / avg);
    for (let i = 0; i < lexemes.length; i++) {
      const t = this.termIds.get(lexemes[i]);
      if (t === undefined || df[i] === 0) continue;
      const idf = bm25Idf(live, df[i]);
      const scale = idf * (BM25_K1 + 1);
      if (t < this.offsets.length - 1) {
        const end = this.offsets[t + 1];
        for (let p = this.offsets[t]; p < end; p++) {
          const slot = this.postSlot[p];
          if (!alive[slot]) continue;
          if (scores[slot] === 0) touched[nTouched++] = slot;
          const tf = this.postTf[p];
          scores[slot] += (scale * tf) / (tf + norm(slot));
        }
      }
      for (let p = this.deltaHead.a[t]; p >= 0; p = this.deltaNext.a[p]) {
        const slot = this.deltaSlot.a[p];
        if (!alive[slot]) continue;
        if (scores[slot] === 0) touched[nTouched++] = slot;
        const tf = this.deltaTf.a[p];
        scores[slot] += (scale * tf) / (tf + norm(slot));
      }
    }
    // The k best (score desc, id asc) in two sorted typed arrays: most candidates lose to the
    // current k-th at once; a winner is inserted by shifting (k is small).
    const ids = this.chunkIds.a;
    const regions = this.regionIds.a;
    const bestS = new Float64Array(k);
    const bestId = new Float64Array(k);
    let n = 0;
    for (let j = 0; j < nTouched; j++) {
      const slot = touched[j];
      const sc = scores[slot];
      scores[slot] = 0;
      if (filter.allowedRegions && !filter.allowedRegions[regions[slot]]) continue;
      const id = ids[slot];
      if (n === k && (sc < bestS[k - 1] || (sc === bestS[k - 1] && id > bestId[k - 1]))) continue;
      if (filter.exclude?.has(id)) continue;
      let at = n < k ? n++ : k - 1;
      while (at > 0 && (bestS[at - 1] < sc || (bestS[at - 1] === sc && bestId[at - 1] > id))) {
        bestS[at] = bestS[at - 1];
        bestId[at] = bestId[at - 1];
        at--;
      }
      bestS[at] = sc;
      bestId[at] = id;
    }
    const out: Hit[] = [];
    for (let i = 0; i < n; i++) out.push({ chunkId: bestId[i], score: bestS[i], rank: i + 1 });
    return out;
  }
}
