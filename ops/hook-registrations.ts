/**
 * Where active-brain's hook is registered for each Claude Code event install registers
 * (ops/hook-install.ts CLAUDE_EVENTS): the user's settings.json ($CLAUDE_CONFIG_DIR honoured)
 * and the project's .claude/settings.json and .claude/settings.local.json, and the active-brain
 * Claude Code plugin when it is enabled (ops/plugin-registration.ts; its events read from its
 * hooks/hooks.json, all of them when that cannot be read). Read-only; a file that is absent or
 * unreadable simply holds no registration. Used by `doctor` (a missing event, or the same
 * event in two places — every offer would fire twice).
 */
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { HookEvent } from '../shared/vocabulary.js';
import { CLAUDE_EVENTS, isOurEntry } from './hook-install.js';
import { settingsPathFor } from './hook-install-files.js';
import { pluginRegistrations } from './plugin-registration.js';
import { isObj } from '../shared/json-object.js';

export interface HookRegistration {
  event: HookEvent;
  /** Settings files that register our hook for this event. */
  files: string[];
  /** Enabled plugins whose hooks answer this event. */
  plugins: Array<{ id: string; why: string }>;
  /** Every file looked at. */
  looked: string[];
}

/** The settings files Claude Code merges for a session started in `cwd`. */
export function settingsFiles(env: NodeJS.ProcessEnv, cwd: string): string[] {
  return [settingsPathFor('user', cwd, env), join(resolve(cwd), '.claude', 'settings.json'), join(resolve(cwd), '.claude', 'settings.local.json')];
}

/** Events of `settings` (parsed JSON) under which one of our entries is registered. */
export function registeredEvents(settings: unknown): Set<string> {
  const out = new Set<string>();
  if (!isObj(settings) || !isObj(settings.hooks)) return out;
  for (const [event, groups] of Object.entries(settings.hooks)) {
    if (!Array.isArray(groups)) continue;
    if (groups.some((g) => isObj(g) && Array.isArray(g.hooks) && g.hooks.some(isOurEntry))) out.add(event);
  }
  return out;
}

export function hookRegistrations(env: NodeJS.ProcessEnv, cwd: string): HookRegistration[] {
  const looked = [...new Set(settingsFiles(env, cwd))];
  const byFile = looked.map((f) => {
    try {
      return { f, events: registeredEvents(JSON.parse(readFileSync(f, 'utf8'))) };
    } catch {
      return { f, events: new Set<string>() };
    }
  });
  const plugins = pluginRegistrations(env, cwd).map((p) => {
    let events: Set<string>;
    try {
      events = registeredEvents(JSON.parse(readFileSync(join(p.installPath ?? '', 'hooks', 'hooks.json'), 'utf8')));
    } catch {
      events = new Set(CLAUDE_EVENTS); // not on disk here: the plugin we ship registers these
    }
    return { id: p.id, why: p.why, events };
  });
  return CLAUDE_EVENTS.map((event) => ({
    event,
    files: byFile.filter((b) => b.events.has(event)).map((b) => b.f),
    plugins: plugins.filter((p) => p.events.has(event)).map(({ id, why }) => ({ id, why })),
    looked,
  }));
}
