/**
 * store/word-table.ts: looked up by a whole word or by a span of a text (ASCII capitals folded
 * while hashing), the table answers what a Map of the same words answers — across growth, words
 * of any characters, spans inside longer texts, and a clear.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { WordTable, HASH_SEED, hashStep, hashWord, foldAscii } from '../../store/word-table.js';

/** The span's hash as a scanner computes it (capitals folded). */
function spanHash(text: string, start: number, end: number): number {
  let h = HASH_SEED;
  for (let i = start; i < end; i++) h = hashStep(h, foldAscii(text.charCodeAt(i)));
  return h;
}

describe('WordTable', () => {
  it('answers like a Map: whole words and spans, through growth and clear', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 6 }), { maxLength: 3000 }), fc.array(fc.string({ maxLength: 6 }), { maxLength: 50 }), (words, probes) => {
        const table = new WordTable<number>();
        const map = new Map<string, number>();
        words.forEach((w, i) => {
          table.set(w, i);
          map.set(w, i);
        });
        table.set(words[0] ?? '', -5); // an update keeps one entry
        map.set(words[0] ?? '', -5);
        expect(table.size).toBe(map.size);
        for (const w of [...words, ...probes]) {
          expect(table.get(w)).toBe(map.get(w));
          // The word in capitals inside a longer text: the span reads as the word with its ASCII
          // letters in lower case.
          const text = `#${w.replace(/[a-z]/g, (c) => c.toUpperCase())}#`;
          const folded = w.replace(/[A-Z]/g, (c) => c.toLowerCase());
          expect(table.getSpan(text, 1, 1 + w.length, spanHash(text, 1, 1 + w.length))).toBe(map.get(folded));
        }
        table.clear();
        expect(table.size).toBe(0);
        for (const w of words) expect(table.get(w)).toBeUndefined();
      }),
      { numRuns: 40 },
    );
  });

  it('hashWord is hashStep over the characters; foldAscii folds only A-Z', () => {
    expect(hashWord('ab')).toBe(hashStep(hashStep(HASH_SEED, 97), 98));
    expect(String.fromCharCode(...[...'AZaz@[é'].map((c) => foldAscii(c.charCodeAt(0))))).toBe('azaz@[é');
  });
});
