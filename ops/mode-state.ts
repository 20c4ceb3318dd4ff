/**
 * Changes a mode's rollout state (soak | live | off) in <home>/config.json — the only file
 * `enable`/`disable` write — validated against the schema before the atomic write, then
 * refreshes hook-settings.json so the hook sees it on its next run. Every change is logged
 * to logs/ops.jsonl (who: pid, what, forced or not).
 */
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../config/schema.js';
import { readConfigFile, loadConfig, ConfigError } from '../config/load.js';
import { writeHookSettings } from '../config/hook-settings.js';
import { configPath, homeDir, logsDir } from '../shared/paths.js';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import type { ModeState } from '../shared/types.js';

export interface ModeChange {
  mode: string;
  from: ModeState;
  to: ModeState;
  forced: boolean;
  gatesFailed: string[];
}

export function setModeState(mode: string, to: ModeState, audit: { forced: boolean; gatesFailed: string[] }, env: NodeJS.ProcessEnv = process.env): ModeChange {
  const { config } = loadConfig({ env });
  const current = config.modes[mode];
  if (!current) throw new ConfigError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`);
  const file = configPath(env);
  const raw = readConfigFile(file) as Record<string, unknown>;
  const modes = (raw.modes && typeof raw.modes === 'object' ? raw.modes : {}) as Record<string, Record<string, unknown>>;
  // Only the state key is written; the mode's other settings keep coming from where they did.
  modes[mode] = { ...(modes[mode] ?? {}), state: to };
  raw.modes = modes;
  const check = ConfigSchema.safeParse(raw);
  if (!check.success) throw new ConfigError(`refusing to write ${file}: ${check.error.issues[0].message}`);
  ensureDir(homeDir(env));
  writeJsonAtomic(file, raw);
  // The hook's settings from the whole effective config (environment included), as the
  // daemon writes them — not from config.json alone.
  writeHookSettings(loadConfig({ env }).config, env);
  const change: ModeChange = { mode, from: current.state, to, forced: audit.forced, gatesFailed: audit.gatesFailed };
  ensureDir(logsDir(env));
  appendFileSync(join(logsDir(env), 'ops.jsonl'), JSON.stringify({ ts: Date.now(), event: 'mode-state', pid: process.pid, ...change }) + '\n', { mode: 0o600 });
  return change;
}
