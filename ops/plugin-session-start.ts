/**
 * The plugin's SessionStart hook: start the daemon, detached, when none runs for this state
 * dir — and never wait for it. Reads the daemon's lock and pid file (daemon/lock.ts, read-only)
 * and the KILL file; spawns `node bin/active-brain.js start` in its own process group with
 * stdio to <home>/logs/daemon.out (what `start --detach` uses) and returns at once. The
 * singleton lock stays the daemon's: a start that loses a race exits on its own. Everything
 * fails silently (the hook path prints nothing: SessionStart stdout would become context).
 * Bundled into one dependency-free CommonJS file (scripts/bundles.mjs: dist/session-start.bundle.cjs,
 * and the committed hooks/session-start.bundle.cjs that a plugin copy without dist/ runs),
 * launched by hooks/session-start.cjs with the plugin root.
 *
 * Which daemon: the plugin root's own CLI when that root is built (a clone loaded in place);
 * else the `active-brain` command on PATH (the CLI the user installed once, `npm link` or
 * `npm install -g`: a plugin copy installed by Claude Code has no dist/ and no node_modules/).
 * Neither: nothing starts, and one line says what to run — in the session (SessionStart's
 * `systemMessage`, shown to the person) and in daemon.out.
 */
import { spawn } from 'node:child_process';
import { accessSync, closeSync, constants, existsSync, openSync, realpathSync, writeSync } from 'node:fs';
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

/** The command name looked up on PATH when the plugin root is not built. */
export const CLI_NAME = 'active-brain';
/** The one command a plugin user runs when no CLI is found: the CLI, then its set-up. */
export const INSTALL_CLI_COMMAND = `npm install -g active-brain && ${CLI_NAME} setup`;
/** What the session shows (and daemon.out keeps) when no runnable CLI was found: the one step. */
export const NO_CLI_LINE = `active-brain plugin: no daemon started — the ${CLI_NAME} CLI is not installed (not on PATH). Run once in a terminal: ${INSTALL_CLI_COMMAND}\n`;

/** SessionStart's stdout for `no-cli`: Claude Code shows `systemMessage` to the person (and adds
 *  nothing to the model's context). Printed only in that case: otherwise SessionStart is silent. */
export function noCliOutput(): string {
  return JSON.stringify({ systemMessage: NO_CLI_LINE.trimEnd() }) + '\n';
}

/** argv that starts the daemon: the root's own built CLI, else `active-brain` from PATH (not
 *  one inside `root`: the plugin's bin/ may be on PATH and cannot run unbuilt). null: none. */
export function daemonArgv(root: string, env: NodeJS.ProcessEnv): string[] | null {
  if (existsSync(join(root, 'dist', 'cli', 'main.js'))) return [process.execPath, join(root, 'bin', 'active-brain.js'), 'start'];
  let rootReal = root;
  try {
    rootReal = realpathSync(root);
  } catch { /* keep as given */ }
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const p = join(dir, CLI_NAME);
    try {
      accessSync(p, constants.X_OK);
      const real = realpathSync(p);
      if (real.startsWith(rootReal + sep)) continue;
      return [p, 'start'];
    } catch { /* not there */ }
  }
  return null;
}

/** Spawn the daemon detached; returns its pid (undefined when the spawn failed). */
function spawnDaemon(argv: string[], env: NodeJS.ProcessEnv): number | undefined {
  const child = withDaemonOut(env, (fd) => spawn(argv[0], argv.slice(1), { detached: true, stdio: ['ignore', fd, fd], env, cwd: homeDir(env) }));
  child.on('error', () => undefined);
  child.unref();
  return child.pid;
}

function withDaemonOut<T>(env: NodeJS.ProcessEnv, f: (fd: number) => T): T {
  ensureDir(homeDir(env));
  ensureDir(logsDir(env));
  const fd = openSync(join(logsDir(env), DAEMON_OUT_FILE), APPEND_NOFOLLOW, 0o600);
  try {
    return f(fd);
  } finally {
    closeSync(fd);
  }
}

/** The hook's work: decide, maybe spawn. `root`: the plugin root (CLAUDE_PLUGIN_ROOT, or the
 *  launcher's parent folder). Never throws. */
export function sessionStart(env: NodeJS.ProcessEnv, root: string): StartDecision | 'no-cli' | 'failed' {
  try {
    const decision = decideStart({ optedOut: env[AUTOSTART_ENV] === '0', killed: existsSync(killPath(env)), lock: lockState(env) });
    if (decision !== 'start') return decision;
    const argv = daemonArgv(root, env);
    if (!argv) {
      try {
        withDaemonOut(env, (fd) => writeSync(fd, NO_CLI_LINE));
      } catch { /* the session still says it */ }
      return 'no-cli';
    }
    if (spawnDaemon(argv, env) === undefined) return 'failed';
    return decision;
  } catch {
    return 'failed'; // unwritable state dir, no logs dir, spawn refused: silence
  }
}
