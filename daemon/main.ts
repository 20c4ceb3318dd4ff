/**
 * The daemon process (`active-brain start`): one per state dir. runDaemon wires the parts:
 *
 *   config ─▶ state dir (0700), singleton lock, embedder       daemon/startup.ts
 *   ─▶ log + last error                                        daemon/reporter.ts
 *   ─▶ store (read-only; optional) ─▶ Pipeline                 daemon/store-life.ts, core/pipeline.ts
 *   ─▶ tailers (Claude Code root + Codex sessions root)        daemon/tailer-group.ts, tailer.ts
 *   ─▶ consumer: records ─▶ exchanges and tool steps ─▶ decisions ─▶ caches (cache-sink.ts)
 *      + decision log ─▶ tailer.commit(offset, snapshot)       daemon/consumer.ts
 *   every daemon.cycleMs: KILL, eviction, store, config reload, housekeeping, index schedule,
 *   idle GC, canary, idle exit                                 daemon/cycle.ts
 *   stop (signal, KILL, idle, lock lost): caches cleared, log flushed, lock released
 *                                                              daemon/shutdown.ts
 *
 * Errors on one file or line are logged with a reason code and skipped. Nothing here logs
 * conversation text: records are built from Decisions (ids and numbers).
 */
import { loadConfig } from '../config/load.js';
import { writeHookSettings } from '../config/hook-settings.js';
import { Pipeline } from '../core/pipeline.js';
import { createReasoner } from '../retrieval/reasoner.js';
import { storeLocation } from '../store/location.js';
import { cacheDir, codexOffsetsPath, defaultCodexSessionsRoot, defaultTranscriptsRoot, homeDir, killPath, logsDir, offsetsPath } from '../shared/paths.js';
import { CacheSink } from './cache-sink.js';
import { CacheWriter } from './cache-writer.js';
import { Consumer } from './consumer.js';
import { Cycle } from './cycle.js';
import { openJsonlLog } from './logs.js';
import { loggedBefore } from './logged-decisions.js';
import { errMsg, Reporter } from './reporter.js';
import { halted, newRunState } from './run-state.js';
import { Shutdown } from './shutdown.js';
import { ensureSoakBaseline } from './soak-baseline.js';
import { claimStateDir, loadEmbedder, stopEarly, takeLock, warnRootState } from './startup.js';
import { StoreLife } from './store-life.js';
import { TailerGroup } from './tailer-group.js';

export interface DaemonOptions {
  /** `key.path=value` config overrides (from --set). */
  flags?: string[];
  env?: NodeJS.ProcessEnv;
  /** Where human-readable start/stop lines go (default stderr). */
  out?: (line: string) => void;
  /** Called once the daemon is observing (its first canary is written). */
  onReady?: (info: { pid: number; root: string; home: string }) => void;
}

/** Run the daemon until it is stopped. Resolves with the process exit code. */
export async function runDaemon(opts: DaemonOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  const say = opts.out ?? ((l: string) => process.stderr.write(`active-brain: ${l}\n`));
  const { config } = loadConfig({ env, flags: opts.flags });
  const home = homeDir(env);
  const refused = claimStateDir(env, home, say);
  if (refused !== null) return refused;

  let shutdown: Shutdown | null = null;
  let onLockLost = (_e: Error): void => undefined;
  const lock = await takeLock(env, home, say, (e) => onLockLost(e));
  if (typeof lock === 'number') return lock;

  const state = newRunState();
  // Before the log is opened (opening may rotate it): what a crash may have left logged and unsaved.
  const logged = loggedBefore(logsDir(env), [offsetsPath(env), codexOffsetsPath(env)], lock.recovered !== null);
  const report = new Reporter(openJsonlLog(logsDir(env), config.logs), state.pid);
  onLockLost = (e) => {
    report.lastError = `lock compromised: ${errMsg(e)}`;
    void shutdown?.stop(1, 'lock-compromised');
  };
  report.event({ event: 'start', figures: { cycleMs: config.daemon.cycleMs }, ...(lock.recovered ? { reason: `recovered-${lock.recovered}` } : {}) });
  report.attempt('hook-settings', () => writeHookSettings(config, env));

  const storePath = storeLocation(config, env);
  const loaded = await loadEmbedder(config, env, storePath);
  if ('error' in loaded) {
    report.fail('embedder', loaded.error);
    say(errMsg(loaded.error));
    return stopEarly(report, lock, 'embedder-failed', 3);
  }
  const { embedder } = loaded;
  if (loaded.stoppedBy) return stopEarly(report, lock, loaded.stoppedBy, 0, embedder);
  state.lastActivity = Date.now(); // the idle exit counts from here, not from the model load

  // The soak begins with the daemon's first start: remember when, and the store as it was
  // (daemon/soak-baseline.ts; `soak report` proves the daemon never wrote it).
  report.attempt('soak-baseline', () => ensureSoakBaseline(storePath, env), { path: storePath });
  // The store and its offer builder are optional: without a store the daemon still watches.
  const reasoner = config.reasoner.enabled ? createReasoner(config.reasoner, env) : null;
  const store = new StoreLife({ storePath, embedder, config, env, reasoner, report, say, halted: () => halted(state) });
  const pipeline = new Pipeline({
    embedder,
    offerBuilder: null,
    noBuilderReason: 'no-store',
    config,
    home,
    now: Date.now,
    rng: Math.random,
    storeFaults: () => store.guard.faults,
  });
  store.start(pipeline);

  const sink = new CacheSink(new CacheWriter(cacheDir(env)), killPath(env), report);
  const consumer = new Consumer({ config, env, pipeline, store, sink, report, state, logged, commit: (path, offset, snap) => tailer.commit(path, offset, snap) });
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot(env);
  // Claude Code's root and Codex CLI's sessions root, one consumer (daemon/tailer-group.ts).
  const tailer = new TailerGroup(
    [
      { root, offsetsPath: offsetsPath(env), daemon: config.daemon },
      { root: config.codexSessionsRoot ?? defaultCodexSessionsRoot(env), host: 'codex', offsetsPath: codexOffsetsPath(env), daemon: config.daemon },
    ],
    consumer,
  );
  const stop = (code: number, reason: string) => void shutdown?.stop(code, reason);
  const cycle = new Cycle({ config, env, flags: opts.flags, storePath, state, report, store, pipeline, sink, embedder, watchedSessions: () => tailer.watchedSessions, stop });
  shutdown = new Shutdown({ env, state, report, cycle, tailer, consumer, sink, store, embedder, lock, say });
  shutdown.listen();

  if (sink.killFilePresent()) {
    // KILL present at start: a clean exit 0 (no restart loop under a service manager).
    say(`KILL file present (${killPath(env)}): not observing. Remove it with "active-brain unkill".`);
    cycle.run();
    return shutdown.done;
  }
  // The first canary is written once the watcher is ready, so a canary means "observing".
  const begin = () => {
    if (state.stopping) return;
    cycle.run();
    if (state.stopping) return;
    cycle.startTimer();
    say(`daemon running (pid ${state.pid}); watching ${root}; state in ${home}`);
    opts.onReady?.({ pid: state.pid, root, home });
    warnRootState(root, say, report);
  };
  tailer.start().then(begin, (e) => {
    report.fail('tailer-start', e);
    begin();
  });
  return shutdown.done;
}
