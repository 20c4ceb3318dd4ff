/**
 * Snippets (search/snippet.ts): one printable line, bounded length, centred near the first
 * query word — for any input text (property test), including ANSI escapes and controls.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { snippet, SNIPPET_CHARS } from '../../search/snippet.js';

describe('snippet', () => {
  it('short text is kept whole, whitespace collapsed', () => {
    expect(snippet('a  b\n\tc', 'b')).toBe('a b c');
  });

  it('long text is cut around the first query word', () => {
    const text = 'filler '.repeat(60) + 'the ECONNRESET happened here ' + 'tail '.repeat(60);
    const s = snippet(text, 'econnreset');
    expect(s).toContain('ECONNRESET happened here');
    expect(s.startsWith('…')).toBe(true);
    expect(s.endsWith('…')).toBe(true);
    // Control: with no query word in the text it starts at the beginning.
    expect(snippet(text, 'zebra').startsWith('filler')).toBe(true);
  });

  it('any text gives one printable line of bounded length', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), fc.string({ maxLength: 30 }), (text, query) => {
        const s = snippet(text, query);
        expect(s).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
        expect(s).not.toContain('\n');
        expect(Array.from(s).length).toBeLessThanOrEqual(SNIPPET_CHARS + 2);
      }),
    );
  });

  it('ANSI colour codes never reach the terminal', () => {
    expect(snippet('\u001b[31mred\u001b[0m text', 'red')).toBe('red text');
  });
});

describe('snippet: never starts mid-word', () => {
  const WORD = /[\p{L}\p{N}_]/u;
  it('the window moves to a word start (control: the old window began inside "removed")', () => {
    const text = 'x'.repeat(5) + ' ' + 'word '.repeat(20) + 'the branch was removed): Bash: git add -A && git commit ' + 'tail '.repeat(40);
    const s = snippet(text, 'git');
    expect(s.startsWith('…')).toBe(true);
    const body = s.slice(1);
    const at = text.indexOf(body.replace(/…$/, ''));
    expect(at).toBeGreaterThan(0);
    expect(WORD.test(text[at - 1]) && WORD.test(text[at])).toBe(false);
    expect(s).toContain('git add -A');
  });

  it('any text and query: after the ellipsis the snippet begins at a word boundary of the cleaned text', () => {
    const words = fc.array(fc.stringMatching(/^[a-z]{1,12}$/), { minLength: 30, maxLength: 80 });
    const seps = fc.constantFrom(' ', ': ', ') ', ', ', ' -- ');
    fc.assert(
      fc.property(words, seps, fc.nat(), (ws, sep, k) => {
        const text = ws.join(sep);
        const query = ws[k % ws.length].slice(1); // often a word's inside: the hit is mid-word
        const s = snippet(text, query);
        if (!s.startsWith('…')) return;
        const body = s.slice(1).replace(/…$/, '');
        const at = text.indexOf(body);
        expect(at).toBeGreaterThan(0);
        expect(WORD.test(text[at - 1]) && WORD.test(text[at])).toBe(false);
      }),
    );
  });
});
