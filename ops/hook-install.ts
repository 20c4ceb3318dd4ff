/**
 * Registering the hook in Claude Code's settings.json, as pure functions over parsed JSON:
 * add our command entry under each event registered for the host (Claude Code:
 * UserPromptSubmit and PostToolUseFailure for every tool; Codex: UserPromptSubmit and
 * PostToolUse), idempotent — an older entry of ours is updated in place, an older install
 * (UserPromptSubmit only) gains the tool event, one under an event no longer registered (an
 * older install's PostToolUse) is removed —, remove only ours, count ours (duplicate detection across scopes), and a
 * small line diff for --dry-run. File IO lives in ops/hook-install-files.ts.
 *
 * Shape (Claude Code hooks reference, https://code.claude.com/docs/en/hooks): {"hooks":
 * {"<Event>": [{"matcher": "…", "hooks": [{"type": "command", "command": "…", "timeout": 5}]}]}};
 * `timeout` in seconds; a matcher of plain tool names (`Bash`, `Edit|Write`) matches them
 * exactly, one with other characters (`^ ( ) . *`) is a JavaScript regex, unanchored; no
 * matcher (or `*`, or "") matches every tool; UserPromptSubmit takes none. Everything else in
 * the file is kept as it was.
 */
import { HOOK_EVENTS, type HookEvent } from '../shared/vocabulary.js';
import { isObj, type Obj } from '../shared/json-object.js';

/** Seconds Claude Code waits for the hook (its default is long; never rely on it). The hook
 *  gives up on its own after hook.deadlineMs (150 ms): this is only the backstop. */
export const HOOK_TIMEOUT_SECONDS = 5;

/**
 * The events Claude Code's settings get: the prompt and the failure. Not PostToolUse: it fires
 * after every successful tool call (~100 per session), each start a Node process (~40–80 ms)
 * on the agent's critical path, and it can carry nothing to fix — the real Claude Code
 * (2.1.332, test/host/claude-events.test.ts) routes a Bash call that exits non-zero AND an MCP
 * result with `isError: true` to PostToolUseFailure. An older install's PostToolUse entry is
 * removed by the next `install` (withHookInstalled). The hook still answers PostToolUse (Codex
 * CLI, which has no failure event). Costs per session: docs/HOOK.md "What each event costs".
 */
export const CLAUDE_EVENTS = ['UserPromptSubmit', 'PostToolUseFailure'] as const satisfies readonly HookEvent[];

/** The matcher PostToolUse would get if registered for Claude Code (MCP tools only: an error
 *  can sit inside a successful response only there). Anchored: a regex matcher is unanchored. */
export const POST_TOOL_USE_MATCHER = '^mcp__.+$';

/** Per event: the matcher of our group (undefined: none, every tool / not a tool event). */
export const EVENT_MATCHERS: Readonly<Record<HookEvent, string | undefined>> = {
  UserPromptSubmit: undefined,
  PostToolUseFailure: undefined,
  PostToolUse: POST_TOOL_USE_MATCHER,
};
/** The events Codex CLI's hooks.json gets: it has no failure event (an error arrives inside
 *  PostToolUse's tool_response) and names its shell tool `Bash` and its patch tool
 *  `apply_patch` (codex-rs/hooks; docs/CODEX.md). Matchers are regexes there too. */
export const CODEX_EVENTS = ['UserPromptSubmit', 'PostToolUse'] as const satisfies readonly HookEvent[];
export const CODEX_POST_TOOL_USE_MATCHER = '^(Bash|apply_patch|mcp__.+)$';
export const CODEX_EVENT_MATCHERS: Readonly<Record<HookEvent, string | undefined>> = {
  UserPromptSubmit: undefined,
  PostToolUseFailure: undefined,
  PostToolUse: CODEX_POST_TOOL_USE_MATCHER,
};

/** Which events, with which matchers, a settings file gets (Claude Code's or Codex's). */
export interface EventSet {
  events: readonly HookEvent[];
  matchers: Readonly<Record<HookEvent, string | undefined>>;
}
export const CLAUDE_EVENT_SET: EventSet = { events: CLAUDE_EVENTS, matchers: EVENT_MATCHERS };

/** Whether a successful call of `tool` starts the hook (PostToolUse registered, matcher matches). */
export function postToolUseReaches(set: EventSet, tool: string): boolean {
  const m = set.matchers.PostToolUse;
  return set.events.includes('PostToolUse') && (m === undefined || new RegExp(m).test(tool));
}
export const CODEX_EVENT_SET: EventSet = { events: CODEX_EVENTS, matchers: CODEX_EVENT_MATCHERS };

/** Kept for older imports: the prompt event. */
export const HOOK_EVENT: HookEvent = 'UserPromptSubmit';
/** Our entries are recognised by the hook's program name at the end of the command. */
const OURS_RE = /active-brain-hook(?:\.c?js)?['"]?\s*$/;

export class SettingsShapeError extends Error {}

export interface HookEntry {
  type: 'command';
  command: string;
  timeout: number;
}

/** Quote for sh when needed (paths with spaces or shell characters). */
export function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * Environment variables cleared for the hook's own Node process (the command is run by a
 * shell, so `VAR= node …` clears them for that process only). The hook makes no TLS
 * connection and needs no preloads, but inherits the user's environment:
 * NODE_EXTRA_CA_CERTS makes every Node start read a CA bundle (+50–60 ms per prompt measured
 * here, docs/BENCHMARKS.md "hook"), and a NODE_OPTIONS `--require` of the user's could slow
 * the hook or break it.
 */
export const HOOK_CLEARED_ENV = ['NODE_OPTIONS', 'NODE_EXTRA_CA_CERTS'] as const;

/**
 * The command Claude Code runs. `home`: a state dir other than the default, which the hook
 * must be told (Claude Code does not pass ACTIVE_BRAIN_HOME through): without it the hook
 * would read the default home — its kill switch, caches and settings, not this one's.
 */
export function hookCommand(nodePath: string, hookBinPath: string, home?: string): string {
  const envs = [...HOOK_CLEARED_ENV.map((v) => `${v}=`), ...(home ? [`ACTIVE_BRAIN_HOME=${shellQuote(home)}`] : [])];
  return `${envs.join(' ')} ${shellQuote(nodePath)} ${shellQuote(hookBinPath)}`;
}

export function ourEntry(command: string): HookEntry {
  return { type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS };
}

export function isOurEntry(h: unknown): boolean {
  return isObj(h) && typeof h.command === 'string' && OURS_RE.test(h.command);
}

/** settings.json text → object. Empty or whitespace-only → {}. Invalid → SettingsShapeError. */
export function parseSettingsText(text: string, where: string): Obj {
  if (text.trim() === '') return {};
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    throw new SettingsShapeError(`${where} is not valid JSON (${(e as Error).message}); nothing was changed. Fix the file and run again.`);
  }
  if (!isObj(v)) throw new SettingsShapeError(`${where} must hold a JSON object at the top level; nothing was changed.`);
  return v;
}

/** An event's groups, checking the shape on the way (throws on a shape we must not touch). */
function groupsOf(settings: Obj, event: HookEvent, where: string): unknown[] | undefined {
  if (settings.hooks === undefined) return undefined;
  if (!isObj(settings.hooks)) throw new SettingsShapeError(`${where}: "hooks" is not an object; nothing was changed.`);
  const g = settings.hooks[event];
  if (g === undefined) return undefined;
  if (!Array.isArray(g)) throw new SettingsShapeError(`${where}: "hooks.${event}" is not an array; nothing was changed.`);
  return g;
}

/** Our entries per event (0 where the shape is unexpected). */
export function oursByEvent(settings: Obj): Record<HookEvent, number> {
  const out = {} as Record<HookEvent, number>;
  for (const event of HOOK_EVENTS) {
    let groups: unknown[] | undefined;
    try {
      groups = groupsOf(settings, event, '');
    } catch {
      groups = undefined;
    }
    let n = 0;
    for (const g of groups ?? []) if (isObj(g) && Array.isArray(g.hooks)) n += g.hooks.filter(isOurEntry).length;
    out[event] = n;
  }
  return out;
}

/** Number of our entries in a settings object, over every event (0 when the shape is unexpected). */
export function countOurs(settings: Obj): number {
  return Object.values(oursByEvent(settings)).reduce((a, b) => a + b, 0);
}

export type InstallAction = 'added' | 'updated' | 'unchanged';

const sameMatcher = (g: Obj, matcher: string | undefined) => (matcher === undefined ? g.matcher === undefined || g.matcher === '' : g.matcher === matcher);

/** One event's groups with exactly one entry of ours carrying `entry`, in a group with the
 *  event's matcher (mutates `hooks`, a clone). */
function installEvent(hooks: Obj, event: HookEvent, entry: HookEntry, groups: unknown[] | undefined, matchers: EventSet['matchers']): InstallAction {
  const matcher = matchers[event];
  const fresh = () => ({ ...(matcher !== undefined ? { matcher } : {}), hooks: [entry] });
  const ours = (groups ?? []).flatMap((g) => (isObj(g) && Array.isArray(g.hooks) ? g.hooks.filter(isOurEntry).map((h) => ({ g, h: h as Obj })) : []));
  if (ours.length === 0) {
    hooks[event] = [...(groups ?? []), fresh()];
    return 'added';
  }
  const first = ours[0];
  const inPlace = sameMatcher(first.g, matcher);
  if (ours.length === 1 && inPlace && first.h.command === entry.command && first.h.type === entry.type && first.h.timeout === entry.timeout) return 'unchanged';
  // Keep the first entry of ours where it is when its group has our matcher (updated in
  // place); otherwise, and for every other entry of ours, remove it; groups we emptied go.
  const kept = (groups ?? []).flatMap((g) => {
    if (!isObj(g) || !Array.isArray(g.hooks)) return [g];
    const before = g.hooks.length;
    const rest = g.hooks.flatMap((h) => (!isOurEntry(h) ? [h] : inPlace && h === first.h ? [{ ...(h as Obj), ...entry }] : []));
    return rest.length === 0 && before > 0 ? [] : [{ ...g, hooks: rest }];
  });
  hooks[event] = inPlace ? kept : [...kept, fresh()];
  return 'updated';
}

/** Settings with exactly one entry of ours carrying `command` under each event the hook
 *  answers. Does not mutate its input. `events` says what happened per event. */
export function withHookInstalled(settings: Obj, command: string, where = 'settings.json', set: EventSet = CLAUDE_EVENT_SET): { settings: Obj; action: InstallAction; events: Record<HookEvent, InstallAction> } {
  const out = structuredClone(settings);
  const entry = ourEntry(command);
  const groups = set.events.map((e) => groupsOf(out, e, where)); // every shape checked before anything changes
  if (!isObj(out.hooks)) out.hooks = {};
  const hooks = out.hooks as Obj;
  const events = {} as Record<HookEvent, InstallAction>;
  set.events.forEach((e, k) => { events[e] = installEvent(hooks, e, entry, groups[k], set.matchers); });
  // An event the set no longer registers (an older install's PostToolUse): our entries go.
  for (const e of HOOK_EVENTS) {
    if (set.events.includes(e) || hooks[e] === undefined) continue;
    const before = countOurs({ hooks: { [e]: hooks[e] } });
    if (before === 0) continue;
    const { settings: pruned } = withHookRemoved({ hooks: { [e]: hooks[e] } }, where);
    const left = (pruned.hooks as Obj | undefined)?.[e];
    if (left === undefined) delete hooks[e];
    else hooks[e] = left;
    events[e] = 'updated';
  }
  const acts = Object.values(events);
  if (acts.every((a) => a === 'unchanged')) return { settings, action: 'unchanged', events };
  return { settings: out, action: acts.every((a) => a === 'added') ? 'added' : 'updated', events };
}

/** Settings without any entry of ours under the hook's events; groups, an event key and
 *  `hooks` go only if we emptied them. */
export function withHookRemoved(settings: Obj, where = 'settings.json'): { settings: Obj; removed: number } {
  const groups = HOOK_EVENTS.map((e) => groupsOf(settings, e, where));
  if (countOurs(settings) === 0) return { settings, removed: 0 };
  const out = structuredClone(settings);
  const hooks = out.hooks as Obj;
  let removed = 0;
  HOOK_EVENTS.forEach((event, k) => {
    // An event with none of ours stays exactly as it is (even an empty list of the user's).
    if (!groups[k] || !groups[k]!.some((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isOurEntry))) return;
    const kept: unknown[] = [];
    for (const g of hooks[event] as unknown[]) {
      if (!isObj(g) || !Array.isArray(g.hooks)) {
        kept.push(g);
        continue;
      }
      const before = g.hooks.length;
      const rest = g.hooks.filter((h) => !isOurEntry(h));
      removed += before - rest.length;
      if (rest.length === 0 && before > 0) continue;
      kept.push(before === rest.length ? g : { ...g, hooks: rest });
    }
    if (kept.length > 0) hooks[event] = kept;
    else delete hooks[event];
  });
  if (Object.keys(hooks).length === 0) delete out.hooks;
  return { settings: out, removed };
}

/** Indentation used by a JSON text (defaults to two spaces). */
export function detectIndent(text: string): string | number {
  const m = /^[ \t]*\{\s*\n([ \t]+)\S/.exec(text);
  return m ? m[1] : 2;
}

/** Unchanged lines shown around each change in a diff (the rest of the file is not printed:
 *  settings files can hold secrets in `env`). */
export const DIFF_CONTEXT_LINES = 3;

/** A minimal line diff (`-`/`+`/` ` prefixes, `…` for skipped unchanged lines) for --dry-run. */
export function lineDiff(before: string, after: string, context = DIFF_CONTEXT_LINES): string {
  const a = before === '' ? [] : before.split('\n');
  const b = after === '' ? [] : after.split('\n');
  if (a.length * b.length > 4_000_000) return b.map((l) => `+ ${l}`).join('\n');
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lcs[i][j] = a[i] === b[j] ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
    }
  }
  const ops: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && a[i] === b[j]) {
      ops.push(`  ${a[i]}`);
      i++;
      j++;
    } else if (i < a.length && (j >= b.length || lcs[i + 1][j] >= lcs[i][j + 1])) ops.push(`- ${a[i++]}`);
    else ops.push(`+ ${b[j++]}`);
  }
  const changed = ops.map((o) => !o.startsWith('  '));
  const near = (k: number) => changed.slice(Math.max(0, k - context), k + context + 1).some(Boolean);
  const out: string[] = [];
  ops.forEach((o, k) => {
    if (near(k)) out.push(o);
    else if (out[out.length - 1] !== '…') out.push('…');
  });
  return out.join('\n');
}
