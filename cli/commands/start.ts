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

async function detach(sets: string[], json: boolean): Promise<number> {
  const lock = lockState();
  if (lock.held && lock.pid !== null && lock.pidAlive) {
    process.stderr.write(`active-brain daemon already running (pid ${lock.pid})\n`);
    return EXIT.FAIL;
  }
  if (existsSync(killPath())) {
    throw new UserError(`the kill switch is on (${killPath()}): the daemon would stop at once. Run \`active-brain unkill\` first.`, EXIT.FAIL);
  }
  ensureDir(homeDir());
  ensureDir(logsDir());
  const outPath = join(logsDir(), DAEMON_OUT_FILE);
  let outStart = 0;
  try { outStart = statSync(outPath).size; } catch { /* new file */ }
  const fd = openSync(outPath, 'a', 0o600);
  const bin = fileURLToPath(new URL('../../../bin/active-brain.js', import.meta.url));
  const args = [bin, 'start', ...sets.flatMap((s) => ['--set', s])];
  const child = spawn(process.execPath, args, { detached: true, stdio: ['ignore', fd, fd], env: process.env });
  closeSync(fd);
  let exited: number | null = null;
  child.once('exit', (code, signal) => { exited = code ?? (signal ? 128 : 1); });
  child.unref();
  const pid = child.pid;
  if (!pid) throw new UserError(`could not spawn the daemon (see ${outPath})`, EXIT.ENV);
  const t0 = Date.now();
  while (Date.now() - t0 < DETACH_WAIT_MS) {
    if (exited !== null) {
      const why = tail(outPath, outStart) || `exit code ${exited}`;
      throw new UserError(`the daemon exited during start: ${why}`, exited === 0 ? EXIT.FAIL : exited);
    }
    const c = readCanary(canaryPath());
    if (c && c.pid === pid && c.killed) {
      throw new UserError(`the daemon stopped at once: the kill switch is on (${killPath()}). Run \`active-brain unkill\`, then start again.`, EXIT.FAIL);
    }
    if (c && c.pid === pid) {
      if (json) printJson({ started: true, pid, out: outPath });
      else process.stdout.write(`active-brain daemon started (pid ${pid}); output in ${outPath}\n`);
      return EXIT.OK;
    }
    await sleep(POLL_MS);
  }
  throw new UserError(
    `the daemon (pid ${pid}) did not report in within ${DETACH_WAIT_MS / 1000} s; see ${outPath} and "active-brain status".`,
    EXIT.FAIL,
  );
}

export const command: Command = {
  name: 'start',
  summary: 'run the daemon (foreground unless --detach)',
  help: `usage: active-brain start [--detach] [--json] [--set key.path=value ...]

Runs the active-brain daemon: watches Claude Code transcripts, decides (rarely) on one
offer per session and writes it to $ACTIVE_BRAIN_HOME/cache for the hook.
One daemon per state dir: a second start prints the running pid and exits 1.

  --detach   run in the background (output in $ACTIVE_BRAIN_HOME/logs/${DAEMON_OUT_FILE});
             waits until it is cycling, then prints its pid
  --set      override a config value for this run (e.g. --set daemon.cycleMs=500)

Foreground: stop with Ctrl-C or SIGTERM (clean: logs flushed, lock released).
  --json     one JSON object: with --detach {"started","pid","out"} once it runs; in the
             foreground {"started","pid","root","home","exit"} when it has stopped
Exit codes: 0 stopped cleanly (idle exit, SIGTERM, the KILL file appearing while it runs) ·
1 already running, or the kill switch is on at start (run \`active-brain unkill\`; under the
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
