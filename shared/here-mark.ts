/**
 * The folder you are in, marked in an error (pure; the hook bundles it). Input: a tool error's
 * text, the directory the call started in and its shell command. Output: the text with every
 * quoted path it names that starts with the name of the folder the shell was in — `git add
 * database/…` run inside /home/u/database (`pathspec 'database/' did not match any files`),
 * `python -c 'import app'` inside app (`No module named 'app'`) — replaced by the placeholder
 * HERE_MARK.
 *
 * Why: signatures turn every path into one placeholder (shared/error-signature.ts), so this
 * slip — the commonest working-directory recurrence in real sessions, fixed by "you are already
 * there: drop the prefix, or cd up" — would sign like a missing path anywhere else (a story file
 * in the wrong docs folder, a typo), whose fixes are other ones. Marked, it signs apart: its
 * fixes answer it, and the others' do not. The indexer (episodes), the daemon (tool steps) and
 * the hook (the payload) all sign through markHere, so their signatures agree.
 */
import { ranInDir } from './run-dir.js';

/** The placeholder a path naming the folder you are in becomes (a word the normalizer keeps). */
export const HERE_MARK = '<here>';
/** Shortest folder name marked (a one-letter folder is too common a path segment to tell). */
const MIN_NAME_CHARS = 2;
/** Characters of the error looked at (the signature reads no further: MAX_SCAN_CHARS). */
const MAX_MARK_CHARS = 16_384;

/** A quoted path ('…', "…", `…`). Unquoted ones are left alone: the shell's own `cd: X: No such
 *  file or directory` keeps X in the signature already (it is no path to the normalizer), and
 *  says by itself what happened. */
const QUOTED_PATH_RE = /(['"`])([^'"`\n]{1,300})\1/g;

/** The last segment of a directory (POSIX or Windows separators); '' for a root. */
function lastSegment(dir: string): string {
  const parts = dir.split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : '';
}

/** The names of the folder the shell was in and of the folder a leading `cd` / `git -C` moved
 *  it to (the call may have failed at the cd itself), each at least MIN_NAME_CHARS long. */
export function hereNames(start: string | null, command: string): string[] {
  const names = new Set<string>();
  for (const dir of [start, ranInDir(start, command)]) {
    const name = dir ? lastSegment(dir) : '';
    if (name.length >= MIN_NAME_CHARS && name !== '.' && name !== '..') names.add(name);
  }
  return [...names];
}

/** Does a path start with one of the names (`database`, `database/src/x.ts`, `database\x`)? */
function startsWithName(path: string, names: readonly string[]): boolean {
  const p = path.trim().replace(/^\.[\\/]/, '');
  return names.some((n) => p === n || p.startsWith(`${n}/`) || p.startsWith(`${n}\\`));
}

/** The error text with the paths that start with the folder you are in as HERE_MARK. */
export function markHere(text: string, names: readonly string[]): string {
  if (!names.length || !text) return text;
  const t = text.length > MAX_MARK_CHARS ? text.slice(0, MAX_MARK_CHARS) : text;
  if (!names.some((n) => t.includes(n))) return text;
  return t.replace(QUOTED_PATH_RE, (m, _q: string, inner: string) => (startsWithName(inner, names) ? HERE_MARK : m));
}

/** An error as every part signs it: the text marked for the folder the call ran in. */
export function markedError(text: string, start: string | null, command: string): string {
  return markHere(text, hereNames(start, command));
}
