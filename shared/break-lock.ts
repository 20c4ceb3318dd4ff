/**
 * Breaking a stale lock file by one process only (pure fs, dependency-free: the hook bundles it).
 * Two processes that both judged the same lock stale would otherwise each remove "it" — the
 * second removing the lock the first had just taken in its place — and both would go on. So the
 * lock is removed under a short lock of its own, `<lock>.break` (O_EXCL, never through a symlink),
 * and judged again there. Used by the hook's session lock (hook/state.ts) and the plugin set-up's
 * lock (ops/plugin-bootstrap-state.ts); daemon/housekeeping.ts removes hour-old break locks.
 */
import { closeSync, constants, lstatSync, openSync, unlinkSync } from 'node:fs';

/** The break lock's name after the lock's. */
export const BREAK_SUFFIX = '.break';

const BREAK_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | (constants.O_NOFOLLOW ?? 0);

/**
 * Remove `lockPath` if `stillStale()` says so under the break lock. Another process holding the
 * break lock: nothing done (false: the caller waits or gives up and looks again); a break lock
 * itself older than `breakStaleMs` by its own mtime (its holder died in these lines; a dangling
 * symlink too) is removed. True when the lock was judged again and removed if still stale: the
 * caller may try it now. False also when it could not be removed (a folder at its name): the
 * caller's own bound decides. Never throws.
 */
export function breakStaleLock(lockPath: string, stillStale: () => boolean, breakStaleMs: number, now: () => number = Date.now): boolean {
  const breakPath = `${lockPath}${BREAK_SUFFIX}`;
  try {
    closeSync(openSync(breakPath, BREAK_FLAGS, 0o600));
  } catch {
    try {
      if (now() - lstatSync(breakPath).mtimeMs > breakStaleMs) unlinkSync(breakPath);
    } catch { /* gone meanwhile */ }
    return false;
  }
  try {
    if (stillStale()) unlinkSync(lockPath);
    return true;
  } catch {
    return false; // gone meanwhile, or not removable: the caller's bound decides
  } finally {
    try { unlinkSync(breakPath); } catch { /* gone */ }
  }
}
