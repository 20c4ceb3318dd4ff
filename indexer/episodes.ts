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
import { stepErrorText, type ToolStep } from '../transcript/tool-steps.js';
import { errorSignature, informativeLines, wordOverlap, type ErrorSignature } from '../shared/error-signature.js';
import type { EpisodeOutcome } from '../store/types.js';
import { anyDestructive } from '../shared/destructive.js';
import { genericKind } from '../shared/error-class.js';
import { LEAD_CD_PART_RE, leadingDirectory, ranInDir } from '../shared/run-dir.js';
import { INSPECT_COMMANDS, INSPECT_GIT, TRIVIAL_HEADS, actionKeys, commandKey, sameActionKey, segmentWords, segments } from '../shared/command-keys.js';
import { isCascade, placeError } from '../shared/error-class.js';
import { PASTFIX_VALUES, pastfixValue, ruleOn } from '../shared/pastfix-rules.js';
import { EDIT_TOOLS, FILE_TOOLS } from '../shared/edit-tools.js';
// A file whose edit changes a setting, not code (rule small-change: "a config value" is a fix,
// an edit of code is the work at hand).
import { CONFIG_FILE_RE } from '../shared/config-file.js';
import { clipText, fixCommandText, fixStepText, showPath, target } from './fix-text.js';

export { COMMAND_KEY_WORDS, actionKeys, commandKey } from '../shared/command-keys.js';

/** The version of the rules that cut and sign episodes: this module's fix extraction and the
 *  signing it calls (shared/error-signature.ts, shared/error-keys.ts, shared/error-class.ts,
 *  shared/here-mark.ts, shared/command-keys.ts). Bump it with any change that signs an error or
 *  cuts a fix otherwise: a store recorded with another version has every document re-read at the
 *  next index run (indexer/indexer.ts), so stored episodes meet the errors the hook signs now. */
export const EPISODE_RULES_VERSION = '2026-12-07.4';

/** Steps looked at after a failure (shared/pastfix-rules.ts `lookahead-steps`, chosen
 *  leave-one-project-out): within it the failing intent must succeed. */
export const LOOKAHEAD_STEPS = PASTFIX_VALUES['lookahead-steps'].value;
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
/** Episodes cut from one transcript (a file of thousands of failures costs a bounded index). */
export const MAX_EPISODES_PER_TRANSCRIPT = 500;


/** Tools that only look: never a fix on their own. */
const INSPECT_TOOLS = new Set(['Read', 'Grep', 'Glob', 'LS', 'WebSearch', 'WebFetch', 'TaskOutput', 'ToolSearch', 'TodoWrite', 'AskUserQuestion']);
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
export { isCascade };


function toolGroup(name: string): string {
  return EDIT_TOOLS.has(name) ? 'edit' : name;
}

function summaryWords(s: string): string[] {
  return (s.toLowerCase().match(/[a-z0-9][a-z0-9_.-]{1,}/g) ?? []);
}

/** Intents that other commands or tools carry out as well: listing files (`dir` in a shell
 *  that is not cmd, `ls`, `find`, the Glob tool) and searching text (`grep`, `rg`, the Grep
 *  tool). A failing call of one succeeds as another: that other is the fix ("use Glob"). */
const INTENTS: ReadonlyArray<{ commands: ReadonlySet<string>; tools: ReadonlySet<string> }> = [
  { commands: new Set(['dir', 'ls', 'find', 'fd', 'tree', 'get-childitem', 'gci']), tools: new Set(['Glob', 'LS']) },
  { commands: new Set(['grep', 'rg', 'ag', 'ack', 'findstr', 'select-string']), tools: new Set(['Grep']) },
];

function intentOf(step: Pick<ToolStep, 'name' | 'summary' | 'command'>): number {
  const program = step.name === 'Bash' ? (actionKeys(target(step))[0] ?? '').split(' ')[0].toLowerCase() : '';
  return INTENTS.findIndex((i) => i.tools.has(step.name) || (program !== '' && i.commands.has(program)));
}

/** Whether `b` runs another program of the same name in place of `a`'s (`python` → `python3`,
 *  `pip` → `pip3`): sameActionKey's stand-in, not the same key. */
function standsIn(a: Pick<ToolStep, 'name' | 'summary' | 'command'>, b: Pick<ToolStep, 'name' | 'summary' | 'command'>): boolean {
  if (a.name !== 'Bash' || b.name !== 'Bash') return false;
  const ka = actionKeys(target(a));
  const kb = actionKeys(target(b));
  return ka.some((x) => kb.some((y) => x !== y && x.split(' ')[0] !== y.split(' ')[0] && sameActionKey(x, y)));
}

/** Same or similar action (see the module header). */
export function similarAction(a: Pick<ToolStep, 'name' | 'summary' | 'command'>, b: Pick<ToolStep, 'name' | 'summary' | 'command'>): boolean {
  const intent = intentOf(a);
  if (intent >= 0 && intent === intentOf(b) && (a.name !== b.name || a.name !== 'Bash' || commandKey(target(a)).split(' ')[0] !== commandKey(target(b)).split(' ')[0])) return true;
  if (toolGroup(a.name) !== toolGroup(b.name)) return false;
  if (a.name === 'Bash') {
    const ka = actionKeys(target(a));
    const kb = actionKeys(target(b));
    return ka.some((x) => kb.some((y) => sameActionKey(x, y)));
  }
  if (FILE_TOOLS.has(a.name)) {
    const ta = target(a);
    return ta !== '' && ta === target(b);
  }
  if (a.summary === b.summary) return true;
  return wordOverlap(summaryWords(a.summary), summaryWords(b.summary)) >= SIMILAR_SUMMARY_OVERLAP;
}

/** A step that only looks (reads, searches, `git status`, output piped into grep). */
export function isInspection(step: Pick<ToolStep, 'name' | 'summary' | 'command'>): boolean {
  if (INSPECT_TOOLS.has(step.name)) return true;
  if (step.name !== 'Bash') return false;
  const segs = segments(target(step));
  if (!segs.length) return true;
  return segs.every((s) => {
    const w = segmentWords(s);
    if (!w.length || INSPECT_COMMANDS.has(w[0]) || TRIVIAL_HEADS.has(w[0])) return true;
    if (w[0] === 'git' && INSPECT_GIT.has(w.find((x, i) => i > 0 && !x.startsWith('-')) ?? '')) return true;
    return /\|\s*(grep|rg|ag|jq)\b/.test(s);
  });
}

/** The file names a call acts on: the last segments of its path-like operands (a separator or
 *  an extension; options, globs and placeholders aside). */
function operandNames(step: Pick<ToolStep, 'name' | 'summary' | 'command'>): string[] {
  const t = target(step);
  const words = step.name === 'Bash' ? t.split(/[\s;&|()<>=]+/) : [t];
  const names = new Set<string>();
  for (const w of words) {
    const p = w.replace(/^["']|["']$/g, '');
    if (!p || p.startsWith('-') || /[*?$<>{}]/.test(p) || !(/[\\/]/.test(p) || /\.[A-Za-z0-9]{1,8}$/.test(p))) continue;
    const name = p.split(/[\\/]+/).filter(Boolean).pop();
    if (name && name !== '.' && name !== '..') names.add(name.toLowerCase());
  }
  return [...names];
}

/** Whether `success` names a file the failed call acted on (or the failed call named none). */
function namesOperand(success: Pick<ToolStep, 'name' | 'summary' | 'command'>, failed: Pick<ToolStep, 'name' | 'summary' | 'command'>): boolean {
  const wanted = operandNames(failed);
  if (!wanted.length) return true;
  const text = target(success).toLowerCase();
  return wanted.some((n) => text.includes(n));
}

/** Acting keys of `success` that `failed` did not have (shared/command-keys.ts actionKeys). */
function addedActions(success: string, failed: string): number {
  const had = actionKeys(failed);
  return actionKeys(success).filter((k) => !had.some((h) => sameActionKey(h, k))).length;
}

/** A step that changes something: an edit, or a command that is not only inspection. */
function isChange(step: ToolStep): boolean {
  return EDIT_TOOLS.has(step.name) || (step.name === 'Bash' && !isInspection(step));
}


/** What only hides an error (a fix made of these is no fix: the cause is still there). */
const SUPPRESS_RE = /\s*(?:2>\s*\/dev\/null|>\s*\/dev\/null\s*2>&1|&>\s*\/dev\/null|\|\|\s*(?:true|:|echo\b[^|&;]*|exit 0)|;\s*true)\s*/g;

const HIDES_RE = /\|\|\s*(?:true|:|echo\b|exit 0)|;\s*true\b|2>\s*\/dev\/null/;
/** A fallback that turns any failure into success (`|| echo none`): a command that failed with
 *  stderr sent to /dev/null and then "succeeded" once such a fallback was added was not fixed. */
const FALLBACK_RE = /\|\|\s*(?:true|:|echo\b|exit 0)|;\s*true\b/;

/** Whether the success only hides what failed: it adds what hides errors (a fallback, or
 *  stderr sent away) that the failing command did not have. */
function onlyHides(success: string, failed: string): boolean {
  return (HIDES_RE.test(success) && !HIDES_RE.test(failed)) || (FALLBACK_RE.test(success) && !FALLBACK_RE.test(failed));
}

/** A command with what only hides its errors taken out. */
function unsuppressed(cmd: string): string {
  return cmd.replace(SUPPRESS_RE, ' ').replace(/\s+/g, ' ').trim();
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
  const stop = Math.min(steps.length, i + 1 + pastfixValue('lookahead-steps'));
  for (let j = i + 1; j < stop; j++) {
    const t = steps[j];
    if (t.isError && isCascade(t.resultText)) continue;
    const similar = actions.some((a) => similarAction(a, t));
    if (w.tried.length < MAX_TRIED) w.tried.push(t.summary);
    if (t.isError) {
      if (errorSignature(stepErrorText(t))?.sig === sig) {
        w.attempts++;
        w.consumed.push(j);
        actions.push(t);
        w.fixSteps = [];
        w.looked = [];
        w.lastFailed = t;
        continue;
      }
      // Past this error after a change, or by another program of the same name standing in
      // for the failing one (`python` not found → `python3 x.py` fails otherwise: python3 ran).
      if (similar && (w.fixSteps.length > 0 || standsIn(w.lastFailed, t))) {
        w.end = t;
        w.outcome = 'error-changed';
        break;
      }
      continue;
    }
    if (similar) {
      // A look at something else after a failed look (`ls docs/x.json` failed, `ls -la | grep
      // docs` succeeded) is a diagnostic, not the intent getting through (rule diagnostic-not-fix).
      if (ruleOn('diagnostic-not-fix') && isInspection(w.lastFailed) && isInspection(t) && !namesOperand(t, w.lastFailed)) {
        w.looked.push(t);
        continue;
      }
      // A look that got through (`git status` where the repository is) after an acting call
      // failed (`git add -A && git commit`) is a diagnostic: the acting intent has not got
      // through yet (rule look-not-intent).
      // (Another tool for the same job is no diagnostic: `dir x` failed, Glob listed it.)
      if (ruleOn('look-not-intent') && isInspection(t) && !isInspection(first) && !(intentOf(first) >= 0 && intentOf(first) === intentOf(t))) {
        w.looked.push(t);
        continue;
      }
      // A success that only hides what failed (`ls x 2>/dev/null || echo none`) is a probe:
      // the intent has not got through; look on.
      if (ruleOn('probe-not-fix') && onlyHides(target(t), target(w.lastFailed))) {
        w.looked.push(t);
        continue;
      }
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

/** The directory a call ran in (shared/run-dir.ts), for a shell call; its start cwd otherwise. */
function ranIn(step: Pick<ToolStep, 'name' | 'summary' | 'command' | 'cwd' | 'callCwd'>): string | null {
  // (Only absolute POSIX results are compared as places: see `moved` in fixOf.)
  return ranInDir(step.callCwd ?? step.cwd, step.name === 'Bash' ? target(step) : '');
}

/** The fix line and the note that explains it; `fix` '' when nothing was changed (an
 *  unchanged rerun, or one that only hides the error: not a fix, docs/PASTFIX.md). */
function fixOf(w: Walk): { fix: string; note: string } {
  if (w.outcome === 'unresolved' || !w.end) return { fix: '', note: '' };
  const base = w.lastFailed.callCwd ?? w.lastFailed.cwd;
  const endText = fixStepText(w.end, base);
  // The succeeding command differs from the failing one (for `error-changed`: the program
  // that stood in, with nothing changed between: walk).
  const failedIn = ranIn(w.lastFailed);
  const endIn = ranIn(w.end);
  // Two commands that ran in one directory compare without a leading `cd` to it (a rerun that
  // only added `cd <the same folder> &&` changed nothing).
  const sameDir = !!failedIn && failedIn === endIn;
  const asRun = (t: ToolStep) => (sameDir ? target(t).replace(LEAD_CD_PART_RE, '') : target(t));
  const endDiffers = (w.outcome === 'succeeded' || (w.outcome === 'error-changed' && !w.fixSteps.length)) && unsuppressed(fixCommandText(asRun(w.end), base)) !== unsuppressed(fixCommandText(asRun(w.lastFailed), base));
  // The directory the command ran in moved between the failure and the success (a `cd` call
  // of its own, the session's cwd, or a leading `cd X &&` / `git -C X` the failure had and the
  // success dropped or changed): where it ran is the fix. Said once: not when the success's
  // own text already names where (`cd api-gateway && …`).
  // Compared as places only when both are absolute POSIX paths (`~/app`, `$HOME/app`, an MSYS
  // `/c/…` against a Windows cwd are the same folder spelled otherwise, not a move).
  const posixPath = (d: string | null) => !!d && d.startsWith('/') && !/^\/[a-z]\//i.test(d);
  // A move is the fix only where the error says the place is wrong (rule move-needs-place-error).
  const movable = !ruleOn('move-needs-place-error') || placeError(stepErrorText(w.lastFailed));
  const moved = movable && posixPath(endIn) && posixPath(failedIn) && endIn !== failedIn && !leadingDirectory(target(w.end)) ? endIn : null;
  const changes = w.fixSteps.filter((t) => !(t.name === 'Bash' && !unsuppressed(fixCommandText(target(t), base))));
  // The error only changed into another: the intent has not got through (rule intent-succeeded).
  if (w.outcome === 'error-changed' && ruleOn('intent-succeeded')) return { fix: '', note: '' };
  // A fix is a small change, and no edit of code: a run of edits is the work at hand (rule small-change).
  // Actions the succeeding call added to the failing one's (`mkdir … && cp … && git add` after
  // `git add` failed) are steps of the fix as much as separate calls are.
  const added = w.end.name === 'Bash' && w.lastFailed.name === 'Bash' ? addedActions(target(w.end), target(w.lastFailed)) : 0;
  if (ruleOn('small-change') && (changes.length + added > pastfixValue('max-fix-changes') || changes.some((t) => EDIT_TOOLS.has(t.name) && !CONFIG_FILE_RE.test(target(t))))) return { fix: '', note: '' };
  // A way there that threw work away or overrode a safeguard is not a fix to tell anyone.
  if (anyDestructive([...changes, w.end].map((t) => (t.command ? `${t.name}: ${t.command}` : t.summary)))) return { fix: '', note: '' };
  if (!changes.length && !endDiffers && !moved) return { fix: '', note: '' };
  // The same action failed otherwise once it ran in another directory: the move changed the
  // error (`cd /home/me && git add` → `git add` where the repository is), not the work between.
  if (w.outcome === 'error-changed' && moved) return { fix: clipText(`in ${showPath(moved, failedIn)}: ${endText}`, MAX_FIX_CHARS), note: '' };
  const parts = dedupe(changes.map((t) => fixStepText(t, base)));
  let fix = parts.slice(0, MAX_FIX_STEPS).join('; ');
  if (parts.length > MAX_FIX_STEPS) fix += `; … (${parts.length - MAX_FIX_STEPS} more)`;
  const where = moved ? `in ${showPath(moved, failedIn)}: ` : '';
  if (endDiffers) fix = fix ? `${fix}; then ${where}${endText}` : `${where}${endText}`;
  else if (w.outcome === 'succeeded') fix = fix ? `${fix}; then ${where}${commandKey(target(w.end)) || endText} succeeded` : `${where}${endText}`;
  const explained = [...changes, ...(endDiffers || moved ? [w.end] : [])].find((s) => s.note && s.note !== w.lastFailed.note);
  return { fix: clipText(fix, MAX_FIX_CHARS), note: explained?.note ?? '' };
}

/** Every error episode of one transcript's main-lane steps, in step order. */
export function episodesOf(steps: readonly ToolStep[]): Episode[] {
  const out: Episode[] = [];
  const consumed = new Set<number>();
  for (let i = 0; i < steps.length && out.length < MAX_EPISODES_PER_TRANSCRIPT; i++) {
    const s = steps[i];
    if (!s.isError || consumed.has(i) || s.name === 'unknown' || isCascade(s.resultText)) continue;
    // Signed as the daemon and the hook sign it: a path naming the folder it ran in marked.
    const text = stepErrorText(s);
    const sig = errorSignature(text);
    if (!sig) continue;
    const w = walk(steps, i, sig.sig);
    for (const j of w.consumed) consumed.add(j);
    // A generic error that only its whole text tells (a guessed absolute path, a rejection:
    // shared/error-class.ts) has no fix to offer: the store keeps its head lines only, from
    // which core/fixes.ts could not tell it apart from the same words about another path.
    // (The failure the fix followed: a later attempt under the same signature may be told
    // otherwise by its whole text — a relative path after a guessed absolute one.)
    const lastText = stepErrorText(w.lastFailed);
    const genericByText = ruleOn('generic-error') && genericKind(lastText, sig.lines) !== null && genericKind('', sig.lines) === null;
    const { fix, note } = genericByText ? { fix: '', note: '' } : fixOf(w);
    // Ended, but nothing was changed to end it: not resolved (no fix to offer).
    const outcome: EpisodeOutcome = fix ? w.outcome : 'unresolved';
    out.push({
      sig,
      step: s.step,
      tool: s.name,
      action: s.summary,
      errorText: s.resultText,
      errorLines: errorLinesOf(text, sig),
      attempts: w.attempts,
      tried: w.tried,
      fix,
      note,
      outcome,
      resolved: outcome !== 'unresolved',
      at: s.resultAt ?? s.callAt,
      startOffset: s.startOffset,
      sessionId: s.sessionId,
      cwd: s.callCwd ?? s.cwd,
    });
  }
  return out;
}
