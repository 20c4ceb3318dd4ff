/**
 * The plugin's background set-up: makes the plugin root Claude Code runs (the cache copy of the
 * git tree, or a local marketplace's clone in place: no node_modules/, no dist/) runnable, then
 * starts the daemon from it. Run by
 * hooks/plugin-bootstrap.cjs — spawned detached by SessionStart when no CLI is found
 * (ops/plugin-session-start.ts; stdout/stderr then go to <home>/logs/plugin-bootstrap.log), or
 * by a person in a terminal to retry and watch. Steps, in the plugin root:
 *   1. take the set-up lock (ops/plugin-bootstrap-state.ts); held by a live set-up: exit 2;
 *   2. `npm ci --no-audit --no-fund`: the lockfile's dependencies, dev ones included (the build
 *      needs esbuild), native ones built by their install scripts; npm's `prepare` builds dist/;
 *   3. check: dist/cli/main.js exists and better-sqlite3 loads in this Node;
 *   4. unless the kill switch is on or ACTIVE_BRAIN_AUTOSTART=0: the root's own CLI's
 *      `setup --plugin` (the model, the transcripts root registered and indexed, the daemon
 *      started running the scheduled index itself; no hooks, no user services: the plugin has
 *      those) — exit 2 or 3 (nothing usable: the model cannot load…) is a failure, exit 1 (a
 *      step failed, e.g. some documents not indexed) is logged and the set-up goes on;
 *   5. the daemon from the root's own CLI (bin/active-brain.js start) if none runs yet.
 * A step that fails (or npm past BOOTSTRAP_TIMEOUT_MS, or a signal) is recorded in
 * <home>/plugin-bootstrap-failed.json (the next session says so in one line) and exits 1.
 * npm runs with this Node's folder first on PATH (native modules are built for the Node that
 * runs the daemon) and, when no nodedir is configured by environment, `npm_config_nodedir` set to
 * this Node's install prefix if its headers are there: node-gyp then builds from them instead of
 * downloading headers (a machine that reaches only the npm registry: better-sqlite3's prebuilt
 * download from GitHub fails, and the build from source needs the headers).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, dirname, join } from 'node:path';
import { acquireLock, BOOTSTRAP_TIMEOUT_MS, clearFailure, readLock, recordFailure, releaseLock } from './plugin-bootstrap-state.js';
import { onPath, rootBuiltMarker, rootCliPath, rootDaemonArgv, spawnDaemon, startDecision } from './plugin-daemon-start.js';

/** npm's arguments: exactly the lockfile, no network chatter beyond the registry. */
export const NPM_CI_ARGS = ['ci', '--no-audit', '--no-fund'];

/** Then the CLI's own set-up, for a plugin (cli/commands/setup.ts `--plugin`): the model, the
 *  transcripts root as a source and its first index, the daemon running the scheduled index. */
export const SETUP_ARGS = ['setup', '--plugin'];
/** setup's exits that leave nothing usable (2 bad config, 3 environment: the model cannot load,
 *  the store cannot be read, or it could not run); 1 (a step failed, e.g. some documents not
 *  indexed) leaves a usable set-up: logged, and the set-up goes on. */
const SETUP_FATAL = /^(exit [23]|killed|stopped|could not run)/;

/** Exit codes of a set-up run. */
export const BOOTSTRAP_EXIT = { done: 0, failed: 1, busy: 2 } as const;

/** The check after npm: the build is there and the native SQLite module loads in this Node. */
const CHECK_SCRIPT = "new (require('better-sqlite3'))(':memory:').close()";

/** npm found on PATH, else beside this Node (where a Node install puts it); null: none. */
export function findNpm(env: NodeJS.ProcessEnv, root: string, execPath = process.execPath): string | null {
  return onPath('npm', env, root) ?? onPath('npm', { PATH: dirname(execPath) }, root);
}

/** Pure: the environment npm runs with — this Node's folder first on PATH, and npm_config_nodedir
 *  = this Node's prefix when `headersAt(prefix)` and no nodedir is set in the environment. */
export function npmEnv(env: NodeJS.ProcessEnv, execPath: string, headersAt: (prefix: string) => boolean): NodeJS.ProcessEnv {
  const nodeDir = dirname(execPath);
  const out: NodeJS.ProcessEnv = { ...env, PATH: [nodeDir, env.PATH ?? ''].filter(Boolean).join(delimiter) };
  const prefix = dirname(nodeDir);
  if (!Object.keys(env).some((k) => k.toLowerCase() === 'npm_config_nodedir') && headersAt(prefix)) out.npm_config_nodedir = prefix;
  return out;
}

/** A Node install prefix with the headers node-gyp needs. */
export const hasNodeHeaders = (prefix: string) => existsSync(join(prefix, 'include', 'node', 'node.h'));

const say = (text: string) => process.stdout.write(`[${new Date().toISOString()}] plugin set-up: ${text}\n`);

/** Run argv in `cwd` with inherited stdio (the log, or the terminal), in its own process group so
 *  that a timeout or a signal stops npm's children too. Resolves to a failure detail or null. */
function runStep(argv: string[], cwd: string, env: NodeJS.ProcessEnv, timeoutMs: number, stop: { kill?: () => void }): Promise<string | null> {
  return new Promise((done) => {
    const child = spawn(argv[0], argv.slice(1), { cwd, env, stdio: ['ignore', 'inherit', 'inherit'], detached: true });
    const kill = () => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch { /* gone */ }
    };
    stop.kill = kill;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      kill();
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      done(`could not run ${argv[0]}: ${e.message}`);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      stop.kill = undefined;
      if (timedOut) done(`stopped after ${Math.round(timeoutMs / 60_000)} min`);
      else if (code === 0) done(null);
      else done(code !== null ? `exit ${code}` : `killed by ${signal}`);
    });
  });
}

/** The whole set-up; returns its exit code (BOOTSTRAP_EXIT). Never throws. */
export async function runBootstrap(env: NodeJS.ProcessEnv, root: string, timeoutMs = BOOTSTRAP_TIMEOUT_MS): Promise<number> {
  const t0 = Date.now();
  try {
    if (!acquireLock(env, root)) {
      say(`another set-up is running (pid ${readLock(env)?.pid ?? '?'}); nothing to do`);
      return BOOTSTRAP_EXIT.busy;
    }
  } catch (e) {
    say(`cannot take the set-up lock: ${(e as Error).message}`);
    return BOOTSTRAP_EXIT.failed;
  }
  const stop: { kill?: () => void } = {};
  const onSignal = (sig: NodeJS.Signals) => {
    stop.kill?.();
    fail('signal', `stopped by ${sig}`);
    releaseLock(env);
    process.exit(BOOTSTRAP_EXIT.failed);
  };
  const fail = (step: string, detail: string): number => {
    say(`FAILED at ${step}: ${detail} (after ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
    try {
      recordFailure(env, { root, step, detail, at: Date.now() });
    } catch { /* unwritable state dir: the log says it */ }
    return BOOTSTRAP_EXIT.failed;
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  try {
    clearFailure(env);
    say(`started in ${root} (node ${process.version}, pid ${process.pid})`);
    const npm = findNpm(env, root);
    if (!npm) return fail('npm', 'npm is not on PATH');
    const npmRunEnv = npmEnv(env, process.execPath, hasNodeHeaders);
    say(`${npm} ${NPM_CI_ARGS.join(' ')}${npmRunEnv.npm_config_nodedir && !env.npm_config_nodedir ? ` (nodedir ${npmRunEnv.npm_config_nodedir})` : ''}`);
    const ci = await runStep([npm, ...NPM_CI_ARGS], root, npmRunEnv, Math.max(1, timeoutMs - (Date.now() - t0)), stop);
    if (ci) return fail('npm ci', ci);
    say(`npm ci done after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    if (!existsSync(rootBuiltMarker(root))) return fail('build', 'npm ci left no dist/cli/main.js (npm scripts off? ignore-scripts)');
    const check = spawnSync(process.execPath, ['-e', CHECK_SCRIPT], { cwd: root, env, encoding: 'utf8', timeout: 60_000 });
    if (check.status !== 0) return fail('check', `better-sqlite3 does not load: ${(check.stderr || check.error?.message || '').split('\n').find((l) => /Error/.test(l)) ?? `exit ${check.status}`}`);
    say(`ready after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const decision0 = startDecision(env);
    if (decision0 === 'killed' || decision0 === 'opted-out') {
      say(`daemon not started: ${decision0}`);
      return BOOTSTRAP_EXIT.done;
    }
    say(`${SETUP_ARGS.join(' ')}`);
    const setup = await runStep([process.execPath, rootCliPath(root), ...SETUP_ARGS], root, env, Math.max(1, timeoutMs - (Date.now() - t0)), stop);
    if (setup && SETUP_FATAL.test(setup)) return fail('setup', `active-brain ${setup}`);
    say(setup ? `setup is not complete (${setup}; see above): going on` : `set up after ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const decision = startDecision(env);
    if (decision !== 'start') {
      say(decision === 'running' ? 'the daemon runs' : `daemon not started: ${decision}`);
      return BOOTSTRAP_EXIT.done;
    }
    const pid = spawnDaemon(rootDaemonArgv(root)!, env);
    if (pid === undefined) return fail('daemon', 'the daemon could not be spawned');
    say(`daemon started (pid ${pid}; its output: logs/daemon.out)`);
    return BOOTSTRAP_EXIT.done;
  } catch (e) {
    return fail('set-up', (e as Error).message);
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
    releaseLock(env);
  }
}
