/**
 * Turns arbitrary user/turn text into a safe FTS5 MATCH expression: word tokens (letters,
 * digits) lower-cased, English stop-words dropped, duplicates removed, each token quoted
 * as an FTS5 string and the lot OR-ed. (The reader first prunes the token list by document
 * frequency — store/term-stats.ts — and then builds the expression with ftsExpression.) Text with no content words → null (no search, no
 * hits), so no input can produce an FTS5 syntax error. Pure.
 */
import { STOP_WORDS } from './stopwords.js';

/** At most this many distinct tokens go into one MATCH (bounds the cost of a long turn). */
export const MAX_QUERY_TOKENS = 48;
/** Tokens longer than this are noise (hashes, base64) for keyword search. */
export const MAX_TOKEN_CHARS = 64;

const TOKEN = /[\p{L}\p{N}\p{M}\p{Co}]+/gu;

/** The content-word tokens of a text, in order of first appearance. */
export function queryTokens(text: string): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const m of text.normalize('NFKC').matchAll(TOKEN)) {
    const t = m[0].toLowerCase();
    if (t.length > MAX_TOKEN_CHARS || STOP_WORDS.has(t) || seen.has(t)) continue;
    // A lone combining mark / digit-less symbol run tokenises to nothing in FTS5: skip it.
    if (!/[\p{L}\p{N}\p{Co}]/u.test(t)) continue;
    seen.add(t);
    out.push(t);
    if (out.length >= MAX_QUERY_TOKENS) break;
  }
  return out;
}

/** FTS5 expression OR-ing the tokens, each quoted as an FTS5 string; null for no tokens. */
export function ftsExpression(tokens: readonly string[]): string | null {
  if (tokens.length === 0) return null;
  return tokens.map((t) => `"${t.replace(/"/g, '""')}"`).join(' OR ');
}

/** FTS5 expression (`"a" OR "b"`), or null when the text holds no content words. */
export function toFtsQuery(text: string): string | null {
  return ftsExpression(queryTokens(text));
}
