/**
 * Fake secrets of real shapes, one maker per kind the redactor must catch, and the contexts a
 * secret turns up in inside a Claude Code transcript (a command, a tool's output, a `.env`
 * file read, prose, JSON, a URL). Used by the redaction tests (property test and controls)
 * and by bench/redaction.bench.ts (the synthetic corpus). Every value is random: none is a
 * real credential. The shapes follow the providers' published formats, written here apart
 * from shared/redact-rules.ts so a test is not the rule checking itself.
 */

export type Rnd = () => number;

const UPPER = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ';
const LOWER = 'abcdefghijklmnopqrstuvwxyz';
const DIGIT = '0123456789';
const ALNUM = UPPER + LOWER + DIGIT;
const B64URL = ALNUM + '-_';

function pick(rnd: Rnd, chars: string, n: number): string {
  let s = '';
  for (let i = 0; i < n; i++) s += chars[Math.floor(rnd() * chars.length)];
  return s;
}

/** n characters of `chars` holding at least one upper, one lower and one digit (real tokens do). */
function token(rnd: Rnd, chars: string, n: number): string {
  const body = pick(rnd, chars, n - 3).split('');
  for (const c of [pick(rnd, UPPER, 1), pick(rnd, LOWER, 1), pick(rnd, DIGIT, 1)]) body.splice(Math.floor(rnd() * (body.length + 1)), 0, c);
  return body.join('');
}

function b64url(rnd: Rnd, n: number): string {
  return token(rnd, B64URL.replace(/[-_]/g, ''), n);
}

export interface SecretShape {
  /** The marker kind the redactor is expected to give (docs/REDACTION.md). */
  kind: string;
  /** A bare value ("the secret"). */
  make: (rnd: Rnd) => string;
  /** The secret as it stands in text, when it needs a name or a frame to be one
   *  (`DB_PASSWORD=…`); default: the bare value. */
  frame?: (value: string) => string;
}

function jwt(rnd: Rnd): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc({ alg: 'HS256', typ: 'JWT' })}.${enc({ sub: pick(rnd, DIGIT, 10), name: pick(rnd, LOWER, 8), iat: 1700000000 + Math.floor(rnd() * 1e6) })}.${b64url(rnd, 43)}`;
}

function pem(rnd: Rnd): string {
  const lines = Array.from({ length: 6 }, () => token(rnd, ALNUM + '+/', 64));
  return `-----BEGIN RSA PRIVATE KEY-----\n${lines.join('\n')}\n-----END RSA PRIVATE KEY-----`;
}

export const SECRET_SHAPES: readonly SecretShape[] = [
  { kind: 'anthropic-key', make: (r) => `sk-ant-api03-${token(r, B64URL, 93)}AA` },
  { kind: 'openai-key', make: (r) => `sk-proj-${token(r, B64URL, 156)}` },
  { kind: 'openai-key', make: (r) => `sk-${token(r, ALNUM, 48)}` },
  { kind: 'aws-access-key', make: (r) => `AKIA${pick(r, UPPER + DIGIT, 16)}` },
  { kind: 'github-token', make: (r) => `ghp_${token(r, ALNUM, 36)}` },
  { kind: 'github-token', make: (r) => `github_pat_${token(r, ALNUM, 22)}_${token(r, ALNUM, 59)}` },
  { kind: 'gitlab-token', make: (r) => `glpat-${token(r, ALNUM + '-_', 20)}` },
  { kind: 'slack-token', make: (r) => `xoxb-${pick(r, DIGIT, 12)}-${pick(r, DIGIT, 13)}-${token(r, ALNUM, 24)}` },
  { kind: 'slack-webhook', make: (r) => `https://hooks.slack.com/services/T${pick(r, UPPER + DIGIT, 10)}/B${pick(r, UPPER + DIGIT, 10)}/${token(r, ALNUM, 24)}` },
  { kind: 'google-api-key', make: (r) => `AIza${token(r, B64URL, 35)}` },
  { kind: 'google-oauth', make: (r) => `ya29.${token(r, B64URL, 120)}` },
  { kind: 'stripe-key', make: (r) => `sk_live_${token(r, ALNUM, 99)}` },
  { kind: 'npm-token', make: (r) => `npm_${token(r, ALNUM, 36)}` },
  { kind: 'huggingface-token', make: (r) => `hf_${token(r, UPPER + LOWER, 34)}` },
  { kind: 'private-key', make: pem },
  { kind: 'jwt', make: jwt },
  { kind: 'bearer-token', make: (r) => token(r, B64URL + '.', 40), frame: (v) => `Bearer ${v}` },
  { kind: 'authorization', make: (r) => Buffer.from(`deploy:${token(r, ALNUM, 14)}`).toString('base64'), frame: (v) => `Authorization: Basic ${v}` },
  { kind: 'url-password', make: (r) => token(r, ALNUM + '!%*', 16), frame: (v) => `postgres://app_user:${v}@db.internal.example:5432/app` },
  { kind: 'assigned-secret', make: (r) => `${token(r, ALNUM, 12)}!${pick(r, DIGIT, 2)}`, frame: (v) => `DB_PASSWORD=${v}` },
  { kind: 'assigned-secret', make: (r) => token(r, ALNUM, 24), frame: (v) => `"client_secret": "${v}"` },
  { kind: 'assigned-secret', make: (r) => `${token(r, LOWER + DIGIT, 10)}#${pick(r, DIGIT, 3)}`, frame: (v) => `the admin password is ${v}` },
  { kind: 'assigned-secret', make: (r) => token(r, 'abcdef' + DIGIT, 64), frame: (v) => `ENCRYPTION_KEY=${v}` },
  { kind: 'mysql-password', make: (r) => token(r, ALNUM, 14), frame: (v) => `mysql -h db.internal -uroot -p${v} app_db` },
  { kind: 'html-token', make: (r) => token(r, ALNUM, 40), frame: (v) => `<input type="hidden" name="csrf_token" value="${v}">` },
  { kind: 'html-token', make: (r) => token(r, ALNUM, 40), frame: (v) => `<meta content="${v}" name="csrf-token">` },
];

/** Where a secret stands in a transcript. */
export const SECRET_CONTEXTS = ['command', 'tool-output', 'env-read', 'prose', 'json', 'url'] as const;
export type SecretContext = (typeof SECRET_CONTEXTS)[number];

/** The secret (framed) placed in a piece of text of one context. */
export function inContext(framed: string, context: SecretContext): string {
  switch (context) {
    case 'command':
      return `curl -sS -H "X-Debug: 1" --data '${framed}' https://api.internal.example/v1/check`;
    case 'tool-output':
      return `Running deploy...\nconfig loaded: ${framed}\nError: connection refused (ECONNREFUSED)`;
    case 'env-read':
      return `     1\tNODE_ENV=production\n     2\t${framed.includes('=') || framed.includes(':') ? framed : `SERVICE_TOKEN=${framed}`}\n     3\tPORT=8080`;
    case 'prose':
      return `I found the credential in the logs: ${framed} — we should rotate it before the release.`;
    case 'json':
      return JSON.stringify({ service: 'billing', auth: framed, retries: 3 }, null, 2);
    case 'url':
      return `fetching https://hooks.internal.example/notify?channel=ops&auth=${framed} failed`;
  }
}

/** Every (shape, context) pair with a fresh value: the synthetic corpus. */
export function secretCases(rnd: Rnd): Array<{ kind: string; value: string; framed: string; context: SecretContext; text: string }> {
  const out = [];
  for (const shape of SECRET_SHAPES) {
    for (const context of SECRET_CONTEXTS) {
      const value = shape.make(rnd);
      const framed = shape.frame ? shape.frame(value) : value;
      out.push({ kind: shape.kind, value, framed, context, text: inContext(framed, context) });
    }
  }
  return out;
}

/**
 * The probe's sixteen shapes (issue 38): eight common kinds the detector always caught and
 * eight a plain regex pass misses — a token cut by a line break, base64 of a key and of a
 * `.env`, `SECRET_KEY=` / `ENCRYPTION_KEY=` / `*PASSWORD*_X=` values, `mysql -p<pw>`, and a
 * URL password with an empty user name. Each gives the text as it stands in a transcript
 * (`framed`) and the values that must never come out (`values`: the secret, and for an
 * encoded one the encoding too). Used by test/indexer/redaction-probe.test.ts (16 shapes × 4
 * places in a session), test/shared/redact-views.test.ts and docs/REDACTION.md's comparison
 * with secretlint and gitleaks (bench/secret-tools.ts).
 */
export interface ProbeShape {
  name: string;
  /** Caught before issue 38 (a control: the probe would see a regression there too). */
  held: boolean;
  make: (rnd: Rnd) => { framed: string; values: string[] };
}

/** Base64 as `base64` prints it: 76 characters a line. */
function wrapped76(s: string): string {
  return s.replace(/.{76}(?=.)/g, '$&\n');
}

export const PROBE_SHAPES: readonly ProbeShape[] = [
  { name: 'github-token', held: true, make: (r) => { const v = `ghp_${token(r, ALNUM, 36)}`; return { framed: v, values: [v] }; } },
  { name: 'openai-key', held: true, make: (r) => { const v = `sk-proj-${token(r, B64URL, 100)}`; return { framed: v, values: [v] }; } },
  { name: 'aws-access-key', held: true, make: (r) => { const v = `AKIA${pick(r, UPPER + DIGIT, 16)}`; return { framed: v, values: [v] }; } },
  { name: 'anthropic-key', held: true, make: (r) => { const v = `sk-ant-api03-${token(r, B64URL, 80)}AA`; return { framed: v, values: [v] }; } },
  { name: 'slack-token', held: true, make: (r) => { const v = `xoxb-${pick(r, DIGIT, 12)}-${pick(r, DIGIT, 13)}-${token(r, ALNUM, 24)}`; return { framed: v, values: [v] }; } },
  { name: 'postgres-url-password', held: true, make: (r) => { const v = token(r, ALNUM, 18); return { framed: `postgres://app:${v}@db.internal:5432/app`, values: [v] }; } },
  { name: 'db-password-assignment', held: true, make: (r) => { const v = `${token(r, ALNUM, 14)}!${pick(r, DIGIT, 2)}`; return { framed: `DB_PASSWORD=${v}`, values: [v] }; } },
  { name: 'jwt', held: true, make: (r) => { const v = jwt(r); return { framed: v, values: [v] }; } },
  {
    name: 'token-split-by-line-break',
    held: false,
    make: (r) => {
      const v = `ghp_${token(r, ALNUM, 36)}`;
      return { framed: `${v.slice(0, 20)}\n${v.slice(20)}`, values: [v, v.slice(0, 20), v.slice(20)] };
    },
  },
  {
    name: 'base64-of-a-key',
    held: false,
    make: (r) => {
      const key = pem(r);
      const b = Buffer.from(key + '\n').toString('base64');
      return { framed: wrapped76(b), values: [b, ...key.split('\n').slice(1, -1)] };
    },
  },
  {
    name: 'base64-of-a-dotenv',
    held: false,
    make: (r) => {
      const pw = `${token(r, ALNUM, 16)}#${pick(r, DIGIT, 2)}`;
      const api = `sk-${token(r, ALNUM, 48)}`;
      const b = Buffer.from(`NODE_ENV=production\nDB_PASSWORD=${pw}\nOPENAI_API_KEY=${api}\nPORT=8080\n`).toString('base64');
      return { framed: b, values: [b, pw, api] };
    },
  },
  { name: 'secret-key-assignment', held: false, make: (r) => { const v = `django-insecure-${token(r, LOWER + DIGIT + '!@#%^&*(-_=+)', 50)}`; return { framed: `SECRET_KEY=${v}`, values: [v] }; } },
  { name: 'encryption-key-assignment', held: false, make: (r) => { const v = token(r, 'abcdef' + DIGIT, 64); return { framed: `ENCRYPTION_KEY=${v}`, values: [v] }; } },
  { name: 'password-name-with-suffix', held: false, make: (r) => { const v = `${token(r, ALNUM, 12)}-${pick(r, DIGIT, 4)}`; return { framed: `ADMIN_PASSWORD_PROD=${v}`, values: [v] }; } },
  { name: 'mysql-p-password', held: false, make: (r) => { const v = token(r, ALNUM, 14); return { framed: `mysql -h db.internal -uroot -p${v} app_db`, values: [v] }; } },
  { name: 'redis-url-empty-user', held: false, make: (r) => { const v = token(r, ALNUM, 20); return { framed: `redis://:${v}@cache.internal:6379/0`, values: [v] }; } },
];
