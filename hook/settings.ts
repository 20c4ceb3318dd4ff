/**
 * The hook's settings: <home>/hook-settings.json (HookSettings), precomputed from the full
 * config by config/hook-settings.ts (daemon start, install, enable/disable). The hook never
 * evaluates the zod config. Missing file → the built-in defaults below (they mirror the
 * config defaults, with every mode in soak; a test keeps them in step). A file that exists
 * but is unreadable or malformed → null: the hook stays silent rather than guess.
 */
import type { HookSettings, ModeState } from '../shared/types.js';
import { defaultCodexSessionsRoot, defaultTranscriptsRoot, homeDir, hookSettingsPath } from '../shared/paths.js';
import { readOwnFile } from './trust.js';
import { DEFAULT_ENV_MARKER, DEFAULT_UNATTENDED, DEFAULT_WORKER_ENTRYPOINTS, UNATTENDED_POLICIES, type UnattendedPolicy } from '../shared/workers.js';

/** Largest settings file the hook will read. */
export const MAX_SETTINGS_BYTES = 256 * 1024;

/** Mirrors config/schema.ts defaults (hook section, workers, the `default` mode) — in soak. */
export function defaultHookSettings(env: NodeJS.ProcessEnv = process.env): HookSettings {
  return {
    version: 1,
    transcriptsRoot: defaultTranscriptsRoot(env),
    codexSessionsRoot: defaultCodexSessionsRoot(env),
    deadlineMs: 150,
    maxBytes: 400,
    tokenCeiling: 90,
    maxLagBytes: 256 * 1024,
    workers: { cwdGlobs: [], envMarker: DEFAULT_ENV_MARKER, entrypoints: [...DEFAULT_WORKER_ENTRYPOINTS], unattended: DEFAULT_UNATTENDED },
    toolCacheTtlMs: 120_000,
    modes: [
      {
        name: 'default',
        state: 'soak',
        cwdGlobs: ['**'],
        minConfidence: 0.55,
        sessionBudget: 3,
        minGapTurns: 4,
        minGapSeconds: 300,
        tool: { state: 'soak', minConfidence: 0.7, sessionBudget: 5, minGapSteps: 1, minGapSeconds: 30 },
      },
    ],
  };
}

const MODE_STATES: readonly ModeState[] = ['soak', 'live', 'off'];
const isNum = (v: unknown, min = 0): v is number => typeof v === 'number' && Number.isFinite(v) && v >= min;
const isStrArr = (v: unknown): v is string[] => Array.isArray(v) && v.every((s) => typeof s === 'string');

/** Shape check (hand-written: no zod on the prompt path). Returns the settings or null. */
export function validateHookSettings(v: unknown): HookSettings | null {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
  const s = v as Record<string, unknown>;
  if (s.version !== 1 || typeof s.transcriptsRoot !== 'string' || !s.transcriptsRoot) return null;
  if (!isNum(s.deadlineMs, 1) || !isNum(s.maxBytes, 1) || !isNum(s.tokenCeiling, 1) || !isNum(s.maxLagBytes)) return null;
  const w = s.workers as Record<string, unknown> | undefined;
  if (!w || typeof w !== 'object' || !isStrArr(w.cwdGlobs) || typeof w.envMarker !== 'string') return null;
  if (w.entrypoints !== undefined && !isStrArr(w.entrypoints)) return null;
  if (w.unattended !== undefined && !UNATTENDED_POLICIES.includes(w.unattended as UnattendedPolicy)) return null;
  if (!Array.isArray(s.modes)) return null;
  for (const m of s.modes as unknown[]) {
    if (!m || typeof m !== 'object') return null;
    const o = m as Record<string, unknown>;
    if (typeof o.name !== 'string' || !MODE_STATES.includes(o.state as ModeState) || !isStrArr(o.cwdGlobs)) return null;
    if (!isNum(o.minConfidence) || !isNum(o.sessionBudget) || !isNum(o.minGapTurns) || !isNum(o.minGapSeconds)) return null;
    if (o.tool !== undefined && !isToolChannel(o.tool)) return null;
  }
  if (s.toolCacheTtlMs !== undefined && !isNum(s.toolCacheTtlMs)) return null;
  if (s.codexSessionsRoot !== undefined && (typeof s.codexSessionsRoot !== 'string' || !s.codexSessionsRoot)) return null;
  return s as unknown as HookSettings;
}

/** A mode's tool channel (optional: settings written before it existed stay valid). */
function isToolChannel(v: unknown): boolean {
  if (!v || typeof v !== 'object' || Array.isArray(v)) return false;
  const t = v as Record<string, unknown>;
  return MODE_STATES.includes(t.state as ModeState) && isNum(t.minConfidence) && isNum(t.sessionBudget) && isNum(t.minGapSteps) && isNum(t.minGapSeconds);
}

export type SettingsRead =
  | { settings: HookSettings; source: 'file' | 'default' }
  | { settings: null; source: 'invalid' };

export function readHookSettings(env: NodeJS.ProcessEnv = process.env): SettingsRead {
  // Only a file hook/trust.ts trusts (this user's, nobody else may write it, no symlink).
  const raw = readOwnFile(hookSettingsPath(env), MAX_SETTINGS_BYTES, [homeDir(env)]);
  if (raw === undefined) return { settings: defaultHookSettings(env), source: 'default' };
  if (raw === 'invalid') return { settings: null, source: 'invalid' };
  try {
    const settings = validateHookSettings(JSON.parse(raw));
    return settings ? { settings, source: 'file' } : { settings: null, source: 'invalid' };
  } catch {
    return { settings: null, source: 'invalid' };
  }
}
