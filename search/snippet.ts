/**
 * One-line snippets of a chunk for `active-brain search` (and the MCP server): the chunk
 * text made printable (no controls / ANSI escapes, whitespace collapsed: shared/escape.ts),
 * cut to a window that starts near the first query word it contains, never inside a word. Pure.
 */
import { sanitizeLine, ELLIPSIS } from '../shared/escape.js';
import { queryTokens } from '../store/fts-query.js';

/** Snippet length in code points. */
export const SNIPPET_CHARS = 120;
/** Context kept before the first matching query word (code points). */
export const SNIPPET_LEAD = 30;

const WORD = /[\p{L}\p{N}_]/u;
const isWord = (c: string | undefined) => c !== undefined && WORD.test(c);

/**
 * A window start that does not cut a word (pure): `start` itself when a word does not run
 * across it; else the next word's first character up to the hit (the hit stays in the
 * window); else the
 * start of the word it falls in (the window moves left; with one word longer than the window
 * that is the text's start of that word).
 */
export function wordStart(clean: string[], start: number, hit: number): number {
  if (start <= 0 || !isWord(clean[start - 1]) || !isWord(clean[start])) return start;
  for (let i = start + 1; i <= Math.max(start, hit); i++) if (!isWord(clean[i - 1]) && isWord(clean[i])) return i;
  let i = start;
  while (i > 0 && isWord(clean[i - 1])) i--;
  return i;
}

export function snippet(text: string, query: string, max = SNIPPET_CHARS): string {
  const clean = Array.from(sanitizeLine(text));
  if (clean.length <= max) return clean.join('');
  const lower = clean.join('').toLowerCase();
  let hit = -1;
  for (const t of queryTokens(query)) {
    const i = lower.indexOf(t);
    if (i >= 0 && (hit < 0 || i < hit)) hit = i;
  }
  // Index into the lower-cased string ≈ code-point index for the common case; clamp to be safe.
  const hitCp = hit < 0 ? 0 : Array.from(lower.slice(0, hit)).length;
  const start = wordStart(clean, Math.max(0, Math.min(hitCp - SNIPPET_LEAD, clean.length - max)), hitCp);
  const body = clean.slice(start, start + max).join('').trim();
  const head = start > 0 ? ELLIPSIS : '';
  const tail = start + max < clean.length ? ELLIPSIS : '';
  return head + body + tail;
}
