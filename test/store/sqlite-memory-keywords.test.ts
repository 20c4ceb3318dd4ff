/**
 * The SQLite store's keyword arm on the reader core's in-memory index (store/local-indexes.ts,
 * terms from FTS5's own tokenizer via store/sqlite-terms.ts) answers as FTS5's bm25() does:
 * the same chunks in the same order with the same scores over random corpora (stemming,
 * column weights, lengths, region filters, excludes), and an open reader follows the writer's
 * later commits (adds, replacements, removals) incrementally, answering as a fresh reader
 * (after deletes FTS5's own totals go stale, so against FTS5 only the chunks found must agree).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { join } from 'node:path';
import { openStoreReader } from '../../store/sqlite-store.js';
import type { Hit, StoreReader } from '../../store/types.js';
import { tempDir, makeStore, prng, randomUnit } from './helpers.js';

const DIM = 8;
/** Words with shared stems (porter: running/runs/run) and mixed case, for FTS5's folding. */
const WORDS = ['Running', 'runs', 'run', 'cache', 'caching', 'Cached', 'pool', 'pools', 'timeout', 'timeouts', 'résumé', 'resume', 'probe', 'probes', 'deploy', 'deployed', 'kubernetes', 'postgres', 'index', 'indexes', 'the', 'and', 'of', 'ECONNRESET', 'naïve', 'naive', 'x86_64', 'v2', '日本語', 'données'];

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

function corpus(seed: number, docs: number) {
  const t = tempDir();
  const f = makeStore(t.dir, DIM);
  const rand = prng(seed);
  const words = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * rand() * WORDS.length)]).join(' ');
  const put = (i: number, region: 'notes' | 'api') =>
    f.writer.replaceDocument(
      { sourceId: f.sources[region].id, path: join(t.dir, region === 'notes' ? 'notes' : 'api-notes', `d${i}.md`), hash: `h${i}-${seed}`, mtime: 1, size: 1, title: words(2) },
      Array.from({ length: 1 + Math.floor(rand() * 3) }, (_, j) => ({ heading: words(1 + j), text: words(3 + Math.floor(rand() * 30)), createdAt: 1 + j })),
      Array.from({ length: 3 }, () => randomUnit(rand, DIM)).slice(0, 3),
    );
  cleanups.push(() => {
    f.writer.close();
    t.cleanup();
  });
  return { f, rand, words, put, docs };
}

const key = (hits: Hit[]) => hits.map((h) => `${h.chunkId}:${h.score.toFixed(6)}`);

/** FTS5 ties in any order: compare as sets of (id, score) per distinct score, and scores in order. */
function expectSameRanking(mem: Hit[], fts: Hit[]) {
  expect(mem.map((h) => h.score.toFixed(6))).toEqual(fts.map((h) => h.score.toFixed(6)));
  // Ids agree except among chunks tied at the k-th score.
  const last = fts.at(-1)?.score.toFixed(6);
  const firm = (hs: Hit[]) => key(hs.filter((h) => h.score.toFixed(6) !== last)).sort();
  expect(firm(mem)).toEqual(firm(fts));
}

describe('SQLite keyword arm in memory', () => {
  it('the same top k with the same scores as FTS5 bm25() over random corpora (filters and excludes too)', () => {
    for (const seed of [1, 2, 3]) {
      const c = corpus(seed, 60);
      // Fixed sizes: replaceDocument needs one vector per chunk.
      for (let i = 0; i < c.docs; i++) {
        const n = 1 + Math.floor(c.rand() * 3);
        c.f.writer.replaceDocument(
          { sourceId: c.f.sources[i % 3 ? 'notes' : 'api'].id, path: join(c.f.path, '..', `d${i}.md`), hash: `h${i}`, mtime: 1, size: 1, title: c.words(2) },
          Array.from({ length: n }, (_, j) => ({ heading: c.words(1 + j), text: c.words(3 + Math.floor(c.rand() * 30)), createdAt: 1 + j })),
          Array.from({ length: n }, () => randomUnit(c.rand, DIM)),
        );
      }
      const mem = openStoreReader(c.f.path, { keywords: 'memory' });
      const fts = openStoreReader(c.f.path, { keywords: 'fts5' });
      try {
        for (let q = 0; q < 40; q++) {
          const query = c.words(1 + Math.floor(c.rand() * 5));
          const filter = q % 3 === 0 ? { regions: ['api'] } : q % 3 === 1 ? { excludeChunkIds: [1, 2, 3, 5, 8] } : undefined;
          const a = mem.keywordSearch(query, 10, filter);
          const b = fts.keywordSearch(query, 10, filter);
          expectSameRanking(a, b);
        }
        // Control: the arm does find something (the comparison is not of two empty lists).
        expect(mem.keywordSearch('cache pool', 10).length).toBeGreaterThan(0);
      } finally {
        mem.close();
        fts.close();
      }
    }
  });

  it('an open reader follows the writer (adds, replacements, removals) as a fresh reader answers', () => {
    const c = corpus(7, 0);
    const doc = (i: number, text: string) =>
      c.f.writer.replaceDocument(
        { sourceId: c.f.sources.notes.id, path: join(c.f.path, '..', `n${i}.md`), hash: text, mtime: 1, size: 1, title: `doc ${i}` },
        [{ heading: 'h', text, createdAt: 1 }],
        [randomUnit(c.rand, DIM)],
      );
    for (let i = 0; i < 20; i++) doc(i, `pool timeout number ${i}`);
    const open: StoreReader = openStoreReader(c.f.path, { keywords: 'memory' });
    try {
      const before = open.keywordSearch('kubernetes', 5);
      expect(before).toEqual([]);
      doc(3, 'kubernetes probes failed');
      doc(21, 'kubernetes deployed');
      c.f.writer.removeDocument(join(c.f.path, '..', 'n5.md'));
      const fresh = openStoreReader(c.f.path, { keywords: 'memory' });
      const fts = openStoreReader(c.f.path, { keywords: 'fts5' });
      try {
        for (const q of ['kubernetes', 'pool timeout', 'probes', 'number 5']) {
          expect(key(open.keywordSearch(q, 10))).toEqual(key(fresh.keywordSearch(q, 10)));
          // FTS5 after deletes keeps stale totals in its averages (scores differ by a few %): the order agrees.
          expect(open.keywordSearch(q, 10).map((h) => h.chunkId).sort()).toEqual(fts.keywordSearch(q, 10).map((h) => h.chunkId).sort());
        }
        // The answer did change (control).
        expect(open.keywordSearch('kubernetes', 5).length).toBe(2);
        // Vectors follow too.
        const v = open.chunkVector(open.keywordSearch('deployed', 1)[0].chunkId)!;
        expect(open.vectorSearch([v], 1)[0][0].chunkId).toBe(fresh.vectorSearch([v], 1)[0][0].chunkId);
      } finally {
        fresh.close();
        fts.close();
      }
      // Only appended rows (the cheap refresh), then the newest document replaced: SQLite gives
      // its new chunk the id the old one had (max + 1 after the delete) — not appended, caught.
      doc(22, 'appended probes only');
      expect(key(open.keywordSearch('appended', 5))).toHaveLength(1);
      const before22 = open.keywordSearch('appended', 5)[0].chunkId;
      doc(22, 'rewritten kubernetes text');
      const after = openStoreReader(c.f.path, { keywords: 'memory' });
      try {
        expect(after.keywordSearch('rewritten', 5)[0]?.chunkId).toBe(before22); // the id was reused (the case under test)
        for (const q of ['appended', 'rewritten', 'kubernetes', 'probes']) expect(key(open.keywordSearch(q, 10))).toEqual(key(after.keywordSearch(q, 10)));
        const v = open.chunkVector(before22)!;
        expect(open.vectorSearch([v], 1)[0][0]).toEqual(after.vectorSearch([v], 1)[0][0]);
      } finally {
        after.close();
      }
    } finally {
      open.close();
    }
  });

  it("'auto' answers from FTS5 until warm() built the index, from the index after (and catches commits made meanwhile)", async () => {
    const c = corpus(9, 0);
    const doc = (i: number, text: string) =>
      c.f.writer.replaceDocument(
        { sourceId: c.f.sources.notes.id, path: join(c.f.path, '..', `w${i}.md`), hash: text, mtime: 1, size: 1, title: `doc ${i}` },
        [{ heading: 'h', text, createdAt: 1 }],
        [randomUnit(c.rand, DIM)],
      );
    // More than one warm page, and replacements: FTS5's totals go stale, so its scores differ
    // from the index's (that is how the test tells which arm answered).
    for (let i = 0; i < 2_500; i++) doc(i, `pool timeout number ${i % 50} cache`);
    for (let i = 0; i < 30; i++) doc(i, `pool probes replaced ${i}`);
    const auto = openStoreReader(c.f.path);
    const mem = openStoreReader(c.f.path, { keywords: 'memory' });
    const fts = openStoreReader(c.f.path, { keywords: 'fts5' });
    try {
      const q = 'pool probes';
      expect(key(mem.keywordSearch(q, 5))).not.toEqual(key(fts.keywordSearch(q, 5))); // control: the arms differ here
      expect(key(auto.keywordSearch(q, 5))).toEqual(key(fts.keywordSearch(q, 5)));
      const warming = auto.warm!();
      doc(3_000, 'kubernetes arrived while warming'); // a commit during the build
      await warming;
      const fresh = openStoreReader(c.f.path, { keywords: 'memory' });
      try {
        expect(key(auto.keywordSearch(q, 5))).toEqual(key(fresh.keywordSearch(q, 5)));
        expect(auto.keywordSearch('kubernetes', 5).length).toBe(1);
        expect(key(auto.keywordSearch('kubernetes', 5))).toEqual(key(fresh.keywordSearch('kubernetes', 5)));
      } finally {
        fresh.close();
      }
      // The newest document replaced (its id comes back with other content): the index is
      // dropped, FTS5 answers, and it is built again in the background.
      doc(3_000, 'kubernetes rewritten');
      const ftsNow = openStoreReader(c.f.path, { keywords: 'fts5' });
      try {
        expect(key(auto.keywordSearch(q, 5))).toEqual(key(ftsNow.keywordSearch(q, 5)));
        await auto.warm!();
        const fresh2 = openStoreReader(c.f.path, { keywords: 'memory' });
        try {
          expect(key(auto.keywordSearch(q, 5))).toEqual(key(fresh2.keywordSearch(q, 5)));
          expect(key(auto.keywordSearch('rewritten', 5))).toEqual(key(fresh2.keywordSearch('rewritten', 5)));
          expect(auto.keywordSearch('arrived', 5)).toEqual([]);
        } finally {
          fresh2.close();
        }
      } finally {
        ftsNow.close();
      }
    } finally {
      auto.close();
      mem.close();
      fts.close();
    }
  });
});
