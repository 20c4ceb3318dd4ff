/**
 * Is the active-brain Claude Code plugin enabled for a session started in `cwd`? Read-only,
 * from the files Claude Code keeps (plugins reference; plugin loading reference, "Check which
 * stage a plugin reached" and "Find where a plugin is enabled"):
 *  - `enabledPlugins` in the user, project and local settings files ({"<name>@<marketplace>":
 *    true|false}); they merge key by key, the higher scope winning (local > project > user);
 *  - `<plugins root>/installed_plugins.json` (plugins root: $CLAUDE_CODE_PLUGIN_CACHE_DIR, else
 *    <Claude config dir>/plugins), v2 `{"plugins": {"<id>": [{scope, installPath, projectPath?}]}}`
 *    (v1: one object per id); an installed plugin no settings file mentions is enabled (the
 *    marketplace entry's `defaultEnabled` defaults to true).
 * Used by `doctor` (ops/hook-registrations.ts) and `install`: the plugin's hooks and a
 * settings-file hook would both fire, so every offer would be shown twice. Absent or
 * unreadable files simply say nothing.
 */
import { readFileSync } from 'node:fs';
import { join, relative, resolve, isAbsolute } from 'node:path';
import { claudeConfigDir } from '../shared/paths.js';
import { PLUGIN_NAME } from './plugin-manifest.js';
import { settingsPathFor } from './hook-install-files.js';
import { isObj, type Obj } from '../shared/json-object.js';

export interface PluginRegistration {
  /** `<name>@<marketplace>`. */
  id: string;
  /** Why it counts: "enabled in <file>" or "installed at <scope> scope". */
  why: string;
  /** Where its files are (null when only a settings file names it). */
  installPath: string | null;
}

const ours = (id: string) => id.startsWith(`${PLUGIN_NAME}@`);

export function pluginsRoot(env: NodeJS.ProcessEnv): string {
  return resolve(env.CLAUDE_CODE_PLUGIN_CACHE_DIR || join(claudeConfigDir(env), 'plugins'));
}

/** Settings files in rising precedence (user, project, local). */
export function enabledSettingsFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  const dir = join(resolve(cwd), '.claude');
  return [settingsPathFor('user', cwd, env), join(dir, 'settings.json'), join(dir, 'settings.local.json')];
}

export interface Install { id: string; scope: string; installPath: string | null; projectPath: string | null }

/** installed_plugins.json (parsed) → our installs, v1 or v2 shape; anything else → none. */
export function oursInstalled(json: unknown): Install[] {
  if (!isObj(json) || !isObj(json.plugins)) return [];
  const out: Install[] = [];
  for (const [id, v] of Object.entries(json.plugins)) {
    if (!ours(id)) continue;
    for (const e of Array.isArray(v) ? v : [v]) {
      if (!isObj(e)) continue;
      out.push({
        id,
        scope: typeof e.scope === 'string' ? e.scope : 'user',
        installPath: typeof e.installPath === 'string' ? e.installPath : null,
        projectPath: typeof e.projectPath === 'string' ? e.projectPath : null,
      });
    }
  }
  return out;
}

const inside = (dir: string, p: string) => {
  const r = relative(resolve(dir), resolve(p));
  return r === '' || (!r.startsWith('..') && !isAbsolute(r));
};

/** Does an install reach a session in `cwd`? User and managed scope: everywhere; project and
 *  local: in their project (and below it). */
export function installApplies(i: Install, cwd: string): boolean {
  if (i.scope === 'project' || i.scope === 'local') return i.projectPath !== null && inside(i.projectPath, cwd);
  return true;
}

/** Pure: the ids of ours that load, from each settings file's enabledPlugins (rising
 *  precedence) and the installs that reach this directory. */
export function activeRegistrations(settings: Array<{ file: string; json: unknown }>, installs: Install[], cwd: string): PluginRegistration[] {
  const value = new Map<string, { on: boolean; file: string }>();
  for (const { file, json } of settings) {
    if (!isObj(json) || !isObj(json.enabledPlugins)) continue;
    for (const [id, on] of Object.entries(json.enabledPlugins)) if (ours(id) && typeof on === 'boolean') value.set(id, { on, file });
  }
  const reach = installs.filter((i) => installApplies(i, cwd));
  const ids = [...new Set([...value.keys(), ...reach.map((i) => i.id)])].sort();
  const out: PluginRegistration[] = [];
  for (const id of ids) {
    const v = value.get(id);
    const inst = reach.find((i) => i.id === id) ?? null;
    if (v && !v.on) continue;
    if (!v && !inst) continue;
    out.push({ id, why: v ? `enabled in ${v.file}` : `installed at ${inst!.scope} scope`, installPath: inst?.installPath ?? null });
  }
  return out;
}

function readJson(path: string): unknown {
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return undefined;
  }
}

/** Our plugin as Claude Code would load it for a session in `cwd` (empty: not enabled). */
export function pluginRegistrations(env: NodeJS.ProcessEnv, cwd: string): PluginRegistration[] {
  const settings = [...new Set(enabledSettingsFiles(env, cwd))].map((file) => ({ file, json: readJson(file) }));
  const installs = oursInstalled(readJson(join(pluginsRoot(env), 'installed_plugins.json')));
  return activeRegistrations(settings, installs, cwd);
}
