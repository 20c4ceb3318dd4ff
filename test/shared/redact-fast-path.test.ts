/**
 * Issue 38's speed pass loses no detection. Property tests on random text with planted secrets
 * of every kind (eval/secret-shapes.ts: the synthetic corpus's shapes in their contexts, and the
 * probe's shapes — split tokens, base64 of keys and `.env` files, `*_KEY` / `*PASSWORD*_X`
 * values, `mysql -p`, URL passwords), cut by line breaks (real and written `\n`), wrapped as
 * base64, mixed with paths, hashes and words:
 *   - the rewritten scans (shared/redact-views.ts: probed base64 runs, the buffer-free head test,
 *     the slice-free join test) give the runs, decodings and joined views of the straightforward
 *     ones (test/shared/reference/redact-views.ts), and a redactor over them the same findings
 *     and the same redacted text;
 *   - a transcript record read through the redacting view (shared/redact-on-read.ts, what the
 *     indexer hands its parser) parses to what the record redacted whole (redactValue) parses
 *     to, planted secrets in every field the parser reads (and in long keys); the view never
 *     gives an unredacted string and cannot be written to.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRedactor, Redactor } from '../../shared/redact.js';
import { BUILTIN_RULES } from '../../shared/redact-rules.js';
import { VIEWS } from '../../shared/redact-views.js';
import * as reference from './reference/redact-views.js';
import { RedactedReader, redactedView } from '../../shared/redact-on-read.js';
import { parseValue } from '../../transcript/records.js';
import { CodexRecordParser } from '../../transcript/codex-records.js';
import { PROBE_SHAPES, SECRET_CONTEXTS, SECRET_SHAPES, inContext } from '../../eval/secret-shapes.js';
import { seededRandom } from '../../shared/prng.js';

const fast = createRedactor();
const REFERENCE_VIEWS = { ...VIEWS, joinedView: reference.joinedView, base64Runs: reference.base64Runs, decodedText: reference.decodedText };
const slow = new Redactor(BUILTIN_RULES, [], 'reference', REFERENCE_VIEWS);

/** One planted secret of any kind, framed as it stands in a transcript. */
const planted = fc.tuple(fc.nat(), fc.nat(), fc.boolean()).map(([seed, which, probe]) => {
  const rnd = seededRandom(seed);
  if (probe) return PROBE_SHAPES[which % PROBE_SHAPES.length].make(rnd).framed;
  const shape = SECRET_SHAPES[which % SECRET_SHAPES.length];
  const value = shape.make(rnd);
  const framed = shape.frame ? shape.frame(value) : value;
  return inContext(framed, SECRET_CONTEXTS[(which >> 4) % SECRET_CONTEXTS.length]);
});

const ALNUM = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
/** Text that is not a secret but looks at the scans: words, paths, hashes, ids, runs, blanks. */
const filler = fc.oneof(
  fc.constantFrom('the build failed', 'Exit code 1', 'ok', '/Users/Dev/Projects/ActiveBrain/src/components/Header.tsx', 'sha512-Jy8OK0rxVn1OWhQG3HM7hQsUcMA2XS1oVrn2rr7Nq5z5Jr4AqPqHgKv2OXUTB7yY7hW3Nj==', 'commit 3f9a2b1c4d5e6f708192a3b4c5d6e7f8091a2b3c', 'const total = items.length', '✓ done — ünïcode', '==', '=', ' ', '\t', 'key', 'token: x'),
  fc.array(fc.constantFrom(...(ALNUM + '+/_-=.').split('')), { minLength: 1, maxLength: 90 }).map((cs) => cs.join('')),
  fc.string({ maxLength: 40 }),
  // A run about as long as the shortest one decoded, at any offset (the probes' edge cases).
  fc.tuple(fc.nat({ max: 45 }), fc.array(fc.constantFrom(...ALNUM.split('')), { minLength: 18, maxLength: 23 })).map(([k, cs]) => `${'.'.repeat(k)}aZ${cs.join('').slice(2)}=`),
);
const BREAKS = ['\n', '\r\n', '\n  ', ' \n\t', '\\n', '\\r\\n', '\\n    '];

/** Random text: secrets and filler side by side, some cut by line breaks, some base64-wrapped. */
const text = fc
  .array(fc.tuple(fc.oneof(planted, filler, filler), fc.nat(), fc.nat({ max: 9 })), { minLength: 1, maxLength: 8 })
  .map((parts) =>
    parts
      .map(([p, at, how]) => {
        if (how === 0 && p.length > 2) {
          const cut = 1 + (at % (p.length - 1));
          return p.slice(0, cut) + BREAKS[at % BREAKS.length] + p.slice(cut);
        }
        if (how === 1) return Buffer.from(p).toString('base64').replace(/.{76}(?=.)/g, '$&\n');
        if (how === 2) return Buffer.from(p).toString('base64url');
        return p;
      })
      .join([' ', '\n', '', '\\n', ', '][parts.length % 5]),
  );

describe('the rewritten scans find what the straightforward ones find', () => {
  it('property: the same base64 runs, decodings and joined views', () => {
    fc.assert(
      fc.property(text, (t) => {
        const runs = reference.base64Runs(t);
        expect([...VIEWS.base64Runs(t)]).toEqual(runs);
        for (const x of runs) expect(VIEWS.decodedText(t.slice(x.start, x.end))).toBe(reference.decodedText(t.slice(x.start, x.end)));
        expect(VIEWS.joinedView(t)).toEqual(reference.joinedView(t));
      }),
      { numRuns: 600 },
    );
  });

  it('property: decodedText agrees on any string (not only base64 runs)', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 120 }), fc.uint8Array({ maxLength: 90 }).map((b) => Buffer.from(b).toString('base64')), fc.string({ maxLength: 60 }).map((s) => Buffer.from(s).toString('base64url') + '=')), (s) => {
        expect(VIEWS.decodedText(s)).toBe(reference.decodedText(s));
      }),
      { numRuns: 1000 },
    );
  });

  it('property: the same findings and the same redacted text, planted secrets of every kind', () => {
    let found = 0;
    fc.assert(
      fc.property(text, (t) => {
        const f = fast.findings(t);
        expect(f).toEqual(slow.findings(t));
        expect(fast.redact(t)).toBe(slow.redact(t));
        found += f.length;
      }),
      { numRuns: 400 },
    );
    expect(found).toBeGreaterThan(100); // the planted secrets were there to find
  });

  it('every shape of the synthetic corpus and of the probe, in every context: found alike, and found', () => {
    const rnd = seededRandom(38);
    for (const shape of SECRET_SHAPES) {
      for (const context of SECRET_CONTEXTS) {
        const value = shape.make(rnd);
        const t = inContext(shape.frame ? shape.frame(value) : value, context);
        expect(fast.findings(t), t).toEqual(slow.findings(t));
        expect(fast.findings(t).length, t).toBeGreaterThan(0);
      }
    }
    for (const p of PROBE_SHAPES) {
      const { framed } = p.make(rnd);
      for (const t of [framed, `log: ${framed} end`, JSON.stringify({ out: framed })]) {
        expect(fast.findings(t), t).toEqual(slow.findings(t));
        expect(fast.findings(t).length, t).toBeGreaterThan(0);
      }
    }
  });
});

/** A Claude Code record with `s` (a string, maybe holding a secret) in each field the parser reads. */
const record = fc.tuple(text, text, text, text, fc.constantFrom('user-text', 'user-result', 'assistant', 'system'), fc.boolean()).map(([a, b, c, d, kind, longKey]) => {
  const base = { uuid: 'u-1', sessionId: 'sess-0001', timestamp: '2026-03-01T10:00:00Z', cwd: `/home/dev/${a.slice(0, 30)}`, gitBranch: b.slice(0, 40), version: '2.1.39', isSidechain: false };
  const extra = longKey ? { [`${c.slice(0, 60)}-padding-to-twenty`]: d, toolUseResult: { stdout: a, [d.padEnd(20, 'x')]: c } } : {};
  switch (kind) {
    case 'user-text':
      return { ...base, ...extra, type: 'user', message: { role: 'user', content: `${a}\n${b}` } };
    case 'user-result':
      return { ...base, ...extra, type: 'user', message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: c, is_error: true }, { type: 'tool_result', tool_use_id: 't2', content: [{ type: 'text', text: d }] }] } };
    case 'assistant':
      return { ...base, ...extra, type: 'assistant', message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text: a }, { type: 'tool_use', id: 't1', name: 'Bash', input: { command: b, description: c } }, { type: 'tool_use', id: 't2', name: 'mcp__x', input: { [c.padEnd(24, 'k')]: d } }, { type: 'thinking', thinking: c }] } };
    default:
      return { ...base, ...extra, type: 'system', subtype: 'turn_duration', content: a };
  }
});

describe('the redacting view the indexer parses records through', () => {
  it('property: a record read through the view parses to the record redacted whole', () => {
    let changed = 0;
    const reader = new RedactedReader(fast); // one reader for many records, as for one file
    fc.assert(
      fc.property(record, (rec) => {
        const whole = parseValue(fast.redactValue(rec));
        expect(parseValue(reader.view(rec))).toEqual(whole);
        expect(parseValue(redactedView(fast, rec))).toEqual(whole);
        if (JSON.stringify(whole) !== JSON.stringify(parseValue(rec))) changed++;
      }),
      { numRuns: 300 },
    );
    expect(changed).toBeGreaterThan(50); // records whose parse redaction changes were among them
  });

  it('property: Codex CLI rollout lines (a stateful parser) parse alike through the view', () => {
    const codexLine = fc.tuple(text, text, fc.nat({ max: 6 })).map(([a, b, kind]) => {
      const ts = '2026-03-01T10:00:00Z';
      switch (kind) {
        case 0:
          return { timestamp: ts, type: 'session_meta', payload: { id: 'c0ffee00-0000-4000-8000-000000000001', cwd: `/w/${a.slice(0, 20)}`, cli_version: '0.5.0', originator: b.slice(0, 30) } };
        case 1:
          return { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'user', content: [{ type: 'input_text', text: a }] } };
        case 2:
          return { timestamp: ts, type: 'response_item', payload: { type: 'function_call', name: 'shell', call_id: 'c1', arguments: JSON.stringify({ command: ['bash', '-lc', a] }) } };
        case 3:
          return { timestamp: ts, type: 'response_item', payload: { type: 'function_call_output', call_id: 'c1', output: JSON.stringify({ output: b, metadata: { exit_code: 1 } }) } };
        case 4:
          return { timestamp: ts, type: 'response_item', payload: { type: 'local_shell_call', call_id: 'c2', action: { command: ['sh', '-c', b] } } };
        case 5:
          return { timestamp: ts, type: 'response_item', payload: { type: 'custom_tool_call', name: 'apply_patch', call_id: 'c3', input: `*** Update File: ${a}\n${b}` } };
        default:
          return { timestamp: ts, type: 'response_item', payload: { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: b }] } };
      }
    });
    fc.assert(
      fc.property(fc.array(codexLine, { minLength: 1, maxLength: 8 }), (lines) => {
        const whole = new CodexRecordParser('fallback');
        const viewed = new CodexRecordParser('fallback');
        const reader = new RedactedReader(fast);
        for (const l of lines) expect(viewed.parseValue(reader.view(l))).toEqual(whole.parseValue(fast.redactValue(l)));
      }),
      { numRuns: 200 },
    );
  });

  it('property: every string read through the view is the redacted string; keys and JSON too', () => {
    fc.assert(
      fc.property(record, (rec) => {
        const v = redactedView(fast, rec);
        expect(JSON.parse(JSON.stringify(v))).toEqual(fast.redactValue(rec));
        expect(Object.keys(v)).toEqual(Object.keys(fast.redactValue(rec)));
      }),
      { numRuns: 200 },
    );
  });

  it('control: the view redacts (a secret read raw would be there); the value given is unchanged; writes fail', () => {
    const gh = `ghp_${'aB3'.repeat(12)}`;
    const rec = { type: 'user', message: { role: 'user', content: [{ type: 'tool_result', content: `push failed for ${gh}` }] }, [`token ${gh}`]: 1 };
    const before = JSON.stringify(rec);
    const v = redactedView(fast, rec);
    expect(v.message.content[0].content).toBe('push failed for ‹secret:github-token›');
    expect(Object.keys(v)).toContain('token ‹secret:github-token›');
    expect(Array.isArray(v.message.content)).toBe(true);
    expect(v.message.content.slice(0, 1)[0].content).not.toContain(gh);
    expect(JSON.stringify(rec)).toBe(before);
    expect(() => {
      'use strict';
      (v.message as { role: string }).role = 'x';
    }).toThrow(TypeError);
    // Strings and a rule-less redactor: the value itself (nothing to find).
    expect(redactedView(fast, `x ${gh}`)).toBe('x ‹secret:github-token›');
    const none = createRedactor({ patterns: [], allow: [] }, []);
    expect(redactedView(none, rec)).toBe(rec);
  });

  it('a reader kept for a run gives the redactor\'s answer every time: strings repeated, long, many', () => {
    const reader = new RedactedReader(fast);
    const gh = `ghp_${'xY7'.repeat(12)}`;
    const long = `${'word '.repeat(2000)} ${gh}`;
    for (let i = 0; i < 3; i++) {
      expect(reader.view(gh)).toBe('‹secret:github-token›');
      expect(reader.view('plain words')).toBe('plain words');
      expect(reader.view(long)).toBe(fast.redact(long));
    }
    for (let i = 0; i < 8192; i++) expect(reader.view(`value ${i} of many`)).toBe(`value ${i} of many`);
    expect(reader.view(gh)).toBe('‹secret:github-token›');
    expect(reader.view(long)).toBe(fast.redact(long));
  });
});
