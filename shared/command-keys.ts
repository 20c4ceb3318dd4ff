/**
 * What a shell command does, as keys (pure, dependency-free: the hook bundles it). Input: a
 * Bash command line. Output: its action keys — each `&&`/`;`/newline segment's first command
 * words (`git push`, `mix test`, `npm run build`), wrappers, env assignments and `cd` left out,
 * the ones that only look set aside when something else acts. The indexer's episodes
 * (indexer/episodes.ts) use them to tell the same intent succeeding; the hook
 * (hook/tool-gates.ts) to prefer, among the fixes of one error, the one met at the same action
 * as the failing call at hand (core/fixes.ts records each fix's `actions`).
 */
import { ruleOn } from './rule-switch.js';

/** Command words that name a Bash action (`git push`, `mix test`, `npm run build`). */
export const COMMAND_KEY_WORDS = 2;
/** A shell command is read whole up to this many characters (transcript records'
 *  ToolCall.command, the hook's `tool_input.command`): long enough for the chained commands
 *  agents write (the longest non-heredoc chains in the real projects of
 *  ../shared/eval/claude-code-real run to about 1,000), bounded so a pasted script stays small. */
export const MAX_COMMAND_CHARS = 2_000;
/** Action keys a fix records of its failing call (FixOffer.actions), and the longest kept. */
export const MAX_ACTION_KEYS = 4;
export const MAX_ACTION_KEY_CHARS = 64;

/** Commands that only look (first word), and git subcommands that only look. */
export const INSPECT_COMMANDS = new Set(['ls', 'cat', 'head', 'tail', 'less', 'grep', 'rg', 'ag', 'find', 'fd', 'echo', 'pwd', 'which', 'type', 'wc', 'stat', 'file', 'du', 'df', 'ps', 'env', 'printenv', 'date', 'tree', 'diff', 'sleep', 'true']);
export const INSPECT_GIT = new Set(['status', 'log', 'diff', 'show', 'ls-files', 'blame', 'rev-parse', 'remote', 'branch', 'describe', 'shortlog', 'reflog']);
/** Segment heads that carry no action (`cd x && mix test` is `mix test`). */
export const TRIVIAL_HEADS = new Set(['cd', 'pushd', 'popd', 'export', 'set', 'source', '.', 'echo', 'printf', 'true', 'sleep', 'unset']);
/** Wrappers in front of the real command. */
const WRAPPERS = new Set(['sudo', 'time', 'env', 'nice', 'nohup', 'command', 'exec', 'timeout', 'xvfb-run']);
/** Second words after which the third names the action (`npm run build`, `uv run pytest`). */
const RUNNER_WORDS = new Set(['run', 'exec', 'x', 'dlx', '-m', 'run-script']);

/** `&&`, `||`, `;` and newline separated parts of a shell command. A quoted span is data, not
 *  commands (rule quoted-is-data): a commit message's lines, or a `;` inside `-m "…"`, start no
 *  segment. Single quotes hold everything to the next one; double quotes honour a backslash; an
 *  unclosed quote runs to the end (a summary cut inside a message). */
export function segments(cmd: string): string[] {
  if (!ruleOn('quoted-is-data')) return cmd.split(/&&|\|\||;|\n/).map((s) => s.trim()).filter(Boolean);
  const out: string[] = [];
  let cur = '';
  let quote = '';
  for (let i = 0; i < cmd.length; i++) {
    const c = cmd[i];
    if (quote) {
      cur += c;
      if (c === '\\' && quote === '"' && i + 1 < cmd.length) cur += cmd[++i];
      else if (c === quote) quote = '';
      continue;
    }
    if (c === '"' || c === "'") quote = c;
    else if (c === '\\' && i + 1 < cmd.length) {
      cur += c + cmd[++i];
      continue;
    }
    const two = cmd.slice(i, i + 2);
    if (two === '&&' || two === '||' || c === ';' || c === '\n') {
      out.push(cur);
      cur = '';
      if (two === '&&' || two === '||') i++;
      continue;
    }
    cur += c;
  }
  out.push(cur);
  return out.map((s) => s.trim()).filter(Boolean);
}

/** git's options before its subcommand that take a value (`git -C /home/u/app add`: git run
 *  in that folder, the action `git add`; rule git-place-option). */
const GIT_VALUE_OPTIONS = new Set(['-C', '-c', '--git-dir', '--work-tree', '--namespace']);

/** A segment's words: env assignments and wrappers dropped, the pipeline's first command only;
 *  git's place and config options (`-C X`, `-c k=v`, `--git-dir X`) dropped too — where git ran
 *  is its place (shared/run-dir.ts), not its action. */
export function segmentWords(segment: string): string[] {
  const head = segment.split(/(?<!\|)\|(?!\|)/)[0] ?? '';
  const words = head.trim().split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || WRAPPERS.has(words[i]) || /^\d+[smh]?$/.test(words[i]))) i++;
  const rest = words.slice(i);
  if (rest[0] !== 'git' || !ruleOn('git-place-option')) return rest;
  let j = 1;
  while (j < rest.length) {
    if (GIT_VALUE_OPTIONS.has(rest[j])) j += 2;
    else if (/^--(?:git-dir|work-tree|namespace)=/.test(rest[j])) j++;
    else break;
  }
  return ['git', ...rest.slice(j)];
}

const KEY_WORD_RE = /^[A-Za-z][\w:.+-]*$/;
/** A file name (`tmp.json`, `index.ts`): an operand like a path, not an action word (`mv
 *  tmp.json x` and `mv /tmp/x.json y` do one thing) — except after an interpreter, where the
 *  script is the action (`python train.py`, `node build.js`). */
const FILE_NAME_RE = /\.[A-Za-z0-9]{1,8}$/;
const INTERPRETERS = new Set(['python', 'python3', 'py', 'node', 'deno', 'bun', 'ruby', 'perl', 'php', 'bash', 'sh', 'zsh', 'tsx', 'ts-node', 'Rscript', 'julia', 'lua', 'elixir', 'iex', 'java', 'dotnet', 'pwsh', 'powershell']);

/** The words that name a Bash action: `git push`, `mix test`, `npm run build`; '' for none. */
export function commandKey(cmd: string): string {
  const segs = segments(cmd).map(segmentWords).filter((w) => w.length && !TRIVIAL_HEADS.has(w[0]));
  const words = segs[segs.length - 1];
  return words ? segmentKey(words) : '';
}

/** The key of one segment (`git add`, `npm run build`), '' for none. */
function segmentKey(words: string[]): string {
  const key: string[] = [];
  let want = COMMAND_KEY_WORDS;
  for (const w of words) {
    if (w === '-m' && key.length === 1) {
      key.push(w);
      want++;
      continue;
    }
    if (w.startsWith('-')) continue;
    if (!KEY_WORD_RE.test(w)) break;
    if (key.length && FILE_NAME_RE.test(w) && !INTERPRETERS.has(key[0])) break;
    key.push(w);
    if (key.length === 2 && RUNNER_WORDS.has(w)) want++;
    if (key.length >= want) break;
  }
  return key.join(' ');
}

/** The keys of what a command does: its segments' keys, without the ones that only look when
 *  any other is left (`cd x && git add -A && git status` does `git add`). */
export function actionKeys(cmd: string): string[] {
  const segs = segments(cmd).map(segmentWords).filter((w) => w.length && !TRIVIAL_HEADS.has(w[0]));
  const keyed = segs.map((w) => ({ key: segmentKey(w), looks: INSPECT_COMMANDS.has(w[0]) || (w[0] === 'git' && INSPECT_GIT.has(w.find((x, i) => i > 0 && !x.startsWith('-')) ?? '')) })).filter((k) => k.key);
  const acting = keyed.filter((k) => !k.looks);
  return [...new Set((acting.length ? acting : keyed).map((k) => k.key))];
}

/** Two keys name the same action, or one program stands in for another of the same name
 *  (`python -c` and `python3 -c`, `pip install` and `pip3 install`: a command not found). */
export function sameActionKey(a: string, b: string): boolean {
  if (a === b) return true;
  const [pa, ...ra] = a.split(' ');
  const [pb, ...rb] = b.split(' ');
  if (ra.join(' ') !== rb.join(' ') || pa.length < 2 || pb.length < 2) return false;
  return (pb.startsWith(pa) || pa.startsWith(pb)) && /^[\d.]*$/.test(pb.length > pa.length ? pb.slice(pa.length) : pa.slice(pb.length));
}

/** Programs that run a package named next (`npx tsc`), and second words after which the third
 *  names it (`pnpm dlx vite`, `npm exec tsc`, `python -m pytest`, `bun x eslint`). A script run
 *  (`npm run build`) is the runner's own work: its program is the runner. */
const PACKAGE_RUNNERS = new Set(['npx', 'bunx', 'pnpx', 'uvx', 'pipx']);
const PACKAGE_RUNNER_WORDS = new Set(['dlx', 'exec', '-m', 'x']);

/** The program of an action key: its first word, or the package a runner runs (`npx tsc`,
 *  `python -m pytest`). */
export function programOf(key: string): string {
  const w = key.split(' ');
  if (PACKAGE_RUNNERS.has(w[0]) && w[1]) return `${w[0]} ${w[1]}`;
  if (PACKAGE_RUNNER_WORDS.has(w[1] ?? '') && w[2]) return `${w[0]} ${w[1]} ${w[2]}`;
  return w[0];
}

/** Two action keys run the same program (`git add` and `git log`), or one stands in for the
 *  other (`python` and `python3`: sameActionKey). */
export function sameProgram(a: string, b: string): boolean {
  const pa = programOf(a);
  const pb = programOf(b);
  return pa === pb || sameActionKey(pa, pb);
}

/** A key line that names the program that failed (`ls: cannot access …`, `bash: line 1: cd: …`,
 *  `cat: x: no such file`): the signature already holds it. Severity labels are no program. */
const NAMED_PROGRAM_RE = /^(?:(?:<path>|(?:ba|z|da)?sh): (?:line <n>: )?)?([a-z][\w.+-]*): /;
const NOT_PROGRAMS = new Set(['error', 'fatal', 'warning', 'warn', 'err', 'exception', 'panic', 'hint', 'note', 'info', 'failed', 'failure', 'usage', 'remote', 'deprecated', 'at', 'debug', 'trace', 'caused', 'stderr', 'stdout', 'sh', 'bash', 'zsh', 'line']);

/** The program an error's lead line names as the one that failed (two letters or more, not a
 *  label), else null. */
export function namedProgram(lead: string): string | null {
  const m = NAMED_PROGRAM_RE.exec(lead);
  return m && m[1].length >= 2 && !NOT_PROGRAMS.has(m[1]) && !m[1].endsWith('error') ? m[1] : null;
}
