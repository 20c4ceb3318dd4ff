/**
 * The state of the plugin's background set-up (ops/plugin-bootstrap.ts), kept in the state dir
 * so that SessionStart (ops/plugin-session-start.ts) and the set-up itself agree without talking:
 *   <home>/plugin-bootstrap.lock         {pid, root, startedAt}: one set-up at a time, whatever the
 *                                        session that asked; created O_EXCL by the set-up process
 *                                        itself, removed when it ends; a dead pid or an age past
 *                                        BOOTSTRAP_TIMEOUT_MS makes it stale (taken over,
 *                                        under <lock>.break: shared/break-lock.ts);
 *   <home>/plugin-bootstrap-failed.json  {root, step, detail, at}: the last set-up of `root` failed
 *                                        there; removed when a set-up starts again;
 *   <home>/logs/plugin-bootstrap.log     what the set-up and npm printed.
 * Also the lines a session shows about it (SessionStart's systemMessage). Files are read as
 * untrusted: a malformed one counts as absent, and what is shown is stripped of control characters.
 */
import { closeSync, constants, linkSync, lstatSync, openSync, readFileSync, unlinkSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { homeDir, logsDir } from '../shared/paths.js';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import { pidAlive } from '../daemon/lock.js';
import { breakStaleLock } from '../shared/break-lock.js';
import { CLI_NAME } from './plugin-daemon-start.js';

/** Longest a set-up may run (npm ci with a cold cache and a native build from source took 3 min
 *  on the shared 2-core test machine); past it the set-up stops npm and records a failure, and a
 *  lock this old is stale. */
export const BOOTSTRAP_TIMEOUT_MS = 20 * 60_000;

/** Set to `0` (e.g. in Claude Code's settings.json `env`) to keep the plugin from installing its
 *  own dependencies: with no CLI found, the session then only says what to run. */
export const BOOTSTRAP_ENV = 'ACTIVE_BRAIN_PLUGIN_BOOTSTRAP';

export const bootstrapLockPath = (env: NodeJS.ProcessEnv) => join(homeDir(env), 'plugin-bootstrap.lock');
export const bootstrapFailedPath = (env: NodeJS.ProcessEnv) => join(homeDir(env), 'plugin-bootstrap-failed.json');
export const bootstrapLogPath = (env: NodeJS.ProcessEnv) => join(logsDir(env), 'plugin-bootstrap.log');
/** The set-up's launcher in the plugin root: what SessionStart spawns and what a person runs by hand. */
export const bootstrapLauncher = (root: string) => join(root, 'hooks', 'plugin-bootstrap.cjs');

export interface BootstrapLock { pid: number; root: string; startedAt: number }
export interface BootstrapFailure { root: string; step: string; detail: string; at: number }

/** Pure: does this lock keep another set-up from running (its process alive, not past the timeout)? */
export function lockHeld(lock: BootstrapLock | null, now: number, alive: (pid: number) => boolean): boolean {
  return lock !== null && now - lock.startedAt <= BOOTSTRAP_TIMEOUT_MS && alive(lock.pid);
}

/** A regular file's JSON (not through a symlink, at most 64 KB); null when absent or not one. */
function readJsonFile(path: string): unknown {
  try {
    const st = lstatSync(path);
    if (!st.isFile() || st.size > 65_536) return null;
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    return null;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null;

export function readLock(env: NodeJS.ProcessEnv): BootstrapLock | null {
  const v = readJsonFile(bootstrapLockPath(env));
  if (!isObj(v) || !Number.isInteger(v.pid) || (v.pid as number) <= 0 || typeof v.root !== 'string' || typeof v.startedAt !== 'number') return null;
  return { pid: v.pid as number, root: v.root, startedAt: v.startedAt };
}

/** Is a set-up running right now (a held lock)? */
export function bootstrapRunning(env: NodeJS.ProcessEnv, now = Date.now()): boolean {
  return lockHeld(readLock(env), now, pidAlive);
}

/** A break lock (shared/break-lock.ts) this old belongs to a set-up that died in its few lines. */
const BREAK_STALE_MS = 10_000;

/** Take the lock for this process: true when taken; false when another live set-up holds it.
 *  A stale lock (dead pid, too old, unreadable) is removed by one set-up only
 *  (shared/break-lock.ts) and taken over once. */
export function acquireLock(env: NodeJS.ProcessEnv, root: string, now = Date.now()): boolean {
  ensureDir(homeDir(env));
  for (let attempt = 0; attempt < 2; attempt++) {
    // The lock appears with its content already in it (written to a file of this process, then
    // linked into place: link fails on an existing name, atomically). A lock created empty and
    // written after would read as unreadable — stale — to a second set-up started in between.
    const tmp = `${bootstrapLockPath(env)}.${process.pid}.tmp`;
    try {
      const fd = openSync(tmp, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | (constants.O_NOFOLLOW ?? 0), 0o600);
      try {
        writeSync(fd, JSON.stringify({ pid: process.pid, root, startedAt: now } satisfies BootstrapLock) + '\n');
      } finally {
        closeSync(fd);
      }
      linkSync(tmp, bootstrapLockPath(env));
      return true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (lockHeld(readLock(env), now, pidAlive)) return false;
      breakStaleLock(bootstrapLockPath(env), () => !lockHeld(readLock(env), now, pidAlive), BREAK_STALE_MS);
    } finally {
      try {
        unlinkSync(tmp);
      } catch { /* not written */ }
    }
  }
  return false;
}

/** Remove the lock if it is this process's. */
export function releaseLock(env: NodeJS.ProcessEnv): void {
  if (readLock(env)?.pid !== process.pid) return;
  try {
    unlinkSync(bootstrapLockPath(env));
  } catch { /* gone */ }
}

/** The recorded failure of the last set-up of `root`; null when none (or it was another root's:
 *  a plugin update installs a new copy, which gets its own set-up). */
export function readFailure(env: NodeJS.ProcessEnv, root: string): BootstrapFailure | null {
  const v = readJsonFile(bootstrapFailedPath(env));
  if (!isObj(v) || v.root !== root || typeof v.step !== 'string' || typeof v.detail !== 'string' || typeof v.at !== 'number') return null;
  return { root: v.root, step: v.step, detail: v.detail, at: v.at };
}

export function recordFailure(env: NodeJS.ProcessEnv, f: BootstrapFailure): void {
  writeJsonAtomic(bootstrapFailedPath(env), f);
}

export function clearFailure(env: NodeJS.ProcessEnv): void {
  try {
    unlinkSync(bootstrapFailedPath(env));
  } catch { /* none */ }
}

/** Text from a file shown to the person: one line, no control characters, bounded. */
export function shown(text: string, max = 200): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** The one command that installs the CLI instead (the package). */
export const INSTALL_CLI_COMMAND = `npm install -g active-brain && ${CLI_NAME} setup`;

/** A set-up was just started in the background by this session. */
export function bootstrapStartedLine(env: NodeJS.ProcessEnv): string {
  return `active-brain plugin: setting itself up in the background (npm ci in the plugin folder, then your past sessions indexed and the daemon; a few minutes; log: ${bootstrapLogPath(env)}). Nothing to run: once it is done it watches in soak mode (silent) until you roll out with \`active-brain enable\`.`;
}

/** A set-up (started by an earlier session) is still running. */
export function bootstrapRunningLine(env: NodeJS.ProcessEnv): string {
  return `active-brain plugin: still setting itself up in the background (log: ${bootstrapLogPath(env)}). Offers start once it is done.`;
}

/** The last set-up of this root failed: where, and what to run by hand. */
export function bootstrapFailedLine(env: NodeJS.ProcessEnv, f: BootstrapFailure): string {
  return `active-brain plugin: setting itself up failed at ${shown(f.step, 40)} (${shown(f.detail)}; log: ${bootstrapLogPath(env)}). To retry and see why, run in a terminal: node "${shown(bootstrapLauncher(f.root), 400)}" — or install the CLI instead: ${INSTALL_CLI_COMMAND}`;
}
