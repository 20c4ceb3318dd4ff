/**
 * The first fill of the vector matrix from runs of stored vectors (store/matrix-fill.ts; the
 * SQLite rows' vectorRuns in store/reader.ts) holds exactly what the row-by-row fill holds:
 * the same ids, regions and Float32 rows in the same order, and the same search answers —
 * over random ids with gaps, vectors of chunks no longer visible, runs cut anywhere, and a real
 * store larger than one page of runs, after deletes. Also: the id list of a page is checked, and
 * rows fetched by a dense ascending id list (range scans) are those the same ids fetched one by
 * one give.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { join } from 'node:path';
import { VectorMatrix } from '../../store/vector-matrix.js';
import { fillMatrix, type VectorRun } from '../../store/matrix-fill.js';
import { LocalIndexes, type RowSource } from '../../store/local-indexes.js';
import { sqliteRows, parseIdList, denseRange, VECTOR_RUN_ROWS } from '../../store/sqlite-rows.js';
import { SqliteChunkTerms } from '../../store/sqlite-terms.js';
import { openReadonlyDb } from '../../store/open.js';
import { tempDir, makeStore, prng, randomUnit } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

/** Everything a matrix holds, for comparison. */
function contents(m: VectorMatrix) {
  return {
    n: m.n,
    ids: Array.from(m.ids.subarray(0, m.n)),
    regions: Array.from(m.regionIds.subarray(0, m.n)),
    data: Array.from(m.data.subarray(0, m.n * m.stride)),
  };
}

describe('fillMatrix (runs of stored vectors)', () => {
  it('holds what a row-by-row fill holds: gaps, vectors of hidden chunks, runs cut anywhere (Float32 and Int8 scans)', () => {
    for (const seed of [1, 2, 3, 4]) {
      const rand = prng(seed);
      const dim = [3, 8, 12][seed % 3];
      // Stored vectors: ids with gaps; visible chunks: most of them plus some without a vector.
      const stored: number[] = [];
      for (let id = 1; stored.length < 300; id += 1 + Math.floor(rand() * 3)) stored.push(id);
      const visible = [...new Set([...stored.filter(() => rand() < 0.8), ...Array.from({ length: 20 }, () => 1 + Math.floor(rand() * 900))])].sort((a, b) => a - b);
      const ids = Int32Array.from(visible);
      const regions = Int32Array.from(visible, (id) => 1 + (id % 3));
      const vecs = new Map(stored.map((id) => [id, randomUnit(rand, dim)]));
      // Runs of random lengths (1..40 rows), in id order.
      const runs: VectorRun[] = [];
      for (let i = 0; i < stored.length; ) {
        const len = Math.min(stored.length - i, 1 + Math.floor(rand() * 40));
        const data = new Float32Array(len * dim);
        stored.slice(i, i + len).forEach((id, j) => data.set(vecs.get(id)!, j * dim));
        runs.push({ ids: stored.slice(i, i + len), data });
        i += len;
      }
      for (const quantize of [false, true]) {
        const byRow = new VectorMatrix(dim, ids.length + 5, { quantize });
        visible.forEach((id, i) => {
          const v = vecs.get(id);
          if (v) byRow.addBlob(id, regions[i], new Uint8Array(v.buffer));
        });
        const bulk = fillMatrix(dim, ids.length + 5, ids, regions, runs, undefined);
        const quantized = new VectorMatrix(dim, ids.length + 5, { quantize });
        for (const r of runs) for (let j = 0; j < r.ids.length; ) {
          // the same rows through addRun with the quantize option under test
          const at = visible.indexOf(r.ids[j]);
          if (at >= 0) quantized.addRun(ids, regions, at, r.data, j, 1);
          j++;
        }
        expect(contents(bulk)).toEqual(contents(byRow));
        expect(contents(quantized)).toEqual(contents(byRow));
        const q = [randomUnit(rand, dim)];
        const f = { allowedRegions: null, exclude: null };
        expect(quantized.search(q, 25, f)).toEqual(byRow.search(q, 25, f));
        expect(bulk.search(q, 25, { allowedRegions: Uint8Array.from([0, 1, 0, 1]), exclude: new Set([visible[3]]) })).toEqual(
          byRow.search(q, 25, { allowedRegions: Uint8Array.from([0, 1, 0, 1]), exclude: new Set([visible[3]]) }),
        );
      }
    }
  });

  it('rejects a run whose data does not match its ids', () => {
    const ids = Int32Array.from([1, 2]);
    expect(() => fillMatrix(4, 2, ids, ids, [{ ids: [1, 2], data: new Float32Array(4) }])).toThrow(/vector run/);
  });

  it('parseIdList: ids ascending above the page start, else an error', () => {
    expect(Array.from(parseIdList('3,4,9', 2))).toEqual([3, 4, 9]);
    expect(() => parseIdList('3,9,4', 0)).toThrow(/out of order/);
    expect(() => parseIdList('3,4', 3)).toThrow(/out of order/);
    expect(() => parseIdList('3,x', 0)).toThrow(/malformed/);
    expect(() => parseIdList('3,,4', 0)).toThrow(/malformed/);
    expect(() => parseIdList('', 0)).toThrow(/malformed/);
    expect(Array.from(parseIdList('2097151,2097152,9007199254740991', 0))).toEqual([2097151, 2097152, 9007199254740991]);
  });
});

describe('SQLite reader: the first fill reads runs of vectors', () => {
  it('the same matrix as the row-by-row fill, over more than one page, after deletes', () => {
    const t = tempDir();
    const dim = 8;
    const f = makeStore(t.dir, dim);
    cleanups.push(() => t.cleanup());
    const rand = prng(11);
    const docs = Math.ceil((2.5 * VECTOR_RUN_ROWS) / 5);
    for (let d = 0; d < docs; d++) {
      const region = d % 2 ? 'api' : 'notes';
      f.writer.replaceDocument(
        { sourceId: f.sources[region].id, path: join(t.dir, region === 'api' ? 'api-notes' : 'notes', `d${d}.md`), hash: `h${d}`, mtime: 1, size: 1, title: `doc ${d}` },
        Array.from({ length: 5 }, (_, j) => ({ heading: '', text: `chunk ${j} of ${d}`, createdAt: j })),
        Array.from({ length: 5 }, () => randomUnit(rand, dim)),
      );
    }
    for (let d = 3; d < docs; d += 9) f.writer.removeDocument(join(t.dir, d % 2 ? 'api-notes' : 'notes', `d${d}.md`));
    f.writer.close();
    const db = openReadonlyDb(f.path);
    const terms = new SqliteChunkTerms();
    cleanups.push(() => {
      terms.close();
      db.close();
    });
    const rows = sqliteRows(db, () => terms);
    const byRuns = new LocalIndexes({ keywords: false });
    byRuns.sync(rows);
    const withoutRuns: RowSource = { ...rows, vectorRuns: undefined };
    const byRow = new LocalIndexes({ keywords: false });
    byRow.sync(withoutRuns);
    const stored = db.prepare('SELECT count(*) FROM vectors').pluck().get() as number;
    expect(stored).toBeGreaterThan(2 * VECTOR_RUN_ROWS);
    expect(byRuns.matrix!.n).toBe(stored);
    expect(contents(byRuns.matrix!)).toEqual(contents(byRow.matrix!));
  });
});

describe('SQLite reader: rows fetched by a dense id list', () => {
  it('denseRange: ascending ids filling at least half their range', () => {
    expect(denseRange([4, 5, 7])).toEqual([4, 7]);
    expect(denseRange([4, 9])).toBeNull();
    expect(denseRange([5, 4, 6])).toBeNull();
    expect(denseRange([4, 4, 5])).toBeNull();
    expect(denseRange([])).toBeNull();
  });

  it('the same rows (vectors and terms) as fetching the ids one by one: deleted ids, ids not asked for in the range', () => {
    const t = tempDir();
    const dim = 4;
    const f = makeStore(t.dir, dim);
    cleanups.push(() => t.cleanup());
    const rand = prng(5);
    for (let d = 0; d < 40; d++) {
      f.writer.replaceDocument(
        { sourceId: f.sources.notes.id, path: join(t.dir, 'notes', `d${d}.md`), hash: `h${d}`, mtime: 1, size: 1, title: `Doc ${d}` },
        Array.from({ length: 5 }, (_, j) => ({ heading: `Part ${j}`, text: `chunk ${j} of document ${d} Running caches`, createdAt: j })),
        Array.from({ length: 5 }, () => randomUnit(rand, dim)),
      );
    }
    for (let d = 4; d < 40; d += 7) f.writer.removeDocument(join(t.dir, 'notes', `d${d}.md`));
    f.writer.close();
    const db = openReadonlyDb(f.path);
    const terms = new SqliteChunkTerms();
    cleanups.push(() => {
      terms.close();
      db.close();
    });
    const rows = sqliteRows(db, () => terms);
    const all = db.prepare('SELECT max(id) FROM chunks').pluck().get() as number;
    // Ascending ids with gaps (deleted chunks, ids skipped) and one id past the end.
    const asked = Array.from({ length: all + 1 }, (_, i) => i + 1).filter(() => rand() < 0.7);
    expect(denseRange(asked)).not.toBeNull();
    const byId = (list: number[]) => [...rows.fetch(list, { vec: true, terms: true })].sort((a, b) => a.id - b.id);
    const dense = byId(asked);
    const oneByOne = byId([...asked].reverse()); // not ascending: looked up id by id
    expect(dense.length).toBeGreaterThan(asked.length / 2);
    expect(dense).toEqual(oneByOne);
    expect(dense.every((r) => asked.includes(r.id) && r.vec && r.terms)).toBe(true);
  });
});
