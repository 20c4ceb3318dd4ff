// Reference copy (test only): shared/run-dir.ts as it was before the hook's tool-path pass
// (December 2026, the hook's third speed pass; its notes are in the git history of docs/HOOK.md), kept so that
// test/shared/signature-reference.test.ts can show the rewritten functions give the same
// results on random and real-shaped inputs. Not imported by product code.
/**
 * Where a shell call ran (pure, dependency-free but node:path: the hook bundles it). Input: the
 * directory the call started in (the transcript record's or the hook payload's cwd) and its
 * command line. Output: the directory its leading `cd X &&` / `git -C X` moved it to, else the
 * start. Used by the indexer's episodes (indexer/episodes.ts: a fix that is a move) and by the
 * folder-you-are-in mark of error signatures (shared/here-mark.ts: indexer, daemon, hook).
 */
import { posix } from 'node:path';

/** A command's leading change of directory: `cd X && …` (its first segment) or `git -C X …`. */
const LEAD_CD_RE = /^cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)[ \t]*(?:&&|;|\n|$)/;
const GIT_C_RE = /^git\s+-C\s+("[^"]+"|'[^']+'|[^\s;&|]+)/;
/** The leading `cd X &&` (or `;`, a line break) of a command, to compare two commands that ran
 *  in the same directory. `git -C X` stays: it is part of the git command. */
export const LEAD_CD_PART_RE = /^cd\s+(?:"[^"]+"|'[^']+'|[^\s;&|]+)[ \t]*(?:&&|;|\n)\s*/;

const unquote = (m: RegExpExecArray | null) => (m ? m[1].replace(/^["']|["']$/g, '') : null);

/** The directory a command's leading `cd X` or `git -C X` names, as written; null for none.
 *  Leading white space is no part of the command (the indexer's records trim it; a hook
 *  payload may not). */
export function leadingDirectory(cmd: string): string | null {
  const c = cmd.trimStart();
  return unquote(LEAD_CD_RE.exec(c)) ?? unquote(GIT_C_RE.exec(c));
}

/** The directory of a leading `git -C X` (git runs there; the shell stays), null for none. */
export function gitDirectory(cmd: string): string | null {
  return unquote(GIT_C_RE.exec(cmd.trimStart()));
}

/** The directory a call ran in: its leading `cd X` / `git -C X` resolved against the cwd it
 *  started in (absolute POSIX paths only; `~`, variables and other shapes as written), else
 *  that cwd; null when unknown. `command` '' for a call that is not a shell command. */
export function ranInDir(start: string | null, command: string): string | null {
  const dir = command ? leadingDirectory(command) : null;
  if (!dir) return start;
  if (dir.startsWith('/')) return posix.normalize(dir).replace(/(?<=.)\/+$/, '');
  if (start?.startsWith('/') && !/^[~$]/.test(dir) && !dir.includes('\\')) return posix.join(start, dir).replace(/(?<=.)\/+$/, '');
  return dir;
}
