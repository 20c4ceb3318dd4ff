/**
 * An Int8 copy of the vector matrix's rows (store/vector-matrix.ts), and the error bounds that
 * make a first pass over it exact. At 100k rows × 100-d the Float32 scan reads 40 MB per query
 * and waits on memory; the Int8 rows are a quarter of that. The first pass (the kernel's dotI8:
 * exact integer sums) gives each row an approximate score with a proven bound on its distance to
 * the Float32 score the full scan computes; only rows whose bound reaches the k-th best lower
 * bound are scored in Float32 — so the k returned are exactly the full scan's. Pure arithmetic.
 *
 * Row r (Float32 x, length dim): scale s = fround(max|x_i| / 127), c_i = round(x_i / s), the
 * quantization error e = x − s·c (its norm kept per row, with the norm of s·c).
 * Query q: t = max|q_i| / Q, qq_i = round(q_i / t) as Int16 (Q keeps Σ|qq_i·c_i| < 2³¹).
 * Approximate score a = s·t·Σ qq_i·c_i. Its distance to the exact dot product D = q·x is at most
 * ‖q‖·‖e‖ + ‖q − t·qq‖·‖s·c‖ (Cauchy–Schwarz on D − a = q·e + (q − t·qq)·s·c), and the Float32
 * score F the kernel's dot1 computes is within γ·‖q‖·‖x‖ of D (γ: the rounding of dot1's
 * per-lane sums and their total, (stride/4 + 5)·2⁻²⁴), ‖x‖ ≤ ‖s·c‖ + ‖e‖.
 */

export const I8_MAX = 127;
const I16_MAX = 32767;
const I32_MAX = 2 ** 31 - 1;
/** Float32 unit roundoff. */
const F32_EPS = 2 ** -24;
/** Covers the float64 rounding of the bounds themselves (relative) and of a = s·t·sum (absolute). */
const NORM_SLACK = 1 + 2 ** -40;
export const ABS_SLACK = 1e-12;
/** Added before Math.floor to round to the nearest integer (halves up, as Math.round). */
const ROUND_HALF = 0.5;

/** Per-row data of the Int8 copy: scale s, ‖e‖ and ‖s·c‖ (see the module header). */
export interface QuantizedRows {
  i8: Int8Array;
  scale: Float32Array;
  err: Float64Array;
  norm: Float64Array;
  /** Bytes per Int8 row: dim rounded up to a multiple of 8 (zero padded). */
  stride8: number;
}

export const int8Stride = (dim: number): number => Math.ceil(dim / 8) * 8;

/** Quantize row r from `data` (Float32, row at `base`, length dim) into `rows`. A row with a
 *  non-finite value gets NaN bounds: every scan then scores it in Float32. */
export function quantizeRow(data: Float32Array, base: number, dim: number, rows: QuantizedRows, r: number): void {
  const i8 = rows.i8;
  let max = 0;
  for (let i = 0; i < dim; i++) {
    const a = Math.abs(data[base + i]);
    if (!(a <= max)) max = a; // NaN too
  }
  const o = r * rows.stride8;
  const s = Math.fround(max / I8_MAX);
  if (!Number.isFinite(max) || !(s > 0)) {
    i8.fill(0, o, o + rows.stride8);
    rows.scale[r] = 0;
    // All zero: exact (a = 0 = F). Non-finite: NaN bounds.
    rows.err[r] = Number.isFinite(max) ? 0 : Number.NaN;
    rows.norm[r] = 0;
    return;
  }
  // Any c in range is sound (the bounds use the error c leaves); x·(1/s) rounds as x/s would
  // but for the last bit of a tie, and floor(y + 0.5) as Math.round(y) but for y one ulp below
  // a half (Math.round costs ~8× as much in V8 here: most of a 100k-row fill).
  const inv = 1 / s;
  let ee = 0;
  let nn = 0;
  for (let i = 0; i < dim; i++) {
    const x = data[base + i];
    let c = Math.floor(x * inv + ROUND_HALF);
    c = c > I8_MAX ? I8_MAX : c < -I8_MAX ? -I8_MAX : c;
    i8[o + i] = c;
    const v = s * c;
    const e = x - v;
    ee += e * e;
    nn += v * v;
  }
  for (let i = dim; i < rows.stride8; i++) i8[o + i] = 0;
  rows.scale[r] = s;
  rows.err[r] = Math.sqrt(ee) * NORM_SLACK;
  rows.norm[r] = Math.sqrt(nn) * NORM_SLACK;
}

/** What a scan needs of a quantized query: t, and the two factors of a row's bound
 *  (bound_r = err_r·cErr + norm_r·cNorm + ABS_SLACK). */
export interface QuantizedQuery {
  t: number;
  cErr: number;
  cNorm: number;
}

/** Quantize query q (Float32, length dim, finite) into q16 (length stride8, padding zeroed);
 *  `stride` is the Float32 row stride (for dot1's rounding bound). */
export function quantizeQuery(q: Float32Array, dim: number, q16: Int16Array, stride: number): QuantizedQuery {
  const limit = Math.min(I16_MAX, Math.floor(I32_MAX / (I8_MAX * q16.length)));
  let max = 0;
  let qq2 = 0;
  for (let i = 0; i < dim; i++) {
    max = Math.max(max, Math.abs(q[i]));
    qq2 += q[i] * q[i];
  }
  const qNorm = Math.sqrt(qq2) * NORM_SLACK;
  q16.fill(0);
  const t = max / limit;
  let ee = 0;
  if (t > 0) {
    for (let i = 0; i < dim; i++) {
      const c = Math.round(q[i] / t);
      q16[i] = c;
      ee += (q[i] - t * c) * (q[i] - t * c);
    }
  }
  const qErr = Math.sqrt(ee) * NORM_SLACK;
  const gamma = (stride / 4 + 5) * F32_EPS;
  return { t, cErr: qNorm * (1 + gamma), cNorm: qErr + gamma * qNorm };
}
