/**
 * Registering the hook in Claude Code's settings.json, as pure functions over parsed JSON:
 * add our one UserPromptSubmit command entry (idempotent; an older entry of ours is
 * updated in place), remove only ours, count ours (duplicate detection across scopes),
 * and a small line diff for --dry-run. File IO lives in hook/install-files.ts.
 *
 * Shape (Claude Code docs): {"hooks": {"UserPromptSubmit": [{"hooks": [{"type": "command",
 * "command": "…", "timeout": 5}]}]}}. Everything else in the file is kept as it was.
 */

/** Seconds Claude Code waits for the hook (its default is long; never rely on it). */
export const HOOK_TIMEOUT_SECONDS = 5;
export const HOOK_EVENT = 'UserPromptSubmit';
/** Our entries are recognised by the hook's program name at the end of the command. */
const OURS_RE = /active-brain-hook(?:\.c?js)?['"]?\s*$/;

export class SettingsShapeError extends Error {}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => !!v && typeof v === 'object' && !Array.isArray(v);

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

/** The UserPromptSubmit groups, checking the shape on the way (throws on a shape we must not touch). */
function groupsOf(settings: Obj, where: string): unknown[] | undefined {
  if (settings.hooks === undefined) return undefined;
  if (!isObj(settings.hooks)) throw new SettingsShapeError(`${where}: "hooks" is not an object; nothing was changed.`);
  const g = settings.hooks[HOOK_EVENT];
  if (g === undefined) return undefined;
  if (!Array.isArray(g)) throw new SettingsShapeError(`${where}: "hooks.${HOOK_EVENT}" is not an array; nothing was changed.`);
  return g;
}

/** Number of our entries in a settings object (0 when the shape is unexpected). */
export function countOurs(settings: Obj): number {
  let groups: unknown[] | undefined;
  try {
    groups = groupsOf(settings, '');
  } catch {
    return 0;
  }
  let n = 0;
  for (const g of groups ?? []) if (isObj(g) && Array.isArray(g.hooks)) n += g.hooks.filter(isOurEntry).length;
  return n;
}

export type InstallAction = 'added' | 'updated' | 'unchanged';

/** Settings with exactly one entry of ours carrying `command`. Does not mutate its input. */
export function withHookInstalled(settings: Obj, command: string, where = 'settings.json'): { settings: Obj; action: InstallAction } {
  const out = structuredClone(settings);
  const groups = groupsOf(out, where);
  const entry = ourEntry(command);
  let found = 0;
  let same = 0;
  for (const g of groups ?? []) {
    if (!isObj(g) || !Array.isArray(g.hooks)) continue;
    g.hooks = g.hooks.flatMap((h) => {
      if (!isOurEntry(h)) return [h];
      found++;
      const o = h as Obj;
      if (found > 1) return []; // one registration is enough
      if (o.command === entry.command && o.type === entry.type && o.timeout === entry.timeout) {
        same++;
        return [h];
      }
      return [{ ...o, ...entry }];
    });
  }
  if (found === 1 && same === 1) return { settings, action: 'unchanged' };
  if (found > 0) {
    // Drop groups that held only duplicates of ours and are now empty.
    const hooks = out.hooks as Obj;
    hooks[HOOK_EVENT] = (hooks[HOOK_EVENT] as unknown[]).filter((g) => !(isObj(g) && Array.isArray(g.hooks) && g.hooks.length === 0));
    return { settings: out, action: 'updated' };
  }
  if (!isObj(out.hooks)) out.hooks = {};
  const hooks = out.hooks as Obj;
  hooks[HOOK_EVENT] = [...((hooks[HOOK_EVENT] as unknown[] | undefined) ?? []), { hooks: [entry] }];
  return { settings: out, action: 'added' };
}

/** Settings without any entry of ours; groups, the event key and `hooks` go only if we emptied them. */
export function withHookRemoved(settings: Obj, where = 'settings.json'): { settings: Obj; removed: number } {
  const groups = groupsOf(settings, where);
  if (!groups || countOurs(settings) === 0) return { settings, removed: 0 };
  const out = structuredClone(settings);
  const hooks = out.hooks as Obj;
  let removed = 0;
  const kept: unknown[] = [];
  for (const g of hooks[HOOK_EVENT] as unknown[]) {
    if (!isObj(g) || !Array.isArray(g.hooks)) {
      kept.push(g);
      continue;
    }
    const before = g.hooks.length;
    const rest = g.hooks.filter((h) => !isOurEntry(h));
    removed += before - rest.length;
    if (rest.length === 0 && before > 0) continue;
    kept.push({ ...g, hooks: rest });
  }
  if (kept.length > 0) hooks[HOOK_EVENT] = kept;
  else delete hooks[HOOK_EVENT];
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
