/**
 * Which sessions are workers (never offered to) and why, for `doctor` and `status`: the
 * config's worker rule (shared/workers.ts) in plain words, whether the hook reads the same
 * rule (<home>/hook-settings.json, written at daemon start, install, enable/disable), and the
 * sessions each path actually treated as workers lately (the daemon's decisions log and the
 * hook's log: ids and reason codes only) — with any session the daemon called a worker that
 * the hook still offered to (the disagreement this rule exists to prevent).
 * Reads the config, the settings file and the logs; writes nothing.
 */
import { statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import { readHookSettings } from '../hook/settings.js';
import { homeDir, logsDir } from '../shared/paths.js';
import { daemonLogs, hookLogs, readJsonlFiles } from '../daemon/jsonl-read.js';
import {
  CODEX_ENTRYPOINT_PREFIX,
  DEFAULT_UNATTENDED,
  DEFAULT_WORKER_ENTRYPOINTS,
  describeWorkerRule,
  type UnattendedPolicy,
  type WorkerRule,
} from '../shared/workers.js';

/** How far back the logs are read for the sessions each path treated as workers. */
export const RECENT_WORKER_DAYS = 7;
const DAY_MS = 86_400_000;
/** Session ids named at most (the rest are counted). */
const MAX_NAMED = 5;
const WORKER_PREFIX = 'worker-';

export interface RecentWorkers {
  days: number;
  /** Sessions each path treated as workers, and how many per reason (the first reason seen). */
  daemon: { sessions: number; byReason: Record<string, number> };
  hook: { sessions: number; byReason: Record<string, number> };
  /** Sessions the daemon treats as workers that the hook printed or would-fire to (ids, ≤ 5). */
  offeredToWorkers: string[];
  offeredToWorkersCount: number;
}

function byReason(m: Map<string, string>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of m.values()) out[r] = (out[r] ?? 0) + 1;
  return out;
}

/** The last RECENT_WORKER_DAYS of both logs: worker sessions per path, and disagreements. */
export function recentWorkers(env: NodeJS.ProcessEnv = process.env, now = Date.now()): RecentWorkers {
  const since = now - RECENT_WORKER_DAYS * DAY_MS;
  const dir = logsDir(env);
  // A log file last written before the window holds only older records: not read.
  const fresh = (files: string[]) => files.filter((f) => {
    try {
      return statSync(f).mtimeMs >= since;
    } catch {
      return false;
    }
  });
  const daemon = new Map<string, string>();
  for (const r of readJsonlFiles<{ ts?: number; type?: string; sessionId?: string; worker?: boolean; silence?: string | null }>(fresh(daemonLogs(dir)), since).records) {
    if (r.type !== 'decision' || !r.worker || typeof r.sessionId !== 'string' || daemon.has(r.sessionId)) continue;
    daemon.set(r.sessionId, typeof r.silence === 'string' && r.silence.startsWith(WORKER_PREFIX) ? r.silence.slice(WORKER_PREFIX.length) : 'worker');
  }
  const hook = new Map<string, string>();
  const offered = new Set<string>();
  for (const r of readJsonlFiles<{ ts?: number; session?: string | null; reason?: string; outcome?: string }>(fresh(hookLogs(dir)), since).records) {
    if (typeof r.session !== 'string') continue;
    if (typeof r.reason === 'string' && r.reason.startsWith(WORKER_PREFIX)) {
      if (!hook.has(r.session)) hook.set(r.session, r.reason.slice(WORKER_PREFIX.length));
    } else if (r.outcome === 'print' || r.outcome === 'would-fire') offered.add(r.session);
  }
  const clash = [...offered].filter((id) => daemon.has(id));
  return {
    days: RECENT_WORKER_DAYS,
    daemon: { sessions: daemon.size, byReason: byReason(daemon) },
    hook: { sessions: hook.size, byReason: byReason(hook) },
    offeredToWorkers: clash.slice(0, MAX_NAMED),
    offeredToWorkersCount: clash.length,
  };
}

function counts(c: { sessions: number; byReason: Record<string, number> }): string {
  const parts = Object.entries(c.byReason).sort((a, b) => b[1] - a[1]).map(([r, n]) => `${r} ${n}`);
  return `${c.sessions}${parts.length ? ` (${parts.join(', ')})` : ''}`;
}

/** One line: the worker sessions each path saw lately. */
export function recentLine(r: RecentWorkers): string {
  return `last ${r.days} days, worker sessions: daemon ${counts(r.daemon)}, hook ${counts(r.hook)}`;
}

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
  recent: RecentWorkers;
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

export function workersSummary(config: Config, env: NodeJS.ProcessEnv = process.env, now = Date.now()): WorkersSummary {
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
    recent: recentWorkers(env, now),
  };
}

/** The doctor check `workers`: fails when the hook would decide otherwise than the daemon. */
export function checkWorkers(config: Config, env: NodeJS.ProcessEnv = process.env, now = Date.now()): { name: string; pass: boolean; detail: string; fix: string } {
  const s = workersSummary(config, env, now);
  const detail = `never offered to: ${s.rules.join('; ')} — ${recentLine(s.recent)}`;
  const r = s.recent;
  if (r.offeredToWorkersCount) {
    return {
      name: 'workers', pass: false,
      detail: `${detail} — the hook offered to ${r.offeredToWorkersCount} session(s) the daemon treats as workers (${r.offeredToWorkers.join(', ')})`,
      fix: 'run "active-brain install" (rewrites hook-settings.json from the config) and read docs/HOOK.md "Session kinds": a fact only the daemon sees (a Codex entrypoint) needs workers.cwdGlobs',
    };
  }
  if (s.hook === 'different') {
    return { name: 'workers', pass: false, detail: `${detail} — but hook-settings.json holds another worker rule (the hook and the daemon would disagree)`, fix: 'run "active-brain install" or restart the daemon: both rewrite hook-settings.json from the config' };
  }
  const codex = s.entrypoints.filter((e) => e.startsWith(CODEX_ENTRYPOINT_PREFIX));
  if (codex.length) {
    return { name: 'workers', pass: false, detail: `${detail} — ${codex.join(', ')}: the daemon sees a Codex entrypoint, the hook cannot (Codex gives its hooks none), so Past fixes would still print`, fix: 'list Codex worker runs by their directory in workers.cwdGlobs instead of workers.entrypoints' };
  }
  return { name: 'workers', pass: true, detail, fix: '' };
}
