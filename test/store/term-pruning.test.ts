/**
 * Keyword-query pruning (store/term-stats.ts) and schema migration 2 (the fts5vocab table):
 * the pure term choice (common terms dropped only while a rarer one remains, rarest N kept,
 * terms absent from the index dropped), document frequencies read through the store's own
 * tokenizer (stemming), a query of common words only still answered (fallback control), and an
 * old (version 1) store file upgraded by the writer so the read-only reader can open it.
 * Real SQLite files in temp dirs.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import { SqliteStoreReader } from '../../store/reader.js';
import { selectQueryTerms, PRUNE_DEFAULTS, type PruneOptions } from '../../store/term-stats.js';
import { MIGRATIONS, SCHEMA_VERSION, FTS_VOCAB_TABLE, migrate } from '../../store/schema.js';
import type { StoreReader } from '../../store/types.js';
import { tempDir, makeStore, prng, randomUnit, type Fixture } from './helpers.js';

const DIM = 8;
const ALWAYS: PruneOptions = { ...PRUNE_DEFAULTS, minChunks: 0 };

describe('selectQueryTerms (pure)', () => {
  const opts: PruneOptions = { maxDfShare: 0.3, maxTerms: 3, minChunks: 0 };

  it('drops terms above the share while a rarer term remains', () => {
    expect(selectQueryTerms(['common', 'rare'], [80, 2], 100, opts)).toEqual({ tokens: ['rare'], common: ['common'], fallback: false });
    // At the share exactly: kept.
    expect(selectQueryTerms(['edge', 'rare'], [30, 2], 100, opts).tokens).toEqual(['edge', 'rare']);
  });

  it('keeps the full query when every term is common (control: still answerable)', () => {
    expect(selectQueryTerms(['a1', 'b1'], [90, 60], 100, opts)).toEqual({ tokens: ['a1', 'b1'], common: [], fallback: true });
  });

  it('keeps the rarest N, in query order, and drops terms the index does not hold', () => {
    expect(selectQueryTerms(['w', 'x', 'y', 'z', 'gone'], [5, 1, 9, 3, 0], 100, opts).tokens).toEqual(['w', 'x', 'z']);
    expect(selectQueryTerms(['gone'], [0], 100, opts)).toEqual({ tokens: [], common: [], fallback: false });
  });

  it('does no share-based dropping in a store below minChunks', () => {
    expect(selectQueryTerms(['common', 'rare'], [80, 2], 100, { ...opts, minChunks: 101 }).tokens).toEqual(['common', 'rare']);
  });

  it('property: a subset of the matching terms, non-empty when any term matches, at most maxTerms, rarest first', () => {
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: 120 }), { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 200 }),
        fc.integer({ min: 1, max: 8 }),
        fc.double({ min: 0.01, max: 1, noNaN: true }),
        (df, total, maxTerms, maxDfShare) => {
          const tokens = df.map((_, i) => `t${i}`);
          const sel = selectQueryTerms(tokens, df, total, { maxDfShare, maxTerms, minChunks: 0 });
          const dfOf = new Map(tokens.map((t, i) => [t, df[i]]));
          expect(sel.tokens.every((t) => dfOf.get(t)! > 0)).toBe(true);
          expect(sel.tokens.length).toBeLessThanOrEqual(maxTerms);
          expect(sel.tokens.length > 0).toBe(df.some((n) => n > 0));
          // Query order kept.
          expect(sel.tokens).toEqual(tokens.filter((t) => sel.tokens.includes(t)));
          if (!sel.fallback) expect(sel.tokens.every((t) => dfOf.get(t)! <= maxDfShare * total)).toBe(true);
          // Nothing left out is rarer than something kept (within the pool it was chosen from).
          const pool = tokens.filter((t) => dfOf.get(t)! > 0 && (sel.fallback || dfOf.get(t)! <= maxDfShare * total));
          const maxKept = Math.max(...sel.tokens.map((t) => dfOf.get(t)!), -1);
          for (const t of pool) if (!sel.tokens.includes(t)) expect(dfOf.get(t)!).toBeGreaterThanOrEqual(maxKept);
        },
      ),
    );
  });
});

describe('keyword pruning on a real store', () => {
  const rand = prng(5);
  let t: ReturnType<typeof tempDir>;
  let f: Fixture;
  let pruned: StoreReader;
  let full: StoreReader;

  beforeAll(() => {
    t = tempDir();
    f = makeStore(t.dir, DIM);
    // 40 chunks: "deploy" in all, "running" (stem "run") in 3, "zeppelin" in one.
    const texts = Array.from({ length: 40 }, (_, i) => {
      const extra = i === 7 ? ' zeppelin hangar' : i % 13 === 0 ? ' running late' : '';
      return `deploy step number ${i}${extra}`;
    });
    f.writer.replaceDocument(
      { sourceId: f.sources.notes.id, path: join(t.dir, 'notes', 'deploys.md'), hash: 'd', mtime: 1, size: 1, title: 'Deploys' },
      texts.map((text, i) => ({ heading: '', text, createdAt: i })),
      texts.map(() => randomUnit(rand, DIM)),
    );
    pruned = openStoreReader(f.path, { prune: ALWAYS });
    full = openStoreReader(f.path, { prune: { ...PRUNE_DEFAULTS, maxDfShare: 1 } });
  });
  afterAll(() => {
    pruned.close();
    full.close();
    f.writer.close();
    t.cleanup();
  });

  it('drops the term in every chunk and keeps the rare ones; the top hit is unchanged', () => {
    const r = pruned as SqliteStoreReader;
    expect(r.keywordExpression('Deploy the zeppelin')).toBe('"zeppelin"');
    expect(pruned.keywordSearch('Deploy the zeppelin', 5)[0].chunkId).toBe(full.keywordSearch('Deploy the zeppelin', 5)[0].chunkId);
    expect(pruned.getChunks([pruned.keywordSearch('deploy zeppelin', 1)[0].chunkId])[0].text).toContain('zeppelin');
  });

  it('measures document frequency on the stemmed index term ("runs" → "run": 4 of 40 chunks, kept)', () => {
    const r = pruned as SqliteStoreReader;
    expect(r.keywordExpression('deploy runs')).toBe('"runs"');
    expect(pruned.keywordSearch('deploy runs', 10)).toHaveLength(4);
  });

  it('a query of common words only is still answered (fallback to the full query)', () => {
    const hits = pruned.keywordSearch('deploy', 10);
    expect(hits).toHaveLength(10);
    expect(hits.map((h) => h.chunkId)).toEqual(full.keywordSearch('deploy', 10).map((h) => h.chunkId));
  });

  it('a term absent from the index is left out; only absent terms → no hits', () => {
    expect((pruned as SqliteStoreReader).keywordExpression('zeppelin quetzalcoatl')).toBe('"zeppelin"');
    expect(pruned.keywordSearch('quetzalcoatl', 5)).toEqual([]);
  });

  it('sees new chunks: cached frequencies are dropped when the store changes', () => {
    expect(pruned.keywordSearch('kraken', 5)).toEqual([]);
    f.writer.replaceDocument(
      { sourceId: f.sources.notes.id, path: join(t.dir, 'notes', 'sea.md'), hash: 's', mtime: 1, size: 1, title: 'Sea' },
      [{ heading: '', text: 'the kraken surfaced', createdAt: 1 }],
      [randomUnit(rand, DIM)],
    );
    expect(pruned.keywordSearch('deploy kraken', 5)).toHaveLength(1);
  });
});

describe('schema migration 2 (fts5vocab)', () => {
  it('the writer upgrades a version-1 store file; the reader then opens it and prunes', () => {
    const t = tempDir();
    try {
      const path = join(t.dir, 'state', 'store.sqlite');
      mkdirSync(join(t.dir, 'state'));
      // A store as an older active-brain left it: schema version 1, data in it.
      const old = new Database(path);
      expect(migrate(old, MIGRATIONS.slice(0, 1))).toBe(1);
      old.close();
      const f = { writer: openStoreWriter(path) }; // the current writer runs the missing migrations on open
      f.writer.setModel('test-model', DIM);
      f.writer.ensureRegion('notes', 'global');
      const src = f.writer.addSource('notes', join(t.dir, 'notes'), 'notes');
      f.writer.replaceDocument(
        { sourceId: src.id, path: join(t.dir, 'notes', 'a.md'), hash: 'a', mtime: 1, size: 1, title: 'A' },
        [{ heading: '', text: 'alpha beta', createdAt: 1 }, { heading: '', text: 'alpha gamma', createdAt: 2 }],
        [randomUnit(prng(1), DIM), randomUnit(prng(2), DIM)],
      );
      expect(f.writer.info().schemaVersion).toBe(SCHEMA_VERSION);
      f.writer.close();
      const r = openStoreReader(path);
      try {
        const db = (r as SqliteStoreReader).connectionForTests();
        expect(db.prepare(`SELECT term, doc FROM ${FTS_VOCAB_TABLE} WHERE term IN ('alpha', 'gamma') ORDER BY term`).all()).toEqual([
          { term: 'alpha', doc: 2 },
          { term: 'gamma', doc: 1 },
        ]);
        expect(r.keywordSearch('gamma', 5)).toHaveLength(1);
      } finally {
        r.close();
      }
    } finally {
      t.cleanup();
    }
  });

  it('a reader refuses a version-1 file and says to run the indexer', () => {
    const t = tempDir();
    try {
      const path = join(t.dir, 'old.sqlite');
      const old = new Database(path);
      migrate(old, MIGRATIONS.slice(0, 1));
      old.close();
      expect(SCHEMA_VERSION).toBeGreaterThan(1);
      expect(() => openStoreReader(path)).toThrow(/older than .*run `active-brain index`/);
    } finally {
      t.cleanup();
    }
  });
});
