/**
 * The hook's precomputed settings: derives HookSettings (shared/types.ts) from the full,
 * validated config and writes <home>/hook-settings.json atomically, so the hook never loads
 * zod or evaluates config. Called by the daemon at start, by `install`, and by
 * `enable`/`disable` after they change a mode's state.
 */
import type { Config } from './schema.js';
import type { HookSettings } from '../shared/types.js';
import { defaultCodexSessionsRoot, defaultTranscriptsRoot, hookSettingsPath, homeDir } from '../shared/paths.js';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';

export function hookSettingsFromConfig(config: Config, env: NodeJS.ProcessEnv = process.env): HookSettings {
  return {
    version: 1,
    transcriptsRoot: config.transcriptsRoot ?? defaultTranscriptsRoot(env),
    codexSessionsRoot: config.codexSessionsRoot ?? defaultCodexSessionsRoot(env),
    deadlineMs: config.hook.deadlineMs,
    maxBytes: config.hook.maxBytes,
    tokenCeiling: config.hook.tokenCeiling,
    maxLagBytes: config.hook.maxLagBytes,
    workers: {
      cwdGlobs: [...config.workers.cwdGlobs],
      envMarker: config.workers.envMarker,
      entrypoints: [...config.workers.entrypoints],
      unattended: config.workers.unattended,
    },
    toolCacheTtlMs: config.hook.toolCacheTtlSeconds * 1000,
    modes: Object.entries(config.modes).map(([name, m]) => ({
      name,
      state: m.state,
      cwdGlobs: [...m.cwdGlobs],
      minConfidence: m.minConfidence,
      sessionBudget: m.sessionBudget,
      minGapTurns: m.minGapTurns,
      minGapSeconds: m.minGapSeconds,
      tool: {
        state: m.tool.state,
        minConfidence: m.tool.minConfidence,
        sessionBudget: m.tool.sessionBudget,
        minGapSteps: m.tool.minGapSteps,
        minGapSeconds: m.tool.minGapSeconds,
      },
    })),
  };
}

/** Write <home>/hook-settings.json (atomic, 0600); returns its path. */
export function writeHookSettings(config: Config, env: NodeJS.ProcessEnv = process.env): string {
  const path = hookSettingsPath(env);
  ensureDir(homeDir(env));
  writeJsonAtomic(path, hookSettingsFromConfig(config, env));
  return path;
}
