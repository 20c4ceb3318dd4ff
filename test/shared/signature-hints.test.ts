/**
 * The small regexes that let the signing code skip a big one (shared/error-class.ts; the hook's
 * third speed pass; its notes are in the git history of docs/HOOK.md): each must hold for every text the
 * big one matches, or a skipped test would change a verdict. Matches of each big regex are
 * generated from its source (fast-check stringMatching, with `\b` and `^` dropped — a larger
 * language, so a hint that holds there holds for the real matches).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { LINE_KINDS, LINE_KIND_HINTS, LINE_KIND_WORD_RE, RAW_KINDS, RAW_KIND_WORD_RE } from '../../shared/error-class.js';

/** The source's matches, exactly (anchored), with word boundaries and line starts dropped. */
const matchesOf = (re: RegExp) => fc.stringMatching(new RegExp(`^(?:${re.source.replace(/\\b/g, '').replace(/(?<!\[)\^/g, '')})$`));
/** A string with its ASCII letters' case flipped at random. */
const anyCase = (s: string) => fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));
/** What a normalized line's placeholders are: no letters of the words around them. */
const outsidePlaceholders = (s: string) => s.replace(/<[a-z]+>/g, ' ');

describe('hints of the big regexes', () => {
  it('property: every match of a LINE_KINDS regex holds its kind\'s hint and a LINE_KIND_WORD_RE word outside its placeholders', () => {
    for (const [kind, re] of LINE_KINDS) {
      fc.assert(fc.property(matchesOf(re), (m) => {
        expect(LINE_KIND_HINTS[kind]!.test(m)).toBe(true);
        expect(LINE_KIND_WORD_RE.test(outsidePlaceholders(m))).toBe(true);
      }), { numRuns: 400 });
    }
  });

  it('a kind\'s hint lets a line through that its regex matches, and keeps out one the bench error signs with (control)', () => {
    expect(LINE_KIND_HINTS.assertion!.test('fail <path> > pool > reuses idle connections')).toBe(false);
    expect(LINE_KIND_HINTS.assertion!.test('failed src/a.test.ts > x test')).toBe(true);
    expect(LINE_KINDS.find(([k]) => k === 'assertion')![1].test('fail <path> > x test')).toBe(true);
    expect(LINE_KIND_HINTS.assertion!.test('fail <path> > x test')).toBe(true);
  });

  it('property: every match of a RAW_KINDS regex, in any case, holds a RAW_KIND_WORD_RE word once lower-cased', () => {
    for (const [, re] of RAW_KINDS) {
      const lower = new RegExp(re.source);
      fc.assert(fc.property(matchesOf(lower).chain(anyCase), (m) => {
        expect(re.test(m)).toBe(true);
        expect(RAW_KIND_WORD_RE.test(m.toLowerCase())).toBe(true);
      }), { numRuns: 400 });
    }
  });
});

describe('case folding of `i` without `u` (the premise of shared/redact-prescan.ts\'s two-case trie)', () => {
  it('without `u`, `i` matches an ASCII letter in its two cases and nothing else: every code unit, every letter (the premise)', () => {
    const wrong: string[] = [];
    for (const l of 'abcdefghijklmnopqrstuvwxyz') {
      const re = new RegExp(l, 'i');
      for (let c = 0; c < 0x10000; c++) {
        const ch = String.fromCharCode(c);
        if (re.test(ch) !== (ch === l || ch === l.toUpperCase())) wrong.push(`${l}:${c.toString(16)}`);
      }
    }
    expect(wrong).toEqual([]);
  });
});
