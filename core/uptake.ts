/**
 * Uptake without labels (pure): after a Past fix was offered (printed, or would have been) at a
 * failed tool call, did the session then run that fix and get the failing intent through —
 * "confirmed by the session" — and how many tool steps came between the offer and that
 * success (what the offer could have saved: an upper bound, the session may have needed some
 * of them anyway). Used by `backtest` (eval/backtest.ts: the replayed transcript's steps after
 * the offer), `soak report` (ops/live-uptake.ts: the live transcript read after the offer)
 * and the HTML report (ops/report-html.ts).
 *
 * Keys are the episode walk's (indexer/episodes.ts: "the same intent"): a shell call's action
 * keys (shared/command-keys.ts actionKeys, compared with sameActionKey); a file tool's key is
 * its verb and the file's name (`edit wallet.ts`: the edit tools count as one); another tool's
 * its name. The offered fix's keys come from its fix line (core/fixes.ts fixReason: `fixed by
 * <fix> — …`; indexer/episodes.ts fixOf writes the line): its parts' keys less the rerun of
 * the failing intent (`…; then mix test succeeded`), unless nothing else is left.
 *
 * Confirmed: within UPTAKE_LOOKAHEAD_STEPS steps after the offer, a step ran the fix's acting
 * keys (a place fix `in X: cmd`: ran the failing intent in X) and, at it or after it, a step
 * with the failing call's keys succeeded. steps_between: the steps strictly between the
 * offer's call and that success (null when not confirmed).
 */
import type { ToolStep } from '../transcript/tool-steps.js';
import { actionKeys, sameActionKey } from '../shared/command-keys.js';
import { fixPlace } from '../shared/fix-place.js';
import { lastSegment, ranInDir } from '../shared/run-dir.js';
import { PASTFIX_VALUES } from '../shared/pastfix-rules.js';
import { EDIT_TOOLS, FILE_TOOLS } from '../shared/edit-tools.js';


/** Steps looked at after the offer: the episode walk's look-ahead (shared/pastfix-rules.ts
 *  `lookahead-steps`), so "the session then got through" means what "the fix came later" means
 *  when a Past fix is cut. */
export const UPTAKE_LOOKAHEAD_STEPS = PASTFIX_VALUES['lookahead-steps'].value;

/** A tool step as uptake reads it. */
export type UptakeStep = Pick<ToolStep, 'name' | 'summary' | 'command' | 'isError' | 'cwd' | 'callCwd'>;

/** The offered fix as uptake reads it: the keys that act, and the place a place fix runs in. */
export interface OfferedFix {
  keys: string[];
  place: string | null;
}

export interface Uptake {
  confirmed: boolean;
  /** Tool steps strictly between the offer's call and the success; null when not confirmed. */
  steps_between: number | null;
}

/** A file step of a fix line (`Edit config/test.exs`, `Read a.ts`). */
const FILE_STEP_RE = new RegExp(`^(${[...FILE_TOOLS].join('|')})\\s+(\\S.*)$`);

/** The last segment of a path ('' for none). */
function baseName(p: string): string {
  return p.trim().replace(/^["']|["']$/g, '').split(/[\\/]/).filter(Boolean).pop() ?? '';
}

/** A file tool's key: its verb and the file's name (`edit wallet.ts`, `read a.md`). */
function fileKey(tool: string, path: string): string | null {
  const name = baseName(path);
  if (!name) return null;
  return `${EDIT_TOOLS.has(tool) ? 'edit' : 'read'} ${name}`;
}

/** The input part of a step summary (`Edit: /a/b.ts` → `/a/b.ts`). */
function summaryPart(summary: string): string {
  const i = summary.indexOf(': ');
  return i >= 0 ? summary.slice(i + 2).trim() : '';
}

/** A tool step's keys: a shell call's action keys, a file tool's verb + file name, another
 *  tool's name. */
export function stepKeys(step: Pick<ToolStep, 'name' | 'summary' | 'command'>): string[] {
  if (step.name === 'Bash') return actionKeys(step.command ?? summaryPart(step.summary));
  if (FILE_TOOLS.has(step.name)) {
    const k = fileKey(step.name, summaryPart(step.summary));
    return k ? [k] : [];
  }
  return step.name && step.name !== 'unknown' ? [`tool ${step.name.toLowerCase()}`] : [];
}

/** The fix line inside a Past fix's reason (`fixed by <fix> — same "…" error in …`), or the
 *  reason itself when it has no such frame; '' for an unresolved one. */
export function fixLineOf(reason: string): string {
  const m = /^fixed by (.*) — (?:same|similar) "/s.exec(reason);
  if (m) return m[1];
  return /^not resolved there:/.test(reason) ? '' : reason;
}

/** One part of a fix line → its keys (`Edit config/test.exs` → `edit test.exs`). */
function partKeys(part: string): string[] {
  const p = part.replace(/^then\s+/, '').replace(/^in [^:]+:\s*/, '').replace(/\s+succeeded$/, '').trim();
  if (!p || /^…/.test(p)) return [];
  const file = FILE_STEP_RE.exec(p);
  if (file) {
    const k = fileKey(file[1], file[2]);
    return k ? [k] : [];
  }
  const tool = /^([A-Z][A-Za-z]+):\s/.exec(p);
  if (tool) return [`tool ${tool[1].toLowerCase()}`];
  return actionKeys(p);
}

const sameKey = (a: string, b: string) => sameActionKey(a, b);
const anyShared = (a: readonly string[], b: readonly string[]) => a.some((x) => b.some((y) => sameKey(x, y)));

/** The offered fix from its fix line and the failing call's keys: the keys of its parts,
 *  without the rerun of the failing intent when something else acts; its place when it ran
 *  elsewhere (shared/fix-place.ts fixPlace). */
export function offeredFix(fixLine: string, failingKeys: readonly string[]): OfferedFix {
  const parts = fixLine.split(/;\s+/);
  const all = [...new Set(parts.flatMap(partKeys))];
  const acting = all.filter((k) => !failingKeys.some((f) => sameKey(k, f)));
  return { keys: acting.length ? acting : all, place: fixPlace(fixLine) };
}

/** Whether a step ran in `place` (its directory's last segment, after any `cd` it made). */
function ranIn(step: UptakeStep, place: string): boolean {
  const dir = ranInDir(step.callCwd ?? step.cwd, step.name === 'Bash' ? step.command ?? summaryPart(step.summary) : '');
  return !!dir && lastSegment(dir) === place;
}

/**
 * Did the session confirm the offered fix? `after`: the session's tool steps after the
 * offer's call, in order; `failing`: the failing call's keys (stepKeys).
 */
export function uptake(input: { after: readonly UptakeStep[]; fix: OfferedFix; failing: readonly string[] }): Uptake {
  const { fix, failing } = input;
  const none: Uptake = { confirmed: false, steps_between: null };
  if (!failing.length || (!fix.keys.length && !fix.place)) return none;
  const steps = input.after.slice(0, UPTAKE_LOOKAHEAD_STEPS);
  let ran = -1;
  for (let i = 0; i < steps.length; i++) {
    const s = steps[i];
    const keys = stepKeys(s);
    if (ran < 0) {
      // A place fix is run by the failing intent in that place; another, by its acting keys.
      const runsFix = fix.place ? ranIn(s, fix.place) && anyShared(keys, failing) : anyShared(keys, fix.keys);
      if (!runsFix) continue;
      ran = i;
    }
    if (!s.isError && anyShared(keys, failing)) return { confirmed: true, steps_between: i };
  }
  return none;
}
