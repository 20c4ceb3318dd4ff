/**
 * The plugin's SessionStart hook: start the daemon, detached, when none runs for this state
 * dir — and never wait for it (ops/plugin-daemon-start.ts: the decision, the command, the
 * spawn). When no CLI can start it (a plugin copy installed by Claude Code has no node_modules/
 * and no dist/, and no `active-brain` is on PATH), it spawns the plugin's background set-up
 * instead (ops/plugin-bootstrap.ts: npm ci in the plugin root, then the daemon), once: a lock in
 * the state dir keeps a second session from starting another, a recorded failure keeps it from
 * retrying on its own (ops/plugin-bootstrap-state.ts). Returns at once in every case.
 * Bundled into one dependency-free CommonJS file (scripts/bundles.mjs: dist/session-start.bundle.cjs,
 * and the committed hooks/session-start.bundle.cjs that a plugin copy without dist/ runs),
 * launched by hooks/session-start.cjs with the plugin root; hooks/plugin-bootstrap.cjs loads the
 * same bundle for runBootstrap.
 *
 * Which daemon: the plugin root's own CLI when that root is built (a clone loaded in place, or a
 * copy the set-up finished); else the `active-brain` command on PATH (`npm install -g`, `npm
 * link`); else the set-up. What the session sees: nothing, but for one line (SessionStart's
 * `systemMessage`, shown to the person, not added to the model's context) when the set-up starts,
 * is still running, has failed (where, and what to run by hand), or cannot run (no npm, or
 * ACTIVE_BRAIN_PLUGIN_BOOTSTRAP=0: the line says what to install).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, openSync, writeSync } from 'node:fs';
import { APPEND_NOFOLLOW, ensureDir } from '../shared/atomic.js';
import { logsDir } from '../shared/paths.js';
import { CLI_NAME, pathDaemonArgv, rootBuiltMarker, rootDaemonArgv, spawnDaemon, startDecision, withDaemonOut, type StartDecision } from './plugin-daemon-start.js';
import { BOOTSTRAP_ENV, INSTALL_CLI_COMMAND, bootstrapFailedLine, bootstrapLauncher, bootstrapLogPath, bootstrapRunning, bootstrapRunningLine, bootstrapStartedLine, readFailure } from './plugin-bootstrap-state.js';
import { findNpm } from './plugin-bootstrap.js';

export { AUTOSTART_ENV, CLI_NAME, decideStart, daemonArgv, type StartDecision, type StartInputs } from './plugin-daemon-start.js';
export { runBootstrap } from './plugin-bootstrap.js';
export { INSTALL_CLI_COMMAND } from './plugin-bootstrap-state.js';

/** What the session shows (and daemon.out keeps) when no CLI was found and no set-up can run. */
export const NO_CLI_LINE = `active-brain plugin: no daemon started — the ${CLI_NAME} CLI is not installed (not on PATH). Run once in a terminal: ${INSTALL_CLI_COMMAND}\n`;

export type PluginStartAction = StartDecision | 'start-root' | 'start-path' | 'bootstrapping' | 'bootstrap' | 'bootstrap-failed' | 'no-cli';

export interface PluginStartInputs {
  daemon: StartDecision;
  /** A set-up holds its lock (it may be writing this root's node_modules/ and dist/ right now). */
  bootstrapRunning: boolean;
  /** The root's dist/cli/main.js exists. */
  rootBuilt: boolean;
  /** The last set-up of this root failed (and nothing cleared it since). */
  failedHere: boolean;
  /** An `active-brain` outside the root is on PATH. */
  pathCli: boolean;
  /** npm is found and the set-up is not opted out. */
  canBootstrap: boolean;
}

/** Pure: what SessionStart does. The kill switch and the opt-out win; then a set-up in progress
 *  (its root may be half written). A running daemon is left alone, but a root with nothing to run
 *  it from (unbuilt, no CLI on PATH, no failed set-up: e.g. a plugin update's new copy while the
 *  old copy's daemon runs) is set up all the same, so that its MCP server and recall hint work.
 *  With no daemon: the root's own build (unless its set-up failed: a dist/ without working
 *  dependencies), the CLI on PATH, the recorded failure, a new set-up, and last the line saying
 *  what to install. */
export function decidePluginStart(s: PluginStartInputs): PluginStartAction {
  if (s.daemon === 'killed' || s.daemon === 'opted-out') return s.daemon;
  if (s.bootstrapRunning) return 'bootstrapping';
  const rootUsable = s.rootBuilt && !s.failedHere;
  if (s.daemon === 'running') return !rootUsable && !s.pathCli && !s.failedHere && s.canBootstrap ? 'bootstrap' : 'running';
  if (rootUsable) return 'start-root';
  if (s.pathCli) return 'start-path';
  if (s.failedHere) return 'bootstrap-failed';
  if (s.canBootstrap) return 'bootstrap';
  return 'no-cli';
}

/** SessionStart's result: the action taken, or 'failed' when the spawn or the state dir failed. */
export type SessionStartResult = Exclude<PluginStartAction, 'start-root' | 'start-path' | 'bootstrap'> | 'bootstrap-started' | 'failed';

/** Spawn the set-up detached (hooks/plugin-bootstrap.cjs), stdio appended to its log. */
function spawnBootstrap(env: NodeJS.ProcessEnv, root: string): number | undefined {
  ensureDir(logsDir(env));
  const fd = openSync(bootstrapLogPath(env), APPEND_NOFOLLOW, 0o600);
  try {
    const child = spawn(process.execPath, [bootstrapLauncher(root)], { detached: true, stdio: ['ignore', fd, fd], env, cwd: root });
    child.on('error', () => undefined);
    child.unref();
    return child.pid;
  } finally {
    closeSync(fd);
  }
}

/** The hook's work: decide, maybe spawn. `root`: the plugin root (CLAUDE_PLUGIN_ROOT, or the
 *  launcher's parent folder). Never throws. */
export function sessionStart(env: NodeJS.ProcessEnv, root: string): SessionStartResult {
  try {
    const daemon = startDecision(env);
    if (daemon === 'killed' || daemon === 'opted-out') return daemon;
    // A running daemon with a built root (the common case) costs no more than before: one stat.
    if (daemon === 'running' && existsSync(rootBuiltMarker(root))) return daemon;
    const failedHere = readFailure(env, root) !== null;
    const action = decidePluginStart({
      daemon,
      bootstrapRunning: bootstrapRunning(env),
      rootBuilt: existsSync(rootBuiltMarker(root)),
      failedHere,
      pathCli: pathDaemonArgv(root, env) !== null,
      canBootstrap: env[BOOTSTRAP_ENV] !== '0' && existsSync(bootstrapLauncher(root)) && findNpm(env, root) !== null,
    });
    switch (action) {
      case 'start-root':
      case 'start-path':
        return spawnDaemon(action === 'start-root' ? rootDaemonArgv(root)! : pathDaemonArgv(root, env)!, env) === undefined ? 'failed' : 'start';
      case 'bootstrap':
        return spawnBootstrap(env, root) === undefined ? 'failed' : 'bootstrap-started';
      case 'no-cli':
        try {
          withDaemonOut(env, (fd) => writeSync(fd, NO_CLI_LINE));
        } catch { /* the session still says it */ }
        return action;
      default:
        return action;
    }
  } catch {
    return 'failed'; // unwritable state dir, no logs dir, spawn refused: silence
  }
}

/** SessionStart's stdout for a result: one `systemMessage` (Claude Code shows it to the person
 *  and adds nothing to the model's context) when there is something to say; '' otherwise. */
export function sessionOutput(result: SessionStartResult, env: NodeJS.ProcessEnv, root: string): string {
  let line: string | null = null;
  if (result === 'no-cli') line = NO_CLI_LINE.trimEnd();
  else if (result === 'bootstrap-started') line = bootstrapStartedLine(env);
  else if (result === 'bootstrapping') line = bootstrapRunningLine(env);
  else if (result === 'bootstrap-failed') {
    const f = readFailure(env, root);
    if (f) line = bootstrapFailedLine(env, f);
  }
  return line === null ? '' : JSON.stringify({ systemMessage: line }) + '\n';
}

