/**
 * The Bash tool's cwd persists between calls (pure; the hook bundles it). Rule cwd-persists
 * (shared/pastfix-rules.ts): in Claude Code a `cd X` stays in force for the next call, so
 * `cd X && …` fails when the shell is already inside X, and `git add X/…`, `ls X/…` fail the
 * same way — the commonest recurring error of real sessions, met in every project under other
 * folder names. Its signature carries the here mark (shared/here-mark.ts), so its earlier
 * episodes match across folder names; this module says what to do in the session at hand,
 * from the payload's cwd and command, instead of repeating another folder's commands.
 */
import { HERE_MARK, hereNames } from './here-mark.js';
import { gitDirectory, leadingDirectory } from './run-dir.js';
import { ruleOn } from './rule-switch.js';

/** Longest cwd shown in the line (a longer one is cut at the front: its end names the folder). */
export const MAX_CWD_CHARS = 80;

/** Whether an error's key lines say a path started with the folder the shell is in. */
export function cwdPersisted(lines: readonly string[]): boolean {
  return lines.some((l) => l.includes(HERE_MARK));
}

function shown(cwd: string): string {
  return cwd.length > MAX_CWD_CHARS ? `…${cwd.slice(-(MAX_CWD_CHARS - 1))}` : cwd;
}

/** Longest part of the command quoted in the advice. */
const MAX_QUOTED_CHARS = 60;

function clipped(s: string): string {
  return s.length > MAX_QUOTED_CHARS ? `${s.slice(0, MAX_QUOTED_CHARS - 1)}…` : s;
}

/** What to do, in one phrase, for a call whose path starts with the folder the shell is
 *  already in: drop the leading `cd X` when it was the `cd` that failed (`program` 'cd'), or
 *  cd to what lies under X; when it names X itself among its paths, run it from the folder
 *  above (rule parent-paths); else drop the `X/` prefix of its paths. null when the cwd names no
 *  such folder, or when the mark came from a `git -C` folder (the shell is not there). */
export function cwdPersistsAdvice(cwd: string | null, command: string, program: string | null): string | null {
  if (!cwd || (command && gitDirectory(command))) return null;
  const name = hereNames(cwd, '')[0];
  if (!name) return null;
  const dir = command ? leadingDirectory(command) : null;
  const clean = dir?.replace(/^\.\//, '').replace(/[\\/]+$/, '');
  if (program === 'cd' && clean && (clean === name || clean.startsWith(`${name}/`) || clean.startsWith(`${name}\\`))) {
    const rest = clean.slice(name.length + 1);
    return rest
      ? `the shell is already in ${shown(cwd)} (its cwd persists between calls): cd ${clipped(rest)}, not cd ${clipped(clean)}`
      : `the shell is already in ${shown(cwd)} (its cwd persists between calls): drop the "cd ${clipped(clean)}"`;
  }
  // The folder itself among its paths (`git add api-gateway docs/x.json` inside api-gateway):
  // the call was written from the folder above, where its other paths are too (rule parent-paths).
  const parent = cwd.replace(/[\\/]+[^\\/]+[\\/]*$/, '') || '/';
  if (ruleOn('parent-paths') && command && parent !== cwd && namesFolder(command, name)) {
    return `the shell is already in ${shown(cwd)} (its cwd persists between calls): "${clipped(name)}" is that folder — its paths are from ${shown(parent)}: cd ${shown(parent)} first`;
  }
  return `the shell is already in ${shown(cwd)} (its cwd persists between calls): paths start inside it — drop the "${clipped(name)}/" prefix`;
}

/** Whether a command names a folder itself as an argument (`x`, `x/`, `./x`), not as a
 *  prefix of a path in it (a `cd` target aside). */
export function namesFolder(command: string, name: string): boolean {
  return command.split(/&&|\|\||[;|\n]/).some((seg) => {
    const all = seg.trim().split(/\s+/);
    // A `cd` moves the shell (its own advice above); its target is no path of the work.
    const words = all[0] === 'cd' ? [] : all.slice(1);
    return words.some((w) => w.replace(/^["']+|["']+$/g, '').replace(/^\.[\\/]/, '').replace(/[\\/]+$/, '') === name);
  });
}

/** An offer's reason with its "fixed by …" part replaced by the advice (the error, session
 *  and date it was met in stay). */
export function withAdvice(reason: string, advice: string): string {
  const at = reason.lastIndexOf(' — ');
  return at >= 0 ? `${advice}${reason.slice(at)}` : advice;
}
