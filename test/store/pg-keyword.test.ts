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
import { grantAudience, initPgStore, urlWithRole } from '../../store/pg-schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { ChunkInput, StoreReader, StoreWriter } from '../../store/types.js';
import { parseTsvector } from '../../store/keyword-index.js';
import { BM25_WEIGHTS } from '../../store/keyword-index.js';
import { GENERATION_CHECK_MS } from '../../store/pg-reader.js';
import { PRUNE_MIN_CHUNKS } from '../../store/term-stats.js';

const DIM = 4;
const vec = () => new Float32Array([1, 0, 0, 0]);
let server: TestPostgres;
let writerUrl: string;
let url: Record<'team' | 'alice' | 'bob', string>;

function write(w: StoreWriter, source: string, audience: string, texts: string[], vector: (text: string) => Float32Array = vec): void {
  w.ensureRegion('notes', 'global');
  const src = w.addSource('notes', `/notes/${source}`, 'notes', audience);
  for (let d = 0; d * 500 < texts.length; d++) {
    const part = texts.slice(d * 500, d * 500 + 500);
    const chunks: ChunkInput[] = part.map((text) => ({ heading: '', text, createdAt: 0 }));
    w.replaceDocument({ sourceId: src.id, path: `/notes/${source}/d${d}.md`, hash: 'h', mtime: 0, size: 0, title: '' }, chunks, part.map(vector));
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

  it('the server\'s tsvector text parses to its own lexemes, weighted frequencies and length', () => {
    const w = openStoreWriter(writerUrl);
    write(w, 'odd', 'team', ["O'Brien's back\\slash \"quoted\" naïve café — it's 42 x-ray e-mail foo@bar.com /usr/lib/x.so"]);
    w.close();
    const admin = PgSyncConnection.connect(server.urlFor('kw'));
    try {
      const rows = admin.query<{ t: string; lex: string[]; tf: number[]; len: number }>(
        `SELECT fts::text AS t, ARRAY(SELECT u.lexeme FROM unnest(fts) u ORDER BY u.lexeme) AS lex,
                ARRAY(SELECT (SELECT coalesce(sum(CASE w WHEN 'A' THEN ${BM25_WEIGHTS.title} WHEN 'B' THEN ${BM25_WEIGHTS.heading} ELSE ${BM25_WEIGHTS.text} END), 0)
                              FROM unnest(u.weights) w) FROM unnest(fts) u ORDER BY u.lexeme)::float8[] AS tf,
                (SELECT coalesce(max(p), 0) FROM unnest(fts) u, unnest(u.positions) p) AS len
         FROM active_brain.chunks c JOIN active_brain.documents d ON d.id = c.document_id WHERE d.path LIKE '/notes/odd/%' OR c.id % 500 = 0`,
      );
      expect(rows.length).toBeGreaterThan(1);
      expect(rows.some((r) => r.lex.some((l) => /[^a-z0-9]/.test(l)))).toBe(true); // the odd text made non-word lexemes
      for (const r of rows) {
        const p = parseTsvector(r.t);
        const got = p.lexemes.map((lexeme, i) => ({ lexeme, tf: p.tf[i] })).sort((a, b) => (a.lexeme < b.lexeme ? -1 : a.lexeme > b.lexeme ? 1 : 0));
        expect(got.map((l) => l.lexeme)).toEqual(r.lex);
        expect(got.map((l) => l.tf)).toEqual(r.tf);
        expect(p.length).toBe(r.len);
      }
    } finally {
      admin.close();
    }
  });

  it('an open reader\'s index follows the writer (adds, replacements, removals): it answers as a reader opened afresh, and the answer did change', async () => {
    const w0 = openStoreWriter(writerUrl);
    write(w0, 'moving', 'team', ['zircon lamp first', 'zircon second', 'plain third']);
    w0.close();
    const r = open('team');
    try {
      const before = r.keywordSearch('zircon lamp', 20);
      expect(texts(r, before.map((h) => h.chunkId))).toContain('zircon lamp first');
      const w = openStoreWriter(writerUrl);
      // Replace the document (one chunk kept, one changed, one new), add another, remove nothing yet.
      write(w, 'moving', 'team', ['zircon lamp first', 'zircon zircon changed', 'zircon lamp new']);
      write(w, 'moving-too', 'team', ['zircon elsewhere']);
      w.close();
      await new Promise((res) => setTimeout(res, GENERATION_CHECK_MS + 50));
      const after = r.keywordSearch('zircon lamp', 20);
      const fresh = open('team');
      try {
        expect(after).toEqual(fresh.keywordSearch('zircon lamp', 20));
        expect(texts(r, after.map((h) => h.chunkId)).sort()).toEqual(['zircon elsewhere', 'zircon lamp first', 'zircon lamp new', 'zircon zircon changed']);
      } finally {
        fresh.close();
      }
      const w2 = openStoreWriter(writerUrl);
      expect(w2.removeDocument('/notes/moving/d0.md')).toBe(true);
      w2.close();
      await new Promise((res) => setTimeout(res, GENERATION_CHECK_MS + 50));
      expect(texts(r, r.keywordSearch('zircon lamp', 20).map((h) => h.chunkId))).toEqual(['zircon elsewhere']);
    } finally {
      r.close();
    }
  });

  it('a grant that makes older rows visible (the non-append refresh): vectors and words answer as a reader opened afresh; control: before it bob sees none of them', async () => {
    const byText = (t: string) => {
      let h = 7;
      for (const c of t) h = (h * 31 + c.charCodeAt(0)) >>> 0;
      const v = new Float32Array([1 + (h % 7), (h >> 3) % 5, (h >> 6) % 3, 1]);
      const n = Math.hypot(...v);
      return v.map((x) => x / n);
    };
    const q = byText('saffron private line 7');
    const w = openStoreWriter(writerUrl);
    write(w, 'bob-late', 'user:bob', ['saffron lamp bob late'], byText);
    w.close();
    const bob = open('bob');
    const admin = PgSyncConnection.connect(server.urlFor('kw'));
    try {
      const before = texts(bob, bob.vectorSearch([q], 50)[0].map((h) => h.chunkId));
      expect(before.some((t) => t.includes('private'))).toBe(false);
      expect(before.length).toBe(50);
      expect(bob.keywordSearch('private line', 50)).toEqual([]);
      grantAudience(admin, 'active_brain', 'bob', 'user:alice', false);
      await new Promise((res) => setTimeout(res, GENERATION_CHECK_MS + 50));
      const vAfter = bob.vectorSearch([q], 50)[0];
      const kAfter = bob.keywordSearch('private line', 50);
      const fresh = open('bob');
      try {
        expect(vAfter).toEqual(fresh.vectorSearch([q], 50)[0]);
        expect(kAfter).toEqual(fresh.keywordSearch('private line', 50));
      } finally {
        fresh.close();
      }
      expect(kAfter.length).toBe(50);
      expect(texts(bob, kAfter.map((h) => h.chunkId)).every((t) => t.includes('private'))).toBe(true);
    } finally {
      grantAudience(admin, 'active_brain', 'bob', 'user:alice', true);
      admin.close();
      bob.close();
    }
  });
});
