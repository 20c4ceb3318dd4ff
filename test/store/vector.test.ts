/**
 * Vector search against a naive computation (cosine of every stored vector, sorted), for
 * single and batched queries, with region, scope and exclude filters; and the scope rule as
 * a property: a `project:<glob>` region is never returned for a cwd outside its glob, and is
 * returned for a cwd inside it (control).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { StoreReader, StoreWriter, SearchFilter } from '../../store/types.js';
import { scopeAllows } from '../../shared/modes.js';
import { VectorMatrix } from '../../store/vector-matrix.js';
import { quantizeRow, int8Stride } from '../../store/vector-quantized.js';
import { tempDir, prng, randomUnit } from './helpers.js';

const DIM = 24;
const N_DOCS = 60;
const rand = prng(3);
let t: ReturnType<typeof tempDir>;
let w: StoreWriter;
let r: StoreReader;
let rJs: StoreReader;
const stored = new Map<number, { v: Float32Array; region: string; scope: string }>();
const REGIONS: Array<[string, string]> = [
  ['notes', 'global'],
  ['api', 'project:/work/api/**'],
  ['web', 'project:/work/web'],
  ['home', 'project:~/code/*'],
];

beforeAll(() => {
  t = tempDir();
  w = openStoreWriter(join(t.dir, 'store.sqlite'));
  w.setModel('m', DIM);
  const sources = REGIONS.map(([name, scope]) => {
    w.ensureRegion(name, scope);
    return w.addSource(name, join(t.dir, name), 'notes');
  });
  w.transaction(() => {
    for (let d = 0; d < N_DOCS; d++) {
      const s = sources[d % sources.length];
      const n = 1 + Math.floor(rand() * 4);
      const vs = Array.from({ length: n }, () => {
        // Unnormalized on purpose: the store normalizes.
        const v = randomUnit(rand, DIM);
        return v.map((x) => x * 3.5);
      });
      w.replaceDocument(
        { sourceId: s.id, path: join(s.path, `d${d}.md`), hash: String(d), mtime: 1, size: 1, title: `doc ${d}` },
        vs.map((_, i) => ({ heading: '', text: `chunk ${d} ${i}`, createdAt: d })),
        vs,
      );
    }
  });
  r = openStoreReader(join(t.dir, 'store.sqlite'));
  rJs = openStoreReader(join(t.dir, 'store.sqlite'), { scanMethod: 'js' });
  for (const c of r.getChunks(Array.from({ length: 1000 }, (_, i) => i + 1))) {
    stored.set(c.id, { v: r.chunkVector(c.id)!, region: c.region, scope: c.regionScope });
  }
});
afterAll(() => {
  r.close();
  rJs.close();
  w.close();
  t.cleanup();
});

function naive(q: Float32Array, k: number, filter: SearchFilter = {}): Array<{ id: number; s: number }> {
  const qn = Math.hypot(...q);
  const out: Array<{ id: number; s: number }> = [];
  for (const [id, c] of stored) {
    if (filter.regions && !filter.regions.includes(c.region)) continue;
    if (filter.cwd !== undefined && !scopeAllows(c.scope, filter.cwd)) continue;
    if (filter.excludeChunkIds?.includes(id)) continue;
    let s = 0;
    for (let i = 0; i < DIM; i++) s += q[i] * c.v[i];
    out.push({ id, s: s / qn });
  }
  return out.sort((a, b) => b.s - a.s || a.id - b.id).slice(0, k);
}

describe('vector scan kernel', () => {
  it('WebAssembly SIMD is used on this Node (the JS loop is only the fallback)', () => {
    expect(new VectorMatrix(DIM, 1).method).toBe('wasm-simd');
    expect(new VectorMatrix(DIM, 1, { method: 'js' }).method).toBe('js');
  });

  it.each(['wasm-simd', 'js'] as const)('%s: dimensions that are not a multiple of 4 (zero padding) and 1–9 queries', (method) => {
    for (const dim of [1, 3, 7, 10]) {
      const rnd = prng(dim);
      const rows = Array.from({ length: 37 }, () => randomUnit(rnd, dim));
      const m = new VectorMatrix(dim, rows.length, { method });
      rows.forEach((v, i) => m.addRow(100 + i, 1, v));
      for (const nq of [1, 2, 4, 5, 9]) {
        const qs = Array.from({ length: nq }, () => randomUnit(rnd, dim));
        const got = m.search(qs, 5, { allowedRegions: null, exclude: null });
        qs.forEach((q, j) => {
          const want = rows
            .map((v, i) => ({ id: 100 + i, s: v.reduce((a, x, d) => a + x * q[d], 0) }))
            .sort((a, b) => b.s - a.s || a.id - b.id)
            .slice(0, 5);
          expect(got[j].map((h) => h.score)).toEqual(want.map((w) => expect.closeTo(w.s, 5)));
          // Ids agree except where two scores tie within float32 precision.
          got[j].forEach((h, i) => {
            if (h.chunkId !== want[i].id) expect(Math.abs(h.score - want[i].s)).toBeLessThan(1e-5);
          });
        });
      }
    }
  });
});

describe('quantized first pass (Int8 rows, proven bounds)', () => {
  it('returns exactly the full Float32 scan: same ids, same scores, ties to the lower id; with duplicates, zero rows, filters, updates', () => {
    for (const dim of [5, 24, 100]) {
      const rnd = prng(dim * 7);
      const n = 3_000;
      const rows = Array.from({ length: n }, (_, i) => (i % 97 === 0 ? new Float32Array(dim) : randomUnit(rnd, dim)));
      // Exact duplicates: equal scores, so the tie rule decides.
      for (let i = 1; i < n; i += 50) rows[i] = rows[i - 1].slice();
      const build = (quantize: boolean) => {
        const m = new VectorMatrix(dim, n + 10, { quantize });
        rows.forEach((v, i) => m.addRow(10 + i, i % 3, v));
        return m;
      };
      const full = build(false);
      const quant = build(true);
      const filters = [
        { allowedRegions: null, exclude: null },
        { allowedRegions: new Uint8Array([1, 0, 1]), exclude: new Set([10, 11, 60]) },
      ];
      for (let qi = 0; qi < 40; qi++) {
        // Queries near stored rows (many close scores at the top) and random ones.
        const q = qi % 2 ? randomUnit(rnd, dim) : rows[Math.floor(rnd() * n)].map((x) => x + (rnd() - 0.5) * 0.05);
        for (const f of filters) for (const k of [1, 10, 50]) expect(quant.search([q], k, f)).toEqual(full.search([q], k, f));
      }
      // retain() and copyRows() keep the Int8 rows in step.
      const keep = Uint8Array.from({ length: n }, (_, i) => (i % 5 === 0 ? 0 : 1));
      full.retain(keep);
      quant.retain(keep);
      const grown = new VectorMatrix(dim, n + 10, { quantize: true });
      grown.copyRows(full, 0, full.n);
      const q = randomUnit(rnd, dim);
      const f = { allowedRegions: null, exclude: null };
      expect(quant.search([q], 20, f)).toEqual(full.search([q], 20, f));
      expect(grown.search([q], 20, f)).toEqual(full.search([q], 20, f));
    }
  });

  it('each Int8 value is the nearest integer to x / scale (halves up): the small errors the bounds rely on to prune', () => {
    const rnd = prng(5);
    const dim = 100;
    const rows = { i8: new Int8Array(int8Stride(dim)), scale: new Float32Array(1), err: new Float64Array(1), norm: new Float64Array(1), stride8: int8Stride(dim) };
    for (let r = 0; r < 200; r++) {
      const x = randomUnit(rnd, dim);
      quantizeRow(x, 0, dim, rows, 0);
      const s = rows.scale[0];
      for (let i = 0; i < dim; i++) expect(Math.abs(x[i] / s - rows.i8[i])).toBeLessThanOrEqual(0.5 + 1e-6);
      // The row's error norm is the one its values leave (rounded up by the slack only).
      let ee = 0;
      for (let i = 0; i < dim; i++) ee += (x[i] - s * rows.i8[i]) ** 2;
      expect(rows.err[0]).toBeCloseTo(Math.sqrt(ee), 12);
    }
  });
});

describe('vector matrix updates in place (the team store reader refreshes this way)', () => {
  it.each(['wasm-simd', 'js'] as const)('%s: retain() and copyRows() answer exactly as a matrix built from the kept rows', (method) => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 1, max: 1000 }), (keepFlags, extra, seed) => {
        const dim = 6;
        const rnd = prng(seed);
        const rows = keepFlags.map(() => randomUnit(rnd, dim));
        const added = Array.from({ length: extra }, () => randomUnit(rnd, dim));
        const m = new VectorMatrix(dim, rows.length + extra, { method });
        rows.forEach((v, i) => m.addRow(i + 1, 1 + (i % 2), v));
        m.retain(Uint8Array.from(keepFlags, (k) => (k ? 1 : 0)));
        const grown = new VectorMatrix(dim, m.n + extra, { method });
        grown.copyRows(m, 0, m.n);
        added.forEach((v, i) => grown.addRow(1000 + i, 1, v));
        const fresh = new VectorMatrix(dim, rows.length + extra, { method });
        rows.forEach((v, i) => keepFlags[i] && fresh.addRow(i + 1, 1 + (i % 2), v));
        added.forEach((v, i) => fresh.addRow(1000 + i, 1, v));
        expect(grown.n).toBe(fresh.n);
        const q = [randomUnit(rnd, dim)];
        const f = { allowedRegions: new Uint8Array([0, 1, 0]), exclude: null };
        expect(grown.search(q, 8, f)).toEqual(fresh.search(q, 8, f));
        expect(grown.search(q, 8, { allowedRegions: null, exclude: null })).toEqual(fresh.search(q, 8, { allowedRegions: null, exclude: null }));
      }),
      { numRuns: 100 },
    );
  });
});

describe.each([['wasm-simd', () => r], ['js', () => rJs]] as const)('vector search (%s)', (_name, reader) => {
  let r: StoreReader;
  beforeAll(() => {
    r = reader();
  });

  it('matches a naive cosine ranking, single and batched (incl. > 4 queries)', () => {
    expect(stored.size).toBeGreaterThan(N_DOCS);
    for (const v of stored.values()) expect(Math.hypot(...v.v)).toBeCloseTo(1, 5);
    const qs = Array.from({ length: 9 }, () => randomUnit(rand, DIM).map((x) => x * 0.3));
    const batched = r.vectorSearch(qs, 7);
    expect(batched).toHaveLength(9);
    qs.forEach((q, j) => {
      const want = naive(q, 7);
      const single = r.vectorSearch([q], 7)[0];
      expect(single.map((h) => h.chunkId)).toEqual(want.map((x) => x.id));
      expect(batched[j].map((h) => h.chunkId)).toEqual(want.map((x) => x.id));
      single.forEach((h, i) => {
        expect(h.score).toBeCloseTo(want[i].s, 5);
        expect(h.rank).toBe(i + 1);
      });
    });
  });

  it('property: filters (regions, cwd scope, excludes) give exactly the naive filtered top-k', () => {
    const ids = [...stored.keys()];
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 2 ** 31 }),
        fc.option(fc.subarray(REGIONS.map(([n]) => n)), { nil: undefined }),
        fc.option(fc.constantFrom('/work/api', '/work/api/src/x', '/work/web', '/work/web/sub', '/tmp', null), { nil: undefined }),
        fc.subarray(ids, { maxLength: 15 }),
        fc.integer({ min: 1, max: 12 }),
        (seed, regions, cwd, excludeChunkIds, k) => {
          const q = randomUnit(prng(seed), DIM);
          const filter: SearchFilter = { regions, cwd, excludeChunkIds };
          const got = r.vectorSearch([q, q], k, filter);
          const want = naive(q, k, filter).map((x) => x.id);
          expect(got[0].map((h) => h.chunkId)).toEqual(want);
          expect(got[1].map((h) => h.chunkId)).toEqual(want);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('zero query → no hits; wrong dimension → clear error; no queries → []', () => {
    expect(r.vectorSearch([new Float32Array(DIM)], 5)).toEqual([[]]);
    expect(r.vectorSearch([], 5)).toEqual([]);
    expect(() => r.vectorSearch([new Float32Array(DIM + 1).fill(1)], 5)).toThrow(/dimension 25.*24/);
    expect(r.vectorSearch([randomUnit(rand, DIM)], 0)).toEqual([[]]);
  });
});

describe('region scope filter', () => {
  const segs = fc.constantFrom('work', 'api', 'web', 'src', 'a', 'b.c', 'x y');
  const path = fc.array(segs, { minLength: 0, maxLength: 4 }).map((p) => '/' + p.join('/'));
  const glob = fc.array(fc.constantFrom('work', 'api', 'web', '*', '**', 'src', 'a?'), { minLength: 1, maxLength: 4 }).map((p) => '/' + p.join('/'));

  it('property: a project:<glob> region is returned iff the cwd matches its glob', () => {
    const t2 = tempDir();
    const w2 = openStoreWriter(join(t2.dir, 'store.sqlite'));
    w2.setModel('m', 4);
    w2.ensureRegion('g', 'global');
    w2.ensureRegion('p', 'project:/never');
    const sg = w2.addSource('g', join(t2.dir, 'g'), 'notes');
    const sp = w2.addSource('p', join(t2.dir, 'p'), 'notes');
    const v = new Float32Array([1, 0, 0, 0]);
    w2.replaceDocument({ sourceId: sg.id, path: join(t2.dir, 'g', 'a.md'), hash: 'a', mtime: 1, size: 1, title: 'zebra' }, [{ heading: '', text: 'zebra global', createdAt: 1 }], [v]);
    w2.replaceDocument({ sourceId: sp.id, path: join(t2.dir, 'p', 'b.md'), hash: 'b', mtime: 1, size: 1, title: 'zebra' }, [{ heading: '', text: 'zebra project', createdAt: 1 }], [v]);
    const r2 = openStoreReader(join(t2.dir, 'store.sqlite'));
    try {
      let inside = 0;
      let outside = 0;
      fc.assert(
        fc.property(glob, fc.oneof(path, fc.constant(null)), fc.boolean(), (g, randomCwd, derive) => {
          // Half the time the cwd is made from the glob itself (so it usually matches).
          const cwd = derive ? g.replace(/\*\*/g, 'x/y').replace(/\*/g, 'a').replace(/\?/g, 'b') : randomCwd;
          w2.ensureRegion('p', `project:${g}`);
          const regionsOf = (ids: number[]) => r2.getChunks(ids).map((c) => c.region).sort();
          const allowed = scopeAllows(`project:${g}`, cwd);
          if (allowed) inside++;
          else outside++;
          const want = allowed ? ['g', 'p'] : ['g'];
          expect(regionsOf(r2.keywordSearch('zebra', 5, { cwd }).map((h) => h.chunkId))).toEqual(want);
          expect(regionsOf(r2.vectorSearch([v], 5, { cwd })[0].map((h) => h.chunkId))).toEqual(want);
          expect(regionsOf(r2.nameSearch('zebra', 5, { cwd }).map((h) => h.chunkId))).toEqual(want);
          // No cwd filter at all: everything.
          expect(regionsOf(r2.keywordSearch('zebra', 5).map((h) => h.chunkId))).toEqual(['g', 'p']);
        }),
        { numRuns: 200 },
      );
      // Both branches were exercised (the filter both hides and shows).
      expect(inside).toBeGreaterThan(5);
      expect(outside).toBeGreaterThan(5);
    } finally {
      r2.close();
      w2.close();
      t2.cleanup();
    }
  });
});
