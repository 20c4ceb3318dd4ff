/**
 * A lexical TextTiling-style topic-boundary detector (Hearst 1997), the lexical baseline of
 * `eval drift`: block cosine of content-term frequency vectors on each side of every gap,
 * depth scores from the neighbouring peaks, boundary where depth exceeds mean − sd/2 (Hearst's
 * "liberal" cutoff) of the dialogue's depth scores. Pure; input is utterance texts, output
 * boundary flags per utterance (index 0 is never a boundary).
 */
import { contentTokens } from '../core/lexical.js';

/** Utterances per block on each side of a gap. */
export const TEXTTILING_BLOCK = 2;
/** Cutoff = mean − this × sd of the depth scores. */
export const TEXTTILING_SD_FACTOR = 0.5;

function termVector(texts: readonly string[][]): Map<string, number> {
  const m = new Map<string, number>();
  for (const toks of texts) for (const t of toks) m.set(t, (m.get(t) ?? 0) + 1);
  return m;
}

function cosine(a: Map<string, number>, b: Map<string, number>): number {
  let d = 0;
  let na = 0;
  let nb = 0;
  for (const [t, x] of a) {
    na += x * x;
    const y = b.get(t);
    if (y) d += x * y;
  }
  for (const y of b.values()) nb += y * y;
  return na > 0 && nb > 0 ? d / Math.sqrt(na * nb) : 0;
}

/**
 * Depth score of every gap of one dialogue (entry i is the gap before utterance i + 1):
 * how far the block similarity across the gap dips below its neighbouring peaks.
 */
export function textTilingDepths(utterances: readonly string[], block = TEXTTILING_BLOCK): number[] {
  const n = utterances.length;
  const toks = utterances.map(contentTokens);
  const sims: number[] = [];
  for (let g = 1; g < n; g++) {
    const left = termVector(toks.slice(Math.max(0, g - block), g));
    const right = termVector(toks.slice(g, g + block));
    sims.push(cosine(left, right));
  }
  return sims.map((s, i) => {
    let l = s;
    for (let j = i - 1; j >= 0 && sims[j] >= l; j--) l = sims[j];
    let r = s;
    for (let j = i + 1; j < sims.length && sims[j] >= r; j++) r = sims[j];
    return l - s + (r - s);
  });
}

/** Boundary flags for one dialogue (gap before utterance i, for i ≥ 1), Hearst's cutoff. */
export function textTiling(utterances: readonly string[], block = TEXTTILING_BLOCK): boolean[] {
  const n = utterances.length;
  const out = new Array<boolean>(n).fill(false);
  if (n < 3) return out;
  const depth = textTilingDepths(utterances, block);
  const mean = depth.reduce((a, b) => a + b, 0) / depth.length;
  const sd = Math.sqrt(depth.reduce((a, b) => a + (b - mean) ** 2, 0) / depth.length);
  const cutoff = mean - TEXTTILING_SD_FACTOR * sd;
  depth.forEach((d, i) => {
    // a boundary needs a real valley (depth > 0) that clears the cutoff
    if (d > 0 && d > cutoff) out[i + 1] = true;
  });
  return out;
}
