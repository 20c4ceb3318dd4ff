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
