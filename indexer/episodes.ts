/**
 * Error episodes (pure): the main-lane tool steps of one past transcript
 * (transcript/tool-steps.ts, sidechain records never counted) → one episode per failed tool
 * call: the call, its error (signature and informative lines, shared/error-signature.ts),
 * what the agent did next until the same or a similar action ran again, and how that ended.
 * The indexer turns each episode into a chunk of kind `episode` (indexer/transcript-chunks.ts)
 * that the store finds by signature; the daemon builds the hook's Past-fix files from the
 * resolved ones.
 *
 * Rules (each a named constant below, docs in indexer/README.md):
 *  - Not episodes: cascade notices (a sibling call failed, the user rejected the call, an
 *    interrupt), results whose call was never seen (`unknown`), errors with no signature.
 *  - Similar action: same tool (the edit tools count as one) and — Bash: the same command
 *    key (the first COMMAND_KEY_WORDS words of the last non-trivial `&&`/`;` segment,
 *    one more after a runner such as `npm run`); file tools: the same file; other tools:
 *    word overlap of the summaries ≥ SIMILAR_SUMMARY_OVERLAP.
 *  - Look-ahead: at most LOOKAHEAD_STEPS steps after the failure. Within it:
 *      a failure with the same signature (any action) is another attempt of this episode
 *        (counted; the steps before it did not fix it, so the fix starts again after it);
 *      a similar action that succeeds ends it: `succeeded`;
 *      a similar action that fails with another signature, after at least one change
 *        (an edit or a non-inspecting command), ends it: `error-changed` — this error is
 *        gone, the work in between fixed it (a pre-commit hook: [FORMAT] fixed by
 *        `mix format`, then [CREDO] fails: a new episode);
 *      nothing similar within the look-ahead: `unresolved`.
 *  - Fix: the changes made after the last failed attempt (edits and commands; inspection
 *    such as reads, greps, `git status` left out unless nothing else was done), then the
 *    succeeding action when it differs from the failing one (`git push --set-upstream
 *    origin <branch>`); session-specific parts shown as placeholders (fixCommandText).
 */
import type { ToolStep } from '../transcript/tool-steps.js';
import { errorSignature, informativeLines, wordOverlap, type ErrorSignature } from '../shared/error-signature.js';
import type { EpisodeOutcome } from '../store/types.js';

/** Steps looked at after a failure. In the real transcripts the fix of a failure came within
 *  14 steps (a pre-commit hook failing three times over); 40 leaves room for longer repairs
 *  while keeping an unrelated success much later in the session from counting. */
export const LOOKAHEAD_STEPS = 40;
/** Command words that name a Bash action (`git push`, `mix test`, `npm run build`). */
export const COMMAND_KEY_WORDS = 2;
/** Word overlap (Jaccard) of two summaries above which two non-Bash, non-file calls are the same action. */
export const SIMILAR_SUMMARY_OVERLAP = 0.5;
/** Steps named in a fix line. */
export const MAX_FIX_STEPS = 3;
/** Summaries kept in "what was tried". */
export const MAX_TRIED = 8;
/** Informative error lines kept for display (from the signature's lead line on). */
export const MAX_ERROR_LINES = 6;
/** Characters of a fix line (and of each step in it). */
export const MAX_FIX_CHARS = 200;
export const MAX_FIX_STEP_CHARS = 90;
/** Episodes cut from one transcript (a file of thousands of failures costs a bounded index). */
export const MAX_EPISODES_PER_TRANSCRIPT = 500;
/** A quoted string longer than this in a fix command is a message, shown as <text>. */
export const MAX_QUOTED_KEPT = 24;


/** Results that only echo another event: not an error of the call itself. */
const CASCADE_RE =
  /^\s*(?:<tool_use_error>\s*)?(?:sibling tool call errored|the user doesn't want to (?:proceed with|take) this|user rejected|\[request interrupted by user|interrupted by user|the user (?:has )?(?:rejected|denied|interrupted))/i;

const EDIT_TOOLS = new Set(['Edit', 'Write', 'MultiEdit', 'NotebookEdit']);
const FILE_TOOLS = new Set([...EDIT_TOOLS, 'Read']);
/** Tools that only look: never a fix on their own. */
const INSPECT_TOOLS = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebSearch', 'WebFetch', 'TaskOutput', 'ToolSearch', 'TodoWrite', 'AskUserQuestion']);
/** Commands that only look (first word), and git subcommands that only look. */
const INSPECT_COMMANDS = new Set(['ls', 'cat', 'head', 'tail', 'less', 'grep', 'rg', 'ag', 'find', 'fd', 'echo', 'pwd', 'which', 'type', 'wc', 'stat', 'file', 'du', 'df', 'ps', 'env', 'printenv', 'date', 'tree', 'diff', 'sleep', 'true']);
const INSPECT_GIT = new Set(['status', 'log', 'diff', 'show', 'ls-files', 'blame', 'rev-parse', 'remote', 'branch', 'describe', 'shortlog', 'reflog']);
/** Segment heads that carry no action (`cd x && mix test` is `mix test`). */
const TRIVIAL_HEADS = new Set(['cd', 'pushd', 'popd', 'export', 'set', 'source', '.', 'echo', 'printf', 'true', 'sleep', 'unset']);
/** Wrappers in front of the real command. */
const WRAPPERS = new Set(['sudo', 'time', 'env', 'nice', 'nohup', 'command', 'exec', 'timeout', 'xvfb-run']);
/** Second words after which the third names the action (`npm run build`, `uv run pytest`). */
const RUNNER_WORDS = new Set(['run', 'exec', 'x', 'dlx', '-m', 'run-script']);

export interface Episode {
  sig: ErrorSignature;
  /** Step ordinal of the first failure. */
  step: number;
  tool: string;
  /** The failing call's summary (`Bash: git push 2>&1`). */
  action: string;
  /** The failing result's text (bounded by records.ts): errorSignature(errorText) is sig. */
  errorText: string;
  /** Informative error lines from the signature's lead on (placeholders in), bounded. */
  errorLines: string[];
  /** Failures with this signature before it ended (1 = no repeat). */
  attempts: number;
  /** Summaries of the steps that followed, up to the end (bounded). */
  tried: string[];
  /** One line: what fixed it ('' when unresolved). */
  fix: string;
  /** The assistant's one-line explanation of the fix ('' when none was given). */
  note: string;
  outcome: EpisodeOutcome;
  resolved: boolean;
  /** Epoch ms of the failure (null when the transcript has no timestamps). */
  at: number | null;
  /** Byte offset of the failing result's line (orders episodes among a transcript's chunks). */
  startOffset: number;
  sessionId: string | null;
  cwd: string | null;
}

/** A cascade notice (sibling failed, user rejected, interrupt): not an error of its own. */
export function isCascade(resultText: string): boolean {
  return CASCADE_RE.test(resultText);
}

/** What follows `Name: ` in a step summary. */
function target(summary: string): string {
  const i = summary.indexOf(': ');
  return i >= 0 ? summary.slice(i + 2).trim() : '';
}

function toolGroup(name: string): string {
  return EDIT_TOOLS.has(name) ? 'edit' : name;
}

/** `&&`, `||`, `;` and newline separated parts of a shell command (quotes not parsed: good enough for keys). */
function segments(cmd: string): string[] {
  return cmd.split(/&&|\|\||;|\n/).map((s) => s.trim()).filter(Boolean);
}

/** A segment's words: env assignments and wrappers dropped, the pipeline's first command only. */
function segmentWords(segment: string): string[] {
  const head = segment.split(/(?<!\|)\|(?!\|)/)[0] ?? '';
  const words = head.trim().split(/\s+/).filter(Boolean);
  let i = 0;
  while (i < words.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(words[i]) || WRAPPERS.has(words[i]) || /^\d+[smh]?$/.test(words[i]))) i++;
  return words.slice(i);
}

const KEY_WORD_RE = /^[A-Za-z][\w:.+-]*$/;

/** The words that name a Bash action: `git push`, `mix test`, `npm run build`; '' for none. */
export function commandKey(cmd: string): string {
  const segs = segments(cmd).map(segmentWords).filter((w) => w.length && !TRIVIAL_HEADS.has(w[0]));
  const words = segs[segs.length - 1];
  if (!words) return '';
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
    key.push(w);
    if (key.length === 2 && RUNNER_WORDS.has(w)) want++;
    if (key.length >= want) break;
  }
  return key.join(' ');
}

function summaryWords(s: string): string[] {
  return (s.toLowerCase().match(/[a-z0-9][a-z0-9_.-]{1,}/g) ?? []);
}

/** Same or similar action (see the module header). */
export function similarAction(a: Pick<ToolStep, 'name' | 'summary'>, b: Pick<ToolStep, 'name' | 'summary'>): boolean {
  if (toolGroup(a.name) !== toolGroup(b.name)) return false;
  if (a.name === 'Bash') {
    const ka = commandKey(target(a.summary));
    return ka !== '' && ka === commandKey(target(b.summary));
  }
  if (FILE_TOOLS.has(a.name)) {
    const ta = target(a.summary);
    return ta !== '' && ta === target(b.summary);
  }
  if (a.summary === b.summary) return true;
  return wordOverlap(summaryWords(a.summary), summaryWords(b.summary)) >= SIMILAR_SUMMARY_OVERLAP;
}

/** A step that only looks (reads, searches, `git status`, output piped into grep). */
export function isInspection(step: Pick<ToolStep, 'name' | 'summary'>): boolean {
  if (INSPECT_TOOLS.has(step.name)) return true;
  if (step.name !== 'Bash') return false;
  const segs = segments(target(step.summary));
  if (!segs.length) return true;
  return segs.every((s) => {
    const w = segmentWords(s);
    if (!w.length || INSPECT_COMMANDS.has(w[0]) || TRIVIAL_HEADS.has(w[0])) return true;
    if (w[0] === 'git' && INSPECT_GIT.has(w.find((x, i) => i > 0 && !x.startsWith('-')) ?? '')) return true;
    return /\|\s*(grep|rg|ag|jq)\b/.test(s);
  });
}

/** A step that changes something: an edit, or a command that is not only inspection. */
function isChange(step: ToolStep): boolean {
  return EDIT_TOOLS.has(step.name) || (step.name === 'Bash' && !isInspection(step));
}

function clipText(s: string, max: number): string {
  return s.length <= max ? s : `${s.slice(0, max - 1).trimEnd()}…`;
}

/** A path as shown in a fix: relative when under the session's cwd, else a placeholder. */
function showPath(p: string, cwd: string | null): string {
  if (cwd && (p === cwd || p.startsWith(cwd.endsWith('/') ? cwd : `${cwd}/`))) return p.slice(cwd.length).replace(/^\/+/, '') || '.';
  return '<path>';
}

const HEREDOC_RE = /"?\$\(\s*cat\s+<<-?\s*['"]?(\w+)['"]?[\s\S]*?(?:\1\s*\)"?|$)/g;
/** Quoted spans; an unclosed quote runs to the end (the summary was cut inside a message). */
const QUOTED_RE = /'[^']*(?:'|$)|"[^"]*(?:"|$)/g;
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
  s = s.replace(QUOTED_RE, (q) => (q.length - 2 > MAX_QUOTED_KEPT || q.length < 2 || q[q.length - 1] !== q[0] ? '<text>' : q));
  s = s.replace(UUID_RE, '<id>').replace(HASH_RE, '<hash>');
  s = s.replace(BRANCH_AFTER_RE, (_m, w: string) => `${w} <branch>`);
  s = s.replace(ABS_PATH_RE, (p) => (p === '/' ? p : showPath(p, cwd)));
  for (let i = 0; i < 3; i++) s = s.replace(OUTPUT_NOISE_RE, '');
  return s.replace(/\s+/g, ' ').trim();
}

/** One step as a fix part: `git push --set-upstream origin <branch>`, `Edit config/test.exs`. */
export function fixStepText(step: Pick<ToolStep, 'name' | 'summary' | 'cwd'>): string {
  const t = target(step.summary);
  let out: string;
  if (step.name === 'Bash') out = fixCommandText(t, step.cwd);
  else if (FILE_TOOLS.has(step.name)) out = `${step.name} ${t.startsWith('/') || t.startsWith('~') ? showPath(t, step.cwd) : t}`.trim();
  else out = step.summary.replace(/\s+/g, ' ').trim();
  return clipText(out, MAX_FIX_STEP_CHARS);
}

/** A step named briefly, for "then … succeeded": the command key, or the tool and file. */
function actionName(step: Pick<ToolStep, 'name' | 'summary' | 'cwd'>): string {
  if (step.name === 'Bash') return commandKey(target(step.summary)) || fixStepText(step);
  return fixStepText(step);
}

/** The lines shown for an error: from the signature's lead on, bounded. */
function errorLinesOf(text: string, sig: ErrorSignature): string[] {
  const lines = informativeLines(text);
  const head0 = sig.head[0] ?? '';
  const at = lines.findIndex((l) => l === head0 || (head0 && l.startsWith(head0)));
  return lines.slice(Math.max(0, at), Math.max(0, at) + MAX_ERROR_LINES).map((l) => clipText(l, MAX_FIX_CHARS));
}

interface Walk {
  attempts: number;
  consumed: number[];
  tried: string[];
  fixSteps: ToolStep[];
  looked: ToolStep[];
  end: ToolStep | null;
  outcome: EpisodeOutcome;
  lastFailed: ToolStep;
}

function walk(steps: readonly ToolStep[], i: number, sig: string): Walk {
  const first = steps[i];
  const actions: ToolStep[] = [first];
  const w: Walk = { attempts: 1, consumed: [], tried: [], fixSteps: [], looked: [], end: null, outcome: 'unresolved', lastFailed: first };
  const stop = Math.min(steps.length, i + 1 + LOOKAHEAD_STEPS);
  for (let j = i + 1; j < stop; j++) {
    const t = steps[j];
    if (t.isError && isCascade(t.resultText)) continue;
    const similar = actions.some((a) => similarAction(a, t));
    if (w.tried.length < MAX_TRIED) w.tried.push(t.summary);
    if (t.isError) {
      if (errorSignature(t.resultText)?.sig === sig) {
        w.attempts++;
        w.consumed.push(j);
        actions.push(t);
        w.fixSteps = [];
        w.looked = [];
        w.lastFailed = t;
        continue;
      }
      if (similar && w.fixSteps.length > 0) {
        w.end = t;
        w.outcome = 'error-changed';
        break;
      }
      continue;
    }
    if (similar) {
      w.end = t;
      w.outcome = 'succeeded';
      break;
    }
    if (isChange(t)) w.fixSteps.push(t);
    else w.looked.push(t);
  }
  if (w.end && w.tried.length && w.tried[w.tried.length - 1] === w.end.summary) w.tried.pop();
  return w;
}

function dedupe(parts: string[]): string[] {
  return [...new Set(parts.filter(Boolean))];
}

/** The fix line and the note that explains it. */
function fixOf(w: Walk): { fix: string; note: string } {
  if (w.outcome === 'unresolved' || !w.end) return { fix: '', note: '' };
  const endDiffers = w.outcome === 'succeeded' && fixCommandText(w.end.summary, w.end.cwd) !== fixCommandText(w.lastFailed.summary, w.lastFailed.cwd);
  const changes = w.fixSteps.length ? w.fixSteps : endDiffers ? [] : w.looked;
  const parts = dedupe(changes.map(fixStepText));
  let fix = parts.slice(0, MAX_FIX_STEPS).join('; ');
  if (parts.length > MAX_FIX_STEPS) fix += `; … (${parts.length - MAX_FIX_STEPS} more)`;
  if (endDiffers) fix = fix ? `${fix}; then ${fixStepText(w.end)}` : fixStepText(w.end);
  else if (w.outcome === 'succeeded') fix = fix ? `${fix}; then ${actionName(w.end)} succeeded` : `retried: ${actionName(w.end)} succeeded`;
  const explained = [...changes, ...(endDiffers ? [w.end] : [])].find((s) => s.note && s.note !== w.lastFailed.note);
  return { fix: clipText(fix, MAX_FIX_CHARS), note: explained?.note ?? '' };
}

/** Every error episode of one transcript's main-lane steps, in step order. */
export function episodesOf(steps: readonly ToolStep[]): Episode[] {
  const out: Episode[] = [];
  const consumed = new Set<number>();
  for (let i = 0; i < steps.length && out.length < MAX_EPISODES_PER_TRANSCRIPT; i++) {
    const s = steps[i];
    if (!s.isError || consumed.has(i) || s.name === 'unknown' || isCascade(s.resultText)) continue;
    const sig = errorSignature(s.resultText);
    if (!sig) continue;
    const w = walk(steps, i, sig.sig);
    for (const j of w.consumed) consumed.add(j);
    const { fix, note } = fixOf(w);
    out.push({
      sig,
      step: s.step,
      tool: s.name,
      action: s.summary,
      errorText: s.resultText,
      errorLines: errorLinesOf(s.resultText, sig),
      attempts: w.attempts,
      tried: w.tried,
      fix,
      note,
      outcome: w.outcome,
      resolved: w.outcome !== 'unresolved',
      at: s.resultAt ?? s.callAt,
      startOffset: s.startOffset,
      sessionId: s.sessionId,
      cwd: s.cwd,
    });
  }
  return out;
}
