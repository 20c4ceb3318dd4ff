/**
 * search/search.ts over a real SQLite store built in a temp dir with the offline model:
 * hybrid finds both a keyword-only relevant note (an identifier the model has no vector
 * for) and a vector-only one (no shared word) — and, as controls, each arm alone misses one
 * of them. Also: region filters, stop-word-only and empty queries, the model-mismatch error.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineEmbedder } from '../helpers/embedder.js';
import type { Embedder } from '../../embed/types.js';
import { buildTempStore, type TempStore } from '../../eval/temp-store.js';
import { search, rankChunks, embedQuery, type Arm } from '../../search/search.js';
import { openStoreReader, openStoreWriter, StoreModelMismatchError } from '../../store/sqlite-store.js';

const NOTES: Record<string, string> = {
  kw: 'Payment worker crashed with ECONNRESET after the deploy; raised the idle timeout.',
  vec: 'The automobile needed new tyres, brakes and an oil change at the garage.',
  bike: 'Bought a new bicycle helmet and gloves for the daily commute.',
  train: 'The train was late again, so the commute took two hours.',
  bread: 'Notes on sourdough bread: hydration, starter feeding and baking temperature.',
  garden: 'The garden needs watering twice a week in summer; tomatoes like sun.',
  trip: 'Vacation plans: flights to Lisbon, hotel near the river, museum tickets.',
  guitar: 'Guitar practice: scales, chord changes and a metronome at slow tempo.',
  budget: 'Quarterly budget review: travel costs are up, software licences down.',
};
/** Relevant to QUERY: `kw` by its identifier only, `vec` by meaning only. */
const QUERY = 'ECONNRESET car';
const K = 2;

let embedder: Embedder;
let store: TempStore;

beforeAll(async () => {
  embedder = await offlineEmbedder();
  store = await buildTempStore(embedder, [
    { name: 'ops', title: '', items: Object.entries(NOTES).slice(0, 4).map(([id, text]) => ({ id, heading: '', text })) },
    { name: 'life', title: '', items: Object.entries(NOTES).slice(4).map(([id, text]) => ({ id, heading: '', text })) },
  ]);
});
afterAll(() => store?.dispose());

async function ids(arm: Arm, query = QUERY, k = K): Promise<string[]> {
  const r = await search(store.reader, embedder, query, { k, arm });
  return r.hits.map((h) => store.idOf(h.chunkId)!);
}

describe('hybrid search on a real store', () => {
  it('hybrid finds the keyword-only and the vector-only relevant note', async () => {
    expect((await ids('hybrid')).sort()).toEqual(['kw', 'vec']);
  });

  it('control: the keyword arm alone misses the vector-only note', async () => {
    const got = await ids('keyword');
    expect(got).toContain('kw');
    expect(got).not.toContain('vec');
  });

  it('control: the vector arm alone misses the keyword-only note', async () => {
    const got = await ids('vector');
    expect(got).toContain('vec');
    expect(got).not.toContain('kw');
  });

  it('hits carry their chunk and per-arm evidence, ranked 1..n', async () => {
    const r = await search(store.reader, embedder, QUERY, { k: 5, arm: 'hybrid' });
    expect(r.hits.map((h) => h.rank)).toEqual(r.hits.map((_, i) => i + 1));
    const kw = r.hits.find((h) => store.idOf(h.chunkId) === 'kw')!;
    expect(kw.chunk.text).toBe(NOTES.kw);
    expect(kw.arms.keyword?.rank).toBe(1);
    const vec = r.hits.find((h) => store.idOf(h.chunkId) === 'vec')!;
    expect(vec.arms.keyword).toBeUndefined();
    expect(vec.arms.vector?.rank).toBe(1);
  });

  it('the same query gives the same ranking every time', async () => {
    const a = await ids('hybrid', 'commute helmet train', 5);
    const b = await ids('hybrid', 'commute helmet train', 5);
    expect(a).toEqual(b);
  });

  it('a region filter keeps other regions out (control: without it they come back)', async () => {
    // One region holds everything in a temp store; filter on an unknown one → nothing, on the real one → hits.
    const none = await search(store.reader, embedder, QUERY, { k: 5, arm: 'hybrid', filter: { regions: ['elsewhere'] } });
    expect(none.hits).toEqual([]);
    const some = await search(store.reader, embedder, QUERY, { k: 5, arm: 'hybrid', filter: { regions: ['eval'] } });
    expect(some.hits.length).toBeGreaterThan(0);
  });

  it('excluded chunk ids never come back', async () => {
    const kwId = store.chunkIdOf('kw')!;
    const r = await search(store.reader, embedder, QUERY, { k: 5, arm: 'hybrid', filter: { excludeChunkIds: [kwId] } });
    expect(r.hits.map((h) => h.chunkId)).not.toContain(kwId);
    expect(r.hits.length).toBeGreaterThan(0);
  });

  it('empty and stop-word-only queries: no crash; keyword finds nothing', async () => {
    expect((await search(store.reader, embedder, '   ', { arm: 'hybrid' })).hits).toEqual([]);
    expect((await search(store.reader, embedder, 'the of and', { arm: 'keyword' })).hits).toEqual([]);
    const h = await search(store.reader, embedder, '?!.,;', { arm: 'hybrid' });
    expect(Array.isArray(h.hits)).toBe(true);
  });

  it('rankChunks needs a query vector for the vector arms and checks k', async () => {
    expect(() => rankChunks(store.reader, { text: 'car' }, { arm: 'vector' })).toThrow(/query vector/);
    expect(() => rankChunks(store.reader, { text: 'car' }, { arm: 'keyword', k: 0 })).toThrow(/k must be/);
    const v = await embedQuery(embedder, 'car');
    expect(rankChunks(store.reader, { text: 'car', vector: v }, { arm: 'vector', k: 1 }).hits).toHaveLength(1);
  });
});

describe('model mismatch', () => {
  it('a store built with another model is an error that says to re-index', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-search-mismatch-'));
    try {
      const path = join(dir, 'store.sqlite');
      const w = openStoreWriter(path);
      w.setModel('some-other-model', embedder.dim);
      w.ensureRegion('notes', 'global');
      const src = w.addSource('notes', join(dir, 'notes'), 'notes');
      const [v] = await embedder.embed(['a note about cars']);
      w.replaceDocument({ sourceId: src.id, path: join(dir, 'notes', 'a.md'), hash: 'h', mtime: 0, size: 1, title: 'a' }, [{ heading: '', text: 'a note about cars', createdAt: 0 }], [v]);
      w.close();
      const r = openStoreReader(path);
      try {
        await expect(search(r, embedder, 'cars', { arm: 'hybrid' })).rejects.toBeInstanceOf(StoreModelMismatchError);
        await expect(search(r, embedder, 'cars', { arm: 'vector' })).rejects.toThrow(/re-index/);
        // Control: the keyword arm needs no model and still works.
        expect((await search(r, null, 'cars', { arm: 'keyword' })).hits).toHaveLength(1);
      } finally {
        r.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('temp store', () => {
  it('dispose deletes its directory', async () => {
    const t = await buildTempStore(embedder, [{ name: 'x', title: '', items: [{ id: 'a', heading: '', text: 'hello world' }] }]);
    expect(existsSync(t.path)).toBe(true);
    expect(t.idOf(t.chunkIdOf('a')!)).toBe('a');
    t.dispose();
    expect(existsSync(t.dir)).toBe(false);
  });
});
