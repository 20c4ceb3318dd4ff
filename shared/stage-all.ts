/**
 * Whether a Past fix staged every file in place of the ones the failing call named (pure; core/
 * fixes.ts asks it of each episode). Rule named-not-all (shared/pastfix-rules.ts): `git add
 * docs/story.md && git commit` failed (a pathspec of a file outside the repository), then `git
 * add -A && git status` got through — the named file was never staged, whatever else was there
 * was, and the commit never ran: no fix. Told at the next pathspec failure it stages unrelated
 * work and leaves the missing file missing.
 *
 * Input: an episode's fix line (indexer/episodes.ts) and its failing call's summary (`Bash: …`).
 */

/** Staging every file: `git add -A` / `--all` / `-u` / `.` with no path after it (`git add -A
 *  docs/x.md` stages only that path), `git commit -a` (`-am`). Tested on the command with its
 *  quoted arguments blanked (`git commit -m "drop -a flag"` is no `-a`). */
const STAGE_ALL_RE = /\bgit\s+(?:add\s+(?:-[\w-]+\s+)*(?:-A|--all|-u|--update|\.)(?:\s+-[\w-]+)*(?:\s+--)?\s*(?=$|[;&|])|commit\s+(?:[^;&|]*\s)?-[a-zA-Z]*a[a-zA-Z]*\b)/;
/** A quoted argument: blanked before the test. */
const QUOTED_RE = /"(?:[^"\\]|\\.)*"|'[^']*'/g;

/** Whether a command stages every file. */
function stagesAll(command: string): boolean {
  return STAGE_ALL_RE.test(command.replace(QUOTED_RE, '""'));
}
/** `git add` followed by a named operand (not only options). */
const GIT_ADD_NAMED_RE = /\bgit\s+add\s+(?:-[\w-]+\s+)*(?!-)[^\s;&|]/;

/** Whether a fix swapped the files the failing call staged by name for every file. */
export function swapsNamedForAll(fix: string, failing: string): boolean {
  const f = failing.replace(/^Bash:\s*/, '');
  return GIT_ADD_NAMED_RE.test(f) && !stagesAll(f) && stagesAll(fix);
}
