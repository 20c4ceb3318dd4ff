/**
 * Changes a mode's rollout state (soak | live | off) per channel in <home>/config.json — the
 * only file `enable`/`disable` write: `modes.<m>.state` for the prompt channel,
 * `modes.<m>.tool.state` for the tool channel (ops/channel-state.ts). Every change of one
 * command is validated against the schema and written in one atomic write, then
 * hook-settings.json is refreshed so the hook sees it on its next run. Every change is
 * logged to logs/ops.jsonl (who: pid, what, which channel, forced or not).
 */
import { join } from 'node:path';
import { ConfigSchema } from '../config/schema.js';
import { readConfigFile, loadConfig, ConfigError } from '../config/load.js';
import { writeHookSettings } from '../config/hook-settings.js';
import { configPath, homeDir, logsDir } from '../shared/paths.js';
import { appendNoFollow, ensureDir } from '../shared/atomic.js';
import { writeConfigFile } from '../config/persist.js';
import type { Channel, ModeState } from '../shared/vocabulary.js';
import { channelState } from './channel-state.js';
import { isObj, type Obj } from '../shared/json-object.js';

export interface ChannelChangeRequest {
  channel: Channel;
  to: ModeState;
  forced: boolean;
  /** Names of the gates that failed when the change was forced past them. */
  gatesFailed: string[];
}

export interface ModeChange {
  mode: string;
  channel: Channel;
  from: ModeState;
  to: ModeState;
  forced: boolean;
  gatesFailed: string[];
}

/** The raw mode object with one channel's state set (only that key: the mode's other
 *  settings keep coming from where they did). Pure. */
export function withChannelState(rawMode: Obj, channel: Channel, to: ModeState): Obj {
  if (channel === 'prompt') return { ...rawMode, state: to };
  return { ...rawMode, tool: { ...(isObj(rawMode.tool) ? rawMode.tool : {}), state: to } };
}

export function setChannelStates(mode: string, changes: readonly ChannelChangeRequest[], env: NodeJS.ProcessEnv = process.env): ModeChange[] {
  const { config } = loadConfig({ env });
  const current = config.modes[mode];
  if (!current) throw new ConfigError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`);
  if (changes.length === 0) return [];
  const file = configPath(env);
  const raw = readConfigFile(file) as Obj;
  const modes = (isObj(raw.modes) ? raw.modes : {}) as Record<string, Obj>;
  let m: Obj = isObj(modes[mode]) ? modes[mode] : {};
  for (const c of changes) m = withChannelState(m, c.channel, c.to);
  modes[mode] = m;
  raw.modes = modes;
  const check = ConfigSchema.safeParse(raw);
  if (!check.success) throw new ConfigError(`refusing to write ${file}: ${check.error.issues[0].message}`);
  ensureDir(homeDir(env));
  writeConfigFile(file, raw);
  // The hook's settings from the whole effective config (environment included), as the
  // daemon writes them — not from config.json alone.
  writeHookSettings(loadConfig({ env }).config, env);
  const done: ModeChange[] = changes.map((c) => ({ mode, channel: c.channel, from: channelState(current, c.channel), to: c.to, forced: c.forced, gatesFailed: c.gatesFailed }));
  ensureDir(logsDir(env));
  const lines = done.map((d) => JSON.stringify({ ts: Date.now(), event: 'mode-state', pid: process.pid, ...d }) + '\n').join('');
  appendNoFollow(join(logsDir(env), 'ops.jsonl'), lines);
  return done;
}
