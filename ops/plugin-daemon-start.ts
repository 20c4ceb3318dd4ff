/**
 * Starting the daemon from the plugin, detached: whether to (the daemon's lock and pid file,
 * read-only through daemon/lock.ts; the KILL file; ACTIVE_BRAIN_AUTOSTART), with which command
 * (the plugin root's own built CLI, else `active-brain` on PATH), and the spawn itself — its own
 * process group, stdio appended to <home>/logs/daemon.out (what `start --detach` uses), never
 * waited for. Used by the SessionStart hook (ops/plugin-session-start.ts) and by the plugin's
 * background set-up once the root is built (ops/plugin-bootstrap.ts). The singleton lock stays
 * the daemon's: a start that loses a race exits on its own.
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync, realpathSync } from 'node:fs';
import { delimiter, join, sep } from 'node:path';
import { DAEMON_OUT_FILE, homeDir, killPath, logsDir } from '../shared/paths.js';
import { APPEND_NOFOLLOW, ensureDir } from '../shared/atomic.js';
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

/** decideStart on this state dir as it is now. */
export function startDecision(env: NodeJS.ProcessEnv): StartDecision {
  return decideStart({ optedOut: env[AUTOSTART_ENV] === '0', killed: existsSync(killPath(env)), lock: lockState(env) });
}

/** The command name looked up on PATH when the plugin root is not built. */
export const CLI_NAME = 'active-brain';

/** The root's own CLI entry (bin/active-brain.js), and the file that says the root is built. */
export const rootCliPath = (root: string) => join(root, 'bin', 'active-brain.js');
export const rootBuiltMarker = (root: string) => join(root, 'dist', 'cli', 'main.js');

/** argv that starts the daemon from the root's own CLI; null when the root is not built. */
export function rootDaemonArgv(root: string): string[] | null {
  return existsSync(rootBuiltMarker(root)) ? [process.execPath, rootCliPath(root), 'start'] : null;
}

/** The first executable `name` on PATH that does not live inside `root` (the plugin's bin/ may
 *  be on PATH and cannot run unbuilt); null: none. */
export function onPath(name: string, env: NodeJS.ProcessEnv, root: string): string | null {
  let rootReal = root;
  try {
    rootReal = realpathSync(root);
  } catch { /* keep as given */ }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, name);
    try {
      accessSync(p, constants.X_OK);
      const real = realpathSync(p);
      if (real.startsWith(rootReal + sep)) continue;
      return p;
    } catch { /* not there */ }
  }
  return null;
}

/** argv that starts the daemon from the `active-brain` the user installed (on PATH); null: none. */
export function pathDaemonArgv(root: string, env: NodeJS.ProcessEnv): string[] | null {
  const p = onPath(CLI_NAME, env, root);
  return p ? [p, 'start'] : null;
}

/** argv that starts the daemon: the root's own built CLI, else `active-brain` from PATH. null: none. */
export function daemonArgv(root: string, env: NodeJS.ProcessEnv): string[] | null {
  return rootDaemonArgv(root) ?? pathDaemonArgv(root, env);
}

/** Run `f` with an fd appending to <home>/logs/daemon.out (created 0600, never through a symlink). */
export function withDaemonOut<T>(env: NodeJS.ProcessEnv, f: (fd: number) => T): T {
  ensureDir(homeDir(env));
  ensureDir(logsDir(env));
  const fd = openSync(join(logsDir(env), DAEMON_OUT_FILE), APPEND_NOFOLLOW, 0o600);
  try {
    return f(fd);
  } finally {
    closeSync(fd);
  }
}

/** Spawn the daemon detached; returns its pid (undefined when the spawn failed). */
export function spawnDaemon(argv: string[], env: NodeJS.ProcessEnv): number | undefined {
  const child = withDaemonOut(env, (fd) => spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', fd, fd], env, cwd: homeDir(env) }));
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}
