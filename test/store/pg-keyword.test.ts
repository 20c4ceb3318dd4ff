/**
 * The team store's keyword ranking (store/pg-keyword.ts) on a real PostgreSQL: a query word
 * weighs by its IDF among the rows the reader may see, words in more than 30 % of a large
 * store are left out of the match while a rarer one remains, and those counts are the
 * reader's own (row-level security): words in private rows never change what another reader
 * is given. Controls: the same chunks are found by the common word alone (the fallback), and
 * the pruned word is kept for the reader in whose rows it is rare.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { PgSyncConnection } from '../../store/pg-sync.js';
import { initPgStore, urlWithRole } from '../../store/pg-schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { ChunkInput, StoreReader, StoreWriter } from '../../store/types.js';
import { idf } from '../../store/pg-keyword.js';
import { PRUNE_MIN_CHUNKS } from '../../store/term-stats.js';

const DIM = 4;
const vec = () => new Float32Array([1, 0, 0, 0]);
let server: TestPostgres;
let writerUrl: string;
let url: Record<'team' | 'alice' | 'bob', string>;

function write(w: StoreWriter, source: string, audience: string, texts: string[]): void {
  w.ensureRegion('notes', 'global');
  const src = w.addSource('notes', `/notes/${source}`, 'notes', audience);
  for (let d = 0; d * 500 < texts.length; d++) {
    const part = texts.slice(d * 500, d * 500 + 500);
    const chunks: ChunkInput[] = part.map((text) => ({ heading: '', text, createdAt: 0 }));
    w.replaceDocument({ sourceId: src.id, path: `/notes/${source}/d${d}.md`, hash: 'h', mtime: 0, size: 0, title: '' }, chunks, chunks.map(vec));
  }
}

beforeAll(async () => {
  server = await startPostgres();
  server.psql('CREATE DATABASE kw');
  const admin = PgSyncConnection.connect(server.urlFor('kw'));
  const init = initPgStore(admin, 'active_brain', ['alice', 'bob']);
  admin.close();
  const base = server.urlFor('kw');
  writerUrl = urlWithRole(base, init.roles.writer.name, init.roles.writer.password);
  const r = (u: string | null) => init.roles.readers.find((x) => x.user === u)!;
  url = {
    team: urlWithRole(base, r(null).name, r(null).password),
    alice: urlWithRole(base, r('alice').name, r('alice').password),
    bob: urlWithRole(base, r('bob').name, r('bob').password),
  };
  const w = openStoreWriter(writerUrl);
  w.setModel('m', DIM);
  // Team: 2,400 chunks (above PRUNE_MIN_CHUNKS); "kettle" in half of them, "quartz" in 3.
  const team = Array.from({ length: 2400 }, (_, i) => `${i % 2 === 0 ? 'kettle kettle kettle' : 'lamp'} filler text number ${i}${i % 800 === 5 ? ' quartz' : ''}`);
  write(w, 'team', 'team', team);
  // Alice's private notes: 3,000 chunks, every one with "saffron" — a word the team has twice.
  write(w, 'alice', 'user:alice', Array.from({ length: 3000 }, (_, i) => `saffron private line ${i}`));
  write(w, 'team-saffron', 'team', ['saffron kettle team note one', 'saffron team note two']);
  w.close();
}, 120_000);
afterAll(() => server?.stop());

const open = (who: keyof typeof url): StoreReader => openStoreReader(url[who]);
const texts = (r: StoreReader, ids: number[]) => r.getChunks(ids).map((c) => c.text);

describe('team store keyword ranking', () => {
  it('IDF: a rare word outranks a common one, and a word in > 30 % of the chunks is left out while a rarer one remains', () => {
    expect(2400).toBeGreaterThan(PRUNE_MIN_CHUNKS);
    const r = open('team');
    try {
      const hits = r.keywordSearch('kettle quartz', 50);
      const found = texts(r, hits.map((h) => h.chunkId));
      expect(found.length).toBeGreaterThan(0);
      expect(found.every((t) => t.includes('quartz'))).toBe(true); // "kettle" (50 %) pruned
      // Control: the common word alone still finds its chunks (the fallback keeps it).
      const alone = texts(r, r.keywordSearch('kettle', 50).map((h) => h.chunkId));
      expect(alone.length).toBe(50);
      expect(alone.every((t) => t.includes('kettle'))).toBe(true);
    } finally {
      r.close();
    }
  });

  it('document frequencies are the reader\'s own: alice\'s private "saffron" rows do not prune it for bob (control: they do for alice)', () => {
    const bob = open('bob');
    const alice = open('alice');
    try {
      // For bob "saffron" is in 2 of 2,402 chunks: rare, weighed high — the two team notes lead.
      const b = texts(bob, bob.keywordSearch('saffron lamp', 10).map((h) => h.chunkId));
      expect(b.slice(0, 2).sort()).toEqual(['saffron kettle team note one', 'saffron team note two']);
      expect(b.every((t) => !t.includes('private'))).toBe(true);
      // For alice it is in 3,002 of 5,402: common, left out while "lamp" (1,200) is rarer.
      const a = texts(alice, alice.keywordSearch('saffron lamp', 10).map((h) => h.chunkId));
      expect(a.length).toBe(10);
      expect(a.every((t) => t.includes('lamp') && !t.includes('saffron'))).toBe(true);
    } finally {
      bob.close();
      alice.close();
    }
  });

  it('idf is BM25\'s: positive, falling with the document frequency', () => {
    expect(idf(1000, 1)).toBeGreaterThan(idf(1000, 100));
    expect(idf(1000, 100)).toBeGreaterThan(idf(1000, 900));
    expect(idf(1000, 1000)).toBeGreaterThan(0);
  });
});
