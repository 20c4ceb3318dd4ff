/**
 * The k best (score, id) pairs of a scan, for the vector matrix (store/vector-matrix.ts): a
 * fixed-size min-heap whose order is score descending, then chunk id ascending — so the k kept
 * are a function of the scores alone, whatever order the rows are seen in (a quantized first
 * pass may look at fewer rows than a full scan and must keep the same ones). Pure; no I/O.
 */
import type { Hit } from './types.js';

/** True when (s1, id1) ranks below (s2, id2): a lower score, or the same score and a higher id. */
const below = (s1: number, id1: number, s2: number, id2: number): boolean => s1 < s2 || (s1 === s2 && id1 > id2);

export class TopK {
  private readonly s: Float64Array;
  private readonly id: Float64Array;
  private size = 0;
  constructor(readonly k: number) {
    this.s = new Float64Array(k);
    this.id = new Float64Array(k);
  }
  /** A score below this never enters (−∞ while the heap is not full); one equal to it may, by id. */
  floor(): number {
    return this.size < this.k ? Number.NEGATIVE_INFINITY : this.s[0];
  }
  wouldEnter(score: number, id: number): boolean {
    return this.size < this.k || below(this.s[0], this.id[0], score, id);
  }
  /** Add a pair that wouldEnter() said enters. */
  push(score: number, id: number): void {
    const s = this.s;
    const ids = this.id;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (!below(score, id, s[p], ids[p])) break;
        s[i] = s[p];
        ids[i] = ids[p];
        i = p;
      }
      s[i] = score;
      ids[i] = id;
      return;
    }
    // Replace the minimum and sift down.
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && below(s[r], ids[r], s[l], ids[l]) ? r : l;
      if (!below(s[c], ids[c], score, id)) break;
      s[i] = s[c];
      ids[i] = ids[c];
      i = c;
    }
    s[i] = score;
    ids[i] = id;
  }
  sorted(): Hit[] {
    const out: Array<{ s: number; id: number }> = [];
    for (let i = 0; i < this.size; i++) out.push({ s: this.s[i], id: this.id[i] });
    out.sort((a, b) => b.s - a.s || a.id - b.id);
    return out.map((h, i) => ({ chunkId: h.id, score: h.s, rank: i + 1 }));
  }
}

/** The k-th largest of the numbers pushed (−∞ until k were pushed): a min-heap of k numbers. */
export class KthLargest {
  private readonly h: Float64Array;
  private size = 0;
  constructor(private readonly k: number) {
    this.h = new Float64Array(k);
  }
  get value(): number {
    return this.size < this.k ? Number.NEGATIVE_INFINITY : this.h[0];
  }
  push(x: number): void {
    const h = this.h;
    if (this.size < this.k) {
      let i = this.size++;
      while (i > 0) {
        const p = (i - 1) >> 1;
        if (h[p] <= x) break;
        h[i] = h[p];
        i = p;
      }
      h[i] = x;
      return;
    }
    if (x <= h[0]) return;
    let i = 0;
    const n = this.size;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && h[r] < h[l] ? r : l;
      if (h[c] >= x) break;
      h[i] = h[c];
      i = c;
    }
    h[i] = x;
  }
}
