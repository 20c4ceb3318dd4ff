/**
 * The files a Past fix names that belong to the task it was met in (pure; core/fixes.ts
 * records them as FixOffer.files, shared/fix-choice.ts offers such a fix only at a failure that
 * names one). Rule task-files (shared/pastfix-rules.ts): a fix that names files — `git add
 * docs/prd-api.json` left after the missing story file was dropped, `ls` of that task's folder —
 * is about those files; told at a failure about other files it is the earlier task's work, not
 * a change that transfers. What does transfer stays out of the list: a move to another folder
 * (the place is the fix: rule place), a corrected path of a file the failing call named
 * (`docs/prd.json` → `/home/u/docs/prd.json`: where the file is, is the fix), a project's
 * manifest or config file (shared/config-file.ts), and another tool's search scope
 * (`Grep: x in /src`: the tool is the fix).
 *
 * Input: an episode's fix line (indexer/episodes.ts: steps joined by `; `, each clipped, with
 * placeholders) and its failing call's summary (`Bash: <command>`, `Read: <path>`).
 */
import { CONFIG_FILE_RE } from './config-file.js';
import { fixDirectory, MAX_EDIT_NAMES, MAX_PLACE_CHARS } from './fix-place.js';
import { lastSegment } from './run-dir.js';
import { FILE_TOOLS } from './edit-tools.js';

/** A step of another tool as the fix line shows it (`Glob: backend/*.py`, `Grep: x in /src`). */
const TOOL_STEP_RE = /^[A-Z][A-Za-z]*:\s/;
/** A file tool's step (`Edit src/a.ts`, `Read /x/y.md`): its one argument is a path. */
const FILE_STEP_RE = new RegExp(`^(?:${[...FILE_TOOLS].join('|')})\\s+(\\S.*)$`);
/** A step that moved first (`in /home/u/api: git add -A`): the place is the fix. */
const MOVED_STEP_RE = /^(?:then\s+)?in\s+\S[^:]*:\s/;
/** Characters that make a word no literal path: a placeholder, glob, variable, clip, assignment. */
const NOT_LITERAL_RE = /[<>*?$`…=(){}[\]|]|:\/\//;
/** A file name's extension (with a letter: `a.ts`, not `1.0` or `python3.11`). */
const EXTENSION_RE = /\.(?=[A-Za-z0-9]*[A-Za-z])[A-Za-z0-9]{1,8}$/;
/** A remote's branch (`origin/main`): a name, not a path. */
const REMOTE_REF_RE = /^(?:origin|upstream)\//;

/** A path inside the environment a project runs in (a virtualenv, installed packages, their
 *  executables): setting that up is a change that transfers, not a task's files. */
const ENVIRONMENT_PATH_RE = /(?:^|[\\/])(?:\.?venv|env|node_modules|\.bin|site-packages)(?:[\\/]|$)/;

/** Whether a word of a command is a literal path: it has a separator or a file extension. */
function pathWord(w: string): boolean {
  if (!w || w.startsWith('-') || NOT_LITERAL_RE.test(w) || REMOTE_REF_RE.test(w) || w === '/dev/null' || ENVIRONMENT_PATH_RE.test(w)) return false;
  return /[\\/]/.test(w) || EXTENSION_RE.test(w);
}

/** Package managers, and the verbs by which they install: an install's arguments are packages
 *  (`npm install decimal.js`, `pip install ruamel.yaml`), not files, and an install is a change
 *  that transfers (issue 37: "a flag, … an install, a config value"). */
const PACKAGE_MANAGERS = new Set(['npm', 'pnpm', 'yarn', 'bun', 'pip', 'pip3', 'uv', 'poetry', 'pipx', 'cargo', 'gem', 'go', 'brew', 'apt', 'apt-get', 'dnf', 'yum', 'apk', 'composer', 'conda', 'mix', 'bundle', 'dotnet']);
const INSTALL_VERBS = new Set(['install', 'i', 'add', 'get', 'ci', 'require', 'deps.get']);

/** Commands whose arguments are a place or the environment, never a task's files. */
const ENVIRONMENT_STEPS = new Set(['cd', 'source', '.', 'chmod', 'export']);

/** Whether a command's words are a package install (`sudo`, `python -m pip` allowed before it). */
function isInstall(words: string[]): boolean {
  let i = words[0] === 'sudo' ? 1 : 0;
  if (/^python[\d.]*$/.test(words[i] ?? '') && words[i + 1] === '-m') i += 2;
  if (!PACKAGE_MANAGERS.has(words[i] ?? '')) return false;
  return words.slice(i + 1).some((w) => INSTALL_VERBS.has(w));
}

/** The literal paths a command names as arguments (not its programs, not `cd` targets, not an
 *  install's packages). */
export function pathArguments(command: string): string[] {
  const out: string[] = [];
  for (const seg of command.split(/&&|\|\||[;|\n]/)) {
    const words = seg.trim().split(/\s+/).map((w) => w.replace(/^["']+|["']+$/g, '')).filter(Boolean);
    // `cd` moves (the place is the fix); `source` / `.` / `chmod` prepare the environment.
    if (!words.length || ENVIRONMENT_STEPS.has(words[0]) || isInstall(words)) continue;
    for (const w of words.slice(1)) if (pathWord(w)) out.push(w);
  }
  return out;
}

/** The paths one step of a fix line names (none for another tool's step). */
function stepPaths(step: string): string[] {
  const s = step.replace(/^then\s+/, '').replace(/\s+succeeded$/, '').trim();
  if (TOOL_STEP_RE.test(s)) return [];
  const file = FILE_STEP_RE.exec(s);
  if (file) return NOT_LITERAL_RE.test(file[1]) ? [] : [file[1].trim()];
  return pathArguments(s);
}

/** The files (last segments) a fix names that are its task's own, or null when it names none
 *  or moved to another folder. `failing` is the failing call's summary (`Bash: git add x`). */
export function fixTaskFiles(fix: string, failing: string): string[] | null {
  const steps = fix.split(/;\s+/).map((p) => p.trim()).filter(Boolean);
  if (fixDirectory(fix) || steps.some((p) => MOVED_STEP_RE.test(p))) return null;
  const tool = /^([A-Za-z]+):\s*([\s\S]*)$/.exec(failing);
  const arg = tool ? tool[2].trim() : failing;
  const failed = tool && tool[1] !== 'Bash' ? (pathWord(arg) ? [arg] : []) : pathArguments(arg);
  const names: string[] = [];
  for (const p of steps.flatMap(stepPaths)) {
    if (CONFIG_FILE_RE.test(p)) continue;
    const name = lastSegment(p);
    if (!name || name.length > MAX_PLACE_CHARS) continue;
    // The same file at another path than the failing call gave it: where it is, is the fix.
    if (failed.some((q) => q !== p && lastSegment(q) === name)) continue;
    if (!names.includes(name)) names.push(name);
  }
  return names.length ? names.slice(0, MAX_EDIT_NAMES) : null;
}
