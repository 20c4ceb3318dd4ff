/**
 * The writer: replaceDocument is atomic (a throw mid-way leaves the old document whole; a
 * killed indexer process leaves the previous state readable), deletes clean up FTS and
 * vectors, handles are stable and unique, the model/dim is recorded and a mismatch throws
 * the agreed re-index message.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStoreReader, openStoreWriter, StoreModelMismatchError } from '../../store/sqlite-store.js';
import type { ChunkInput, StoreReader } from '../../store/types.js';
import { tempDir, makeStore, prng, randomUnit, type Fixture } from './helpers.js';

const DIM = 8;
let cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function setup(): { dir: string; f: Fixture } {
  const t = tempDir();
  const f = makeStore(t.dir, DIM);
  cleanups.push(() => f.writer.close(), t.cleanup);
  return { dir: t.dir, f };
}

const rand = prng(7);
const chunk = (text: string, extra: Partial<ChunkInput> = {}): ChunkInput => ({ heading: 'H', text, createdAt: 1_700_000_000_000, ...extra });
const vecs = (n: number) => Array.from({ length: n }, () => randomUnit(rand, DIM));

function snapshot(r: StoreReader, term: string) {
  return {
    info: { documents: r.info().documents, chunks: r.info().chunks },
    hits: r.keywordSearch(term, 10).map((h) => h.chunkId),
    handles: r.getChunks(r.keywordSearch(term, 10).map((h) => h.chunkId)).map((c) => c.handle).sort(),
    vectors: r.vectorSearch([randomUnit(prng(1), DIM)], 100)[0].length,
  };
}

describe('store writer', () => {
  it('replaceDocument replaces chunks, FTS rows and vectors; handles are <region>/<rel>#<n>', () => {
    const { dir, f } = setup();
    const doc = { sourceId: f.sources.notes.id, path: join(dir, 'notes', 'pg', 'pool.md'), hash: 'a', mtime: 1, size: 1, title: 'Pool' };
    const { handles } = f.writer.replaceDocument(doc, [chunk('alpha econnreset'), chunk('beta')], vecs(2));
    expect(handles).toEqual(['notes/pg/pool.md#0', 'notes/pg/pool.md#1']);
    f.writer.replaceDocument({ ...doc, hash: 'b' }, [chunk('gamma only')], vecs(1));
    const r = openStoreReader(f.path);
    expect(r.keywordSearch('econnreset', 5)).toEqual([]);
    expect(r.keywordSearch('gamma', 5)).toHaveLength(1);
    expect(r.info().chunks).toBe(1);
    expect(r.vectorSearch([randomUnit(rand, DIM)], 10)[0]).toHaveLength(1);
    expect(f.writer.getDocument(doc.path)).toEqual({ path: doc.path, hash: 'b', mtime: 1, size: 1 });
    f.writer.touchDocument(doc.path, 5, 6);
    expect(f.writer.getDocument(doc.path)).toMatchObject({ hash: 'b', mtime: 5, size: 6 });
    expect(f.writer.listDocuments(f.sources.notes.id).map((d) => d.path)).toEqual([doc.path]);
    expect(f.writer.removeDocument(doc.path)).toBe(true);
    expect(f.writer.removeDocument(doc.path)).toBe(false);
    expect(r.keywordSearch('gamma', 5)).toEqual([]);
    expect(r.info().chunks).toBe(0);
    expect(r.vectorSearch([randomUnit(rand, DIM)], 10)[0]).toEqual([]);
    r.close();
  });

  it('a throw in the middle of replaceDocument leaves the old document intact', () => {
    const { dir, f } = setup();
    const doc = { sourceId: f.sources.notes.id, path: join(dir, 'notes', 'a.md'), hash: 'old', mtime: 1, size: 1, title: 'A' };
    f.writer.replaceDocument(doc, [chunk('original walrus text'), chunk('second walrus')], vecs(2));
    const r = openStoreReader(f.path);
    const before = snapshot(r, 'walrus');
    expect(before.hits).toHaveLength(2);
    // Chunk 0 inserts fine (after the old rows were deleted), chunk 1 violates NOT NULL.
    const bad = [chunk('new narwhal text'), { heading: 'H', text: null as unknown as string, createdAt: 1 }];
    expect(() => f.writer.replaceDocument({ ...doc, hash: 'new' }, bad, vecs(2))).toThrow();
    expect(snapshot(r, 'walrus')).toEqual(before);
    expect(r.keywordSearch('narwhal', 5)).toEqual([]);
    expect(f.writer.getDocument(doc.path)?.hash).toBe('old');
    // The control: the same call with good input does replace it.
    f.writer.replaceDocument({ ...doc, hash: 'new' }, [chunk('new narwhal text')], vecs(1));
    expect(r.keywordSearch('narwhal', 5)).toHaveLength(1);
    expect(r.keywordSearch('walrus', 5)).toEqual([]);
    r.close();
  });

  it('transaction(fn) groups calls: a throw rolls all of them back', () => {
    const { dir, f } = setup();
    const d = (n: string) => ({ sourceId: f.sources.notes.id, path: join(dir, 'notes', n), hash: n, mtime: 1, size: 1, title: n });
    f.writer.replaceDocument(d('keep.md'), [chunk('kept quokka')], vecs(1));
    expect(() =>
      f.writer.transaction(() => {
        f.writer.removeDocument(d('keep.md').path);
        f.writer.replaceDocument(d('new.md'), [chunk('fresh axolotl')], vecs(1));
        throw new Error('indexer failed half-way');
      }),
    ).toThrow('half-way');
    const r = openStoreReader(f.path);
    expect(r.keywordSearch('quokka', 5)).toHaveLength(1);
    expect(r.keywordSearch('axolotl', 5)).toEqual([]);
    r.close();
  });

  it('an indexer killed mid-transaction leaves the previous state readable', () => {
    const dist = resolve('dist/store/sqlite-store.js');
    expect(existsSync(dist), 'dist/ is built by the test global setup').toBe(true);
    const { dir, f } = setup();
    const doc = { sourceId: f.sources.notes.id, path: join(dir, 'notes', 'k.md'), hash: 'old', mtime: 1, size: 1, title: 'K' };
    f.writer.replaceDocument(doc, [chunk('stable pelican')], vecs(1));
    f.writer.close();
    const script = `
      const { openStoreWriter } = await import(${JSON.stringify(dist)});
      const w = openStoreWriter(${JSON.stringify(f.path)});
      const v = new Float32Array(${DIM}).fill(1);
      w.transaction(() => {
        w.replaceDocument(${JSON.stringify({ ...doc, hash: 'new' })}, [{ heading: 'H', text: 'doomed heron', createdAt: 1 }], [v]);
        w.removeDocument(${JSON.stringify(doc.path)});
        process.kill(process.pid, 'SIGKILL');
      });`;
    const res = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(res.signal).toBe('SIGKILL');
    const r = openStoreReader(f.path);
    expect(r.keywordSearch('pelican', 5)).toHaveLength(1);
    expect(r.keywordSearch('heron', 5)).toEqual([]);
    r.close();
    // The writer opens cleanly afterwards and sees the old document.
    const w = openStoreWriter(f.path);
    expect(w.getDocument(doc.path)?.hash).toBe('old');
    w.close();
  });

  it('removeSource drops its documents; addSource is idempotent and refuses another region', () => {
    const { dir, f } = setup();
    const again = f.writer.addSource('notes', join(dir, 'notes'), 'notes');
    expect(again.id).toBe(f.sources.notes.id);
    expect(() => f.writer.addSource('api', join(dir, 'notes'), 'notes')).toThrow(/already indexed/);
    f.writer.replaceDocument({ sourceId: f.sources.api.id, path: join(dir, 'api-notes', 'x.md'), hash: 'h', mtime: 1, size: 1, title: 'X' }, [chunk('api lemur')], vecs(1));
    expect(f.writer.removeSource(join(dir, 'api-notes'))).toBe(1);
    expect(f.writer.listSources().map((s) => s.region)).toEqual(['notes']);
    const r = openStoreReader(f.path);
    expect(r.keywordSearch('lemur', 5)).toEqual([]);
    r.close();
  });

  it('same relative path in two sources of one region gets distinct handles', () => {
    const { dir, f } = setup();
    const second = f.writer.addSource('notes', join(dir, 'more-notes'), 'notes');
    const a = f.writer.replaceDocument({ sourceId: f.sources.notes.id, path: join(dir, 'notes', 'README.md'), hash: 'a', mtime: 1, size: 1, title: 'R' }, [chunk('one')], vecs(1));
    const b = f.writer.replaceDocument({ sourceId: second.id, path: join(dir, 'more-notes', 'README.md'), hash: 'b', mtime: 1, size: 1, title: 'R' }, [chunk('two')], vecs(1));
    expect(a.handles).toEqual(['notes/README.md#0']);
    expect(b.handles).toEqual([`notes/s${second.id}/README.md#0`]);
    // Re-indexing the first keeps its handle.
    expect(f.writer.replaceDocument({ sourceId: f.sources.notes.id, path: join(dir, 'notes', 'README.md'), hash: 'c', mtime: 1, size: 1, title: 'R' }, [chunk('one!')], vecs(1)).handles).toEqual(['notes/README.md#0']);
  });

  it('validates input: region names and scopes, vector count and dimension', () => {
    const { dir, f } = setup();
    expect(() => f.writer.ensureRegion('bad/name', 'global')).toThrow(/region name/);
    expect(() => f.writer.ensureRegion('ok', 'everywhere')).toThrow(/global.*project:<glob>/);
    expect(f.writer.ensureRegion('notes', 'project:/x/**').scope).toBe('project:/x/**');
    const doc = { sourceId: f.sources.notes.id, path: join(dir, 'notes', 'v.md'), hash: 'h', mtime: 1, size: 1, title: 'V' };
    expect(() => f.writer.replaceDocument(doc, [chunk('x')], [])).toThrow(/1 chunks but 0 vectors/);
    expect(() => f.writer.replaceDocument(doc, [chunk('x')], [new Float32Array(DIM + 1)])).toThrow(/dimension 9/);
  });
});

describe('model and dimension', () => {
  it('records the model; a different model or dim throws the re-index message', () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const path = join(t.dir, 'store.sqlite');
    const w = openStoreWriter(path);
    expect(w.model()).toBeNull();
    w.setModel('Xenova/all-MiniLM-L6-v2', 384);
    w.setModel('Xenova/all-MiniLM-L6-v2', 384); // same: fine
    let err: unknown;
    try {
      w.setModel('offline-glove-sif', 100);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreModelMismatchError);
    expect((err as Error).message).toBe(
      'store was built with model Xenova/all-MiniLM-L6-v2 (dim 384); current model is offline-glove-sif (dim 100): re-index with `active-brain index --rebuild`',
    );
    expect(() => w.setModel('Xenova/all-MiniLM-L6-v2', 100)).toThrow(/dim 384.*dim 100.*--rebuild/);
    const r = openStoreReader(path);
    expect(() => r.checkModel('offline-glove-sif', 100)).toThrow(StoreModelMismatchError);
    expect(() => r.checkModel('Xenova/all-MiniLM-L6-v2', 384)).not.toThrow();
    expect(r.info()).toMatchObject({ model: 'Xenova/all-MiniLM-L6-v2', dim: 384 });
    // --rebuild: clearDocuments forgets the model, then another one is accepted.
    w.clearDocuments();
    w.setModel('offline-glove-sif', 100);
    expect(r.info()).toMatchObject({ model: 'offline-glove-sif', dim: 100 });
    expect(() => r.checkModel('offline-glove-sif', 100)).not.toThrow();
    r.close();
    w.close();
  });

  it('a store without a model accepts any (nothing to mismatch), and refuses chunks before setModel', () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const path = join(t.dir, 'store.sqlite');
    const w = openStoreWriter(path);
    w.ensureRegion('n', 'global');
    const s = w.addSource('n', t.dir, 'notes');
    expect(() => w.replaceDocument({ sourceId: s.id, path: join(t.dir, 'a.md'), hash: 'h', mtime: 1, size: 1, title: 'a' }, [chunk('x')], vecs(1))).toThrow(/setModel/);
    const r = openStoreReader(path);
    expect(() => r.checkModel('anything', 3)).not.toThrow();
    expect(r.vectorSearch([new Float32Array(3).fill(1)], 5)).toEqual([[]]);
    r.close();
    w.close();
  });
});
