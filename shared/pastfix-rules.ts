/**
 * The Past fix's rules, each with what it means, where it lives and how it can be measured
 * (pure, dependency-free: the hook bundles it). Every rule that decides whether an error gets a
 * Past fix, or whether something counts as a fix, is named here once; the code that applies it
 * asks `ruleOn(id)` (shared/rule-switch.ts: the hook bundles that, not this prose). `eval pastfix --ablate <id>` turns one off in that process only, to
 * measure what the rule does (docs/PASTFIX.md lists each rule with its figures). Nothing in the
 * product turns a rule off: the daemon, the hook and the indexer always run them all.
 */

import { setAblated } from './rule-switch.js';

export interface PastfixRule {
  id: string;
  /** What the rule says, in general terms (not an item of any gold). */
  means: string;
  /** Where it is applied (module: function). */
  where: string;
}

export const PASTFIX_RULES = [
  { id: 'intent-succeeded', means: 'an episode is resolved only when the failing intent itself then succeeded; an error that only changed into another is not fixed', where: 'indexer/episodes.ts: fixOf' },
  { id: 'small-change', means: 'a fix is a small change: at most max-fix-changes acting steps (separate calls, or actions the succeeding call added) between the last failure and the success, and no edit of code (a config file may be edited); a run of code edits or unrelated work is not a fix', where: 'indexer/episodes.ts: fixOf' },
  { id: 'move-needs-place-error', means: 'running the intent in another folder is a fix only for an error that says the place is wrong (a missing file, folder, repository or manifest); a build that passes elsewhere fixed nothing here', where: 'indexer/episodes.ts: fixOf' },
  { id: 'no-state-change', means: 'a fix that destroys state (force, resets, rebases, git clean, rm, dropping tables) or creates a repository or project (git init, npm init) is never offered: followed in the wrong place it does harm', where: 'shared/destructive.ts; indexer/episodes.ts, core/fixes.ts' },
  { id: 'code-being-written', means: 'a compile, type, lint or test failure is about code being written: only the very same complaint (its exact signature) gets a fix, and only one that changed no code; a failing test run that names a cause outside the code (a refused connection, a port taken, a host not found, a permission, a timeout) is the environment\'s', where: 'shared/error-class.ts: codeError; core/fixes.ts, hook/tool-gates.ts' },
  { id: 'same-program', means: 'a fix is offered only at a failure of the same program or tool it was met at: the same words from another command often have another cause', where: 'shared/fix-choice.ts' },
  { id: 'cwd-persists', means: "the Bash tool's cwd persists between calls: a path that starts with the folder the shell is already in gets the line that says so, not the earlier session's commands", where: 'shared/cwd-persists.ts, shared/tool-signal.ts, shared/fix-choice.ts' },
  { id: 'diagnostic-not-fix', means: 'after a failed look at a file, a look at something else (a listing, a search) is a diagnostic, not the intent getting through: only a look at the same file elsewhere is its fix', where: 'indexer/episodes.ts: walk' },
  { id: 'quoted-is-data', means: "a quoted span of a shell command is data, not commands: a commit message's lines or a ; inside quotes start no action (no action key, no 'then <message line> succeeded')", where: 'shared/command-keys.ts: segments' },
  { id: 'git-place-option', means: "git -C X <sub> (and -c, --git-dir, --work-tree) is git <sub> run in X: the same action as git <sub> run there, and git -C X status is a look; where git ran is the call's place, not its action", where: 'shared/command-keys.ts: segmentWords' },
  { id: 'look-not-intent', means: 'after an acting call failed (git add, a build), a look that then succeeds (git status where the repository is, an ls) is a diagnostic, not the intent getting through: the walk looks on for the acting intent itself', where: 'indexer/episodes.ts: walk' },
  { id: 'probe-not-fix', means: 'a success that only hides the failure (2>/dev/null, || echo) is a probe, not the intent getting through', where: 'indexer/episodes.ts: walk' },
  { id: 'generic-error', means: "errors whose fix is the person's, the code's at hand or stated in the message get no Past fix", where: 'shared/error-class.ts: genericKind' },
  { id: 'place', means: 'a fix that moved to another folder is offered only to a session that works there', where: 'shared/fix-place.ts, shared/fix-choice.ts' },
  { id: 'beside-cwd', means: 'a call aimed at a folder beside the cwd asked about that folder: no move is its fix', where: 'shared/fix-place.ts: ranBeside' },
  { id: 'edits-named', means: 'a fix that only edited or staged named files is offered only at an error naming one of them', where: 'shared/fix-choice.ts' },
  { id: 'task-files', means: "a fix that names files of the task it was met in (git add of that task's files after the missing one was dropped, a listing of its folder) is that task's work: offered only at a failure whose error or command names one of them; a move to another folder, a corrected path of a file the failing call named, a manifest or config file and another tool's search scope are the change itself and transfer", where: 'shared/task-files.ts; core/fixes.ts, shared/fix-choice.ts' },
  { id: 'named-not-all', means: 'a success that swapped the files the failing call named for every file (git add -A or . after git add <files> failed) did not get those files through: it staged whatever was there, and is no fix', where: 'shared/stage-all.ts; core/fixes.ts' },
  { id: 'parent-paths', means: 'a call that names the folder the shell is in as one of its paths (git add api-gateway inside api-gateway) was written from the folder above: the cwd-persists line says to run it from there, not to drop a prefix', where: 'shared/cwd-persists.ts' },
] as const satisfies readonly PastfixRule[];

export type PastfixRuleId = (typeof PASTFIX_RULES)[number]['id'];

/** The rules' numbers that were chosen, not derived: each chosen leave-one-project-out over its
 *  candidates (bench/pastfix-lopo.ts; docs/PASTFIX.md gives the figures). */
export const PASTFIX_VALUES = {
  'max-fix-changes': { value: 1, candidates: [0, 1, 2, 3], means: 'acting steps a fix may make between the last failure and the success (rule small-change)' },
  'lookahead-steps': { value: 40, candidates: [10, 20, 40], means: 'tool steps after a failure within which the failing intent must succeed for an episode to be resolved' },
  'sessions-per-group': { value: 6, candidates: [3, 6], means: 'sessions a group of agreeing fixes keeps in a fixes file of at most 12 fixes' },
} as const satisfies Record<string, { value: number; candidates: readonly number[]; means: string }>;

export type PastfixValueId = keyof typeof PASTFIX_VALUES;

const RULE_IDS: ReadonlySet<string> = new Set(PASTFIX_RULES.map((r) => r.id));
const varied = new Map<string, number>();

/** A chosen value (its default, but in an `eval pastfix --vary` run). */
export function pastfixValue(id: PastfixValueId): number {
  return varied.size === 0 ? PASTFIX_VALUES[id].value : varied.get(id) ?? PASTFIX_VALUES[id].value;
}

/** Sets values for this process (eval only); throws on an unknown name or a value not a
 *  non-negative integer. */
export function varyValues(pairs: ReadonlyArray<[string, number]>): void {
  for (const [id, v] of pairs) {
    if (!(id in PASTFIX_VALUES)) throw new Error(`unknown value ${id}: one of ${Object.keys(PASTFIX_VALUES).join(', ')}`);
    if (!Number.isInteger(v) || v < 0) throw new Error(`${id} must be a non-negative integer (got ${v})`);
  }
  varied.clear();
  for (const [id, v] of pairs) varied.set(id, v);
}

/** Turns rules off for this process (eval only); throws on an unknown id, naming the known ones. */
export function ablateRules(ids: readonly string[]): void {
  const unknown = ids.filter((id) => !RULE_IDS.has(id));
  if (unknown.length) throw new Error(`unknown rule ${unknown.join(', ')}: one of ${[...RULE_IDS].join(', ')}`);
  setAblated(ids);
}

export { ruleOn } from './rule-switch.js';
