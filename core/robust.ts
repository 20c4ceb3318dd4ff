/**
 * Robust location/scale statistics for calibrating triggers against a session's own history:
 * median, MAD-based z-scores with a range floor, and empirical quantiles. Pure. Every
 * function here is invariant under an affine rescaling x → a·x + b (a > 0) of its inputs,
 * which is what keeps the triggers independent of an embedding model's cosine scale.
 */

/** MAD → standard deviation for normal data. */
const MAD_TO_SD = 1.4826;
/** The spread never counts as smaller than this share of the history's range (tiny or flat histories). */
export const SPREAD_RANGE_FLOOR = 0.1;
/** Absolute last-resort spread (a perfectly flat history). */
const MIN_SPREAD = 1e-9;

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  if (n === 0) return NaN;
  return n % 2 ? s[(n - 1) / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

/** Robust spread of a history: max(1.4826·MAD, floor·range, ε). */
export function robustSpread(xs: readonly number[]): number {
  const m = median(xs);
  const mad = median(xs.map((x) => Math.abs(x - m)));
  let lo = Infinity;
  let hi = -Infinity;
  for (const x of xs) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return Math.max(MAD_TO_SD * mad, SPREAD_RANGE_FLOOR * (hi - lo), MIN_SPREAD);
}

/** How many robust SDs x lies *above* the history's median (negative: below). */
export function robustZ(history: readonly number[], x: number): number {
  return (x - median(history)) / robustSpread(history);
}

/** Share of the history at or below x. */
export function quantileBelow(history: readonly number[], x: number): number {
  if (history.length === 0) return NaN;
  let n = 0;
  for (const h of history) if (h <= x) n++;
  return n / history.length;
}

/** Share of the history at or above x. */
export function quantileAbove(history: readonly number[], x: number): number {
  if (history.length === 0) return NaN;
  let n = 0;
  for (const h of history) if (h >= x) n++;
  return n / history.length;
}
