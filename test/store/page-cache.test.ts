/**
 * A reader opened with a page cache limit (store/open.ts pageCacheKiB, the daemon's choice)
 * sets SQLite's cache_size on its connection, and a reader opened without one keeps
 * better-sqlite3's build default (control); a reader whose cache holds only a few pages answers
 * every search exactly as the default one (keyword with both arms, vector, name, fetches).
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { join } from 'node:path';
import { openStoreReader } from '../../store/sqlite-store.js';
import { openReadonlyDb } from '../../store/open.js';
import { KEYWORD_ARMS, SqliteStoreReader, type KeywordArm } from '../../store/reader.js';
import type { StoreReader } from '../../store/types.js';
import { tempDir, makeStore, prng, randomUnit, type Fixture } from './helpers.js';

const DIM = 8;
const DOCS = 60;
const CHUNKS_PER_DOC = 5;
/** A cache of a couple of 4 KiB pages: every search re-reads the file. */
const TINY_CACHE_KIB = 8;
/** better-sqlite3 builds SQLite with SQLITE_DEFAULT_CACHE_SIZE=-16000 (KiB). */
const BUILD_DEFAULT_CACHE = -16000;
const WORDS = 'postgres pool timeout socket reset retry docker image layer volume react hook render state cache token session cookie migration schema'.split(' ');

let t: ReturnType<typeof tempDir>;
let f: Fixture;
const open: StoreReader[] = [];

function reader(keywords: KeywordArm, pageCacheKiB?: number): StoreReader {
  const r = openStoreReader(f.path, { keywords, scanMethod: 'js', ...(pageCacheKiB === undefined ? {} : { pageCacheKiB }) });
  open.push(r);
  return r;
}

beforeAll(() => {
  t = tempDir();
  f = makeStore(t.dir, DIM);
  const rand = prng(5);
  const text = (n: number) => Array.from({ length: n }, () => WORDS[Math.floor(rand() * WORDS.length)]).join(' ');
  for (let d = 0; d < DOCS; d++) {
    f.writer.replaceDocument(
      { sourceId: f.sources.notes.id, path: join(t.dir, 'notes', `doc-${d}.md`), hash: `h${d}`, mtime: 1, size: 1, title: `doc ${d} ${WORDS[d % WORDS.length]}` },
      Array.from({ length: CHUNKS_PER_DOC }, (_, i) => ({ heading: `part ${i}`, text: text(80), createdAt: 1_700_000_000_000 + d })),
      Array.from({ length: CHUNKS_PER_DOC }, () => randomUnit(rand, DIM)),
    );
  }
});
afterAll(() => {
  for (const r of open) r.close();
  f.writer.close();
  t.cleanup();
});

describe('page cache limit', () => {
  it('sets cache_size on the connection; without it the build default stays (control)', () => {
    const db = openReadonlyDb(f.path, { pageCacheKiB: 2000 });
    expect(db.pragma('cache_size', { simple: true })).toBe(-2000);
    db.close();
    const plain = openReadonlyDb(f.path);
    expect(plain.pragma('cache_size', { simple: true })).toBe(BUILD_DEFAULT_CACHE);
    plain.close();
    const limited = reader('memory', TINY_CACHE_KIB) as SqliteStoreReader;
    expect(limited.connectionForTests().pragma('cache_size', { simple: true })).toBe(-TINY_CACHE_KIB);
  });

  for (const arm of KEYWORD_ARMS) {
    it(`a few-page cache answers as the default one (keywords: ${arm})`, async () => {
      const small = reader(arm, TINY_CACHE_KIB);
      const full = reader(arm);
      await small.warm?.();
      await full.warm?.();
      const rand = prng(9);
      let hits = 0;
      for (const q of ['postgres pool timeout', 'react hook render state', 'docker volume', 'session cookie token migration']) {
        const a = small.keywordSearch(q, 20);
        expect(a).toEqual(full.keywordSearch(q, 20));
        hits += a.length;
        const v = randomUnit(rand, DIM);
        expect(small.vectorSearch([v], 20)).toEqual(full.vectorSearch([v], 20));
        const ids = a.map((h) => h.chunkId);
        expect(small.getChunks(ids)).toEqual(full.getChunks(ids));
      }
      expect(small.nameSearch('doc-7.md', 5)).toEqual(full.nameSearch('doc-7.md', 5));
      expect(hits).toBeGreaterThan(0);
    });
  }
});
