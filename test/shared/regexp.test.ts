import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { asciiCaseless, escapeRegExp, lazyRegExp } from '../../shared/regexp.js';
import { BUILTIN_RULES, KEY_ANCHOR, KEYWORD_ANCHOR } from '../../shared/redact-rules.js';

describe('shared/regexp', () => {
  it('lazyRegExp builds its regex once, on the first call, with the flags given', () => {
    const get = lazyRegExp('\\p{L}{2}', 'u');
    const re = get();
    expect(get()).toBe(re);
    expect(re.flags).toBe('u');
    expect(re.test('数据')).toBe(true);
    expect(re.test('1 2')).toBe(false);
  });

  it('escapeRegExp makes a literal of any text', () => {
    const s = 'a.b*c?(d)[e]{f}|g^h$i\\j+k';
    expect(new RegExp(`^${escapeRegExp(s)}$`).test(s)).toBe(true);
    expect(new RegExp(`^${escapeRegExp('a.b')}$`).test('axb')).toBe(false);
  });

  it('asciiCaseless: without `i`, the source matches where it matches with `i` (property: the redaction hints and keywords, look-alike letters)', () => {
    const sources = [...new Set(BUILTIN_RULES.flatMap((r) => (r.hint ? [r.hint] : [])))].concat(KEYWORD_ANCHOR.source, KEY_ANCHOR.source);
    const part = fc.oneof(
      fc.constantFrom('sk-', 'AKIA', 'ghp_', 'GitHub_PAT_', 'glpat-', 'Hooks.Slack.com', 'ya29.', 'Private Key', 'BEARER', 'Api-Key', 'https://', 'PassWord', 'ToKeN', 'Key', 'ſk-', 'K', 'ı', 'İ', 'ſ', 'x', '<Meta'),
      fc.string({ maxLength: 4 }),
    );
    for (const source of sources) {
      const withI = new RegExp(source, 'gi');
      const caseless = new RegExp(asciiCaseless(source), 'g');
      fc.assert(
        fc.property(fc.array(part, { maxLength: 6 }).map((p) => p.join('')), (s) => {
          expect([...s.matchAll(caseless)].map((m) => [m.index, m[0]])).toEqual([...s.matchAll(withI)].map((m) => [m.index, m[0]]));
        }),
        { numRuns: 300 },
      );
    }
  });

  it('asciiCaseless refuses what it cannot rewrite (control: what it can)', () => {
    expect(asciiCaseless('gh[pousr]_|gl[a-z]{1,5}-|:\\/\\/[^\\s/]*@')).toBe('[gG][hH][pPoOuUsSrR]_|[gG][lL][a-zA-Z]{1,5}-|:\\/\\/[^\\s/]*@');
    for (const bad of ['[0-c]', '[!-~]', '(?<v>a)', '\\p{L}', '[\\x00-z]', '\\k<v>']) expect(() => asciiCaseless(bad)).toThrow();
  });
});
