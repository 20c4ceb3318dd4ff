/**
 * The file side of `active-brain install` / `uninstall`: find the Claude Code settings file
 * for a scope (user: $CLAUDE_CONFIG_DIR/settings.json or ~/.claude/settings.json; project:
 * <cwd>/.claude/settings.json), read it, apply a pure change from ops/hook-install.ts, back the
 * original up to `settings.json.active-brain.bak`, and write atomically (through a symlink
 * to its target, keeping the file's mode). Dry runs read only. Also reports our entries at
 * the other scope under any of the hook's events (it would fire twice). Codex CLI
 * (`--host codex`): the same JSON shape in $CODEX_HOME/hooks.json (else ~/.codex/hooks.json),
 * the events UserPromptSubmit and PostToolUse only; config.toml is never touched.
 */
import { existsSync, readFileSync, realpathSync, rmSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';
import { claudeConfigDir, codexHomeDir, homeDir } from '../shared/paths.js';
import {
  countOurs, detectIndent, hookCommand, lineDiff, parseSettingsText, withHookInstalled, withHookRemoved,
  CODEX_EVENT_SET, type InstallAction,
} from './hook-install.js';
import type { HookEvent } from '../shared/vocabulary.js';
import { BACKUP_SUFFIX, clearRecord, nextRecord, planUninstall, readBackup, readRecord, writeRecord } from './hook-install-record.js';
import { removeOursFromText } from './hook-settings-text.js';

export type Scope = 'user' | 'project';
/** What Claude Code runs: the CommonJS launcher (no ESM loader at start-up; docs/HOOK.md). */
export const HOOK_BIN = 'active-brain-hook.cjs';
export { BACKUP_SUFFIX } from './hook-install-record.js';

export function settingsPathFor(scope: Scope, cwd: string, env: NodeJS.ProcessEnv): string {
  return scope === 'user' ? join(claudeConfigDir(env), 'settings.json') : join(resolve(cwd), '.claude', 'settings.json');
}

/** Every file where an entry at the other scope(s) would also fire. */
function otherScopeFiles(scope: Scope, cwd: string, env: NodeJS.ProcessEnv): string[] {
  if (scope === 'project') return [settingsPathFor('user', cwd, env)];
  const dir = join(resolve(cwd), '.claude');
  return [join(dir, 'settings.json'), join(dir, 'settings.local.json')];
}

/** The package root (holds package.json and bin/), found from this module's location. */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 6; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', HOOK_BIN))) return dir;
    dir = dirname(dir);
  }
  throw new Error(`cannot find the active-brain package root (bin/${HOOK_BIN})`);
}

/** The command to register; names the state dir when it is not the default one. */
export function defaultHookCommand(env: NodeJS.ProcessEnv = process.env): string {
  const home = homeDir(env);
  const isDefault = home === homeDir({ ...env, ACTIVE_BRAIN_HOME: '' });
  return hookCommand(process.execPath, join(packageRoot(), 'bin', HOOK_BIN), isDefault ? undefined : home);
}

interface Loaded {
  path: string;
  /** Where writes go: the symlink target when the path is a link. */
  target: string;
  exists: boolean;
  text: string;
  mode: number;
}

function load(path: string): Loaded {
  if (!existsSync(path)) return { path, target: path, exists: false, text: '', mode: 0o600 };
  const target = realpathSync(path);
  return { path, target, exists: true, text: readFileSync(target, 'utf8'), mode: statSync(target).mode & 0o777 };
}

function otherScopeDuplicates(scope: Scope, path: string, cwd: string, env: NodeJS.ProcessEnv): string[] {
  const self = existsSync(path) ? realpathSync(path) : resolve(path);
  const out: string[] = [];
  for (const f of otherScopeFiles(scope, cwd, env)) {
    try {
      if (!existsSync(f) || realpathSync(f) === self) continue;
      if (countOurs(parseSettingsText(readFileSync(f, 'utf8'), f)) > 0) out.push(f);
    } catch { /* unreadable elsewhere: not our business here */ }
  }
  return out;
}

/** How uninstall undid install: the original back byte for byte, the file install created
 *  removed, or only our entries removed (the rest of the text kept as it was). */
export type UndoKind = 'restored-original' | 'deleted-created' | 'removed-entries';

export interface ChangeReport {
  scope: Scope;
  path: string;
  action: InstallAction | 'removed' | 'absent';
  changed: boolean;
  dryRun: boolean;
  backup: string | null;
  command: string | null;
  /** install: what happened per event (UserPromptSubmit, PostToolUseFailure, PostToolUse). */
  events?: Record<HookEvent, InstallAction>;
  /** Other settings files that also register our hook under any of its events (it would fire twice). */
  duplicates: string[];
  diff: string;
  /** The new file text (what was, or would be, written; '' when the file goes). */
  text: string;
  /** uninstall: how it undid install (absent for install, or when nothing was ours). */
  undo?: UndoKind;
  /** uninstall with removed-entries: why an exact restore was not possible. */
  undoNote?: string;
}

export interface ChangeOptions {
  scope: Scope;
  cwd: string;
  env: NodeJS.ProcessEnv;
  dryRun: boolean;
  /** Defaults to `<node> <package>/bin/active-brain-hook.cjs`. */
  command?: string;
}

/** Install's write: the user's original backed up once (the first install that changes the
 *  file), the new text, and the record uninstall undoes it by (ops/hook-install-record.ts). */
function commit(file: Loaded, next: string, dryRun: boolean): string | null {
  const bak = file.path + BACKUP_SUFFIX;
  const prev = readRecord(file.path);
  if (dryRun) return prev ? (existsSync(bak) ? bak : null) : file.exists ? bak : null;
  if (!prev && file.exists) writeFileAtomic(bak, file.text, file.mode);
  if (!file.exists) ensureDir(dirname(file.target));
  writeFileAtomic(file.target, next, file.mode);
  let ours = 0;
  try { ours = countOurs(parseSettingsText(file.text, file.path)); } catch { /* parsed before: cannot fail */ }
  writeRecord(file.path, nextRecord(prev, { exists: file.exists, text: file.text, ours }, next));
  return existsSync(bak) ? bak : null;
}

function render(obj: unknown, original: string): string {
  return JSON.stringify(obj, null, detectIndent(original)) + '\n';
}

/** Codex CLI's user-level hooks file (it also reads <project>/.codex/hooks.json; we write the
 *  user one, like Claude Code's user scope). */
export function codexHooksPath(env: NodeJS.ProcessEnv): string {
  return join(codexHomeDir(env), 'hooks.json');
}

export function installCodexHook(opts: Omit<ChangeOptions, 'scope'>): ChangeReport {
  const path = codexHooksPath(opts.env);
  const file = load(path);
  const command = opts.command ?? defaultHookCommand(opts.env);
  const { settings, action, events } = withHookInstalled(parseSettingsText(file.text, path), command, path, CODEX_EVENT_SET);
  const changed = action !== 'unchanged' || !file.exists;
  const text = changed ? render(settings, file.text) : file.text;
  const backup = changed ? commit(file, text, opts.dryRun) : null;
  return {
    scope: 'user', path, action, changed, dryRun: opts.dryRun, backup, command, events, duplicates: [],
    diff: changed ? lineDiff(file.text.replace(/\n$/, ''), text.replace(/\n$/, '')) : '', text,
  };
}

export function uninstallCodexHook(opts: Omit<ChangeOptions, 'scope'>): ChangeReport {
  const path = codexHooksPath(opts.env);
  return removeFrom(path, { ...opts, scope: 'user' }, []);
}

export function installHook(opts: ChangeOptions): ChangeReport {
  const path = settingsPathFor(opts.scope, opts.cwd, opts.env);
  const file = load(path);
  const command = opts.command ?? defaultHookCommand();
  const { settings, action, events } = withHookInstalled(parseSettingsText(file.text, path), command, path);
  const changed = action !== 'unchanged' || !file.exists;
  const text = changed ? render(settings, file.text) : file.text;
  const backup = changed ? commit(file, text, opts.dryRun) : null;
  return {
    scope: opts.scope, path, action, changed, dryRun: opts.dryRun, backup, command, events,
    duplicates: otherScopeDuplicates(opts.scope, path, opts.cwd, opts.env),
    diff: changed ? lineDiff(file.text.replace(/\n$/, ''), text.replace(/\n$/, '')) : '', text,
  };
}

export function uninstallHook(opts: ChangeOptions): ChangeReport {
  const path = settingsPathFor(opts.scope, opts.cwd, opts.env);
  return removeFrom(path, opts, otherScopeDuplicates(opts.scope, path, opts.cwd, opts.env));
}

/** The text without our entries, the rest kept byte for byte where the text editor can
 *  (checked: it must parse to exactly what withHookRemoved gives), else re-rendered. */
function withoutOurs(text: string, settings: unknown): string {
  const edited = removeOursFromText(text);
  try {
    if (edited !== null && JSON.stringify(JSON.parse(edited)) === JSON.stringify(settings)) return edited;
  } catch { /* fall through: re-render */ }
  return render(settings, text);
}

function removeFrom(path: string, opts: ChangeOptions, duplicates: string[]): ChangeReport {
  const file = load(path);
  const base = { scope: opts.scope, path, dryRun: opts.dryRun, command: null };
  if (!file.exists) return { ...base, action: 'absent', changed: false, backup: null, duplicates: [], diff: '', text: '' };
  const { settings, removed } = withHookRemoved(parseSettingsText(file.text, path), path);
  if (removed === 0) return { ...base, action: 'absent', changed: false, backup: null, duplicates, diff: '', text: file.text };
  const plan = planUninstall(readRecord(path), file.text, readBackup(path));
  const created = readRecord(path)?.created ?? false;
  // Nothing of the user's is left in a file install created: it goes, as the restore would.
  const empty = created && Object.keys(settings).length === 0;
  const undo: UndoKind = plan.kind === 'restore' ? 'restored-original' : plan.kind === 'delete' || empty ? 'deleted-created' : 'removed-entries';
  const text = plan.kind === 'restore' ? plan.text : undo === 'deleted-created' ? '' : withoutOurs(file.text, settings);
  const bak = path + BACKUP_SUFFIX;
  let backup: string | null = existsSync(bak) ? bak : null;
  if (!opts.dryRun) {
    if (undo === 'deleted-created') rmSync(file.target, { force: true });
    else writeFileAtomic(file.target, text, file.mode);
    // Undone exactly: the backup is the file now (or there was none); else it keeps the user's
    // settings from before install.
    clearRecord(path, { backup: undo !== 'removed-entries' });
    if (undo !== 'removed-entries') backup = null;
  }
  return {
    ...base, action: 'removed', changed: true, backup,
    duplicates, undo, ...(plan.kind === 'remove-entries' ? { undoNote: plan.why } : {}),
    diff: lineDiff(file.text.replace(/\n$/, ''), text.replace(/\n$/, '')), text,
  };
}
