/**
 * Lexical features of an exchange for the triggers: content-word hashes (for lexical
 * cohesion), normalized tool-call signatures (for repeated-action evidence) and tool-error
 * signatures (for the error trigger). Pure; input is exchange text from the transcript
 * parser (or an eval dataset), output is numbers only — no raw text is kept, so session
 * state built from it can be persisted or logged without conversation content.
 */

/** Function words that carry no topic (a short, fixed English list). */
const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing done down during each else even ever every few for from ' +
    'further get got had has have having he her here hers herself him himself his how i if in into is it its ' +
    'itself just let like lol me more most much must my myself no nor not now of off oh ok okay on once only or ' +
    'other our ours ourselves out over own really same she should so some still such than that the their theirs ' +
    'them themselves then there these they this those through to too under until up us very was we well were ' +
    'what when where which while who whom why will with would yeah yes you your yours yourself yourselves ' +
    'im dont thats its ive youre cant wont didnt doesnt isnt arent one two get go going know think want make ' +
    'good great cool nice thanks thank sure right way thing things lot something anything hi hello hey'
  ).split(' '),
);

/** Tokens shorter than this are ignored. */
const MIN_TOKEN_CHARS = 2;
/** At most this many distinct content tokens are kept per exchange (bounds state size). */
export const MAX_TOKENS_PER_EXCHANGE = 96;
/** Tool-call and error signatures kept per exchange. */
export const MAX_SIGNATURES_PER_EXCHANGE = 16;
/** Characters of one tool call / error text that enter its signature. */
const SIGNATURE_CHARS = 200;

/** A light plural/verb-suffix folding so "cats" and "cat" meet. */
function stem(t: string): string {
  if (t.length > 4 && t.endsWith('ies')) return t.slice(0, -3) + 'y';
  if (t.length > 5 && t.endsWith('ing')) return t.slice(0, -3);
  if (t.length > 4 && t.endsWith('ed')) return t.slice(0, -2);
  if (t.length > 3 && t.endsWith('s') && !t.endsWith('ss')) return t.slice(0, -1);
  return t;
}

/** Lowercased content words of a text (stopwords, numbers and 1-char tokens dropped). */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const raw of text.toLowerCase().split(/[^\p{L}\p{N}_]+/u)) {
    const t = raw.replace(/_/g, '');
    if (t.length < MIN_TOKEN_CHARS || STOPWORDS.has(t) || /^\d+$/.test(t)) continue;
    out.push(stem(t));
  }
  return out;
}

/** FNV-1a 32-bit hash of a string (stable across runs and machines). */
export function hash32(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Distinct content-token hashes of a text, first occurrences first, bounded. */
export function contentTokenHashes(text: string, max = MAX_TOKENS_PER_EXCHANGE): number[] {
  const seen = new Set<number>();
  for (const t of contentTokens(text)) {
    seen.add(hash32(t));
    if (seen.size >= max) break;
  }
  return [...seen];
}

/**
 * Normalize one tool call (`Name: input`) so that retries of the same action compare equal:
 * lowercase, numbers → `#`, whitespace collapsed, `./` and trailing `/` dropped from paths.
 */
export function normalizeToolCall(call: string): string {
  return call
    .slice(0, SIGNATURE_CHARS)
    .toLowerCase()
    .replace(/\b0x[0-9a-f]+\b/g, '#')
    .replace(/\d+(\.\d+)?/g, '#')
    .replace(/(^|[\s"'=])\.\//g, '$1')
    .replace(/([^\s/])\/+(?=\s|$|["'])/g, '$1')
    .replace(/\s+/g, ' ')
    .trim();
}

/** Signature hashes of an exchange's tool calls (distinct, bounded). */
export function toolSignatures(calls: readonly string[]): number[] {
  const out = new Set<number>();
  for (const c of calls) {
    const n = normalizeToolCall(c);
    if (n) out.add(hash32(n));
    if (out.size >= MAX_SIGNATURES_PER_EXCHANGE) break;
  }
  return [...out];
}

/** Signature hashes of tool errors: the first line, numbers/hex/quoted values normalized. */
export function errorSignatures(errors: readonly string[]): number[] {
  const out = new Set<number>();
  for (const e of errors) {
    const first = e.split('\n').find((l) => l.trim()) ?? '';
    const n = first
      .slice(0, SIGNATURE_CHARS)
      .toLowerCase()
      .replace(/(["'`]).*?\1/g, 'Q')
      .replace(/\b0x[0-9a-f]+\b/g, '#')
      .replace(/\d+/g, '#')
      .replace(/\s+/g, ' ')
      .trim();
    if (n) out.add(hash32(n));
    if (out.size >= MAX_SIGNATURES_PER_EXCHANGE) break;
  }
  return [...out];
}

/** |a ∩ b| / |a ∪ b| of two hash lists (0 when both are empty). */
export function jaccard(a: readonly number[], b: readonly number[]): number {
  if (a.length === 0 && b.length === 0) return 0;
  const sb = new Set(b);
  let inter = 0;
  for (const x of new Set(a)) if (sb.has(x)) inter++;
  const union = new Set([...a, ...b]).size;
  return union === 0 ? 0 : inter / union;
}
