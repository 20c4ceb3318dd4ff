import { describe, expect, test } from 'vitest';
import fc from 'fast-check';
import { extractStrings, showsFailure, EXTRACT_MAX_LEN, EXTRACT_MAX_STRINGS } from '../../retrieval/extract.js';

describe('extractStrings', () => {
  const turn = [
    'The server crashed with ECONNRESET after HTTP 503 from the billing API.',
    "TypeError: Cannot read properties of undefined (reading 'id')",
    '    at handleRequest (/app/src/server.ts:12:5)',
    '  File "/srv/app/config.py", line 3, in load_config',
    'Process exited with code 137. Ask @alice about it.',
  ].join('\n');

  test('pulls error codes, messages, HTTP status, exit codes, frames, paths and handles', () => {
    const got = extractStrings(turn, 30);
    const texts = got.map((s) => `${s.kind}:${s.text}`);
    expect(texts).toContain('error-code:ECONNRESET');
    expect(texts).toContain("error-message:TypeError: Cannot read properties of undefined (reading 'id')");
    expect(texts).toContain('http-status:HTTP 503');
    expect(texts).toContain('exit-code:exit code 137');
    expect(texts).toContain('frame:handleRequest');
    expect(texts).toContain('frame:load_config');
    expect(texts).toContain('path:/app/src/server.ts');
    expect(texts).toContain('handle:@alice');
    // Error strings come first.
    expect(got[0].kind).toBe('error-code');
    expect(showsFailure(got)).toBe(true);
  });

  test('capitalised names but not sentence starters or common words', () => {
    const got = extractStrings('We moved the cache to PostgreSQL last week. Then the Billing Service was slow.', 30).map((s) => s.text);
    expect(got).toContain('PostgreSQL');
    expect(got).toContain('Billing Service');
    expect(got).not.toContain('Then');
    expect(got).not.toContain('We');
  });

  test('a calm turn shows no failure and ordinary words give nothing', () => {
    const got = extractStrings('please tidy up the readme and make the wording friendlier');
    expect(got).toEqual([]);
    expect(showsFailure(got)).toBe(false);
  });

  test('version numbers and URLs are not paths; exit code 0 is not a failure', () => {
    const got = extractStrings('upgraded to 2.17.2 see https://example.com/a/b.html — exited with code 0', 30);
    expect(got.find((s) => s.text === '2.17.2')).toBeUndefined();
    expect(got.find((s) => s.kind === 'exit-code')).toBeUndefined();
  });

  test('property: never throws, bounded count and length, no control characters', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 3000 }), fc.string({ unit: 'binary', maxLength: 3000 }), fc.anything()), fc.integer({ min: -5, max: 100 }), (input, n) => {
        const out = extractStrings(input, n);
        expect(out.length).toBeLessThanOrEqual(Math.max(0, Math.min(EXTRACT_MAX_STRINGS * 4, n)));
        for (const s of out) {
          expect(s.text.length).toBeGreaterThan(0);
          expect(s.text.length).toBeLessThanOrEqual(EXTRACT_MAX_LEN);
          expect(/[\u0000-\u001f\u007f]/.test(s.text)).toBe(false);
        }
      }),
      { numRuns: 300 },
    );
  });

  test('property: default bound holds for error-dense text and a 100 KB turn stays fast', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom('ECONNRESET ', 'TypeError: x\n', 'HTTP 500 ', 'src/a.ts ', '@bob ', 'FooBar ', 'exit code 2 '), { maxLength: 400 }), (parts) => {
        expect(extractStrings(parts.join('')).length).toBeLessThanOrEqual(EXTRACT_MAX_STRINGS);
      }),
      { numRuns: 100 },
    );
    const big = 'x'.repeat(50_000) + ' ECONNRESET ' + 'y '.repeat(25_000);
    const t0 = performance.now();
    extractStrings(big);
    expect(performance.now() - t0).toBeLessThan(500);
  });
});
