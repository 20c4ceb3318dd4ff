/**
 * Brute-force cosine top-k over one contiguous Float32 matrix (rows = normalized chunk
 * vectors, loaded from the store's `vectors` table by store/reader.ts and reloaded when the
 * file changes). Scoring runs in a WebAssembly SIMD kernel (store/simd-kernel.ts) whose
 * memory holds the matrix, 4 queries per pass over it; plain JS loops are the fallback when
 * WebAssembly SIMD is unavailable. Chosen over sqlite-vec by measurement (docs/STORE.md).
 * No SQL here.
 */
import type { Hit } from './types.js';
import { createSimdKernel, type SimdKernel } from './simd-kernel.js';
import { TopK, KthLargest } from './top-k.js';
import { ABS_SLACK, int8Stride, quantizeQuery, quantizeRow, type QuantizedRows } from './vector-quantized.js';

export interface MatrixFilter {
  /** allowed[regionId] !== 0 → rows of that region may be returned; null = all regions. */
  allowedRegions: Uint8Array | null;
  /** Chunk ids never returned. */
  exclude: ReadonlySet<number> | null;
}

/** Queries scored together in one pass over the matrix. */
export const QUERY_GROUP = 4;

export type ScanMethod = 'wasm-simd' | 'js';

/** A matrix of at least this capacity keeps the Int8 copy (26 % more memory at 100-d) and scans
 *  single queries through it; below it the Float32 rows fit the CPU caches and one pass is as fast. */
export const QUANTIZED_MIN_ROWS = 32_768;

export class VectorMatrix {
  /** Rows filled so far. */
  n = 0;
  /** Row stride in floats: dim rounded up to a multiple of 4 (zero padded) for SIMD. */
  readonly stride: number;
  readonly ids: Float64Array;
  readonly regionIds: Int32Array;
  /** The matrix (capacity × stride), in the kernel's memory when SIMD is used. */
  readonly data: Float32Array;
  readonly method: ScanMethod;
  private readonly kernel: SimdKernel | null;
  private readonly qOffset = 0;
  private readonly outOffset: number;
  private readonly dataOffset: number;
  /** The Int8 copy (null: no SIMD kernel, or a matrix below QUANTIZED_MIN_ROWS). */
  private readonly quantized: QuantizedRows | null = null;
  private readonly q16Offset: number;
  private readonly data8Offset: number;
  private readonly scoreOffset: number;
  /** Rows a quantized scan scores in Float32 (scratch, allocated at the first such scan). */
  private candidates: Int32Array | null = null;

  /** An empty matrix for up to `capacity` rows of dimension `dim`. */
  constructor(readonly dim: number, readonly capacity: number, opts: { method?: ScanMethod; quantize?: boolean } = {}) {
    this.stride = Math.ceil(dim / 4) * 4;
    this.ids = new Float64Array(capacity);
    this.regionIds = new Int32Array(capacity);
    const stride8 = int8Stride(dim);
    // `quantize` (default: capacity ≥ QUANTIZED_MIN_ROWS) forces the Int8 copy on or off: tests
    // compare both scans at any size.
    const withInt8 = opts.method !== 'js' && (opts.quantize ?? capacity >= QUANTIZED_MIN_ROWS);
    // Kernel memory: Float32 queries | Int16 query | one score | scores out | Float32 rows | Int8 rows.
    this.q16Offset = QUERY_GROUP * this.stride * 4;
    this.scoreOffset = this.q16Offset + stride8 * 2;
    this.outOffset = this.scoreOffset + 16;
    this.dataOffset = this.outOffset + Math.max(1, capacity) * QUERY_GROUP * 4;
    this.data8Offset = this.dataOffset + capacity * this.stride * 4;
    const total = this.data8Offset + (withInt8 ? capacity * stride8 : 0);
    this.kernel = opts.method === 'js' ? null : createSimdKernel(total);
    this.method = this.kernel ? 'wasm-simd' : 'js';
    this.data = this.kernel
      ? new Float32Array(this.kernel.memory.buffer, this.dataOffset, capacity * this.stride)
      : new Float32Array(capacity * this.stride);
    if (this.kernel && withInt8) {
      this.quantized = {
        i8: new Int8Array(this.kernel.memory.buffer, this.data8Offset, capacity * stride8),
        scale: new Float32Array(capacity),
        err: new Float64Array(capacity),
        norm: new Float64Array(capacity),
        stride8,
      };
    }
  }

  /** Append one row (a stored normalized vector of length dim). */
  addRow(id: number, regionId: number, v: Float32Array): void {
    if (this.n >= this.capacity) throw new Error('vector matrix is full');
    if (v.length !== this.dim) throw new Error(`row of dimension ${v.length} in a ${this.dim}-d matrix`);
    const r = this.n++;
    this.ids[r] = id;
    this.regionIds[r] = regionId;
    this.data.set(v, r * this.stride);
    if (this.quantized) quantizeRow(this.data, r * this.stride, this.dim, this.quantized, r);
  }

  /** Append one row from a stored BLOB (Float32 bytes, machine order; byteLength = dim·4)
   *  straight into the matrix: no intermediate Float32Array. */
  addBlob(id: number, regionId: number, blob: Uint8Array): void {
    if (this.n >= this.capacity) throw new Error('vector matrix is full');
    if (blob.byteLength !== this.dim * 4) throw new Error(`vector blob of ${blob.byteLength} bytes in a ${this.dim}-d matrix`);
    const r = this.n++;
    this.ids[r] = id;
    this.regionIds[r] = regionId;
    // A Float32 view of the blob copies as floats: Uint8Array.set from a Buffer takes a slower
    // element-wise path in V8 (≈2× the whole fill at 100k rows here).
    if (blob.byteOffset % 4 === 0) this.data.set(new Float32Array(blob.buffer, blob.byteOffset, this.dim), r * this.stride);
    else this.bytes().set(blob, r * this.stride * 4);
    if (this.quantized) quantizeRow(this.data, r * this.stride, this.dim, this.quantized, r);
  }

  /** Append `count` consecutive rows of `src` (Float32, dim values per row, from row `from` on)
   *  with their ids and regions (ids ascending, as every matrix keeps them): one copy per run
   *  when the row stride is the dimension (a bulk fill from stored vectors). */
  addRun(ids: ArrayLike<number>, regionIds: ArrayLike<number>, at: number, src: Float32Array, from: number, count: number): void {
    if (this.n + count > this.capacity) throw new Error('vector matrix is full');
    if ((from + count) * this.dim > src.length) throw new Error('vector run out of range');
    const r0 = this.n;
    for (let i = 0; i < count; i++) {
      this.ids[r0 + i] = ids[at + i];
      this.regionIds[r0 + i] = regionIds[at + i];
    }
    if (this.stride === this.dim) this.data.set(src.subarray(from * this.dim, (from + count) * this.dim), r0 * this.stride);
    else for (let i = 0; i < count; i++) this.data.set(src.subarray((from + i) * this.dim, (from + i + 1) * this.dim), (r0 + i) * this.stride);
    this.n += count;
    if (this.quantized) for (let r = r0; r < this.n; r++) quantizeRow(this.data, r * this.stride, this.dim, this.quantized, r);
  }

  private bytesView: Uint8Array | null = null;
  /** The Float32 rows as bytes (a view; the kernel's memory never grows after creation). */
  private bytes(): Uint8Array {
    return (this.bytesView ??= new Uint8Array(this.data.buffer, this.data.byteOffset, this.data.byteLength));
  }

  /** Keep only the rows whose keep[row] is 1, in order, moved down in place (no new memory). */
  retain(keep: Uint8Array): void {
    let w = 0;
    for (let r = 0; r < this.n; ) {
      if (!keep[r]) {
        r++;
        continue;
      }
      let end = r + 1;
      while (end < this.n && keep[end]) end++;
      if (w !== r) {
        this.ids.copyWithin(w, r, end);
        this.regionIds.copyWithin(w, r, end);
        this.data.copyWithin(w * this.stride, r * this.stride, end * this.stride);
        const qz = this.quantized;
        if (qz) {
          qz.i8.copyWithin(w * qz.stride8, r * qz.stride8, end * qz.stride8);
          qz.scale.copyWithin(w, r, end);
          qz.err.copyWithin(w, r, end);
          qz.norm.copyWithin(w, r, end);
        }
      }
      w += end - r;
      r = end;
    }
    this.n = w;
  }

  /** Append `count` rows of `src` from row `from` on in one copy (same dimension): a refresh
   *  keeps the runs of rows it already holds without a per-row copy. */
  copyRows(src: VectorMatrix, from: number, count: number): void {
    if (src.stride !== this.stride) throw new Error(`rows of a ${src.dim}-d matrix copied into a ${this.dim}-d one`);
    if (this.n + count > this.capacity || from + count > src.n) throw new Error('vector matrix copy out of range');
    this.ids.set(src.ids.subarray(from, from + count), this.n);
    this.regionIds.set(src.regionIds.subarray(from, from + count), this.n);
    this.data.set(src.data.subarray(from * src.stride, (from + count) * src.stride), this.n * this.stride);
    const qz = this.quantized;
    if (qz && src.quantized && src.quantized.stride8 === qz.stride8) {
      qz.i8.set(src.quantized.i8.subarray(from * qz.stride8, (from + count) * qz.stride8), this.n * qz.stride8);
      qz.scale.set(src.quantized.scale.subarray(from, from + count), this.n);
      qz.err.set(src.quantized.err.subarray(from, from + count), this.n);
      qz.norm.set(src.quantized.norm.subarray(from, from + count), this.n);
    } else if (qz) {
      for (let r = this.n; r < this.n + count; r++) quantizeRow(this.data, r * this.stride, this.dim, qz, r);
    }
    this.n += count;
  }

  /** Top-k rows by dot product (= cosine: rows and queries are normalized), one list per query.
   *  Queries are scored in groups of QUERY_GROUP per pass, so 4 queries read the matrix once. */
  search(queries: Float32Array[], k: number, filter: MatrixFilter): Hit[][] {
    const qn = queries.length;
    if (qn === 0) return [];
    if (k <= 0 || this.n === 0) return queries.map(() => []);
    const qs = queries.map((q) => normalized(q, this.dim));
    const heaps = qs.map(() => new TopK(k));
    const exclude = filter.exclude && filter.exclude.size > 0 ? filter.exclude : null;
    for (let g = 0; g < qn; g += QUERY_GROUP) {
      const group = qs.slice(g, g + QUERY_GROUP);
      if (group.every((q) => q === null)) continue;
      const gh = heaps.slice(g, g + QUERY_GROUP);
      if (this.kernel) this.scanSimd(this.kernel, group, gh, filter.allowedRegions, exclude);
      else if (group.length === 1) this.scanOne(group[0]!, gh[0], filter.allowedRegions, exclude);
      else this.scanGroup(group, gh, filter.allowedRegions, exclude);
    }
    return heaps.map((h) => h.sorted());
  }

  private scanSimd(kernel: SimdKernel, group: Array<Float32Array | null>, heaps: TopK[], allowed: Uint8Array | null, exclude: ReadonlySet<number> | null): void {
    const { stride, n, regionIds, ids } = this;
    const buf = kernel.memory.buffer;
    const qArea = new Float32Array(buf, this.qOffset, QUERY_GROUP * stride);
    qArea.fill(0);
    group.forEach((q, j) => q && qArea.set(q, j * stride));
    const rowBytes = stride * 4;
    if (group.length === 1) {
      if (this.quantized) this.scanQuantized(kernel, this.quantized, group[0]!, heaps[0], allowed, exclude);
      else {
        kernel.dot1(this.qOffset, this.dataOffset, n, rowBytes, this.outOffset);
        selectTop(new Float32Array(buf, this.outOffset, n), n, heaps[0], regionIds, ids, allowed, exclude);
      }
      return;
    }
    kernel.dot4(this.qOffset, this.qOffset + rowBytes, this.qOffset + 2 * rowBytes, this.qOffset + 3 * rowBytes, this.dataOffset, n, rowBytes, this.outOffset);
    const out = new Float32Array(buf, this.outOffset, n * QUERY_GROUP);
    const live = group.map((q) => q !== null);
    for (let r = 0; r < n; r++) {
      if (allowed) {
        const g = regionIds[r];
        if (g >= allowed.length || allowed[g] === 0) continue;
      }
      const base = r * QUERY_GROUP;
      const id = ids[r];
      let enters = false;
      for (let j = 0; j < live.length; j++) if (live[j] && heaps[j].wouldEnter(out[base + j], id)) enters = true;
      if (!enters) continue;
      if (exclude && exclude.has(id)) continue;
      for (let j = 0; j < live.length; j++) if (live[j] && heaps[j].wouldEnter(out[base + j], id)) heaps[j].push(out[base + j], id);
    }
  }

  /** One query through the Int8 rows first (module header; store/vector-quantized.ts): pass 1
   *  keeps the rows whose upper bound reaches the k-th largest lower bound so far, pass 2 scores
   *  those in Float32 (dot1, as the full scan does) and keeps the top k. */
  private scanQuantized(kernel: SimdKernel, qz: QuantizedRows, q: Float32Array, heap: TopK, allowed: Uint8Array | null, exclude: ReadonlySet<number> | null): void {
    const { n, ids, regionIds } = this;
    const buf = kernel.memory.buffer;
    const { t, cErr, cNorm } = quantizeQuery(q, this.dim, new Int16Array(buf, this.q16Offset, qz.stride8), this.stride);
    kernel.dotI8(this.q16Offset, this.data8Offset, n, qz.stride8, this.outOffset);
    const sums = new Int32Array(buf, this.outOffset, n);
    const { scale, err, norm } = qz;
    const kth = new KthLargest(heap.k);
    let floor = Number.NEGATIVE_INFINITY;
    const cand = this.candidates && this.candidates.length >= n ? this.candidates : (this.candidates = new Int32Array(this.capacity));
    let nc = 0;
    for (let r = 0; r < n; r++) {
      const a = scale[r] * t * sums[r];
      const m = err[r] * cErr + norm[r] * cNorm + ABS_SLACK;
      if (a + m < floor) continue;
      if (allowed) {
        const g = regionIds[r];
        if (g >= allowed.length || allowed[g] === 0) continue;
      }
      if (exclude && exclude.has(ids[r])) continue;
      cand[nc++] = r;
      const lo = a - m;
      if (lo > floor) {
        kth.push(lo);
        floor = kth.value;
      }
    }
    const rowBytes = this.stride * 4;
    const score = new Float32Array(buf, this.scoreOffset, 1);
    for (let j = 0; j < nc; j++) {
      const r = cand[j];
      const a = scale[r] * t * sums[r];
      if (a + err[r] * cErr + norm[r] * cNorm + ABS_SLACK < floor) continue;
      kernel.dot1(this.qOffset, this.dataOffset + r * rowBytes, 1, rowBytes, this.scoreOffset);
      const s = score[0];
      if (heap.wouldEnter(s, ids[r])) heap.push(s, ids[r]);
    }
  }

  private scanOne(q: Float32Array, heap: TopK, allowed: Uint8Array | null, exclude: ReadonlySet<number> | null): void {
    const { dim, stride, data, n, regionIds, ids } = this;
    const tail = dim - (dim % 4);
    for (let r = 0; r < n; r++) {
      if (allowed) {
        const g = regionIds[r];
        if (g >= allowed.length || allowed[g] === 0) continue;
      }
      const base = r * stride;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      let i = 0;
      for (; i < tail; i += 4) {
        s0 += q[i] * data[base + i];
        s1 += q[i + 1] * data[base + i + 1];
        s2 += q[i + 2] * data[base + i + 2];
        s3 += q[i + 3] * data[base + i + 3];
      }
      for (; i < dim; i++) s0 += q[i] * data[base + i];
      const s = s0 + s1 + s2 + s3;
      const id = ids[r];
      if (!heap.wouldEnter(s, id)) continue;
      if (exclude && exclude.has(id)) continue;
      heap.push(s, id);
    }
  }

  private scanGroup(group: Array<Float32Array | null>, heaps: TopK[], allowed: Uint8Array | null, exclude: ReadonlySet<number> | null): void {
    const { dim, stride, data, n, regionIds, ids } = this;
    const zero = new Float32Array(dim);
    const q0 = group[0] ?? zero, q1 = group[1] ?? zero, q2 = group[2] ?? zero, q3 = group[3] ?? zero;
    const live = [0, 1, 2, 3].map((j) => j < group.length && group[j] !== null);
    const scores = new Float64Array(QUERY_GROUP);
    for (let r = 0; r < n; r++) {
      if (allowed) {
        const g = regionIds[r];
        if (g >= allowed.length || allowed[g] === 0) continue;
      }
      const base = r * stride;
      let s0 = 0, s1 = 0, s2 = 0, s3 = 0;
      for (let i = 0; i < dim; i++) {
        const x = data[base + i];
        s0 += q0[i] * x;
        s1 += q1[i] * x;
        s2 += q2[i] * x;
        s3 += q3[i] * x;
      }
      scores[0] = s0; scores[1] = s1; scores[2] = s2; scores[3] = s3;
      const id = ids[r];
      let enters = false;
      for (let j = 0; j < QUERY_GROUP; j++) if (live[j] && heaps[j].wouldEnter(scores[j], id)) enters = true;
      if (!enters) continue;
      if (exclude && exclude.has(id)) continue;
      for (let j = 0; j < QUERY_GROUP; j++) if (live[j] && heaps[j].wouldEnter(scores[j], id)) heaps[j].push(scores[j], id);
    }
  }
}

/** A normalized copy of q, or null for a zero / non-finite vector (it matches nothing). */
function normalized(q: Float32Array, dim: number): Float32Array | null {
  if (q.length !== dim) throw new Error(`query vector has dimension ${q.length}; the store's vectors have ${dim}`);
  let ss = 0;
  for (let i = 0; i < dim; i++) ss += q[i] * q[i];
  if (!(ss > 0) || !Number.isFinite(ss)) return null;
  const inv = 1 / Math.sqrt(ss);
  const out = new Float32Array(dim);
  for (let i = 0; i < dim; i++) out[i] = q[i] * inv;
  return out;
}

/** Push the rows of one query's scores (`scores[r]` of row r) that may enter `heap`: the
 *  current k-th score is kept in a local, so most rows cost one comparison. */
function selectTop(scores: Float32Array, n: number, heap: TopK, regionIds: Int32Array, ids: Float64Array, allowed: Uint8Array | null, exclude: ReadonlySet<number> | null): void {
  let floor = heap.floor();
  for (let r = 0; r < n; r++) {
    const s = scores[r];
    if (s < floor) continue;
    if (allowed) {
      const g = regionIds[r];
      if (g >= allowed.length || allowed[g] === 0) continue;
    }
    const id = ids[r];
    if (!heap.wouldEnter(s, id)) continue;
    if (exclude && exclude.has(id)) continue;
    heap.push(s, id);
    floor = heap.floor();
  }
}

/** Copy a stored BLOB (Float32, machine byte order) into a Float32Array view-safe copy. */
export function blobToFloat32(buf: Uint8Array): Float32Array {
  if (buf.byteLength % 4 !== 0) throw new Error(`vector blob of ${buf.byteLength} bytes is not Float32`);
  if (buf.byteOffset % 4 === 0) return new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4).slice();
  return new Float32Array(buf.slice().buffer);
}

/** Normalized Float32 BLOB for storage. A zero or non-finite vector (e.g. a text of only
 *  unknown words) is stored as zeros: it scores 0 against every query instead of garbage. */
export function float32ToBlob(v: Float32Array): Buffer {
  let ss = 0;
  for (let i = 0; i < v.length; i++) ss += v[i] * v[i];
  const out = new Float32Array(v.length);
  if (ss > 0 && Number.isFinite(ss)) {
    const inv = 1 / Math.sqrt(ss);
    for (let i = 0; i < v.length; i++) out[i] = v[i] * inv;
  }
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength);
}
