/**
 * The daemon's stop, once, whatever asked for it (SIGTERM / SIGINT, the KILL file and the idle
 * exit from daemon/cycle.ts, a lost lock): stop the cycle and the tailer, let the batches in
 * hand finish (daemon/consumer.ts), clear the offer caches, write a last canary, log `stop`,
 * flush the log, close the store and the embedder, release the lock, say so; `done` resolves
 * with the exit code. Also the process-wide listeners while the daemon runs: signals, and
 * unexpected errors logged as `unhandled` / `uncaught` (the daemon keeps running).
 */
import type { Embedder } from '../embed/types.js';
import { canaryPath } from '../shared/paths.js';
import { writeCanary } from './canary.js';
import type { CacheSink } from './cache-sink.js';
import type { Consumer } from './consumer.js';
import type { Cycle } from './cycle.js';
import type { DaemonLock } from './lock.js';
import type { Reporter } from './reporter.js';
import type { RunState } from './run-state.js';
import type { StoreLife } from './store-life.js';
import type { TailerGroup } from './tailer-group.js';

export interface ShutdownDeps {
  env: NodeJS.ProcessEnv;
  state: RunState;
  report: Reporter;
  cycle: Cycle;
  tailer: TailerGroup;
  consumer: Consumer;
  sink: CacheSink;
  store: StoreLife;
  embedder: Embedder;
  lock: DaemonLock;
  say: (line: string) => void;
}

export class Shutdown {
  /** Resolves with the exit code once the stop is complete. */
  readonly done: Promise<number>;
  private resolve!: (code: number) => void;
  private readonly onSignal = (sig: NodeJS.Signals) => void this.stop(0, sig.toLowerCase());
  private readonly onRejection = (e: unknown) => this.deps.report.fail('unhandled', e);
  private readonly onException = (e: unknown) => this.deps.report.fail('uncaught', e);

  constructor(private readonly deps: ShutdownDeps) {
    this.done = new Promise<number>((r) => {
      this.resolve = r;
    });
  }

  /** Listen for signals and unexpected errors until the stop. */
  listen(): void {
    process.on('SIGTERM', this.onSignal);
    process.on('SIGINT', this.onSignal);
    process.on('unhandledRejection', this.onRejection);
    process.on('uncaughtException', this.onException);
  }

  async stop(code: number, reason: string): Promise<void> {
    const { state, report, tailer, consumer, env } = this.deps;
    if (state.stopping) return;
    state.stopping = true;
    this.deps.cycle.stopTimer();
    consumer.cancelSettles();
    try {
      await tailer.close();
      await consumer.settled();
    } catch (e) {
      report.fail('tailer-close', e);
    }
    // No daemon, no fresh offers: a cache left behind would let the hook print an offer
    // computed turns ago (it stays valid for daemon.cacheTtlSeconds). Clear on every stop.
    // The fixes files stay: they are the store's, kept in step by whoever changes it (the
    // indexer), so the Past fix at a failure needs no daemon.
    const cleared = this.deps.sink.caches.clearAll();
    try {
      writeCanary(canaryPath(env), { ...this.deps.cycle.canary(), killed: state.killed });
    } catch { /* best effort */ }
    report.event({ event: 'stop', reason, figures: { cycles: state.cycles, uptimeMs: Date.now() - state.startedAt, cachesCleared: cleared } });
    await report.log.close();
    this.deps.store.close();
    try { await this.deps.embedder.dispose(); } catch { /* closing */ }
    await this.deps.lock.release();
    process.off('SIGTERM', this.onSignal);
    process.off('SIGINT', this.onSignal);
    process.off('unhandledRejection', this.onRejection);
    process.off('uncaughtException', this.onException);
    this.deps.say(`daemon stopped (${reason})`);
    this.resolve(code);
  }
}
