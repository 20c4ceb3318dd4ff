// Reference copy (test only): shared/here-mark.ts as it was before the hook's tool-path pass
// (December 2026, the hook's third speed pass; its notes are in the git history of docs/HOOK.md), kept so that
// test/shared/signature-reference.test.ts can show the rewritten functions give the same
// results on random and real-shaped inputs. Not imported by product code.
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
import { MAX_SCAN_CHARS } from './error-signature.js';
import { gitDirectory, ranInDir } from './run-dir.js';

/** The placeholder a path naming the folder you are in becomes (a word the normalizer keeps). */
export const HERE_MARK = '<here>';
/** Shortest folder name marked (a one-letter folder is too common a path segment to tell). */
const MIN_NAME_CHARS = 2;
/** Longest quoted span read as a path (a longer one is a message, not a path). */
const MAX_QUOTED_CHARS = 300;

/** A quoted path ('…', "…", `…`) — an apostrophe between letters (`couldn't`) opens none.
 *  Unquoted ones count only on a shell utility's missing-path line (UNQUOTED_MISSING_RE). */
const QUOTED_PATH_RE = new RegExp(`(?<![A-Za-z0-9])(['"\`])([^'"\`\n]{1,${MAX_QUOTED_CHARS}})\\1`, 'g');
/** A line that says a path is missing or unusable: there a bare name (`pathspec 'database'`)
 *  is a path too; elsewhere only a span with a separator is (`Missing script: "test"` inside
 *  test/ names a script, `type 'app'` a type). */
const PATH_LINE_RE = /pathspec|did not match|no such file|not found|cannot (?:access|stat|open|find)|does not exist|no module named|not a directory/i;

/** A shell utility's line naming a missing path unquoted (`cat: P: No such file or directory`,
 *  `bash: line 1: cd: P: No such file or directory`): P is group 2. The normalizer reads P as a
 *  path (or, for `cd`, keeps it as words), so the slip would sign like any other missing path. */
const UNQUOTED_MISSING_RE = /(^|: )([^:'"`\n]+)(: (?:no such file or directory|not a directory))$/i;

/** The last segment of a directory (POSIX or Windows separators); '' for a root. */
function lastSegment(dir: string): string {
  const parts = dir.split(/[\\/]+/).filter(Boolean);
  return parts.length ? parts[parts.length - 1] : '';
}

/**
 * The names of the folder the shell is in and, for `git -C X …`, of X (git ran there; the
 * shell did not move). `cwd` is the directory AFTER the call — what the hook's payload says
 * and what the transcript's result record holds (a leading `cd X &&` that worked is already in
 * it) — so the hook, the daemon and the indexer name the same folders.
 */
export function hereNames(cwd: string | null, command: string): string[] {
  const names = new Set<string>();
  for (const dir of [cwd, gitDirectory(command) ? ranInDir(cwd, command) : null]) {
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
  const t = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  if (!names.some((n) => t.includes(n))) return text;
  return t
    .split('\n')
    .map((line) => {
      const pathLine = PATH_LINE_RE.test(line);
      const quoted = line.replace(QUOTED_PATH_RE, (m, _q: string, inner: string) =>
        (pathLine || /[\\/]/.test(inner)) && startsWithName(inner, names) ? HERE_MARK : m);
      return quoted.replace(UNQUOTED_MISSING_RE, (m, lead: string, path: string, tail: string) =>
        startsWithName(path, names) ? `${lead}${HERE_MARK}${tail}` : m);
    })
    .join('\n');
}

/** An error as every part signs it: the text marked for the folder the shell is in after the call. */
export function markedError(text: string, cwd: string | null, command: string): string {
  return markHere(text, hereNames(cwd, command));
}
