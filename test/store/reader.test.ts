/**
 * The reader: it cannot write (a write through its connection fails), it sees the writer's
 * later commits (data_version refresh of the vector matrix), keyword search never raises an
 * FTS5 syntax error whatever the input (property test) and finds content words (control),
 * name search, chunk fetches.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { openStoreReader, toFtsQuery } from '../../store/sqlite-store.js';
import { SqliteStoreReader } from '../../store/reader.js';
import type { StoreReader } from '../../store/types.js';
import { tempDir, makeStore, prng, randomUnit, type Fixture } from './helpers.js';

const DIM = 8;
const rand = prng(11);
let t: ReturnType<typeof tempDir>;
let f: Fixture;
let r: StoreReader;

beforeAll(() => {
  t = tempDir();
  f = makeStore(t.dir, DIM);
  const put = (rel: string, title: string, texts: string[], aliases: string[][] = []) =>
    f.writer.replaceDocument(
      { sourceId: f.sources.notes.id, path: join(t.dir, 'notes', rel), hash: rel, mtime: 1, size: 1, title },
      texts.map((text, i) => ({ heading: `Section ${i}`, text, createdAt: 1_700_000_000_000 + i, aliases: aliases[i] ?? [] })),
      texts.map(() => randomUnit(rand, DIM)),
    );
  put('pg/pool-timeouts.md', 'Postgres pool timeouts', ['The pool dropped connections with ECONNRESET.', 'Raising idle_timeout fixed the resets.'], [['pgbouncer', 'PoolTimeout']]);
  put('k8s/readiness.md', 'Readiness probes', ['Probes failed while the cache warmed up; we delayed them.']);
  put('misc/running.md', 'Running notes', ['She runs every morning and ran a marathon.']);
  r = openStoreReader(f.path);
});
afterAll(() => {
  r.close();
  f.writer.close();
  t.cleanup();
});

describe('read-only', () => {
  it('a write through the reader connection fails (readonly + query_only)', () => {
    const db = (r as SqliteStoreReader).connectionForTests();
    expect(() => db.exec(`INSERT INTO meta (key, value) VALUES ('x', 'y')`)).toThrow(/readonly|read-only|query_only|attempt to write/i);
    expect(() => db.exec(`DELETE FROM chunks`)).toThrow();
    expect(() => db.exec(`CREATE TABLE evil (x)`)).toThrow();
    expect(db.pragma('query_only', { simple: true })).toBe(1);
    expect(db.readonly).toBe(true);
    expect(r.info().chunks).toBe(4);
  });

  it('sees the writer\'s later commits (vector matrix and regions refresh)', () => {
    const q = randomUnit(rand, DIM);
    const before = r.vectorSearch([q], 50)[0].length;
    const { handles } = f.writer.replaceDocument(
      { sourceId: f.sources.api.id, path: join(t.dir, 'api-notes', 'new.md'), hash: 'n', mtime: 1, size: 1, title: 'New' },
      [{ heading: '', text: 'fresh capybara', createdAt: 1 }],
      [q],
    );
    const after = r.vectorSearch([q], 50)[0];
    expect(after.length).toBe(before + 1);
    expect(r.getChunks([after[0].chunkId])[0].handle).toBe(handles[0]);
    expect(after[0].score).toBeCloseTo(1, 5);
    f.writer.ensureRegion('late', 'global');
    expect(r.regions().map((x) => x.name)).toContain('late');
    f.writer.removeDocument(join(t.dir, 'api-notes', 'new.md'));
    expect(r.vectorSearch([q], 50)[0].length).toBe(before);
  });
});

describe('keyword search', () => {
  it('finds content words, stems (porter), ranks, and returns chunk records', () => {
    const hits = r.keywordSearch('why did ECONNRESET happen?', 5);
    expect(hits).toHaveLength(1);
    expect(hits[0].rank).toBe(1);
    expect(hits[0].score).toBeGreaterThan(0);
    const [c] = r.getChunks([hits[0].chunkId]);
    expect(c).toMatchObject({ handle: 'notes/pg/pool-timeouts.md#0', region: 'notes', regionScope: 'global', kind: 'notes', title: 'Postgres pool timeouts', ordinal: 0 });
    expect(c.path).toBe(join(t.dir, 'notes', 'pg', 'pool-timeouts.md'));
    const run = r.keywordSearch('running', 5).map((h) => r.getChunks([h.chunkId])[0].handle);
    expect(run).toContain('notes/misc/running.md#0'); // "runs", "Running" (title) stem to "run"
    expect(r.keywordSearch('pool', 5).length).toBe(2); // title counts for every chunk of the doc
  });

  it('stop-words and punctuation only → no hits, no error', () => {
    for (const q of ['', '   ', 'the of and', '?!?', '"', '""', 'AND OR NOT', '*', '(', 'NEAR(a b)', '- + ^ : {}']) {
      expect(() => r.keywordSearch(q, 5)).not.toThrow();
    }
    expect(r.keywordSearch('the of and', 5)).toEqual([]);
    expect(r.keywordSearch('?!?', 5)).toEqual([]);
    expect(toFtsQuery('the of and ?!')).toBeNull();
    expect(toFtsQuery('Pool "timeout" pool')).toBe('"pool" OR "timeout"');
  });

  it('property: any string is searchable without an FTS5 error', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme' }), fc.array(fc.constantFrom('"', '*', '(', ')', 'AND', 'OR', 'NOT', 'NEAR', ':', '^', '-', '+', 'pool', 'the', '\u0301', '\0', 'é'), { maxLength: 12 }).map((a) => a.join(' '))), (q) => {
        const hits = r.keywordSearch(q, 5);
        expect(Array.isArray(hits)).toBe(true);
        if (toFtsQuery(q) === null) expect(hits).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it('property: a query containing a stored content word always finds it (control)', () => {
    fc.assert(
      fc.property(fc.constantFrom('econnreset', 'probes', 'marathon', 'warmed'), fc.string({ unit: 'grapheme-ascii' }), (word, noise) => {
        const hits = r.keywordSearch(`${noise} ${word} ${noise}`, 10);
        expect(hits.length).toBeGreaterThan(0);
      }),
      { numRuns: 100 },
    );
  });

  it('honours excludeChunkIds and regions', () => {
    const all = r.keywordSearch('pool', 5);
    const ex = r.keywordSearch('pool', 5, { excludeChunkIds: [all[0].chunkId] });
    expect(ex.map((h) => h.chunkId)).toEqual(all.slice(1).map((h) => h.chunkId));
    expect(ex[0].rank).toBe(1);
    expect(r.keywordSearch('pool', 5, { regions: ['api'] })).toEqual([]);
    expect(r.keywordSearch('pool', 5, { regions: ['notes'] })).toHaveLength(2);
  });
});

describe('keyword search with a region filter', () => {
  it('finds a minority region\'s hit behind many hits from other regions (over-fetch, then SQL fallback)', () => {
    const t2 = tempDir();
    const f2 = makeStore(t2.dir, 4);
    try {
      const v = () => randomUnit(rand, 4);
      f2.writer.transaction(() => {
        for (let i = 0; i < 70; i++) {
          f2.writer.replaceDocument({ sourceId: f2.sources.notes.id, path: join(t2.dir, 'notes', `n${i}.md`), hash: 'h', mtime: 1, size: 1, title: 'n' }, [{ heading: '', text: 'zebra zebra zebra stripes', createdAt: 1 }], [v()]);
        }
        f2.writer.replaceDocument({ sourceId: f2.sources.api.id, path: join(t2.dir, 'api-notes', 'z.md'), hash: 'h', mtime: 1, size: 1, title: 'z' }, [{ heading: '', text: 'one zebra among many other words in a longer text', createdAt: 1 }], [v()]);
      });
      const r2 = openStoreReader(f2.path);
      // k = 3: found by the widened in-memory pass; k = 1: 64 over-fetched hits are all `notes`, so
      // the SQL-filtered path finds it.
      for (const k of [3, 1]) {
        const onlyApi = r2.keywordSearch('zebra', k, { regions: ['api'] });
        expect(onlyApi).toHaveLength(1);
        expect(r2.getChunks([onlyApi[0].chunkId])[0].region).toBe('api');
      }
      // cwd outside the api project: its chunk is never returned, however many are asked for.
      const outside = r2.keywordSearch('zebra', 100, { cwd: '/elsewhere' });
      expect(outside).toHaveLength(70);
      expect(r2.getChunks(outside.map((h) => h.chunkId)).every((c) => c.region === 'notes')).toBe(true);
      // Control: inside the project it is there.
      expect(r2.getChunks(r2.keywordSearch('zebra', 100, { cwd: '/work/api/src' }).map((h) => h.chunkId)).some((c) => c.region === 'api')).toBe(true);
      r2.close();
    } finally {
      f2.writer.close();
      t2.cleanup();
    }
  });
});

describe('name search and fetches', () => {
  it('exact alias > title > file name / path suffix, case-insensitive', () => {
    expect(r.nameSearch('PGBOUNCER', 5)).toEqual([{ chunkId: expect.any(Number), score: 3, rank: 1, match: 'alias' }]);
    expect(r.getChunks([r.nameSearch('pgbouncer', 5)[0].chunkId])[0].aliases).toEqual(['pgbouncer', 'PoolTimeout']);
    const title = r.nameSearch('readiness probes', 5);
    expect(title).toHaveLength(1);
    expect(title[0].match).toBe('title');
    expect(r.getChunks([title[0].chunkId])[0].handle).toBe('notes/k8s/readiness.md#0');
    expect(r.nameSearch('readiness.md', 5)[0].match).toBe('suffix');
    expect(r.nameSearch('readiness', 5)[0].match).toBe('suffix');
    expect(r.nameSearch('k8s/readiness.md', 5)[0].match).toBe('suffix');
    expect(r.nameSearch('s/readiness.md', 5)).toEqual([]); // suffix is by whole path segments
    expect(r.nameSearch('readines', 5)).toEqual([]);
    expect(r.nameSearch('%', 5)).toEqual([]);
    expect(r.nameSearch('pgbouncer', 5, { regions: ['api'] })).toEqual([]);
  });

  it('path suffix: whole segments, case-insensitive, absolute path; looked up through the file-name index (no scan)', () => {
    expect(r.nameSearch('K8S/Readiness.MD', 5).map((h) => h.match)).toEqual(['suffix']);
    expect(r.nameSearch(join(t.dir, 'notes', 'k8s', 'readiness.md'), 5).map((h) => h.match)).toEqual(['suffix']);
    expect(r.nameSearch('/notes/pg/pool-timeouts.md', 5).map((h) => h.match)).toEqual(['suffix']);
    expect(r.nameSearch('pg/readiness.md', 5)).toEqual([]); // right file name, wrong folder
    expect(r.nameSearch('k8s/', 5)).toEqual([]); // no file name: nothing, not every file under k8s
    expect(r.nameSearch('k8s/read_ness.md', 5)).toEqual([]); // LIKE wildcards are escaped
    const db = (r as SqliteStoreReader).connectionForTests();
    const plan = db
      .prepare(`EXPLAIN QUERY PLAN SELECT c.id FROM documents d JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0
                WHERE d.name = @base AND (d.path = @t OR d.path LIKE @like ESCAPE '\\')`)
      .all({ base: 'readiness.md', t: 'k8s/readiness.md', like: '%/k8s/readiness.md' }) as Array<{ detail: string }>;
    expect(plan.map((p) => p.detail).join('\n')).toMatch(/documents_name/);
  });

  it('getChunks keeps the asked order and skips unknown ids; chunkByHandle; chunkVector is normalized', () => {
    const ids = r.keywordSearch('pool', 5).map((h) => h.chunkId);
    expect(r.getChunks([...ids].reverse(), ).map((c) => c.id)).toEqual([...ids].reverse());
    expect(r.getChunks([999999])).toEqual([]);
    expect(r.chunkByHandle('notes/pg/pool-timeouts.md#1')?.text).toContain('idle_timeout');
    expect(r.chunkByHandle('notes/pg/pool-timeouts.md#9')).toBeNull();
    const v = r.chunkVector(ids[0])!;
    expect(v).toHaveLength(DIM);
    expect(Math.hypot(...v)).toBeCloseTo(1, 5);
    expect(r.chunkVector(999999)).toBeNull();
  });
});
