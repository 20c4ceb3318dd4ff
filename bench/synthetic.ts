/**
 * Synthetic data for the performance benchmarks (store, search, offers): a seeded PRNG, a
 * pseudo-vocabulary, a Zipf sampler, random unit vectors, and CPU time per call. Pure and
 * deterministic for a seed, so two runs measure the same data.
 */

export { seededRandom as prng } from '../shared/prng.js';

const SYLLABLES = 'ka lo mi nu pe ra si to vu xe ba de fi go hu ja ke li mo ny pa qu ro su ti wa ze cha sho tri'.split(' ');

/** `size` distinct pseudo-words of 1–4 syllables. With `shortestFirst`, rank 0 is the
 *  shortest (Zipf's law of abbreviation: in real text the frequent words are the short ones). */
export function syllableVocabulary(rand: () => number, size: number, shortestFirst = false): string[] {
  const seen = new Set<string>();
  while (seen.size < size) {
    const n = 1 + Math.floor(rand() * 4);
    let w = '';
    for (let i = 0; i < n; i++) w += SYLLABLES[Math.floor(rand() * SYLLABLES.length)];
    seen.add(w);
  }
  const words = [...seen];
  return shortestFirst ? words.sort((a, b) => a.length - b.length) : words;
}

/** Ranks 0..n-1 drawn with probability ∝ 1/(rank+1)^s. */
export function zipfSampler(rand: () => number, n: number, s: number): () => number {
  const cdf = new Float64Array(n);
  let acc = 0;
  for (let r = 0; r < n; r++) cdf[r] = acc += 1 / Math.pow(r + 1, s);
  return () => {
    const x = rand() * acc;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid] < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export { randomUnit } from '../shared/prng.js';

/** CPU ms (user + system) of this process per call of fn over `items`: independent of other load. */
export function cpuPer<T>(items: T[], fn: (x: T) => unknown): number {
  const c0 = process.cpuUsage();
  for (const x of items) fn(x);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / 1000 / Math.max(1, items.length);
}
