/**
 * One indexer at a time: a proper-lockfile lock on `indexLockTarget()` (the directory
 * `<home>/indexer.lock`, mtime refreshed while held) plus `<home>/indexer.pid`. A second
 * indexer polls for `waitMs`, then refuses with IndexerBusyError naming the holder's pid.
 * A lock left by a crashed indexer is recovered at once when its pid is dead, else after
 * proper-lockfile's staleness period. Used by indexer/indexer.ts callers (the CLI, bench).
 */
import lockfile from 'proper-lockfile';
import { chmodSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir, indexLockTarget } from '../shared/paths.js';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';
import { AppError } from '../shared/errors.js';

/** A lock not refreshed for this long is stale (the holder froze or died). */
export const INDEX_LOCK_STALE_MS = 60_000;
/** How often the holder refreshes the lock. */
export const INDEX_LOCK_UPDATE_MS = 10_000;
/** Poll interval while waiting for another indexer. */
const POLL_MS = 100;
/** A fresh lock without a pid file may be an indexer starting right now: give it this long. */
const PID_GRACE_MS = 1_000;

export const indexPidPath = (env: NodeJS.ProcessEnv = process.env) => join(homeDir(env), 'indexer.pid');
const lockDir = (env: NodeJS.ProcessEnv) => `${indexLockTarget(env)}.lock`;

export class IndexerBusyError extends AppError {
  constructor(readonly pid: number | null) {
    super(
      `another indexer (pid ${pid ?? 'unknown'}) is running; wait for it to finish and run the command again ` +
        `(its changes will be visible then)`,
      1,
    );
    this.name = 'IndexerBusyError';
  }
}

function readPid(env: NodeJS.ProcessEnv): number | null {
  try {
    const n = Number.parseInt(readFileSync(indexPidPath(env), 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export interface IndexLock {
  release(): Promise<void>;
}

/** Take the indexer lock, waiting up to `waitMs` for a running indexer; else IndexerBusyError. */
export async function acquireIndexLock(waitMs: number, env: NodeJS.ProcessEnv = process.env): Promise<IndexLock> {
  ensureDir(homeDir(env));
  const target = indexLockTarget(env);
  const started = Date.now();
  let firstSeenWithoutPid: number | null = null;
  for (;;) {
    try {
      const release = await lockfile.lock(target, {
        realpath: false,
        stale: INDEX_LOCK_STALE_MS,
        update: INDEX_LOCK_UPDATE_MS,
        retries: 0,
        // Losing the lock mid-run (the event loop froze past staleness) must not crash the
        // indexer: every document is its own transaction, so finishing is still safe.
        onCompromised: () => {},
      });
      // proper-lockfile makes its directory with the default mode: keep the state dir 0700 throughout.
      try { chmodSync(`${target}.lock`, 0o700); } catch { /* gone already */ }
      writeFileAtomic(indexPidPath(env), `${process.pid}\n`);
      return {
        async release() {
          if (readPid(env) === process.pid) {
            try { unlinkSync(indexPidPath(env)); } catch { /* already gone */ }
          }
          try { await release(); } catch { /* compromised or already released */ }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ELOCKED') throw e;
    }
    const holder = readPid(env);
    if (holder !== null && holder !== process.pid && !alive(holder)) {
      rmSync(lockDir(env), { recursive: true, force: true }); // crashed indexer: recover now
      continue;
    }
    if (holder === null) {
      firstSeenWithoutPid ??= Date.now();
      if (Date.now() - firstSeenWithoutPid > PID_GRACE_MS + waitMs) {
        rmSync(lockDir(env), { recursive: true, force: true }); // left behind with no pid
        continue;
      }
    }
    if (Date.now() - started >= waitMs) throw new IndexerBusyError(holder);
    await sleep(POLL_MS);
  }
}
