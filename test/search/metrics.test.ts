/**
 * Metrics (eval/metrics.ts): hand-computed Recall@k and nDCG@k (graded, linear gain) and
 * properties — both lie in [0, 1], the ideal ordering scores 1, repeats earn nothing.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { recallAt, ndcgAt, mean, firstUnique } from '../../eval/metrics.js';

const q = (o: Record<string, number>) => new Map(Object.entries(o));

describe('recallAt', () => {
  it('counts relevant ids in the first k', () => {
    expect(recallAt(['a', 'x', 'b', 'c'], q({ a: 1, b: 1, c: 1 }), 2)).toBeCloseTo(1 / 3, 12);
    expect(recallAt(['a', 'x', 'b', 'c'], q({ a: 1, b: 1, c: 1 }), 4)).toBe(1);
    expect(recallAt([], q({ a: 1 }), 10)).toBe(0);
  });
  it('ignores grade-0 judgments and is null with nothing relevant', () => {
    expect(recallAt(['a', 'b'], q({ a: 0, b: 2 }), 1)).toBe(0);
    expect(recallAt(['a'], q({ a: 0 }), 1)).toBeNull();
  });
  it('a repeated id takes no rank and earns nothing twice', () => {
    expect(firstUnique(['a', 'a', 'b'], 2)).toEqual(['a', 'b']);
    expect(recallAt(['a', 'a', 'b'], q({ a: 1, b: 1 }), 2)).toBe(1);
  });
});

describe('ndcgAt', () => {
  it('matches a hand computation with graded relevance', () => {
    // ranking: b (2), x (0), a (1); ideal: b (2), a (1).
    const dcg = 2 / Math.log2(2) + 1 / Math.log2(4);
    const idcg = 2 / Math.log2(2) + 1 / Math.log2(3);
    expect(ndcgAt(['b', 'x', 'a'], q({ a: 1, b: 2 }), 10)).toBeCloseTo(dcg / idcg, 12);
  });
  it('cuts at k for both the ranking and the ideal', () => {
    // k = 1: only the first place counts; ideal is the grade-2 doc first.
    expect(ndcgAt(['a', 'b'], q({ a: 1, b: 2 }), 1)).toBeCloseTo(1 / 2, 12);
  });
  it('null with nothing relevant', () => {
    expect(ndcgAt(['a'], q({}), 10)).toBeNull();
  });
});

describe('metric properties', () => {
  const ids = fc.uniqueArray(fc.constantFrom(...'abcdefghij'.split('')), { maxLength: 10 });
  const qrels = fc.dictionary(fc.constantFrom(...'abcdefghij'.split('')), fc.integer({ min: 0, max: 3 }));
  it('both lie in [0, 1]; the ideal ordering has nDCG 1 and full recall at its length', () => {
    fc.assert(
      fc.property(ids, qrels, fc.integer({ min: 1, max: 12 }), (ranked, rel, k) => {
        const m = new Map(Object.entries(rel));
        const r = recallAt(ranked, m, k);
        const n = ndcgAt(ranked, m, k);
        const relevant = [...m].filter(([, g]) => g > 0);
        if (relevant.length === 0) {
          expect(r).toBeNull();
          expect(n).toBeNull();
          return;
        }
        expect(r!).toBeGreaterThanOrEqual(0);
        expect(r!).toBeLessThanOrEqual(1);
        expect(n!).toBeGreaterThanOrEqual(0);
        expect(n!).toBeLessThanOrEqual(1 + 1e-12);
        const ideal = relevant.sort((a, b) => b[1] - a[1]).map(([id]) => id);
        expect(ndcgAt(ideal, m, k)).toBeCloseTo(1, 12);
        expect(recallAt(ideal, m, ideal.length)).toBe(1);
      }),
    );
  });
  it('mean of nothing is 0', () => {
    expect(mean([])).toBe(0);
    expect(mean([1, 2])).toBe(1.5);
  });
});
