/**
 * Which Past fix of a fixes file to offer at a failure (pure; the hook bundles it). The one
 * function that chooses, for the hook (hook/tool-gates.ts, at PostToolUseFailure) and the
 * daemon (core/tool-step.ts, at the transcript's tool result), both reading fixes files built by
 * core/fixes.ts. Input: the file (already validated), the signed error (shared/tool-signal.ts),
 * the session, its lineage, its cwd and recent transcript, and what it was shown already.
 * Output: the offer, or the reason for silence.
 *
 * In order, each leaving the fixes that may be shown (none left → that silence):
 *   own-session   never a fix from this session or its lineage (a resumed or forked copy)
 *   out-of-scope  never outside its region's scope
 *   elsewhere     a fix that only edited or staged named files only at an error naming one
 *                 (rule edits-named), one naming its task's files only at a failure naming
 *                 one (rule task-files); a fix that moved to another folder only to a session
 *                 working there (rule place), and none to a call aimed beside the cwd (rule
 *                 beside-cwd)
 *   other-program only a fix met at a failure of the same program or tool (rule same-program)
 * then, among those left: one not shown yet in this session and met at the same action first,
 * then the file's order. When the shell was already in the folder (rule cwd-persists) the
 * line says what to do in this session instead of the fix's text, and the gates about that
 * text (edits-named, place, same-program) do not apply. Each line that silences ends in `// gate:<name>` (check-gates).
 */
import type { FixFile, FixOffer, Offer } from './types.js';
import type { ErrorSignal } from './tool-signal.js';
import { scopeAllows } from './modes.js';
import { currentPlace, editsNamed, ranBeside } from './fix-place.js';
import { actionKeys, sameActionKey, sameProgram } from './command-keys.js';
import { withAdvice } from './cwd-persists.js';
import { ruleOn } from './rule-switch.js';

export const FIX_SILENCES = ['no-fix', 'own-session', 'out-of-scope', 'elsewhere', 'other-program'] as const;
export type FixSilence = (typeof FIX_SILENCES)[number];

export interface FixChoiceInput {
  file: FixFile;
  /** The key the file was read under: the signal's signature, or one of its line keys. */
  key: string;
  signal: ErrorSignal;
  sessionId: string;
  cwd: string | null;
  /** Sessions this one was resumed or forked from, or that share its messages. */
  lineage: readonly string[];
  /** The session's transcript just before the failure, where a fix's place must show ('' for none). */
  recent: string;
  /** Whether this offer was shown in the session already (ids and handles; shared with the prompt channel). */
  seen: (offer: Offer) => boolean;
}

/** A fix from this session or from its lineage: the fix's own lineage names this session, or
 *  this session's lineage names the fix's session. */
export function fromOwnLineage(f: Pick<FixOffer, 'sourceSession' | 'sourceSessions'>, sessionId: string, lineage: readonly string[]): boolean {
  const theirs = [f.sourceSession, ...(f.sourceSessions ?? [])];
  return theirs.includes(sessionId) || theirs.some((s) => lineage.includes(s));
}

/** Longest tool name a fix records (FixOffer.tool, core/fixes.ts). */
export const MAX_TOOL_NAME_CHARS = 64;

/** Whether a fix was met at a failure of the tool and program that failed here (rule
 *  same-program). An error whose lead names its program (`ls: cannot access`, `cd: x: no such
 *  file`) has it in its signature already: every fix of its file was met there. A fix that
 *  records no tool (a note of the person's, a file written before) is not held to it. */
function sameProgramAs(f: FixOffer, signal: ErrorSignal, keys: readonly string[], exact: boolean): boolean {
  if ((exact && signal.program !== null) || !f.tool) return true;
  if (signal.tool && f.tool !== signal.tool) return false;
  if (!keys.length || !f.actions) return true;
  return f.actions.some((a) => keys.some((k) => sameProgram(a, k)));
}

/** The offer to show from a fixes file, or why none. */
export function chooseFix(input: FixChoiceInput): { offer: Offer } | { silence: FixSilence } {
  const { file, signal } = input;
  if (!file.fixes.length) return { silence: 'no-fix' }; // gate:fixes-empty
  const others = file.fixes.filter((f) => !fromOwnLineage(f, input.sessionId, input.lineage));
  if (!others.length) return { silence: 'own-session' }; // gate:own-session
  const inScope = others.filter((f) => scopeAllows(f.scope, input.cwd));
  if (!inScope.length) return { silence: 'out-of-scope' }; // gate:out-of-scope
  // The shell was already in the folder: the line says so for this session, whatever another
  // session then ran where — the gates about the fix's own text (files, place, program) do not apply.
  if (signal.advice) {
    const f = inScope.find((x) => !input.seen(x.offer)) ?? inScope[0];
    return { offer: { ...f.offer, reason: withAdvice(f.offer.reason, signal.advice) } };
  }
  // A fix that only edited files only at an error that names one of them; one that ran in
  // another directory only to a session working there, and never to a call aimed beside the cwd.
  // A fix naming files of the task it was met in only at a failure whose error or command
  // names one of them (rule task-files).
  const failure = `${signal.text}\n${signal.command}`;
  const named = inScope.filter((f) => (!ruleOn('edits-named') || !f.edits || editsNamed(f.edits, signal.text)) && (!ruleOn('task-files') || !f.files || editsNamed(f.files, failure)));
  const places = named.flatMap((f) => (f.where ? [f.where] : []));
  const beside = ruleOn('beside-cwd') && ranBeside(input.cwd, signal.command);
  const place = places.length && !beside ? currentPlace(places, input.cwd, input.recent) : null;
  const placed = ruleOn('place') ? named.filter((f) => !f.where || f.where === place) : named;
  if (!placed.length) return { silence: 'elsewhere' }; // gate:fix-elsewhere
  const keys = signal.command ? actionKeys(signal.command) : [];
  const here = ruleOn('same-program') ? placed.filter((f) => sameProgramAs(f, signal, keys, input.key === signal.sig)) : placed;
  if (!here.length) return { silence: 'other-program' }; // gate:other-program
  // The error met again in this session: another session's fix, not the one already shown
  // (which did not keep it away); all shown already → the caller's repeat gate silences it.
  // Among those, one met at the same action as the failing call comes first.
  const sameAction = (f: FixOffer) => !!f.actions && f.actions.some((a) => keys.some((k) => sameActionKey(a, k)));
  const fresh = here.find((f) => !input.seen(f.offer) && sameAction(f)) ?? here.find((f) => !input.seen(f.offer));
  return { offer: (fresh ?? here[0]).offer };
}
