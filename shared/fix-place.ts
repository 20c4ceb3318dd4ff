/**
 * Where a fix ran, and whether the session at hand works there (pure; the hook, replay and
 * `eval pastfix` use it). A fix that moved to another directory — `in api-gateway: git add
 * -A`, `cd developer-portal && pnpm run typecheck`, `git -C /home/me/api status` — says "run
 * it where the project is": it transfers to a session working on that project, and misleads
 * one working on another (the same `fatal: not a git repository` is fixed in whichever
 * repository the session's work belongs to, and not at all in a folder that has none).
 *
 * core/fixes.ts records each fix's place (`FixOffer.where`: the last segment of the
 * directory it moved to); the hook reads the session's recent transcript (hook/inputs.ts
 * transcriptTail: the last TAIL_BYTES before the failure) and its cwd, and offers a fix with a
 * place only when that place shows there as a path segment or a `cd` target.
 *
 * The same holds for files: a fix that only edited files (`Edit src/lib/wallet.ts`) is about
 * an error in those files (FixOffer.edits), and is offered only at an error that names one.
 */
import { escapeRegExp } from './regexp.js';
import { lastSegment, ranInDir } from './run-dir.js';
import { EDIT_TOOLS_ALT } from './edit-tools.js';

/** The directory a fix moves to: `in X: …`, a leading `cd X`, or `git -C X`. */
const FIX_DIR_RES = [/^in ((?:[A-Za-z]:)?[^:]+):/, /^cd\s+("[^"]+"|'[^']+'|[^\s;&|]+)/, /\s-C\s+("[^"]+"|'[^']+'|[^\s;&|]+)/] as const;

/** Longest place name kept (a directory's last segment). */
export const MAX_PLACE_CHARS = 128;

/** The directory a fix moves to, as written in the fix (relative or absolute), or null. */
export function fixDirectory(fix: string): string | null {
  const t = fix.replace(/<[a-z]+>/g, ' ').replace(/\s+/g, ' ').trim();
  for (const re of FIX_DIR_RES) {
    const m = re.exec(t);
    if (m) {
      const dir = m[1].replace(/^["']|["']$/g, '').replace(/^\.\//, '').replace(/[/\\]+$/, '');
      return dir || null;
    }
  }
  return null;
}

/** A path's last segment, quotes around it dropped ('' for none). */
function unquotedLastSegment(path: string): string {
  return lastSegment(path.trim().replace(/^["']|["']$/g, ''));
}

/** Adds a file's name (its last segment) to `names`; false when it has none or is too long. */
function addFileName(names: string[], path: string): boolean {
  const name = unquotedLastSegment(path);
  if (!name || name.length > MAX_PLACE_CHARS) return false;
  if (!names.includes(name)) names.push(name);
  return true;
}

/** A fix's place: the last segment of the directory it moved to (`api-gateway` for
 *  `/home/ken/api-gateway`), or null when it did not move or moved only up or around
 *  (`.`, `..`, `~`, `-`, a placeholder: no project named). */
export function fixPlace(fix: string): string | null {
  const dir = fixDirectory(fix);
  if (!dir) return null;
  const last = unquotedLastSegment(dir);
  if (!last || /^(\.{1,2}|~|-)$/.test(last) || /[<>$`*?]/.test(last) || last.length > MAX_PLACE_CHARS) return null;
  return last;
}

/** A path separator as a transcript's raw JSON text holds it (`/`, `\\`, an escaped `\\\\`). */
const ANY_SEP = '[/\\\\]+';
/** Bytes of the session's transcript, before the failure, in which a place must show. */
export const TAIL_BYTES = 64 * 1024;

/** Whether the place lies beside the session's cwd (`/home/me/api` named in the recent
 *  transcript of a session in `/home/me/db`): the session works on a project of its own next
 *  to it, and reads the other one only for reference. */
export function placeBeside(place: string, cwd: string | null, recent: string): boolean {
  const segs = cwd ? cwd.split(/[/\\]+/).filter(Boolean) : [];
  if (segs.length < 2 || segs.includes(place) || !recent) return false;
  return new RegExp(`${segs.slice(0, -1).map(escapeRegExp).join(ANY_SEP)}${ANY_SEP}${escapeRegExp(place)}(?=[/\\\\"'\\s]|$)`).test(recent);
}

/** Where the session last showed it works at `place`: Infinity when its cwd has that segment,
 *  else the offset in its recent transcript of the last path through the place (after a named
 *  folder: a glob's `**` is not one) or `cd` into it; -1 for none, or when the
 *  place lies beside the cwd (placeBeside). */
export function placeMention(place: string, cwd: string | null, recent: string): number {
  if (cwd && cwd.split(/[/\\]+/).includes(place)) return Infinity;
  if (!recent || placeBeside(place, cwd, recent)) return -1;
  const p = escapeRegExp(place);
  const re = new RegExp(`(?<=[\\w.~-])[/\\\\]+${p}(?=[/\\\\"'\\s]|$)|\\bcd\\s+["']?${p}(?=[/\\\\"'\\s;&|]|$)`, 'g');
  let last = -1;
  for (const m of recent.matchAll(re)) last = m.index;
  return last;
}

/** Whether the session works at `place`: its cwd has that segment, or its recent transcript
 *  names a path through it (`/api-gateway/`, `\api-gateway"`) or `cd`s into it. */
export function placeInContext(place: string, cwd: string | null, recent: string): boolean {
  return placeMention(place, cwd, recent) >= 0;
}

/** Whether the failing call was aimed, by its leading `cd X` / `git -C X`, at a folder beside
 *  the session's cwd — neither the cwd, nor above it, nor inside it (`git -C /home/me/docs
 *  status` from /home/me/app). Such a call works on that folder on purpose: a fix that says
 *  "run it where the project is" answers a call made at the wrong level (the home folder above
 *  the repositories), not one that asked about another folder. Absolute POSIX paths only;
 *  false when either is unknown. */
export function ranBeside(cwd: string | null, command: string): boolean {
  if (!cwd?.startsWith('/') || !command) return false;
  const ran = ranInDir(cwd, command);
  if (!ran?.startsWith('/') || ran === cwd) return false;
  const under = (a: string, b: string) => a.startsWith(b === '/' ? b : `${b}/`);
  return !under(cwd, ran) && !under(ran, cwd);
}

/** Of the places some fixes ran in, the one the session works at now: the one it showed last
 *  (placeMention; its cwd first). A session that read another project earlier and went on in
 *  this one works here. Null when it shows none. */
export function currentPlace(places: Iterable<string>, cwd: string | null, recent: string): string | null {
  let best: string | null = null;
  let at = -1;
  for (const p of new Set(places)) {
    const m = placeMention(p, cwd, recent);
    if (m > at) [best, at] = [p, m];
  }
  return best;
}

/** An edit step as a fix shows it (indexer/episodes.ts fixStepText): `Edit src/a.ts`. */
const EDIT_STEP_RE = new RegExp(`^(?:${EDIT_TOOLS_ALT})\\s+(\\S.*)$`);
/** The rerun that followed the edits (`then npm run build succeeded`): no action of its own. */
const RERUN_RE = /^then .* succeeded$/;
/** Most file names kept for one fix. */
export const MAX_EDIT_NAMES = 8;

/** The files a fix only edits (their last segments), or null when it does anything else: such
 *  a fix changed those files, so it is about an error that names one of them (the same
 *  reverted code failing to compile again; an API that changed under that file) and says
 *  nothing about an error in another file. `… (N more)` steps are edits too (unknown names). */
export function fixEdits(fix: string): string[] | null {
  const parts = fix.split(/;\s+/).map((p) => p.trim()).filter(Boolean);
  const names: string[] = [];
  for (const [i, p] of parts.entries()) {
    if (i === parts.length - 1 && RERUN_RE.test(p)) continue;
    if (/^… \(\d+ more\)$/.test(p)) continue;
    const m = EDIT_STEP_RE.exec(p);
    if (!m || !addFileName(names, m[1])) return null;
  }
  return names.length ? names.slice(0, MAX_EDIT_NAMES) : null;
}

/** `git add` of named files in a fix step (`git add webui/index.html webui/index.js`). */
const GIT_ADD_FILES_RE = /(?:^|&&\s*|;\s*)git add\s+([^;&|]+)/g;

/** The files a fix stages by name (their last segments), or null when it stages none (`git
 *  add -A`, `.`, a folder) or a name is not a file's. Such files are the work that session
 *  had in progress (`git add webui/index.html …; git commit; git pull` before a push): in a fix
 *  for another action than staging (core/fixes.ts), the fix is about an error that names one
 *  of them, like an edit's (FixOffer.edits). */
export function fixStaged(fix: string): string[] | null {
  const names: string[] = [];
  for (const m of fix.matchAll(GIT_ADD_FILES_RE)) {
    const args = m[1].trim().split(/\s+/).filter(Boolean);
    for (const a of args) {
      if (a.startsWith('-') || a === '.' || /[/\\]$/.test(a) || /[<>*?$]/.test(a) || !/\.[A-Za-z0-9]{1,8}["']?$/.test(a)) return null;
      if (!addFileName(names, a)) return null;
    }
  }
  return names.length ? names.slice(0, MAX_EDIT_NAMES) : null;
}

/** Whether the error at hand names one of the files a fix edited (case-insensitive). */
export function editsNamed(edits: readonly string[], errorText: string): boolean {
  const t = errorText.toLowerCase();
  return edits.some((n) => t.includes(n.toLowerCase()));
}
