/**
 * A seeded pseudo-random generator (mulberry32): deterministic floats in [0, 1) for replay,
 * evaluation baselines, store-scale sampling, benchmarks and tests. Not for security.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** An isotropic random unit vector from `rand` (Box–Muller; two draws per component). */
export function randomUnit(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let ss = 0;
  for (let i = 0; i < dim; i++) {
    const g = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    v[i] = g;
    ss += g * g;
  }
  const inv = 1 / Math.sqrt(ss || 1);
  for (let i = 0; i < dim; i++) v[i] *= inv;
  return v;
}
