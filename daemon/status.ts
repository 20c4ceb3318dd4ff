/**
 * The daemon's honest state for `active-brain status` (and anyone else who must not trust a
 * pid file): running = the lock is held (fresh) AND its pid is alive AND the canary is fresh
 * AND names the same pid. Reads the lock (daemon/lock.ts), the canary (daemon/canary.ts), the
 * KILL file and config; the store summary is passed in by the caller (it needs SQLite).
 */
import { existsSync } from 'node:fs';
import { canaryPath, defaultCodexSessionsRoot, defaultTranscriptsRoot, killPath } from '../shared/paths.js';
import { lockState, type LockState } from './lock.js';
import { readCanary, canaryAgeMs, canaryFresh } from './canary.js';
import type { Config } from '../config/schema.js';
import type { Canary, EmbedderHealth, IndexScheduleState, ModeState, StoreHealth } from '../shared/types.js';
import { DEFAULT_LOCAL_MODEL, resolveModel } from '../embed/embedder.js';
import { serverModelId } from '../embed/server.js';

export interface StoreSummary {
  path: string;
  present: boolean;
  chunks?: number;
  regions?: number;
  documents?: number;
  bytes?: number;
  model?: string | null;
  dim?: number | null;
  error?: string;
  /** `sqlite` (the embedded file) or `postgres` (the team store; path is its URL without the password). */
  backend?: 'sqlite' | 'postgres';
  /** How the stored text was redacted (store/scan-location.ts): `unscrubbed` / `other-rules` →
   *  run `active-brain index`; null when it could not be read. */
  redaction?: 'scrubbed' | 'unscrubbed' | 'other-rules' | null;
}

export interface DaemonStatus {
  running: boolean;
  pid: number | null;
  canary_age_s: number | null;
  sessions: number | null;
  /** The modes' common state (`soak`, `live`, `off`) or `mixed`. */
  mode: ModeState | 'mixed' | null;
  killed: boolean;
  /** Where the daemon reads transcripts from (config transcriptsRoot or the default), and
   *  whether it exists: a wrong root means silence forever. */
  transcripts_root: { path: string; exists: boolean };
  /** Codex CLI's sessions root the daemon also tails (codexSessionsRoot or the default); absent
   *  when the user has no Codex. */
  codex_sessions_root: { path: string; exists: boolean };
  store: StoreSummary;
  /** configured: the server's id, the local folder or the model name; id: the id the store
   *  records for it (null when it cannot be resolved: `problem` says why); store: the id the
   *  store was built with. */
  model: { configured: string; localPath: string | null; store: string | null; id: string | null; problem: string | null };
  /** The embedding server as the running daemon sees it (embedding.url set and the daemon
   *  running; else null). */
  embedder: EmbedderHealth | null;
  /** The store as the running daemon sees it (daemon/store-health.ts): `down` with `since`
   *  while its server cannot be reached; null when the daemon is not running or never opened it. */
  store_health: StoreHealth | null;
  uptime_s: number | null;
  /** The daemon's own index schedule (indexer.schedule = "daemon"), as its canary says; null
   *  when it is not running or the service manager's timer runs the schedule. */
  index_schedule: IndexScheduleState | null;
  last_error: string | null;
  modes: Record<string, { state: ModeState; cwdGlobs: string[] }>;
  /** Why running is false when a daemon seems to exist (e.g. `stale-canary`, `dead-pid`). */
  problem: string | null;
  lock: { held: boolean; age_s: number | null };
}

/** Why a daemon that left traces is not running (null when running or cleanly stopped). */
export function diagnose(lock: LockState, canary: Canary | null, now: number): { running: boolean; pid: number | null; problem: string | null } {
  const pid = lock.pid ?? null;
  if (!lock.held) {
    if (lock.lockAgeMs !== null) return { running: false, pid, problem: 'stale-lock' };
    if (pid !== null && lock.pidAlive) return { running: false, pid, problem: 'no-lock' };
    return { running: false, pid: null, problem: null };
  }
  if (pid === null) return { running: false, pid: null, problem: 'no-pid-file' };
  if (!lock.pidAlive) return { running: false, pid, problem: 'dead-pid' };
  if (!canary) return { running: false, pid, problem: 'no-canary' };
  if (canary.pid !== pid) return { running: false, pid, problem: 'canary-pid-mismatch' };
  if (!canaryFresh(canary, now)) return { running: false, pid, problem: 'stale-canary' };
  return { running: true, pid, problem: null };
}

/** A config-reload error is about a config.json that did not load; the caller has just
 *  loaded it, so it is fixed: the daemon clears it at its next reload, a stopped one never
 *  will. Other errors stand. */
export const CONFIG_RELOAD_ERROR = 'config-reload';
export function currentError(lastError: string | null): string | null {
  return lastError?.startsWith(CONFIG_RELOAD_ERROR) ? null : lastError;
}

/** The id the store would record for the configured model (reads a local folder's
 *  config.json, nothing else), or why it cannot be had. */
function modelId(e: Config['embedding'], env: NodeJS.ProcessEnv): { id: string | null; problem: string | null } {
  try {
    return { id: resolveModel(e, env).modelId, problem: null };
  } catch (err) {
    return { id: null, problem: (err as Error).message };
  }
}

/** The model as configured: the server's id, the local folder, or the model name. */
function configuredModel(e: Config['embedding']): string {
  if (e.url) return serverModelId(e.url, e.model);
  return e.localModelPath ?? e.model ?? DEFAULT_LOCAL_MODEL;
}

export function daemonStatus(config: Config, store: StoreSummary, env: NodeJS.ProcessEnv = process.env, now = Date.now()): DaemonStatus {
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot(env);
  const codexRoot = config.codexSessionsRoot ?? defaultCodexSessionsRoot(env);
  const lock = lockState(env, now);
  const canary = readCanary(canaryPath(env));
  const d = diagnose(lock, canary, now);
  const modes: DaemonStatus['modes'] = {};
  for (const [name, m] of Object.entries(config.modes)) modes[name] = { state: m.state, cwdGlobs: [...m.cwdGlobs] };
  const states = [...new Set(Object.values(modes).map((m) => m.state))];
  const live = d.running && canary !== null;
  return {
    running: d.running,
    pid: d.pid,
    canary_age_s: canary ? Math.round(canaryAgeMs(canary, now) / 100) / 10 : null,
    sessions: live ? canary!.sessionsWatched : null,
    mode: states.length === 0 ? null : states.length === 1 ? states[0] : 'mixed',
    killed: existsSync(killPath(env)),
    transcripts_root: { path: root, exists: existsSync(root) },
    codex_sessions_root: { path: codexRoot, exists: existsSync(codexRoot) },
    store,
    model: {
      configured: configuredModel(config.embedding),
      localPath: config.embedding.localModelPath ?? null,
      store: store.model ?? null,
      ...modelId(config.embedding, env),
    },
    embedder: live ? (canary!.embedder ?? null) : null,
    store_health: live ? (canary!.store ?? null) : null,
    uptime_s: live ? Math.round((now - canary!.startedAt) / 1000) : null,
    index_schedule: live ? (canary!.indexSchedule ?? null) : null,
    last_error: currentError(canary?.lastError ?? null),
    modes,
    problem: d.problem,
    lock: { held: lock.held, age_s: lock.lockAgeMs === null ? null : Math.round(lock.lockAgeMs / 1000) },
  };
}
