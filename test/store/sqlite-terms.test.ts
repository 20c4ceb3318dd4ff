/**
 * store/sqlite-terms.ts: a chunk's terms (FTS5's own stemming, column weights, length) are what
 * a plain reading gives — every word of each column mapped through FtsStemmer and the weighted
 * frequencies summed in first-seen order — across calls that reuse the word cache, words seen
 * for the first time in a later call, words FTS5 splits into several terms or none, and a
 * cache cleared between calls; query tokens map to the same terms. Columns of ASCII text (read
 * character by character against the word cache) and others (the regular expression) alike,
 * including any ASCII text at all (property).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { SqliteChunkTerms } from '../../store/sqlite-terms.js';
import { FtsStemmer } from '../../store/term-stats.js';
import { BM25_WEIGHTS, type ParsedTsvector } from '../../store/keyword-index.js';
import { prng } from './helpers.js';

const WORDS = ['Running', 'runs', 'run', 'caching', 'Cached', 'pools', 'timeouts', 'résumé', 'naïve', 'x86_64', 'v2', '日本語', 'données', 'ECONNRESET', 'the', 'of', 'a-b', 'e.g', 'ﬁle', 'İstanbul', 'straße', '٣٤', '🙂', 'don\'t',
  // FTS5 splits these in two (a spacing or enclosing mark inside), and finds no term in these (a mark alone).
  'a\u0903b', 'run\u20ddcached', '\u0301', '\u0903'];
const WEIGHTS = [BM25_WEIGHTS.title, BM25_WEIGHTS.heading, BM25_WEIGHTS.text];

function reference(stemmer: FtsStemmer, row: readonly [string, string, string]): ParsedTsvector {
  const tf = new Map<string, number>();
  let length = 0;
  row.forEach((col, c) => {
    for (const w of col.toLowerCase().match(/[\p{L}\p{N}\p{M}\p{Co}]+/gu) ?? []) {
      const terms = stemmer.termsOf([w])[0];
      for (const t of terms) tf.set(t, (tf.get(t) ?? 0) + WEIGHTS[c]);
      length += terms.length;
    }
  });
  return { lexemes: [...tf.keys()], tf: Float64Array.from(tf.values()), length };
}

describe('SqliteChunkTerms', () => {
  it('the terms a plain word-by-word reading gives, across calls, new words and a cleared cache', () => {
    const stemmer = new FtsStemmer();
    for (const cacheMax of [1_000_000, 5]) {
      const terms = new SqliteChunkTerms(cacheMax);
      const rand = prng(cacheMax);
      const text = (n: number, extra: number) =>
        Array.from({ length: n }, () => (rand() < 0.2 ? `w${Math.floor(rand() * extra)}` : WORDS[Math.floor(rand() * WORDS.length)])).join(rand() < 0.5 ? ' ' : ', ');
      for (let call = 0; call < 6; call++) {
        const rows = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => [text(Math.floor(rand() * 3), 50), text(Math.floor(rand() * 4), 50), text(Math.floor(rand() * 40), 20 + call * 40)] as const);
        expect(terms.termsOf(rows)).toEqual(rows.map((r) => reference(stemmer, r)));
      }
      expect(terms.queryTerms(['running', 'données', 'nothingseen', 'x86_64'])).toEqual(stemmer.termsOf(['running', 'données', 'nothingseen', 'x86_64']));
      terms.close();
    }
    stemmer.close();
  });

  it('any ASCII text: the same terms as the plain reading (capitals, digits, punctuation, control characters)', () => {
    const stemmer = new FtsStemmer();
    const terms = new SqliteChunkTerms();
    const ascii = fc.string({ unit: fc.integer({ min: 0, max: 127 }).map((c) => String.fromCharCode(c)), maxLength: 60 });
    const wordy = fc.array(fc.oneof(fc.constantFrom(...WORDS.filter((w) => /^[\x00-\x7f]*$/.test(w)), 'RUNNING', 'Caches', 'a1B2'), ascii), { maxLength: 8 }).map((ws) => ws.join(' '));
    fc.assert(
      fc.property(fc.tuple(wordy, wordy, wordy), (row) => {
        expect(terms.termsOf([row])).toEqual([reference(stemmer, row)]);
      }),
      { numRuns: 200 },
    );
    terms.close();
    stemmer.close();
  });
});
