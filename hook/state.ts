/**
 * The hook's per-session state file (<home>/hook-state/<session>.json, HookState) and the
 * lock that makes two racing prompts of one session count correctly: an O_EXCL lock file
 * next to it, taken with a short bounded wait. A lock older than STALE_LOCK_MS (a hook
 * that died holding it) is broken, by one hook only (shared/break-lock.ts). Never blocks long: no
 * lock in time → the caller stays silent. Writes are atomic (temp + rename; see writeState on fsync).
 */
import { openSync, closeSync, constants, unlinkSync, statSync, writeSync, renameSync } from 'node:fs';
import { breakStaleLock } from '../shared/break-lock.js';
import { join } from 'node:path';
import { ensureDir } from '../shared/atomic.js';
import { homeDir, hookStateDir, sessionHookStatePath } from '../shared/paths.js';
import { dirTrust, readOwnFile } from './trust.js';
import type { HookState } from '../shared/types.js';
import { parseState } from './gates.js';

/** The temp file's open: created 0600, never through a symlink left at its name. */
const WRITE_FLAGS = constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0);
/** A lock file older than this belongs to a dead hook and is removed. */
export const STALE_LOCK_MS = 2000;
/** Poll interval while waiting for the lock. */
export const LOCK_POLL_MS = 2;
/** Largest state file read. */
export const MAX_STATE_BYTES = 64 * 1024;

const sleeper = new Int32Array(new SharedArrayBuffer(4));
function sleepMs(ms: number): void {
  Atomics.wait(sleeper, 0, 0, ms);
}

export function lockPathFor(sessionId: string, env: NodeJS.ProcessEnv): string {
  return join(hookStateDir(env), `${sessionId}.lock`);
}

/** The hook-state folder and the state dir are this user's, not writable by others, not
 *  symlinks (hook/trust.ts), or not there yet (created 0700 by the first write). */
function stateDirUsable(dir: string): boolean {
  return dirTrust(dir) !== 'untrusted' && dirTrust(join(dir, '..')) !== 'untrusted';
}

/** Take the session lock within `waitMs`; returns a release function or null (also when the
 *  folder is not the user's own: no lock, no state, silence). */
export function acquireLock(path: string, waitMs: number, now: () => number = Date.now): (() => void) | null {
  const start = now();
  if (!stateDirUsable(join(path, '..'))) return null;
  let madeDir = false;
  for (;;) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      try { writeSync(fd, String(process.pid)); } finally { closeSync(fd); }
      let released = false;
      return () => {
        if (released) return;
        released = true;
        try { unlinkSync(path); } catch { /* already gone */ }
      };
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' && !madeDir) {
        madeDir = true;
        ensureDir(join(path, '..'));
        continue;
      }
      if (code !== 'EEXIST') return null;
    }
    try {
      const stale = () => now() - statSync(path).mtimeMs > STALE_LOCK_MS;
      if (stale() && breakStaleLock(path, stale, STALE_LOCK_MS, now)) continue;
    } catch { /* vanished between calls: retry */ }
    if (now() - start >= waitMs) return null;
    sleepMs(LOCK_POLL_MS);
  }
}

/** null = no state yet; 'invalid' = present but unreadable or malformed. */
export function readState(sessionId: string, env: NodeJS.ProcessEnv): HookState | null | 'invalid' {
  // Only a file hook/trust.ts trusts; a session's first prompt or failure has none yet.
  const raw = readOwnFile(sessionHookStatePath(sessionId, env), MAX_STATE_BYTES, [homeDir(env), hookStateDir(env)]);
  if (raw === undefined) return null;
  if (raw === 'invalid') return 'invalid';
  try {
    return parseState(JSON.parse(raw), sessionId) ?? 'invalid';
  } catch {
    return 'invalid';
  }
}

/**
 * Atomic (temp file + rename, under the session lock) but not fsync'd: a sync costs tens of
 * ms on a busy disk, on every prompt. Readers always see a whole file; a power cut may lose
 * the last update, and a file left empty by one reads as invalid → that session stays
 * silent (fails closed).
 */
export function writeState(state: HookState, env: NodeJS.ProcessEnv): void {
  if (!stateDirUsable(hookStateDir(env))) throw new Error(`${hookStateDir(env)} is not this user's own folder`);
  ensureDir(hookStateDir(env));
  const path = sessionHookStatePath(state.sessionId, env);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    const fd = openSync(tmp, WRITE_FLAGS, 0o600);
    try { writeSync(fd, JSON.stringify(state) + '\n'); } finally { closeSync(fd); }
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* not created */ }
    throw e;
  }
}
