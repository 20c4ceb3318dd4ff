/**
 * The daemon's store while it cannot be opened (corrupt, not SQLite, built with another
 * model): when to try again. The daemon (daemon/main.ts runDaemon) tells StoreRetry each
 * failed open and each success; every cycle it asks `due()`: yes when the file changed since the
 * failed open — its inode, size or mtime, or its WAL's (a store rebuilt in place or moved in) —
 * or, whatever the file says, every REOPEN_EVERY_MS (a change the stamp cannot see). So a
 * rebuilt store serves again within a cycle (daemon.cycleMs), without a restart. The team store
 * (PostgreSQL) going away is another matter: daemon/store-health.ts.
 */
import { statSync } from 'node:fs';

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
