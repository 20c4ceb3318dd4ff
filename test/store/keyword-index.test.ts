/**
 * The team store's in-memory keyword index (store/keyword-index.ts), without a server:
 *   - parseTsvector reads PostgreSQL's tsvector text form (quotes and backslashes doubled,
 *     weight letters, stripped lexemes) — examples and a round-trip property;
 *   - its BM25 is FTS5's: over random corpora, the same top k with the same scores as SQLite's
 *     bm25(chunks, 2.0, 1.5, 1.0) on the same title / heading / text columns (real SQLite);
 *   - incremental changes (adds, removals, merges at any point) answer exactly as an index
 *     built fresh from the live chunks;
 *   - region and exclusion filters.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import Database from 'better-sqlite3';
import { KeywordIndex, bm25Idf, parseTsvector, type ParsedTsvector } from '../../store/keyword-index.js';
import { BM25_WEIGHTS } from '../../store/keyword-index.js';

/** A tsvector in PostgreSQL's text form, as tsvectorout writes it. */
function formatTsvector(entries: Array<{ lexeme: string; positions: Array<{ pos: number; label: '' | 'A' | 'B' | 'C' }> }>): string {
  return entries
    .map((e) => {
      const lex = `'${e.lexeme.replace(/'/g, "''").replace(/\\/g, '\\\\')}'`;
      return e.positions.length ? `${lex}:${e.positions.map((p) => `${p.pos}${p.label}`).join(',')}` : lex;
    })
    .join(' ');
}

/** The tsvector of a chunk built as the writer builds it: title (A) || heading (B) || text (D), positions running on. */
function tsvectorOf(cols: { title: string[]; heading: string[]; text: string[] }): string {
  const byLex = new Map<string, Array<{ pos: number; label: '' | 'A' | 'B' }>>();
  let pos = 0;
  const put = (words: string[], label: '' | 'A' | 'B') => {
    for (const w of words) {
      pos++;
      if (!byLex.has(w)) byLex.set(w, []);
      byLex.get(w)!.push({ pos, label });
    }
  };
  put(cols.title, 'A');
  put(cols.heading, 'B');
  put(cols.text, '');
  return formatTsvector([...byLex.entries()].sort(([a], [b]) => (a < b ? -1 : 1)).map(([lexeme, positions]) => ({ lexeme, positions })));
}

/** A parsed tsvector's lexemes with their frequencies, as pairs. */
const pairs = (p: ParsedTsvector) => p.lexemes.map((lexeme, i) => ({ lexeme, tf: p.tf[i] }));

describe('parseTsvector', () => {
  it('reads lexemes, weighted frequencies and the length', () => {
    const p = parseTsvector(`'cat':2A,7 'it''s':3B 'back\\\\slash':5 'mat':6C 'strip'`);
    expect(pairs(p)).toEqual([
      { lexeme: 'cat', tf: BM25_WEIGHTS.title + BM25_WEIGHTS.text },
      { lexeme: "it's", tf: BM25_WEIGHTS.heading },
      { lexeme: 'back\\slash', tf: BM25_WEIGHTS.text },
      { lexeme: 'mat', tf: BM25_WEIGHTS.text },
      { lexeme: 'strip', tf: BM25_WEIGHTS.text },
    ]);
    expect(p.length).toBe(7);
    expect(parseTsvector('')).toEqual({ lexemes: [], tf: [], length: 0 });
  });

  it('never throws on malformed text and keeps what it read before the fault', () => {
    expect(parseTsvector(`'a':1 'unterminated`).lexemes).toEqual(['a']);
    fc.assert(fc.property(fc.string(), (s) => {
      const p = parseTsvector(s);
      return Array.isArray(p.lexemes) && p.tf.length === p.lexemes.length;
    }));
  });

  it('round-trips any lexemes and positions in the text form', () => {
    const entry = fc.record({
      lexeme: fc.string({ minLength: 1, maxLength: 12 }),
      positions: fc.array(fc.record({ pos: fc.integer({ min: 1, max: 16383 }), label: fc.constantFrom('' as const, 'A' as const, 'B' as const, 'C' as const) }), { maxLength: 5 }),
    });
    fc.assert(
      fc.property(fc.uniqueArray(entry, { selector: (e) => e.lexeme, maxLength: 8 }), (entries) => {
        const p = parseTsvector(formatTsvector(entries));
        const w = { '': BM25_WEIGHTS.text, A: BM25_WEIGHTS.title, B: BM25_WEIGHTS.heading, C: BM25_WEIGHTS.text };
        expect(pairs(p)).toEqual(entries.map((e) => ({ lexeme: e.lexeme, tf: e.positions.length ? e.positions.reduce((s, x) => s + w[x.label], 0) : BM25_WEIGHTS.text })));
        expect(p.length).toBe(Math.max(0, ...entries.flatMap((e) => e.positions.map((x) => x.pos))));
      }),
    );
  });
});

const VOCAB = ['alpha', 'beta', 'gamma', 'delta', 'eps', 'zeta', 'eta', 'theta', 'iota', 'kappa', 'lam', 'mu'];
const words = (max: number) => fc.array(fc.constantFrom(...VOCAB), { maxLength: max });
const doc = fc.record({ title: words(3), heading: words(4), text: words(20) });

describe('BM25 as FTS5 scores it', () => {
  it('the same top k with the same scores as SQLite bm25() over random corpora', () => {
    fc.assert(
      fc.property(fc.array(doc, { minLength: 1, maxLength: 40 }), fc.uniqueArray(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 4 }), (docs, query) => {
        const db = new Database(':memory:');
        try {
          db.exec(`CREATE VIRTUAL TABLE f USING fts5(title, heading, text, tokenize = 'unicode61')`);
          const ins = db.prepare(`INSERT INTO f (rowid, title, heading, text) VALUES (?, ?, ?, ?)`);
          const index = new KeywordIndex();
          docs.forEach((d, i) => {
            ins.run(i + 1, d.title.join(' '), d.heading.join(' '), d.text.join(' '));
            index.add(i + 1, 1, tsvectorOf(d));
          });
          index.maintain();
          const want = db
            .prepare(`SELECT rowid AS id, -bm25(f, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.text}) AS s FROM f WHERE f MATCH ? ORDER BY s DESC, rowid LIMIT 10`)
            .all(query.map((q) => `"${q}"`).join(' OR ')) as Array<{ id: number; s: number }>;
          const got = index.search(query, 10, { allowedRegions: null, exclude: null });
          expect(got.length).toBe(want.length);
          got.forEach((h, i) => expect(h.score).toBeCloseTo(want[i].s, 9));
          // Same ids where scores are not tied (ties may order differently).
          got.forEach((h, i) => {
            if (want.filter((w) => Math.abs(w.s - want[i].s) < 1e-9).length === 1) expect(h.chunkId).toBe(want[i].id);
          });
        } finally {
          db.close();
        }
      }),
      { numRuns: 60 },
    );
  });

  it('IDF is FTS5\'s: falls with the document frequency, clamped positive from half the rows', () => {
    expect(bm25Idf(1000, 1)).toBeGreaterThan(bm25Idf(1000, 100));
    expect(bm25Idf(1000, 100)).toBeGreaterThan(bm25Idf(1000, 400));
    expect(bm25Idf(1000, 600)).toBe(1e-6);
  });
});

describe('incremental changes', () => {
  type Op = { kind: 'add'; id: number; d: { title: string[]; heading: string[]; text: string[] } } | { kind: 'remove'; id: number } | { kind: 'maintain' } | { kind: 'merge' };
  const op: fc.Arbitrary<Op> = fc.oneof(
    { weight: 6, arbitrary: fc.record({ kind: fc.constant('add' as const), id: fc.integer({ min: 1, max: 30 }), d: doc }) },
    { weight: 3, arbitrary: fc.record({ kind: fc.constant('remove' as const), id: fc.integer({ min: 1, max: 30 }) }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'maintain' as const }) },
    { weight: 1, arbitrary: fc.constant({ kind: 'merge' as const }) },
  );

  it('any sequence of adds, removals and merges answers as a fresh index of the live chunks', () => {
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), fc.uniqueArray(fc.constantFrom(...VOCAB), { minLength: 1, maxLength: 3 }), (ops, query) => {
        const live = new Map<number, string>();
        const index = new KeywordIndex();
        for (const o of ops) {
          if (o.kind === 'add') {
            const tv = tsvectorOf(o.d);
            index.add(o.id, o.id % 3, tv);
            live.set(o.id, tv);
          } else if (o.kind === 'remove') {
            index.remove(o.id);
            live.delete(o.id);
          } else if (o.kind === 'maintain') index.maintain();
          else index.merge();
        }
        const fresh = new KeywordIndex();
        for (const [id, tv] of live) fresh.add(id, id % 3, tv);
        fresh.merge();
        expect(index.size).toBe(live.size);
        expect(index.docFrequencies(query)).toEqual(fresh.docFrequencies(query));
        const all = { allowedRegions: null, exclude: null };
        expect(index.search(query, 50, all)).toEqual(fresh.search(query, 50, all));
      }),
      { numRuns: 200 },
    );
  });
});

describe('filters', () => {
  it('a region outside the mask and excluded ids never come back; the control finds them', () => {
    const index = new KeywordIndex();
    index.add(1, 1, `'kettle':1`);
    index.add(2, 2, `'kettle':1`);
    index.add(3, 1, `'kettle':1 'lamp':2`);
    index.merge();
    const mask = new Uint8Array([0, 1, 0]);
    expect(index.search(['kettle'], 10, { allowedRegions: null, exclude: null }).map((h) => h.chunkId).sort()).toEqual([1, 2, 3]);
    expect(index.search(['kettle'], 10, { allowedRegions: mask, exclude: null }).map((h) => h.chunkId).sort()).toEqual([1, 3]);
    expect(index.search(['kettle'], 10, { allowedRegions: mask, exclude: new Set([3]) }).map((h) => h.chunkId)).toEqual([1]);
    expect(index.search(['nothing'], 10, { allowedRegions: null, exclude: null })).toEqual([]);
  });

  it('top k of many matches is the best k of the full ranking', () => {
    const index = new KeywordIndex();
    for (let i = 1; i <= 500; i++) index.add(i, 1, `'w':${(i % 7) + 1}${i % 3 === 0 ? ',9' : ''} 'x':${(i % 11) + 10}`);
    index.maintain();
    const full = index.search(['w', 'x'], 500, { allowedRegions: null, exclude: null });
    expect(index.search(['w', 'x'], 10, { allowedRegions: null, exclude: null })).toEqual(full.slice(0, 10));
  });
});
