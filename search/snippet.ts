/**
 * One-line snippets of a chunk for `active-brain search` (and the MCP server): the chunk
 * text made printable (no controls / ANSI escapes, whitespace collapsed: shared/escape.ts),
 * cut to a window that starts near the first query word it contains. Pure.
 */
import { sanitizeLine, ELLIPSIS } from '../shared/escape.js';
import { queryTokens } from '../store/fts-query.js';

/** Snippet length in code points. */
export const SNIPPET_CHARS = 120;
/** Context kept before the first matching query word (code points). */
export const SNIPPET_LEAD = 30;

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
  const start = Math.max(0, Math.min(hitCp - SNIPPET_LEAD, clean.length - max));
  const body = clean.slice(start, start + max).join('').trim();
  const head = start > 0 ? ELLIPSIS : '';
  const tail = start + max < clean.length ? ELLIPSIS : '';
  return head + body + tail;
}
