/**
 * The daemon singleton: a proper-lockfile lock on `lockTarget()` (the lock itself is the
 * directory `<home>/daemon.lock`, its mtime refreshed while held) plus a pid file
 * `<home>/daemon.pid`. A second daemon gets AlreadyRunningError with the holder's pid.
 * Stale locks are recovered two ways: proper-lockfile's mtime staleness (a holder that stopped
 * refreshing, e.g. a reused pid) and, for a fresh-looking lock, the holder's pid being dead
 * (a daemon killed with SIGKILL a moment ago). Used by daemon/startup.ts, `stop` and `status`.
 */
import lockfile from 'proper-lockfile';
import { chmodSync, readFileSync, rmSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir, lockTarget } from '../shared/paths.js';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';

/** A lock whose mtime was not refreshed for this long is stale (proper-lockfile `stale`). */
export const LOCK_STALE_MS = 30_000;
/** How often the holder refreshes the lock's mtime. */
export const LOCK_UPDATE_MS = 5_000;
/** A lock without a pid file may be a daemon starting right now: wait this long for its pid. */
export const PID_WAIT_MS = 1_500;
const PID_POLL_MS = 50;

export const pidPath = (env: NodeJS.ProcessEnv = process.env) => join(homeDir(env), 'daemon.pid');
export const lockDirPath = (env: NodeJS.ProcessEnv = process.env) => `${lockTarget(env)}.lock`;

export class AlreadyRunningError extends Error {
  constructor(readonly pid: number | null) {
    super(`active-brain daemon already running (pid ${pid ?? 'unknown'})`);
  }
}

export interface DaemonLock {
  /** How the lock was obtained: fresh, or by recovering a stale one (and why). */
  readonly recovered: null | 'dead-pid' | 'no-pid';
  release(): Promise<void>;
}

/** True when a process with this pid exists (EPERM counts: it exists, just not ours). */
export function pidAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/** Linux: an exited process not yet reaped by its parent still answers kill(0); it is not alive. */
function isZombie(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) === 'Z';
  } catch {
    return false;
  }
}

export function readPidFile(env: NodeJS.ProcessEnv = process.env): number | null {
  try {
    const n = Number.parseInt(readFileSync(pidPath(env), 'utf8').trim(), 10);
    return Number.isInteger(n) && n > 0 ? n : null;
  } catch {
    return null;
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function lockOpts(onCompromised?: (e: Error) => void) {
  return {
    realpath: false,
    stale: LOCK_STALE_MS,
    update: LOCK_UPDATE_MS,
    retries: 0,
    onCompromised: onCompromised ?? ((e: Error) => { throw e; }),
  };
}

/**
 * Take the singleton lock or throw AlreadyRunningError. `onCompromised` runs if the lock is
 * lost while held (the daemon should stop).
 */
export async function acquireDaemonLock(
  env: NodeJS.ProcessEnv = process.env,
  onCompromised?: (e: Error) => void,
): Promise<DaemonLock> {
  ensureDir(homeDir(env));
  const target = lockTarget(env);
  let recovered: DaemonLock['recovered'] = null;
  for (let attempt = 0; ; attempt++) {
    try {
      const release = await lockfile.lock(target, lockOpts(onCompromised));
      // proper-lockfile makes its directory with the default mode: keep the state dir 0700 throughout.
      try { chmodSync(lockDirPath(env), 0o700); } catch { /* lock dir already gone: compromised, handled above */ }
      writeFileAtomic(pidPath(env), `${process.pid}\n`);
      return {
        recovered,
        async release() {
          if (readPidFile(env) === process.pid) {
            try { unlinkSync(pidPath(env)); } catch { /* already gone */ }
          }
          try { await release(); } catch { /* compromised or already released */ }
        },
      };
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ELOCKED' || attempt >= 1) {
        if ((e as NodeJS.ErrnoException).code === 'ELOCKED') throw new AlreadyRunningError(readPidFile(env));
        throw e;
      }
    }
    // The lock looks fresh. Whose is it?
    let holder = readPidFile(env);
    for (let waited = 0; holder === null && waited < PID_WAIT_MS; waited += PID_POLL_MS) {
      await sleep(PID_POLL_MS);
      holder = readPidFile(env);
    }
    if (holder !== null && holder !== process.pid && pidAlive(holder)) throw new AlreadyRunningError(holder);
    recovered = holder === null ? 'no-pid' : 'dead-pid';
    rmSync(lockDirPath(env), { recursive: true, force: true });
  }
}

export interface LockState {
  /** The lock directory exists and was refreshed within LOCK_STALE_MS. */
  held: boolean;
  /** Pid from the pid file, and whether that process exists. */
  pid: number | null;
  pidAlive: boolean;
  /** Age of the lock's last refresh (ms), null when there is no lock. */
  lockAgeMs: number | null;
}

/** What the lock says right now (read-only; never takes or breaks the lock). */
export function lockState(env: NodeJS.ProcessEnv = process.env, now = Date.now()): LockState {
  let lockAgeMs: number | null = null;
  try {
    lockAgeMs = Math.max(0, now - statSync(lockDirPath(env)).mtimeMs);
  } catch { /* no lock */ }
  const pid = readPidFile(env);
  return {
    held: lockAgeMs !== null && lockAgeMs <= LOCK_STALE_MS,
    pid,
    pidAlive: pid !== null && pidAlive(pid),
    lockAgeMs,
  };
}
