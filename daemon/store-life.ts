/**
 * The daemon's store, from open to close: opened read-only at start (optional: without a
 * store the daemon still watches and its offers are silent), opened once it appears, tried
 * again when it cannot be opened, dropped and reconnected when the team store's server goes
 * away (daemon/store-health.ts), and the hook's Past fixes (`<home>/fixes/`) rebuilt from its
 * resolved episodes when it changes (daemon/fixes-writer.ts). Wired by daemon/main.ts; the
 * cycle (daemon/cycle.ts) calls `tick()`; the open reader and its offer builder go to the
 * Pipeline (core/pipeline.ts setOfferBuilder).
 *
 * A store file that cannot be opened (corrupt, not SQLite, built with another model): StoreRetry
 * is told each failed open and each success; every cycle it is asked `due()`: yes when the file
 * changed since the failed open — its inode, size or mtime, or its WAL's (a store rebuilt in
 * place or moved in) — or, whatever the file says, every REOPEN_EVERY_MS (a change the stamp
 * cannot see). So a rebuilt store serves again within a cycle (daemon.cycleMs), without a
 * restart.
 */
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import type { Reasoner } from '../retrieval/reasoner.js';
import { openStoreReader } from '../store/sqlite-store.js';
import { displayLocation, storePresent } from '../store/location.js';
import { isStoreUnreachable } from '../store/pg-sync.js';
import type { StoreReader } from '../store/types.js';
import { STORE_DOWN, type Pipeline } from '../core/pipeline.js';
import { fixesDir } from '../shared/paths.js';
import { syncFixesFrom } from './fixes-writer.js';
import { StoreGuard } from './store-health.js';
import { clip, errMsg, type Reporter } from './reporter.js';

/** Open failures that leave the daemon silent until the store file is fixed (log reasons). */
export const STORE_OPEN_FAILURES = ['store-unreadable', 'store-model-mismatch'] as const;
/** An unreadable store is tried again at least this often (ms), changed or not. */
export const REOPEN_EVERY_MS = 60_000;

/** Is this log / canary error one of STORE_OPEN_FAILURES (`<reason>: <message>`)? */
export function isStoreOpenFailure(error: string | null | undefined): boolean {
  return !!error && STORE_OPEN_FAILURES.some((r) => error === r || error.startsWith(`${r}:`));
}

function stampOf(path: string): string {
  try {
    const st = statSync(path);
    return `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}`;
  } catch {
    return '-';
  }
}

/** The store file's identity and state, and its WAL's: '' for a SQLite store that is not there. */
export function storeFileStamp(path: string): string {
  return `${stampOf(path)}|${stampOf(`${path}-wal`)}`;
}

export class StoreRetry {
  private failedStamp: string | null = null;
  private failedAt = 0;
  private lastProblem: string | null = null;

  constructor(
    private readonly path: string,
    private readonly stamp: (path: string) => string = storeFileStamp,
    private readonly now: () => number = Date.now,
  ) {}

  /** An open failed with `problem`: remember the file as it was. Returns true when the problem
   *  is news (first, or another message than last time): only news is logged. */
  failed(problem: string): boolean {
    this.failedStamp = this.stamp(this.path);
    this.failedAt = this.now();
    const news = problem !== this.lastProblem;
    this.lastProblem = problem;
    return news;
  }

  /** The store opened: nothing to retry. Returns true when it had failed before (a recovery). */
  opened(): boolean {
    const recovered = this.failedStamp !== null;
    this.failedStamp = null;
    this.lastProblem = null;
    return recovered;
  }

  /** Is an open worth trying now? Only after a failure: the file changed, or REOPEN_EVERY_MS passed. */
  due(): boolean {
    if (this.failedStamp === null) return false;
    return this.stamp(this.path) !== this.failedStamp || this.now() - this.failedAt >= REOPEN_EVERY_MS;
  }
}

/** The daemon's store connection keeps SQLite's own default page cache (2000 KiB) instead of
 *  better-sqlite3's 16 MB: the keyword index and matrix are built in one pass over the chunks,
 *  a reaction reads a handful of rows, and the file sits in the OS page cache anyway. With a
 *  10k-chunk store the 16 MB cache filled during that pass and stayed resident (docs/DAEMON.md,
 *  idle memory, fourth pass). */
export const DAEMON_PAGE_CACHE_KIB = 2000;

/** What opening the store gave: the reader, or the silence it leaves and why. */
interface StoreOpen {
  store: StoreReader | null;
  silence: string | null;
  problem: string | null;
  error?: unknown;
}

/** Open the store read-only (watched by `guard`) and check it was built with this embedder's
 *  model. An unreachable server is `store-down` (retried), not `store-unreadable` (a setup error). */
function openStore(path: string, embedder: Embedder, guard: StoreGuard): StoreOpen {
  if (!storePresent(path)) return { store: null, silence: 'no-store', problem: null };
  let store: StoreReader;
  try {
    store = guard.wrap(openStoreReader(path, { pageCacheKiB: DAEMON_PAGE_CACHE_KIB }));
  } catch (e) {
    return { store: null, silence: isStoreUnreachable(e) ? STORE_DOWN : 'store-unreadable', problem: errMsg(e), error: e };
  }
  try {
    store.checkModel(embedder.modelId, embedder.dim);
  } catch (e) {
    store.close();
    return { store: null, silence: isStoreUnreachable(e) ? STORE_DOWN : 'store-model-mismatch', problem: errMsg(e), error: e };
  }
  // The keyword index fills in the background (FTS5 answers until then); a failure leaves
  // FTS5 answering, and the same error surfaces at the next search, where it is handled.
  store.warm?.().catch(() => undefined);
  return { store, silence: null, problem: null };
}

export interface StoreLifeDeps {
  /** The store's location (a SQLite file or the team store's URL: store/location.ts). */
  storePath: string;
  embedder: Embedder;
  config: Config;
  env: NodeJS.ProcessEnv;
  reasoner: Reasoner | null;
  report: Reporter;
  /** Human-readable lines (the daemon's stderr). */
  say: (line: string) => void;
  /** True once the daemon is stopping or killed: no fixes sync then. */
  halted: () => boolean;
}

export class StoreLife {
  /** The team store's health (a server that can go away); its `faults` tell a decision that
   *  read the store while it went away. */
  readonly guard: StoreGuard;
  private readonly retry: StoreRetry;
  private readonly shown: string;
  private store: StoreReader | null = null;
  private silenceReason = 'no-store';
  private fixesStamp = '';
  private pipeline: Pipeline | null = null;

  constructor(private readonly deps: StoreLifeDeps) {
    this.shown = displayLocation(deps.storePath);
    this.guard = new StoreGuard(this.shown);
    this.retry = new StoreRetry(deps.storePath);
  }

  /** Serve `pipeline`: open the store now (an absent one is logged `store-missing`). */
  start(pipeline: Pipeline): void {
    this.pipeline = pipeline;
    this.open();
    if (!this.store && this.silenceReason === 'no-store') this.deps.report.event({ event: 'store-missing', reason: 'no-store', path: this.deps.storePath });
  }

  /** Each cycle: open a store that appeared, drop a lost one, reconnect when due, sync fixes. */
  tick(): void {
    if (!this.store && this.silenceReason === 'no-store' && existsSync(this.deps.storePath)) this.open();
    this.lost();
    if (!this.store && this.guard.due()) this.open();
    if (!this.store && !this.guard.down && this.retry.due()) this.open();
    this.syncFixes();
  }

  /** At stop. */
  close(): void {
    try { this.store?.close(); } catch { /* closing */ }
  }

  /** After a guarded call saw the server go: drop the reader, go silent, reconnect later. */
  lost(): void {
    const s = this.store;
    if (!s || !this.guard.down) return;
    this.store = null;
    this.silenceReason = STORE_DOWN;
    this.pipeline!.setOfferBuilder(null, STORE_DOWN);
    try { s.close(); } catch { /* the connection is gone already */ }
    const h = this.guard.snapshot()!;
    this.deps.report.lastError = `${STORE_DOWN}: ${h.message}`;
    this.deps.report.event({ event: 'store-down', reason: 'connection-lost', path: this.shown, message: clip(h.message ?? ''), figures: { retryInMs: (h.nextRetryAt ?? h.since) - Date.now() } });
  }

  /** The hook's Past fixes, rebuilt from the store's resolved episodes when its change stamp
   *  moved (file stamp for SQLite, meta.generation for PostgreSQL). */
  private syncFixes(): void {
    const s = this.store;
    if (!s || this.deps.halted()) return;
    const t0 = performance.now();
    try {
      const stamp = s.changeStamp();
      if (stamp === this.fixesStamp) return;
      const r = syncFixesFrom(s, fixesDir(this.deps.env), stamp);
      // Only a complete rebuild counts: a read that failed is tried again next cycle.
      this.fixesStamp = stamp;
      if (r.written + r.removed + r.failed > 0) {
        this.deps.report.event({ event: 'fixes-synced', reason: 'store-changed', figures: { ...r, signatures: r.keys, ms: Math.round(performance.now() - t0) } });
      }
    } catch (e) {
      if (!isStoreUnreachable(e) && !this.guard.down) this.deps.report.fail('fixes-sync', e, { path: this.shown });
    }
    this.lost();
  }

  private open(): void {
    const { report, say, storePath } = this.deps;
    const pipeline = this.pipeline!;
    const wasDown = this.guard.down;
    const r = openStore(storePath, this.deps.embedder, this.guard);
    if (r.store) {
      this.store = r.store;
      this.guard.ok();
      const builder = createOfferBuilder({ store: r.store, embedder: this.deps.embedder, config: this.deps.config, reasoner: this.deps.reasoner });
      pipeline.setOfferBuilder(builder, 'no-store', r.store);
      this.silenceReason = 'no-store';
      if (this.retry.opened()) {
        if (isStoreOpenFailure(report.lastError)) report.lastError = null;
        report.event({ event: 'store-reconnected', reason: 'file-changed', path: this.shown });
        say(`the store at ${this.shown} opens again: offers resume`);
      }
      if (wasDown) {
        if (report.lastError?.startsWith(STORE_DOWN)) report.lastError = null;
        report.event({ event: 'store-reconnected', reason: 'reopened', path: this.shown });
      }
      this.syncFixes();
      return;
    }
    if (r.silence === STORE_DOWN) {
      const first = !this.guard.down;
      const delay = this.guard.lost(r.error);
      this.silenceReason = STORE_DOWN;
      pipeline.setOfferBuilder(null, STORE_DOWN);
      report.lastError = `${STORE_DOWN}: ${r.problem}`;
      if (first) {
        report.event({ event: 'store-down', reason: 'unreachable', path: this.shown, message: r.problem ?? '', figures: { retryInMs: delay } });
        say(`${r.problem} — running without retrieval until it answers (retrying with backoff)`);
      }
      return;
    }
    if (this.guard.down) {
      // Reopening after a loss failed for another reason (e.g. a password changed meanwhile):
      // stay down and keep the backoff, so a lasting setup error costs one attempt a minute.
      const prevMessage = this.guard.snapshot()?.message;
      this.guard.lost(r.error ?? r.problem);
      pipeline.setOfferBuilder(null, STORE_DOWN);
      if (r.problem && prevMessage !== r.problem) report.fail(r.silence ?? 'store-unreadable', r.problem, { path: this.shown });
      return;
    }
    if (r.silence !== this.silenceReason || r.problem) {
      this.silenceReason = r.silence ?? 'no-store';
      pipeline.setOfferBuilder(null, this.silenceReason);
      if (r.problem && this.retry.failed(r.problem)) {
        report.fail(this.silenceReason, r.problem, { path: storePath });
        say(`${r.problem} — running without retrieval (offers silent: ${this.silenceReason})`);
      }
    }
  }
}
