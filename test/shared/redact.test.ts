/**
 * The secret redactor (shared/redact.ts, shared/redact-rules.ts): every kind is caught in
 * every context (controls: each built-in rule is needed — without it some case survives),
 * placeholders and code are left alone, a random secret at a random place in random text
 * never survives redaction nor reaches an error signature, the same secret gives the same
 * signature, and user patterns / allow lists work.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createRedactor, marker, Redactor, RedactConfigError } from '../../shared/redact.js';
import { BUILTIN_RULES, isPlaceholder } from '../../shared/redact-rules.js';
import { errorSignature } from '../../shared/error-signature.js';
import { SECRET_CONTEXTS, SECRET_SHAPES, inContext, secretCases } from '../../eval/secret-shapes.js';
import { seededRandom as prng } from '../../shared/prng.js';

const r = createRedactor();

/** A value survives when it (or a long piece of it) is still in the text. */
function survives(value: string, text: string): boolean {
  if (text.includes(value)) return true;
  // A secret cut in half is still a leak: no 16-character window of it may remain.
  const W = 16;
  for (const line of value.split('\n')) {
    if (line.length < W) continue;
    for (let i = 0; i + W <= line.length; i += 4) if (text.includes(line.slice(i, i + W))) return true;
  }
  return false;
}

describe('redaction: every kind in every context', () => {
  const cases = secretCases(prng(11));
  it.each(cases.map((c) => [c.kind, c.context, c] as const))('%s in %s is redacted', (_k, _c, c) => {
    const out = r.redact(c.text);
    expect(survives(c.value, out)).toBe(false);
    expect(out).toContain('‹secret:');
    expect(r.findings(out)).toEqual([]); // idempotent: markers are not secrets
  });

  it('names the kind of a secret standing alone in prose', () => {
    for (const shape of SECRET_SHAPES) {
      const v = shape.make(prng(5));
      const text = inContext(shape.frame ? shape.frame(v) : v, 'prose');
      expect(r.findings(text).map((f) => f.kind), shape.kind).toContain(shape.kind);
    }
  });

  it('controls: without any one built-in rule, some case survives (each rule is load-bearing)', () => {
    const cases2 = secretCases(prng(12));
    for (const rule of BUILTIN_RULES) {
      const without = createRedactor({ patterns: [], allow: [] }, BUILTIN_RULES.filter((x) => x !== rule));
      const leaked = cases2.filter((c) => survives(c.value, without.redact(c.text)));
      expect(leaked.length, `rule ${rule.kind} /${rule.re.source.slice(0, 40)}…/`).toBeGreaterThan(0);
    }
  });
});

describe('redaction leaves placeholders, code and prose alone', () => {
  const keep = [
    'const password: string = input.password;',
    'apiKey: process.env.GEMINI_API_KEY,',
    'DATABASE_URL=postgres://postgres:${POSTGRES_PASSWORD}@db:5432/app',
    'API_KEY=<your-api-key>',
    'SECRET_KEY=changeme',
    'password: "${DB_PASSWORD}"',
    'token = os.environ["GITHUB_TOKEN"]',
    'const max_tokens = 4096; const tokenizer = "bert";',
    'Please enter your password and your credentials: Perfect!',
    'set the token in your settings, then run npm test',
    'sk-learn-compatible-estimator-interface',
    'git log --format=%H | head -n 3 # 9f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6',
    'postgres://user:password@localhost:5432/db',
    'See https://example.com/docs?token= for how to make one.',
    'Authorization: Bearer ${TOKEN}',
    'headers: { Authorization: `Bearer ${token}` }',
  ];
  it.each(keep)('%s', (text) => {
    expect(r.redact(text)).toBe(text);
  });

  it('isPlaceholder knows the usual stand-ins', () => {
    for (const p of ['${VAR}', '$VAR', '%VAR%', '<your-password>', 'changeme', '****', 'xxxxxxxx', 'your_api_key_here', 'process.env.X', '{{ secret }}']) expect(isPlaceholder(p), p).toBe(true);
    for (const p of ['hunter22!', 'Tr0ub4dor&3', 'sk-abc123']) expect(isPlaceholder(p), p).toBe(false);
  });
});

describe('property: a random secret at a random place never survives', () => {
  const shapeArb = fc.constantFrom(...SECRET_SHAPES);
  const contextArb = fc.constantFrom(...SECRET_CONTEXTS);
  // Random text around it: words, punctuation, newlines, JSON-ish bits (no secret-shaped runs).
  const fillerArb = fc.array(fc.constantFrom('error', 'the', 'build', 'failed', ':', '=', '"', "'", '\n', ' ', '{', '}', ',', 'npm', 'run', 'test', 'key', 'token', '->', '/tmp/x', '42'), { maxLength: 40 }).map((xs) => xs.join(' '));

  it('in text, and in the error signature of that text', () => {
    fc.assert(
      fc.property(shapeArb, contextArb, fillerArb, fillerArb, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (shape, context, before, after, seed) => {
        const value = shape.make(prng(seed));
        const text = `${before}\n${inContext(shape.frame ? shape.frame(value) : value, context)}\n${after}`;
        const out = r.redact(text);
        if (survives(value, out)) return false;
        const sig = errorSignature(`Error: ${out}`);
        if (sig && (survives(value, sig.head.join('\n')) || survives(value.toLowerCase(), sig.head.join('\n')) || sig.words.some((w) => w.length >= 12 && value.toLowerCase().includes(w)))) return false;
        return true;
      }),
      { numRuns: 400 },
    );
  });

  it('inside parsed JSON records (redactValue walks every string, keys too)', () => {
    fc.assert(
      fc.property(shapeArb, fc.integer({ min: 1, max: 2 ** 31 - 1 }), (shape, seed) => {
        const value = shape.make(prng(seed));
        const framed = shape.frame ? shape.frame(value) : value;
        const rec = { type: 'user', message: { content: [{ type: 'tool_result', content: `out\n${framed}\n` }, { type: 'tool_use', input: { command: `echo ${framed}`, [framed]: 1 } }] } };
        const out = JSON.stringify(r.redactValue(rec));
        const back = JSON.parse(out);
        return !survives(value, back.message.content[0].content) && !survives(value, back.message.content[1].input.command) && !survives(value, Object.keys(back.message.content[1].input).join('\n'));
      }),
      { numRuns: 200 },
    );
  });
});

describe('signatures stay stable', () => {
  it('the same secret in two sessions gives the same signature after redaction', () => {
    const tok = SECRET_SHAPES.find((s) => s.kind === 'github-token')!.make(prng(3));
    const err = (repo: string, code: number) => `fatal: Authentication failed for 'https://x-access-token:${tok}@github.com/acme/${repo}.git/'\nremote: token ${tok} expired\nExit code ${code}`;
    const a = errorSignature(r.redact(err('api', 128)))!;
    const b = errorSignature(r.redact(err('web', 1)))!;
    expect(a.sig).toBe(b.sig);
    expect(a.head.join('\n')).toContain(marker('github-token'));
    expect(a.head.join('\n') + a.words.join(' ')).not.toContain(tok.toLowerCase().slice(4, 16));
  });

  it('two different secrets of one kind give one signature; other errors another', () => {
    const sigOf = (seed: number) => {
      const v = SECRET_SHAPES.find((s) => s.kind === 'openai-key')!.make(prng(seed));
      return errorSignature(r.redact(`Error: 401 Incorrect API key provided: ${v}. You can find your API key at platform`))!.sig;
    };
    expect(sigOf(1)).toBe(sigOf(2));
    expect(errorSignature(r.redact('Error: 429 Rate limit reached for requests'))!.sig).not.toBe(sigOf(1));
  });

  it('without redaction the signature would carry the secret (control)', () => {
    const v = SECRET_SHAPES.find((s) => s.kind === 'github-token')!.make(prng(9));
    const raw = errorSignature(`Error: bad credentials ${v}`)!;
    expect(raw.words.some((w) => w.length >= 12 && v.toLowerCase().includes(w))).toBe(true);
    expect(errorSignature(r.redact(`Error: bad credentials ${v}`))!.head.join('\n')).toContain(marker('github-token'));
  });
});

describe('user config: redact.patterns and redact.allow', () => {
  it('a pattern of their own is redacted with its kind; a named group v marks the secret', () => {
    const u = createRedactor({ patterns: [{ kind: 'acme-token', pattern: 'acme_[A-Za-z0-9]{20}' }, { kind: 'pin', pattern: 'PIN (?<v>\\d{6})' }], allow: [] });
    expect(u.redact('use acme_ABCDEFGHIJ0123456789 now')).toBe(`use ${marker('acme-token')} now`);
    expect(u.redact('the PIN 123456 works')).toBe(`the PIN ${marker('pin')} works`);
    expect(createRedactor().redact('use acme_ABCDEFGHIJ0123456789 now')).toBe('use acme_ABCDEFGHIJ0123456789 now'); // control
  });

  it('an allowed value is left alone; the fingerprint changes with the config', () => {
    const fixture = 'sk-test0fixture0value0000000000001';
    expect(r.redact(`key ${fixture}`)).not.toContain(fixture);
    const a = createRedactor({ patterns: [], allow: ['sk-test0fixture0value0+1'] });
    expect(a.redact(`key ${fixture}`)).toBe(`key ${fixture}`);
    expect(a.fingerprint).not.toBe(r.fingerprint);
    expect(createRedactor().fingerprint).toBe(r.fingerprint);
  });

  it('bad patterns are refused with the field named', () => {
    expect(() => createRedactor({ patterns: [{ kind: 'x', pattern: '(' }], allow: [] })).toThrow(RedactConfigError);
    expect(() => createRedactor({ patterns: [{ kind: 'x', pattern: 'a*' }], allow: [] })).toThrow(/empty string/);
    expect(() => createRedactor({ patterns: [{ kind: 'Bad Kind', pattern: 'x' }], allow: [] })).toThrow(/redact.patterns\[0\].kind/);
    expect(r).toBeInstanceOf(Redactor);
  });
});
