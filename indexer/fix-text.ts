/**
 * A past call as a fix line shows it (pure): what the call acted on (`target`: a shell call's
 * whole command, heredoc bodies out), its relative `cd` / `git -C` targets resolved against the
 * cwd the call started in, and the command with messages, hashes, ids, branch names and temp
 * paths as placeholders (`fixCommandText`, `fixStepText`). Input: tool steps of a transcript
 * (transcript/tool-steps.ts); output: the text indexer/episodes.ts puts in an episode's Fix line.
 */
import { posix } from 'node:path';
import { summaryInput, type ToolStep } from '../transcript/tool-steps.js';
import { FILE_TOOLS } from '../shared/edit-tools.js';

/** Characters of each step in a fix line. */
export const MAX_FIX_STEP_CHARS = 90;
/** A quoted string longer than this in a fix command is a message, shown as <text>. */
export const MAX_QUOTED_KEPT = 24;
/** Longest quoted path read as a path in a fix command (a longer span stays <text>). */
export const MAX_QUOTED_PATH_CHARS = 200;

/** What a call acted on: a shell call's whole command when the summary cut it (heredoc
 *  bodies out: a commit message's lines are no commands), else the summary's input part. */
export function target(step: Pick<ToolStep, 'summary' | 'command'>): string {
  return step.command ? step.command.replace(HEREDOC_RE, '"<message>"').trim() : summaryInput(step.summary);
}

export function clipText(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/** Paths that are one run's own (temp files): shown as a placeholder. */
const TEMP_PATH_RE = /^(?:\/tmp\/|\/var\/folders\/|\/private\/var\/|\/var\/tmp\/)/;

/** A path as shown in a fix: absolute, as the fix's own call resolved it (a relative path or
 *  `cd ../..` only worked from the earlier session's cwd; told to a session elsewhere it goes
 *  wrong), a placeholder for temp files. */
export function showPath(p: string, _cwd: string | null): string {
  return TEMP_PATH_RE.test(p) ? '<path>' : p;
}

/** A command's relative `cd X` / `git -C X` targets resolved against the cwd its call started
 *  in, each `cd` moving the next one's base (absolute POSIX cwds only; `~`, `-`, variables and
 *  Windows paths stay as written and stop the resolving after them). Quoted spans are no
 *  segments (a `cd` inside a commit message moves nothing); a quoted target keeps its quotes. */
function absoluteDirs(cmd: string, cwd: string | null): string {
  if (!cwd || !cwd.startsWith('/') || /^\/[a-z]\//i.test(cwd)) return cmd;
  // The same text with every quoted span's inside blanked out, so positions stay the same.
  const masked = cmd.replace(/"[^"\n]*"|'[^'\n]*'/g, (q) => `${q[0]}${'\u0001'.repeat(q.length - 2)}${q[q.length - 1]}`);
  let cur: string | null = cwd;
  let out = '';
  let last = 0;
  for (const m of masked.matchAll(ABS_DIR_RE)) {
    const isCd = m[1] !== undefined;
    const start = m.index! + (m[1] ?? m[3]).length;
    const written = cmd.slice(start, start + (m[2] ?? m[4]).length);
    const quote = /^["']/.test(written) ? written[0] : '';
    const raw = quote ? written.slice(1, -1) : written;
    let abs: string | null;
    if (raw.startsWith('/')) abs = posix.normalize(raw);
    else if (cur === null || !raw || /^[~$\\<-]/.test(raw) || raw.includes('\\') || raw.includes('\u0001')) abs = null;
    else abs = posix.join(cur, raw);
    abs = abs?.replace(/(?<=.)\/+$/, '') ?? null;
    if (isCd) cur = abs;
    if (abs && !raw.startsWith('/')) {
      out += cmd.slice(last, start) + `${quote}${abs}${quote}`;
      last = start + written.length;
    }
  }
  return out + cmd.slice(last);
}
/** A segment's leading `cd X` (after the start, `&&`, `||`, `;`, a line break or a subshell's
 *  `(`), or a `git -C X`; X quoted or bare. */
const ABS_DIR_RE = /((?:^|&&|\|\||;|\n|\()\s*cd\s+)("[^"\n]*"|'[^'\n]*'|[^\s;&|()"']+)|(\bgit\s+-C\s+)("[^"\n]*"|'[^'\n]*'|[^\s;&|()"']+)/g;

const HEREDOC_RE = /"?\$\(\s*cat\s+<<-?\s*['"]?(\w+)['"]?[\s\S]*?(?:\1\s*\)"?|$)/g;
/** Quoted spans; an unclosed quote runs to the end (the summary was cut inside a message). */
const QUOTED_RE = /'[^']*(?:'|$)|"[^"]*(?:"|$)/g;
/** A quoted span that is a path: path characters only (no blank, no shell syntax), with a
 *  separator, at most MAX_QUOTED_PATH_CHARS. */
const QUOTED_PATH_RE = new RegExp(`^(?=[^\\n]*[\\\\/])[\\w.@+~/\\\\:-]{1,${MAX_QUOTED_PATH_CHARS}}$`);
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/gi;
const HASH_RE = /\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/g;
const ABS_PATH_RE = /(?<![\w.<:/~-])(?:~|\/)[\w.@+-]*(?:\/[\w.@+-]+)*\/?/g;
const BRANCH_AFTER_RE = /(?<![\w-])(origin|upstream|checkout|switch|-b|-B|--branch|branch(?:\s+-[dDmM])?)\s+(?!-)(?!<)([\w./@+-]+)/g;
const OUTPUT_NOISE_RE = /\s+2>&1|\s+\|\s*(?:tail|head)(?:\s+-n)?(?:\s+-?\d+)?\s*$/g;

/** A command as a fix line: redirections and tail/head trimmed, messages, hashes, ids,
 *  branch names and session paths as placeholders; command words kept. */
export function fixCommandText(cmd: string, cwd: string | null): string {
  let s = cmd.replace(/\s+/g, ' ').trim();
  s = s.replace(HEREDOC_RE, '<message>');
  s = s.replace(QUOTED_RE, (q) => {
    const closed = q.length >= 2 && q[q.length - 1] === q[0];
    // A quoted path is a path, however long: where the file is is often what changed
    // (`cat "docs/prd.json"` → `cat "/home/me/docs/prd.json"`); unquoted, the paths below apply.
    if (closed && QUOTED_PATH_RE.test(q.slice(1, -1))) return q.slice(1, -1);
    return q.length - 2 > MAX_QUOTED_KEPT || !closed ? '<text>' : q;
  });
  s = s.replace(UUID_RE, '<id>').replace(HASH_RE, '<hash>');
  s = s.replace(BRANCH_AFTER_RE, (_m, w: string) => `${w} <branch>`);
  s = s.replace(ABS_PATH_RE, (p) => (p === '/' ? p : showPath(p, cwd)));
  for (let i = 0; i < 3; i++) s = s.replace(OUTPUT_NOISE_RE, '');
  return s.replace(/\s+/g, ' ').trim();
}

/** One step as a fix part: `git push --set-upstream origin <branch>`, `Edit config/test.exs`;
 *  relative `cd` targets resolved to absolute paths (the place a fix moved to works from any
 *  cwd, and the place rule offers it only where the session works). */
export function fixStepText(step: Pick<ToolStep, 'name' | 'summary' | 'command' | 'cwd'> & Partial<Pick<ToolStep, 'callCwd'>>, base: string | null = step.cwd): string {
  const t = target(step);
  let out: string;
  // Relative moves resolved against where the call started (not the cwd after it: a `cd` that
  // worked is already in that).
  if (step.name === 'Bash') out = fixCommandText(absoluteDirs(t, step.callCwd ?? null), base);
  else if (FILE_TOOLS.has(step.name)) out = `${step.name} ${t.startsWith('/') || t.startsWith('~') ? showPath(t, base) : t}`.trim();
  else out = step.summary.replace(/\s+/g, ' ').trim();
  return clipText(out, MAX_FIX_STEP_CHARS);
}
