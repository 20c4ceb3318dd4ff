/**
 * The daemon's cycle, every daemon.cycleMs: the KILL file (present → clear the offer caches,
 * log `kill`, stop), idle sessions evicted, the store's life (daemon/store-life.ts: a store
 * that appeared, was lost or healed; fixes synced), config.json reloaded (modes and the index
 * schedule: daemon/config-reload.ts), housekeeping (daemon/housekeeping.ts), the scheduled
 * index (daemon/index-schedule.ts), one GC when the daemon turns quiet (daemon/idle-gc.ts),
 * the canary (daemon/canary.ts: what `status` reads) and the idle exit (daemon.idleExitMinutes).
 */
import type { Config } from '../config/schema.js';
import type { Pipeline } from '../core/pipeline.js';
import { embedderHealth } from '../embed/resilient.js';
import type { Embedder } from '../embed/types.js';
import { canaryPath } from '../shared/paths.js';
import type { Canary } from '../shared/types.js';
import { writeCanary } from './canary.js';
import type { CacheSink } from './cache-sink.js';
import { ConfigReload } from './config-reload.js';
import { runHousekeeping } from './housekeeping.js';
import { IdleCollector } from './idle-gc.js';
import { cliPath } from './index-job.js';
import { DaemonIndexSchedule, lastRecordedRun, spawnIndexRun } from './index-schedule.js';
import { errMsg, type Reporter } from './reporter.js';
import type { RunState } from './run-state.js';
import { CONFIG_RELOAD_ERROR } from './status.js';
import type { StoreLife } from './store-life.js';

export interface CycleDeps {
  config: Config;
  env: NodeJS.ProcessEnv;
  /** The start's --set flags (kept when config.json is loaded again). */
  flags: string[] | undefined;
  storePath: string;
  state: RunState;
  report: Reporter;
  store: StoreLife;
  pipeline: Pipeline;
  sink: CacheSink;
  embedder: Embedder;
  /** Sessions with a tailed file (the canary's sessionsWatched). */
  watchedSessions: () => number;
  /** Begin the daemon's stop (daemon/shutdown.ts). */
  stop: (code: number, reason: string) => void;
}

/** Whether the daemon runs the scheduled index, and how often (from config.indexer). */
function scheduleOf(config: Config): { enabled: boolean; intervalMinutes: number } {
  return { enabled: config.indexer.schedule === 'daemon', intervalMinutes: config.indexer.intervalMinutes };
}

export class Cycle {
  private timer: NodeJS.Timeout | null = null;
  /** The scheduled index, when the daemon runs it (indexer.schedule = "daemon": no user
   *  service manager runs the timer). A separate `active-brain index` process, one at a time. */
  private readonly indexSchedule: DaemonIndexSchedule;
  private schedule: { enabled: boolean; intervalMinutes: number };
  private readonly reload: ConfigReload;
  /** Housekeeping: at the first cycle, then every daemon.housekeepingMinutes. */
  private lastHousekeeping = -Infinity;
  private readonly idleGc = new IdleCollector();

  constructor(private readonly deps: CycleDeps) {
    const { report, env } = deps;
    this.schedule = scheduleOf(deps.config);
    this.indexSchedule = new DaemonIndexSchedule(
      () => spawnIndexRun(cliPath(), env),
      {
        started: (p) => report.event({ event: 'index-scheduled', reason: 'started', figures: { pid: p } }),
        ended: (p, code) => report.event({ event: 'index-scheduled', reason: 'ended', figures: { pid: p, ...(code === null ? {} : { exit: code }) } }),
        failed: (m) => report.fail('index-schedule', new Error(m)),
      },
      lastRecordedRun(deps.storePath, env),
    );
    this.reload = new ConfigReload(env, deps.flags);
  }

  /** Run a cycle every daemon.cycleMs from now on. */
  startTimer(): void {
    this.timer = setInterval(() => this.run(), this.deps.config.daemon.cycleMs);
  }

  stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
  }

  run(): void {
    const { state, report, config } = this.deps;
    if (state.stopping) return;
    state.cycles++;
    if (this.deps.sink.killFilePresent()) {
      state.killed = true;
      // The offer caches go; the fixes stay (they follow the store, not the daemon: the hook's
      // kill gate silences them while the kill file is there).
      const n = this.deps.sink.caches.clearAll();
      report.event({ event: 'kill', reason: 'kill-file', figures: { cachesCleared: n } });
      this.deps.stop(0, 'kill-file');
      return;
    }
    for (const ev of this.deps.pipeline.evict()) {
      // The file's assembler stays (small; it keeps exchange numbering); only the state goes.
      report.event({ event: 'session-evicted', reason: ev.reason, sessionId: ev.sessionId, path: ev.path });
    }
    this.deps.store.tick();
    this.reloadConfig();
    this.housekeeping();
    this.indexSchedule.tick(this.schedule);
    this.idleGc.tick();
    try {
      writeCanary(canaryPath(this.deps.env), this.canary());
    } catch (e) {
      report.lastError = `canary: ${errMsg(e)}`;
    }
    const idleMin = config.daemon.idleExitMinutes;
    if (idleMin > 0 && Date.now() - state.lastActivity > idleMin * 60_000) {
      report.event({ event: 'idle-exit', reason: 'idle', figures: { idleMinutes: idleMin } });
      this.deps.stop(0, 'idle');
    }
  }

  /** What `status` reads (canary.json). */
  canary(): Canary {
    const { state, config, report, embedder, store } = this.deps;
    return {
      version: 1,
      pid: state.pid,
      startedAt: state.startedAt,
      cycles: state.cycles,
      lastCycleAt: Date.now(),
      cycleMs: config.daemon.cycleMs,
      sessionsWatched: this.deps.watchedSessions(),
      killed: state.killed,
      lastError: report.shownError,
      ...(embedderHealth(embedder) ? { embedder: embedderHealth(embedder) } : {}),
      ...(store.guard.snapshot() ? { store: store.guard.snapshot()! } : {}),
      ...(this.indexSchedule.snapshot() ? { indexSchedule: this.indexSchedule.snapshot()! } : {}),
    };
  }

  /** Modes and the index schedule follow config.json; other settings need a restart. */
  private reloadConfig(): void {
    const { report } = this.deps;
    try {
      const next = this.reload.changed();
      if (!next) return;
      this.deps.pipeline.setModes(next.modes);
      this.schedule = scheduleOf(next);
      // The file loads again: an earlier reload error is history.
      if (report.lastError?.startsWith(CONFIG_RELOAD_ERROR)) report.lastError = null;
      report.event({ event: 'config-reloaded', reason: 'modes' });
    } catch (e) {
      report.fail(CONFIG_RELOAD_ERROR, e);
    }
  }

  private housekeeping(): void {
    const { config, env, report } = this.deps;
    if (Date.now() - this.lastHousekeeping < config.daemon.housekeepingMinutes * 60_000) return;
    this.lastHousekeeping = Date.now();
    report.attempt('housekeeping', () => {
      const r = runHousekeeping({ hookStateRetentionDays: config.daemon.hookStateRetentionDays, cacheTtlSeconds: config.daemon.cacheTtlSeconds }, env);
      if (r.hookStates + r.caches + r.leftovers + r.failed > 0) report.event({ event: 'housekeeping', reason: 'prune', figures: { ...r } });
    });
  }
}
