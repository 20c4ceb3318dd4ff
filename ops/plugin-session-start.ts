/**
 * The plugin's SessionStart hook: start the daemon, detached, when none runs for this state
 * dir — and never wait for it. Reads the daemon's lock and pid file (daemon/lock.ts, read-only)
 * and the KILL file; spawns `node bin/active-brain.js start` in its own process group with
 * stdio to <home>/logs/daemon.out (what `start --detach` uses) and returns at once. The
 * singleton lock stays the daemon's: a start that loses a race exits on its own. Everything
 * fails silently (the hook path prints nothing: SessionStart stdout would become context).
 * Launched by hooks/session-start.cjs, which exits 0 when dist/ is not built.
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DAEMON_OUT_FILE, homeDir, killPath, logsDir } from '../shared/paths.js';
import { ensureDir } from '../shared/atomic.js';
import { lockState, type LockState } from '../daemon/lock.js';

/** Set to `0` (e.g. in Claude Code's settings.json `env`) to keep the plugin from starting the
 *  daemon — for users who run it as a service or stop it on purpose. */
export const AUTOSTART_ENV = 'ACTIVE_BRAIN_AUTOSTART';

export type StartDecision = 'start' | 'running' | 'killed' | 'opted-out';

export interface StartInputs {
  optedOut: boolean;
  killed: boolean;
  lock: LockState;
}

/** Pure: start unless opted out, killed, or a daemon holds a fresh lock (its pid alive, or not
 *  written yet: a daemon starting right now). A stale lock or a dead pid: start (the daemon
 *  recovers the lock itself). */
export function decideStart(s: StartInputs): StartDecision {
  if (s.optedOut) return 'opted-out';
  if (s.killed) return 'killed';
  if (s.lock.held && (s.lock.pid === null || s.lock.pidAlive)) return 'running';
  return 'start';
}

const CLI = fileURLToPath(new URL('../../bin/active-brain.js', import.meta.url));

/** Spawn the daemon detached; returns its pid (undefined when the spawn failed). */
function spawnDaemon(env: NodeJS.ProcessEnv): number | undefined {
  ensureDir(homeDir(env));
  ensureDir(logsDir(env));
  const fd = openSync(join(logsDir(env), DAEMON_OUT_FILE), 'a', 0o600);
  try {
    const child = spawn(process.execPath, [CLI, 'start'], { detached: true, stdio: ['ignore', fd, fd], env, cwd: homeDir(env) });
    child.on('error', () => undefined);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** The hook's work: decide, maybe spawn. Never throws. */
export function sessionStart(env: NodeJS.ProcessEnv = process.env): StartDecision | 'failed' {
  try {
    if (!existsSync(CLI)) return 'failed';
    const decision = decideStart({ optedOut: env[AUTOSTART_ENV] === '0', killed: existsSync(killPath(env)), lock: lockState(env) });
    if (decision === 'start' && spawnDaemon(env) === undefined) return 'failed';
    return decision;
  } catch {
    return 'failed'; // unwritable state dir, no logs dir, spawn refused: silence
  }
}
