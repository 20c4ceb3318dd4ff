/**
 * Fusion (search/fusion.ts): worked examples per method and properties over random lists —
 * the fused list is the duplicate-free union of its inputs, it is deterministic and
 * independent of the order the lists come in, and moving a chunk up in one list never
 * moves it down in the fused ranking.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { fuse, type FusionMethod, type RankedList } from '../../search/fusion.js';
import type { Hit } from '../../store/types.js';
import { fuseHybrid } from '../../search/search.js';

const METHODS: FusionMethod[] = ['rrf', 'minmax', 'zscore'];

/** Hits from ids (best first) with strictly decreasing scores. */
function hits(ids: number[], scores?: number[]): Hit[] {
  return ids.map((chunkId, i) => ({ chunkId, score: scores ? scores[i] : ids.length - i, rank: i + 1 }));
}

/** A random ranked list: distinct ids, strictly decreasing scores. */
const listArb = fc
  .uniqueArray(fc.integer({ min: 1, max: 40 }), { minLength: 0, maxLength: 15 })
  .chain((ids) =>
    fc.uniqueArray(fc.double({ min: -50, max: 50, noNaN: true, noDefaultInfinity: true }), { minLength: ids.length, maxLength: ids.length }).map((scores) => {
      const sorted = [...scores].sort((a, b) => b - a);
      return hits(ids, sorted);
    }),
  );
const weightArb = fc.double({ min: 0.05, max: 1, noNaN: true });
const methodArb = fc.constantFrom(...METHODS);

describe('fuse: worked examples', () => {
  it('rrf sums w / (k + rank) and ranks agreement first', () => {
    const out = fuse(
      [
        { arm: 'keyword', hits: hits([1, 2, 3]), weight: 1 },
        { arm: 'vector', hits: hits([3, 4]), weight: 1 },
      ],
      { method: 'rrf', rrfK: 60 },
    );
    // 2 and 4 tie at 1/62 with the same best rank: the lower chunk id wins.
    expect(out.map((h) => h.chunkId)).toEqual([3, 1, 2, 4]);
    expect(out[0].score).toBeCloseTo(1 / 63 + 1 / 61, 12);
    expect(out[0].support).toBe(2);
    expect(out[0].arms).toEqual({ keyword: { rank: 3, score: 1 }, vector: { rank: 1, score: 2 } });
    expect(out[1].score).toBeCloseTo(1 / 61, 12);
    expect(out.map((h) => h.rank)).toEqual([1, 2, 3, 4]);
  });

  it('minmax normalizes each list to [0, 1] and weights it', () => {
    const out = fuse(
      [
        { arm: 'keyword', hits: hits([1, 2, 3], [10, 6, 2]), weight: 0.7 },
        { arm: 'vector', hits: hits([3, 2], [0.9, 0.5]), weight: 0.3 },
      ],
      { method: 'minmax' },
    );
    const score = Object.fromEntries(out.map((h) => [h.chunkId, h.score]));
    expect(score[1]).toBeCloseTo(0.7, 12);
    expect(score[2]).toBeCloseTo(0.7 * 0.5 + 0, 12);
    expect(score[3]).toBeCloseTo(0 + 0.3, 12);
    expect(out.map((h) => h.chunkId)).toEqual([1, 2, 3]);
  });

  it('minmax with a floorScore (exhaustive list) normalizes from the floor: the weakest hit still counts', () => {
    const lists = (floorScore?: number): RankedList[] => [
      { arm: 'keyword', hits: hits([1, 2], [10, 5]), weight: 0.7, floorScore },
      { arm: 'vector', hits: hits([3, 2], [0.9, 0.5]), weight: 0.3 },
    ];
    const withFloor = Object.fromEntries(fuse(lists(0), { method: 'minmax' }).map((h) => [h.chunkId, h.score]));
    expect(withFloor[1]).toBeCloseTo(0.7, 12);
    expect(withFloor[2]).toBeCloseTo(0.7 * 0.5 + 0, 12);
    expect(withFloor[3]).toBeCloseTo(0.3, 12);
    // Control: without the floor the weakest keyword hit normalizes to 0 and falls below chunk 3.
    const without = fuse(lists(), { method: 'minmax' });
    expect(without.map((h) => h.chunkId)).toEqual([1, 3, 2]);
    expect(fuse(lists(0), { method: 'minmax' }).map((h) => h.chunkId)).toEqual([1, 2, 3]);
    // A floor above the list's own minimum changes nothing.
    expect(fuse(lists(7), { method: 'minmax' })).toEqual(without);
  });

  it('fuseHybrid sets the keyword floor only when the keyword list is shorter than the depth', () => {
    const short = hits([1, 2], [10, 5]);
    const vec = hits([3, 2], [0.9, 0.5]);
    expect(fuseHybrid(short, vec, 10).map((h) => h.chunkId)).toEqual([1, 2, 3]);
    // A full-depth list (here depth = candidates = 2): the list's own minimum, as before.
    expect(fuseHybrid(short, vec, 2, { candidates: 2 }).map((h) => h.chunkId)).toEqual([1, 3]);
  });

  it('minmax: a list of one distinct score counts every hit as its best', () => {
    const out = fuse([{ arm: 'keyword', hits: hits([5, 6], [2, 2]), weight: 1 }], { method: 'minmax' });
    expect(out.map((h) => h.score)).toEqual([1, 1]);
    // Tie broken on best rank: 5 was ranked first.
    expect(out.map((h) => h.chunkId)).toEqual([5, 6]);
  });

  it('zscore gives a missing hit the list floor, not zero', () => {
    const out = fuse(
      [
        { arm: 'keyword', hits: hits([1, 2], [3, 1]), weight: 1 },
        { arm: 'vector', hits: hits([3, 1], [1, 0]), weight: 1 },
      ],
      { method: 'zscore' },
    );
    const score = Object.fromEntries(out.map((h) => [h.chunkId, h.score]));
    // keyword: mean 2, sd 1 → 1: +1, 2: −1, floor −1. vector: mean .5, sd .5 → 3: +1, 1: −1, floor −1.
    expect(score[1]).toBeCloseTo(1 - 1, 12);
    expect(score[2]).toBeCloseTo(-1 - 1, 12);
    expect(score[3]).toBeCloseTo(-1 + 1, 12);
  });

  it('limit keeps the best hits; a duplicate inside one list counts once', () => {
    const dup: Hit[] = [...hits([1, 2]), { chunkId: 1, score: 0, rank: 3 }];
    const out = fuse([{ arm: 'keyword', hits: dup, weight: 1 }], { method: 'rrf', limit: 1 });
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ chunkId: 1, support: 1, rank: 1 });
    expect(out[0].score).toBeCloseTo(1 / 61, 12);
  });

  it('rejects negative or non-finite weights', () => {
    expect(() => fuse([{ arm: 'keyword', hits: hits([1]), weight: -1 }])).toThrow(/weight/);
    expect(() => fuse([{ arm: 'vector', hits: hits([1]), weight: Number.NaN }])).toThrow(/weight/);
  });

  it('no lists or empty lists give nothing', () => {
    expect(fuse([])).toEqual([]);
    for (const method of METHODS) expect(fuse([{ arm: 'keyword', hits: [], weight: 1 }], { method })).toEqual([]);
  });

  it('multi-query: support counts lists, arms keep the best rank per arm', () => {
    const out = fuse(
      [
        { arm: 'keyword', hits: hits([7, 8]), weight: 1 },
        { arm: 'keyword', hits: hits([8, 7]), weight: 1 },
        { arm: 'vector', hits: hits([9, 7]), weight: 1 },
      ],
      { method: 'rrf' },
    );
    const seven = out.find((h) => h.chunkId === 7)!;
    expect(seven.support).toBe(3);
    expect(seven.arms.keyword.rank).toBe(1);
    expect(seven.arms.vector.rank).toBe(2);
    expect(out[0].chunkId).toBe(7);
  });
});

describe('fuse: properties', () => {
  it('the fused list is the duplicate-free union of the inputs, ranked 1..n', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(listArb, weightArb), { maxLength: 4 }), methodArb, (ls, method) => {
        const lists: RankedList[] = ls.map(([h, w], i) => ({ arm: i % 2 ? 'vector' : 'keyword', hits: h, weight: w }));
        const out = fuse(lists, { method });
        const ids = out.map((h) => h.chunkId);
        expect(new Set(ids).size).toBe(ids.length);
        expect(new Set(ids)).toEqual(new Set(lists.flatMap((l) => l.hits.map((h) => h.chunkId))));
        expect(out.map((h) => h.rank)).toEqual(ids.map((_, i) => i + 1));
        for (let i = 1; i < out.length; i++) expect(out[i - 1].score).toBeGreaterThanOrEqual(out[i].score);
        for (const h of out) expect(h.support).toBe(lists.filter((l) => l.hits.some((x) => x.chunkId === h.chunkId)).length);
      }),
    );
  });

  it('is deterministic and does not depend on the order of two lists', () => {
    fc.assert(
      fc.property(listArb, listArb, weightArb, weightArb, methodArb, (a, b, wa, wb, method) => {
        const A = { arm: 'keyword', hits: a, weight: wa };
        const B = { arm: 'vector', hits: b, weight: wb };
        const one = fuse([A, B], { method });
        expect(fuse([A, B], { method })).toEqual(one);
        expect(fuse([B, A], { method }).map((h) => h.chunkId)).toEqual(one.map((h) => h.chunkId));
      }),
    );
  });

  it('moving a chunk up one place in one list never moves it down in the fused ranking', () => {
    fc.assert(
      fc.property(listArb, listArb, weightArb, weightArb, methodArb, fc.nat(), fc.boolean(), (a, b, wa, wb, method, pick, inFirst) => {
        const target = inFirst ? a : b;
        fc.pre(target.length >= 2);
        const i = 1 + (pick % (target.length - 1)); // position of the chunk that moves up to i−1
        const moved = target.map((h) => ({ ...h }));
        const up = moved[i].chunkId;
        moved[i].chunkId = moved[i - 1].chunkId;
        moved[i - 1].chunkId = up;
        const before = fuse([
          { arm: 'keyword', hits: a, weight: wa },
          { arm: 'vector', hits: b, weight: wb },
        ], { method });
        const after = fuse([
          { arm: 'keyword', hits: inFirst ? moved : a, weight: wa },
          { arm: 'vector', hits: inFirst ? b : moved, weight: wb },
        ], { method });
        const rankOf = (out: typeof before) => out.find((h) => h.chunkId === up)!.rank;
        expect(rankOf(after)).toBeLessThanOrEqual(rankOf(before));
      }),
    );
  });

  it('a zero-weight list cannot reorder chunks the other list scores differently', () => {
    fc.assert(
      fc.property(listArb, listArb, methodArb, (a, b, method) => {
        const out = fuse([
          { arm: 'keyword', hits: a, weight: 1 },
          { arm: 'vector', hits: b, weight: 0 },
        ], { method });
        const pos = new Map(out.map((h) => [h.chunkId, h.rank]));
        const hi = fuse([{ arm: 'keyword', hits: a, weight: 1 }], { method });
        for (let i = 1; i < hi.length; i++) {
          if (hi[i - 1].score > hi[i].score) expect(pos.get(hi[i - 1].chunkId)!).toBeLessThan(pos.get(hi[i].chunkId)!);
        }
      }),
    );
  });
});
