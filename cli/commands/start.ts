/**
 * `active-brain start [--detach]`: run the daemon (daemon/main.ts). Foreground by default
 * (logs to logs/daemon.jsonl, errors to stderr; SIGTERM/SIGINT stop it cleanly). `--detach`
 * spawns the same command as a detached child with stdio to `<home>/logs/daemon.out`, waits
 * until its canary shows it cycling, prints its pid and returns.
 */
import { spawn } from 'node:child_process';
import { openSync, closeSync, existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { canaryPath, homeDir, killPath, logsDir, DAEMON_OUT_FILE } from '../../shared/paths.js';
import { ensureDir } from '../../shared/atomic.js';
import { readCanary } from '../../daemon/canary.js';
import { lockState } from '../../daemon/lock.js';
import { loadConfig } from '../../config/load.js';
import { SERVICE_MARKER } from '../../ops/service-files.js';
import { DAEMON_NODE_FLAGS, daemonEnv } from '../../shared/daemon-node-flags.js';

/** How long `start --detach` waits for the child's first canary (model load included). */
export const DETACH_WAIT_MS = 60_000;
/** Stdout/stderr of a detached daemon (defined in shared/paths.ts: the plugin's SessionStart uses it too). */
export { DAEMON_OUT_FILE };
/** Bytes of daemon.out shown when a detached start fails. */
const OUT_TAIL_BYTES = 2000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function tail(path: string, from: number): string {
  try {
    const buf = readFileSync(path);
    return buf.subarray(Math.max(from, buf.length - OUT_TAIL_BYTES)).toString('utf8').trim();
  } catch {
    return '';
  }
}

export interface Detached {
  pid: number;
  /** A daemon was running already: nothing was started. */
  already: boolean;
  out: string;
}

/**
 * Start the daemon in the background (or find it running) and wait for its first canary.
 * Used by `start --detach` and by `setup` where no service manager runs it. Throws a
 * UserError naming the cause (kill switch, early exit, no canary in time).
 */
export async function startDetached(sets: string[], env: NodeJS.ProcessEnv = process.env): Promise<Detached> {
  const outPath = join(logsDir(env), DAEMON_OUT_FILE);
  const lock = lockState(env);
  if (lock.held && lock.pid !== null && lock.pidAlive) return { pid: lock.pid, already: true, out: outPath };
  if (existsSync(killPath(env))) {
    throw new UserError(`the kill switch is on (${killPath(env)}): the daemon would stop at once. Run \`active-brain unkill\` first.`, EXIT.FAIL);
  }
  ensureDir(homeDir(env));
  ensureDir(logsDir(env));
  let outStart = 0;
  try { outStart = statSync(outPath).size; } catch { /* new file */ }
  const fd = openSync(outPath, 'a', 0o600);
  const bin = fileURLToPath(new URL('../../../bin/active-brain.js', import.meta.url));
  const args = [...DAEMON_NODE_FLAGS, bin, 'start', ...sets.flatMap((s) => ['--set', s])];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env: daemonEnv(env) });
  closeSync(fd);
  let exited: number | null = null;
  child.once('exit', (code, signal) => { exited = code ?? (signal ? 128 : 1); });
  child.unref();
  const pid = child.pid;
  if (!pid) throw new UserError(`could not spawn the daemon (see ${outPath})`, EXIT.ENV);
  const t0 = Date.now();
  while (Date.now() - t0 < DETACH_WAIT_MS) {
    if (exited !== null) {
      // Lost a race with another start: that daemon is the one (idempotent, like the check above).
      const now = lockState(env);
      if (exited === EXIT.FAIL && now.held && now.pid !== null && now.pid !== pid && now.pidAlive) return { pid: now.pid, already: true, out: outPath };
      const why = tail(outPath, outStart) || `exit code ${exited}`;
      throw new UserError(`the daemon exited during start: ${why}`, exited === 0 ? EXIT.FAIL : exited);
    }
    const c = readCanary(canaryPath(env));
    if (c && c.pid === pid && c.killed) {
      throw new UserError(`the daemon stopped at once: the kill switch is on (${killPath(env)}). Run \`active-brain unkill\`, then start again.`, EXIT.FAIL);
    }
    if (c && c.pid === pid) return { pid, already: false, out: outPath };
    await sleep(POLL_MS);
  }
  throw new UserError(
    `the daemon (pid ${pid}) did not report in within ${DETACH_WAIT_MS / 1000} s; see ${outPath} and "active-brain status".`,
    EXIT.FAIL,
  );
}

async function detach(sets: string[], json: boolean): Promise<number> {
  const d = await startDetached(sets);
  if (json) printJson({ started: !d.already, already_running: d.already, pid: d.pid, out: d.out });
  else if (d.already) process.stdout.write(`active-brain daemon already running, pid ${d.pid}\n`);
  else process.stdout.write(`active-brain daemon started (pid ${d.pid}); output in ${d.out}\n`);
  return EXIT.OK;
}

export const command: Command = {
  name: 'start',
  summary: 'run the daemon (foreground unless --detach)',
  help: `usage: active-brain start [--detach] [--json] [--set key.path=value ...]

Runs the active-brain daemon: watches Claude Code transcripts, decides (rarely) on one
offer per session and writes it to $ACTIVE_BRAIN_HOME/cache for the hook.
One daemon per state dir: \`start --detach\` when one runs already prints
"already running, pid N" and exits 0 (nothing to do); a second foreground start exits 1.

  --detach   run in the background (output in $ACTIVE_BRAIN_HOME/logs/${DAEMON_OUT_FILE});
             waits until it is cycling, then prints its pid
  --set      override a config value for this run (e.g. --set daemon.cycleMs=500)

Foreground: stop with Ctrl-C or SIGTERM (clean: logs flushed, lock released).
  --json     one JSON object: with --detach {"started","already_running","pid","out"} once it runs; in the
             foreground {"started","pid","root","home","exit"} when it has stopped
Exit codes: 0 stopped cleanly (idle exit, SIGTERM, the KILL file appearing while it runs), or
--detach found it running · 1 already running (foreground), or the kill switch is on at start (run \`active-brain unkill\`; under the
service manager that case exits 0 so it is not restarted in a loop) · 2 bad config ·
3 environment (model cannot load, state dir unwritable).`,
  async run(argv) {
    const { values } = parseFlags(argv, { detach: { type: 'boolean' } }, false);
    const sets = values.set ?? [];
    const json = Boolean(values.json);
    loadConfig({ flags: sets }); // bad config: exit 2 here, before anything starts
    // The kill switch: a person asked for a daemon and gets none — exit 1, whichever way they
    // started it. Under a service manager (its unit sets SERVICE_MARKER) the daemon's own
    // clean exit 0 stands, so the manager does not restart it in a loop.
    if (existsSync(killPath()) && (values.detach || !process.env[SERVICE_MARKER])) {
      if (json) {
        printJson({ started: false, reason: 'kill-switch', kill_file: killPath() });
        return EXIT.FAIL;
      }
      throw new UserError(`the kill switch is on (${killPath()}): the daemon would stop at once. Run \`active-brain unkill\` first.`, EXIT.FAIL);
    }
    if (values.detach) return detach(sets, json);
    const { runDaemon } = await import('../../daemon/main.js');
    let ready: { pid: number; root: string; home: string } | null = null;
    const code = await runDaemon({ flags: sets, onReady: (r) => (ready = r) });
    // --json in the foreground: one object when the daemon has stopped (stdout is free of it until then).
    if (json) printJson({ started: ready !== null, ...(ready ?? {}), exit: code });
    return code;
  },
};
