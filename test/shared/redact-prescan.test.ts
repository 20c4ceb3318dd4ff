/**
 * The redaction pre-scan (shared/redact-prescan.ts) rules out no rule that could match:
 *   - literalsOf reads each built-in hint and anchor as the literals it stands for, and refuses
 *     a source it cannot (control: the regex fallback then scans it);
 *   - property: on random text (the hints' and anchors' literals in any case, look-alike
 *     letters, planted secrets of every kind), the pre-scan gives every anchor position the
 *     anchor regex gives and a hint wherever the hint regex matches;
 *   - property: the built-in redactor finds exactly what the same rules find with no pre-scan
 *     (no hints, no anchors: each rule over the whole text), and every rule that matches there
 *     has its hint and an anchor position at its match seen by the pre-scan.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { literalsOf, Prescanner } from '../../shared/redact-prescan.js';
import { createRedactor, Redactor } from '../../shared/redact.js';
import { BUILTIN_RULES, KEY_ANCHOR, KEYWORD_ANCHOR, type RedactRule } from '../../shared/redact-rules.js';
import { VIEWS } from '../../shared/redact-views.js';
import { plainScanner } from '../../shared/redact-scan.js';
import { PROBE_SHAPES, SECRET_CONTEXTS, SECRET_SHAPES, inContext } from '../../eval/secret-shapes.js';
import { seededRandom } from '../../shared/prng.js';

const HINTS = [...new Set(BUILTIN_RULES.flatMap((r) => (r.hint ? [r.hint] : [])))];
const ANCHORS = [KEYWORD_ANCHOR, KEY_ANCHOR];
const LITERALS = [...HINTS, ...ANCHORS.map((a) => a.source)].flatMap((s) => literalsOf(s) ?? []);

/** Every position where `re` matches (a scan stepping one past each match). */
function positions(source: string, text: string): number[] {
  const re = new RegExp(source, 'gi');
  const out: number[] = [];
  for (let m = re.exec(text); m; m = re.exec(text)) {
    out.push(m.index);
    re.lastIndex = m.index + 1;
  }
  return out;
}

/** A string with its ASCII letters' case flipped at random. */
const anyCase = (s: string) => fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((up) => [...s].map((c, i) => (up[i] ? c.toUpperCase() : c)).join(''));

/** One planted secret of any kind (the corpus's shapes in their contexts, or a probe's). */
const planted = fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([seed, which, probe]) => {
  const rnd = seededRandom(seed);
  if (probe) return PROBE_SHAPES[which % PROBE_SHAPES.length].make(rnd).framed;
  const shape = SECRET_SHAPES[which % SECRET_SHAPES.length];
  const value = shape.make(rnd);
  return inContext(shape.frame ? shape.frame(value) : value, SECRET_CONTEXTS[(which >> 4) % SECRET_CONTEXTS.length]);
});

const part = fc.oneof(
  fc.constantFrom(...LITERALS).chain(anyCase),
  fc.constantFrom(...LITERALS).map((l) => l.slice(0, -1)), // a literal cut short
  fc.constantFrom('ſ', 'K', 'ı', 'İ', 'ß', '\n', '\\n', ' ', '=', '"', ': ', 'é', '—'),
  fc.string({ maxLength: 6 }),
  planted,
);
const text = fc.array(part, { maxLength: 10 }).map((p) => p.join(''));

describe('literalsOf', () => {
  it('reads every built-in hint and anchor (so the trie, not a regex, scans them)', () => {
    for (const s of [...HINTS, ...ANCHORS.map((a) => a.source)]) expect(literalsOf(s), s).not.toBeNull();
    expect(literalsOf('gh[pousr]_|github_pat_')).toEqual(['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_']);
    expect(literalsOf('api[ _-]?key|passw(?:or)?d')).toEqual(['apikey', 'api key', 'api_key', 'api-key', 'passwd', 'password']);
    expect(literalsOf('hooks\\.slack\\.com|PRIVATE KEY')).toEqual(['hooks.slack.com', 'private key']);
  });

  it('refuses what is not a finite set of ASCII literals (control: a near one is read)', () => {
    for (const bad of ['a.b', 'ab*', 'a+', 'a{2}', '\\sx', '\\bkey', '[a-z]x', '[^a]b', '(?=a)b', '(?<v>a)', '(ab', 'ab)', '^ab', 'ab$', 'a|', 'é', '(?:a)?', '']) expect(literalsOf(bad), bad).toBeNull();
    expect(literalsOf('[ab-]c')).toEqual(['ac', 'bc', '-c']);
  });
});

describe('the pre-scan', () => {
  const scanner = new Prescanner(HINTS, ANCHORS);

  it('property: every anchor position the anchor regex gives, and a hint wherever its regex matches', () => {
    fc.assert(
      fc.property(text, (t) => {
        const got = scanner.scan(t);
        expect(got.anchors).toEqual(ANCHORS.map((a) => positions(a.source, t)));
        expect(got.hints).toEqual(HINTS.map((h) => new RegExp(h, 'i').test(t)));
      }),
      { numRuns: 1500 },
    );
  });

  it('a source the trie cannot hold is scanned with its regex (control: same answers)', () => {
    const odd = new Prescanner(['to+ken', 'sk-'], [/k\wy/g]);
    // An anchor without `i` matches as written: `kay`, not `KEY`.
    expect(odd.scan('a TOOOKEN, kay and KEY')).toEqual({ hints: [true, false], anchors: [[11]] });
    expect(odd.scan('nothing here')).toEqual({ hints: [false, false], anchors: [[]] });
  });

  it('finds a literal at the very end and across non-ASCII characters (control: not inside one)', () => {
    expect(scanner.scan('my key').anchors[1]).toEqual([3]);
    expect(scanner.scan('ké token').anchors[0]).toEqual([3]);
    expect(scanner.scan('toKEn').anchors[0]).toEqual([0]);
    expect(scanner.scan('toſen K\u212Ay').anchors).toEqual([[], []]);
  });
});

describe('the redactor with its pre-scan finds what its rules find without one, and what the plain scan lets through', () => {
  const fast = createRedactor();
  const bare: RedactRule[] = BUILTIN_RULES.map(({ hint: _h, anchor: _a, ...r }) => r);
  const everyRule = new Redactor(bare, [], 'no pre-scan', VIEWS);
  // The hook's scan (shared/redact-scan.ts) with the views: the same rules, another scanner.
  const plain = new Redactor(BUILTIN_RULES, [], 'plain scan', VIEWS, plainScanner);
  const scanner = new Prescanner(HINTS, ANCHORS);
  const plainScan = plainScanner(HINTS, ANCHORS);

  it('property: the same findings and redacted text; each rule that matches was let through', () => {
    fc.assert(
      fc.property(text, (t) => {
        expect(fast.findings(t)).toEqual(everyRule.findings(t));
        expect(plain.findings(t)).toEqual(everyRule.findings(t));
        expect(fast.redact(t)).toBe(everyRule.redact(t));
        expect(plain.redact(t)).toBe(everyRule.redact(t));
        const seen = scanner.scan(t);
        const seenPlain = plainScan.scan(t);
        for (const rule of BUILTIN_RULES) {
          const starts = [...t.matchAll(rule.re)].map((m) => m.index!);
          if (starts.length === 0) continue;
          if (rule.hint) expect(seen.hints[HINTS.indexOf(rule.hint)], rule.kind).toBe(true);
          if (rule.hint) expect(seenPlain.hints[HINTS.indexOf(rule.hint)], rule.kind).toBe(true);
          if (rule.anchor) for (const s of starts) expect(seen.anchors[ANCHORS.indexOf(rule.anchor)], rule.kind).toContain(s);
          if (rule.anchor) for (const s of starts) expect(seenPlain.anchors[ANCHORS.indexOf(rule.anchor)], rule.kind).toContain(s);
        }
      }),
      { numRuns: 800 },
    );
  });

  it('the plain scan: nothing when no hint or keyword is there; every keyword position when one is (control)', () => {
    expect(plainScan.scan('Exit code 1\n ✓ src/a.test.ts > computes case 3 (4 ms)')).toEqual({ hints: HINTS.map(() => false), anchors: [[], []] });
    const got = plainScan.scan('my SecreToken and the api key, sk-x');
    expect(got.anchors).toEqual(ANCHORS.map((a) => positions(a.source, 'my SecreToken and the api key, sk-x')));
    expect(got.anchors[0]).toEqual([3, 8, 22]);
    expect(got.hints[HINTS.indexOf('sk-')]).toBe(true);
  });

  it('a planted secret of every kind is found (control: the property sees secrets)', () => {
    const rnd = seededRandom(38);
    for (const shape of SECRET_SHAPES) {
      const value = shape.make(rnd);
      const t = inContext(shape.frame ? shape.frame(value) : value, 'tool-output');
      expect(fast.findings(t).length, shape.kind).toBeGreaterThan(0);
      expect(plain.findings(t), shape.kind).toEqual(fast.findings(t));
    }
  });
});
