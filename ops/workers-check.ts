/**
 * Which sessions are workers (never offered to) and why, for `doctor` and `status`: the
 * config's worker rule (shared/workers.ts) in plain words, and whether the hook reads the
 * same rule (<home>/hook-settings.json, written at daemon start, install, enable/disable).
 * Reads the config and the settings file only.
 */
import type { Config } from '../config/schema.js';
import { readHookSettings } from '../hook/settings.js';
import { homeDir } from '../shared/paths.js';
import {
  CODEX_ENTRYPOINT_PREFIX,
  DEFAULT_UNATTENDED,
  DEFAULT_WORKER_ENTRYPOINTS,
  describeWorkerRule,
  type UnattendedPolicy,
  type WorkerRule,
} from '../shared/workers.js';

export interface WorkersSummary {
  entrypoints: string[];
  unattended: UnattendedPolicy;
  cwdGlobs: string[];
  envMarker: string;
  /** Plain-language: which sessions are workers and why. */
  rules: string[];
  /** The hook's copy: `same`, `different` (it would decide otherwise), `missing` (no file yet:
   *  the hook uses the defaults) or `invalid`. */
  hook: 'same' | 'different' | 'missing' | 'invalid';
}

/** A rule with its defaults filled in, in a comparable form. */
function normal(r: WorkerRule): Required<WorkerRule> {
  return {
    cwdGlobs: [...r.cwdGlobs],
    envMarker: r.envMarker,
    entrypoints: [...(r.entrypoints ?? DEFAULT_WORKER_ENTRYPOINTS)],
    unattended: r.unattended ?? DEFAULT_UNATTENDED,
  };
}

export function workersSummary(config: Config, env: NodeJS.ProcessEnv = process.env): WorkersSummary {
  const rule = normal(config.workers);
  const read = readHookSettings(env);
  const hook = read.source === 'invalid' ? 'invalid' : read.source === 'default' ? 'missing'
    : JSON.stringify(normal(read.settings.workers)) === JSON.stringify(rule) ? 'same' : 'different';
  return {
    entrypoints: [...rule.entrypoints],
    unattended: rule.unattended,
    cwdGlobs: [...rule.cwdGlobs],
    envMarker: rule.envMarker,
    rules: describeWorkerRule(rule, homeDir(env)),
    hook,
  };
}

/** The doctor check `workers`: fails when the hook would decide otherwise than the daemon. */
export function checkWorkers(config: Config, env: NodeJS.ProcessEnv = process.env): { name: string; pass: boolean; detail: string; fix: string } {
  const s = workersSummary(config, env);
  const detail = `never offered to: ${s.rules.join('; ')}`;
  if (s.hook === 'different') {
    return { name: 'workers', pass: false, detail: `${detail} — but hook-settings.json holds another worker rule (the hook and the daemon would disagree)`, fix: 'run "active-brain install" or restart the daemon: both rewrite hook-settings.json from the config' };
  }
  const codex = s.entrypoints.filter((e) => e.startsWith(CODEX_ENTRYPOINT_PREFIX));
  if (codex.length) {
    return { name: 'workers', pass: false, detail: `${detail} — ${codex.join(', ')}: the daemon sees a Codex entrypoint, the hook cannot (Codex gives its hooks none), so Past fixes would still print`, fix: 'list Codex worker runs by their directory in workers.cwdGlobs instead of workers.entrypoints' };
  }
  return { name: 'workers', pass: true, detail, fix: '' };
}
