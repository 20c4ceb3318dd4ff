/**
 * Error strings a Markdown note quotes (pure): a note chunk's text → the error signatures
 * (shared/error-signature.ts) of the errors it quotes, so "a markdown note that quotes an
 * error string is found the same way" as an error episode (store `signatures` table).
 *
 * Quoted = a fenced block whose info string is empty or names output (text, console, sh,
 * log, …; code in a programming language is not an error quote), a run of `>` blockquote
 * lines, or an inline code span of at least MIN_INLINE_CHARS. It counts only when its
 * signature's first head line names a failure (LEAD_RE): a quoted command or config is not
 * an error. The note's line about it (`fix`) is the first prose line after the quote.
 */
import { errorSignature, LEAD_RE } from '../shared/error-signature.js';
import type { QuotedSignature } from '../store/types.js';

/** Fence info strings that hold program output rather than code. */
export const OUTPUT_FENCE_INFOS: ReadonlySet<string> = new Set(['', 'text', 'txt', 'plain', 'plaintext', 'console', 'shell', 'sh', 'bash', 'zsh', 'shell-session', 'terminal', 'log', 'output', 'stderr', 'stdout', 'error', 'err']);
/** Shortest inline code span looked at (shorter ones are names, not messages). */
export const MIN_INLINE_CHARS = 12;
/** Signatures kept per chunk. */
export const MAX_QUOTED_PER_CHUNK = 8;
/** Characters of the note's line kept as `fix`. */
export const MAX_NOTE_FIX_CHARS = 200;

const FENCE_RE = /^\s{0,3}(`{3,}|~{3,})\s*([\w+-]*)/;
const INLINE_RE = /`([^`\n]+)`/g;

interface Quote {
  text: string;
  /** Line index just after the quote (where the note's comment on it starts). */
  after: number;
}

function quotes(lines: string[]): Quote[] {
  const out: Quote[] = [];
  for (let i = 0; i < lines.length; i++) {
    const fence = FENCE_RE.exec(lines[i]);
    if (fence) {
      const mark = fence[1];
      const info = fence[2].toLowerCase();
      let j = i + 1;
      while (j < lines.length && !lines[j].trimStart().startsWith(mark)) j++;
      if (OUTPUT_FENCE_INFOS.has(info)) out.push({ text: lines.slice(i + 1, j).join('\n'), after: j + 1 });
      i = j;
      continue;
    }
    if (/^\s{0,3}>/.test(lines[i])) {
      let j = i;
      while (j < lines.length && /^\s{0,3}>/.test(lines[j])) j++;
      out.push({ text: lines.slice(i, j).map((l) => l.replace(/^\s{0,3}>\s?/, '')).join('\n'), after: j });
      i = j - 1;
      continue;
    }
    for (const m of lines[i].matchAll(INLINE_RE)) {
      if (m[1].trim().length >= MIN_INLINE_CHARS) out.push({ text: m[1], after: i });
    }
  }
  return out;
}

/** The first prose line at or after `from`: not blank, not a heading, fence or quote. */
function proseLine(lines: string[], from: number): string {
  for (let i = from; i < lines.length; i++) {
    const l = lines[i].trim();
    if (!l) continue;
    if (/^(#{1,6}\s|`{3,}|~{3,}|>)/.test(l)) return '';
    const t = l.replace(/^[-*+]\s+|^\d+[.)]\s+/, '').replace(/\s+/g, ' ');
    return t.length > MAX_NOTE_FIX_CHARS ? `${t.slice(0, MAX_NOTE_FIX_CHARS - 1).trimEnd()}…` : t;
  }
  return '';
}

/** The error signatures a note chunk quotes, in order, each once. */
export function quotedSignatures(markdown: string): QuotedSignature[] {
  const lines = markdown.split(/\r?\n/);
  const seen = new Set<string>();
  const out: QuotedSignature[] = [];
  for (const q of quotes(lines)) {
    const sig = errorSignature(q.text);
    if (!sig || !LEAD_RE.test(sig.head[0] ?? '') || seen.has(sig.sig)) continue;
    seen.add(sig.sig);
    out.push({ sig: sig.sig, head: sig.lines, words: sig.words, fix: proseLine(lines, q.after) });
    if (out.length >= MAX_QUOTED_PER_CHUNK) break;
  }
  return out;
}
