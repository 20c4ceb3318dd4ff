/**
 * The hook's per-session state file (<home>/hook-state/<session>.json, HookState) and the
 * lock that makes two racing prompts of one session count correctly: an O_EXCL lock file
 * next to it, taken with a short bounded wait. A lock older than STALE_LOCK_MS (a hook
 * that died holding it) is broken. Never blocks long: no lock in time → the caller stays
 * silent. Writes are atomic (temp + rename; see writeState on fsync).
 */
import { openSync, closeSync, unlinkSync, statSync, readFileSync, writeSync, writeFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir } from '../shared/atomic.js';
import { hookStateDir, sessionHookStatePath } from '../shared/paths.js';
import type { HookState } from '../shared/types.js';
import { parseState } from './gates.js';

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

/** Take the session lock within `waitMs`; returns a release function or null. */
export function acquireLock(path: string, waitMs: number, now: () => number = Date.now): (() => void) | null {
  const start = now();
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
      if (now() - statSync(path).mtimeMs > STALE_LOCK_MS) {
        unlinkSync(path);
        continue;
      }
    } catch { /* vanished between calls: retry */ }
    if (now() - start >= waitMs) return null;
    sleepMs(LOCK_POLL_MS);
  }
}

/** null = no state yet; 'invalid' = present but unreadable or malformed. */
export function readState(sessionId: string, env: NodeJS.ProcessEnv): HookState | null | 'invalid' {
  let raw: string;
  try {
    const path = sessionHookStatePath(sessionId, env);
    // A session's first prompt or failure has no state yet: asked without an exception (the
    // process's first thrown fs error costs ~0.4 ms, hook/inputs.ts readJsonFile).
    if (!statSync(path, { throwIfNoEntry: false })) return null;
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? null : 'invalid';
  }
  if (raw.length > MAX_STATE_BYTES) return 'invalid';
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
  ensureDir(hookStateDir(env));
  const path = sessionHookStatePath(state.sessionId, env);
  const tmp = `${path}.${process.pid}.tmp`;
  try {
    writeFileSync(tmp, JSON.stringify(state) + '\n', { mode: 0o600 });
    renameSync(tmp, path);
  } catch (e) {
    try { unlinkSync(tmp); } catch { /* not created */ }
    throw e;
  }
}
