/**
 * `active-brain stop`: SIGTERM the daemon that holds the singleton lock (daemon/lock.ts), wait
 * for it to exit (it flushes logs and releases the lock), report. Refuses to signal a pid that
 * no longer belongs to the daemon (pid file left behind, pid reused): then it is "not running".
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { lockState, pidAlive } from '../../daemon/lock.js';
import { readCanary } from '../../daemon/canary.js';
import { canaryPath } from '../../shared/paths.js';

/** How long to wait for the daemon to exit after SIGTERM. */
export const STOP_TIMEOUT_MS = 15_000;
const POLL_MS = 50;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export const command: Command = {
  name: 'stop',
  summary: 'stop the running daemon (SIGTERM, waits for a clean exit)',
  help: `usage: active-brain stop [--json]

Sends SIGTERM to the daemon holding the lock in $ACTIVE_BRAIN_HOME and waits up to
${STOP_TIMEOUT_MS / 1000} s for it to flush its logs, release the lock and exit.
Exit 0 when it stopped; 1 when no daemon is running or it did not stop in time.`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    const lock = lockState();
    const canary = readCanary(canaryPath());
    const pid = lock.pid ?? canary?.pid ?? null;
    // Ours only if the lock is fresh or the canary names the same pid: never signal a stranger.
    const ours = pid !== null && pidAlive(pid) && (lock.held || canary?.pid === pid);
    if (!ours) {
      if (values.json) printJson({ stopped: false, running: false, pid: null });
      throw new UserError('no daemon is running (nothing to stop). Start one with "active-brain start --detach".', EXIT.FAIL);
    }
    try {
      process.kill(pid, 'SIGTERM');
    } catch (e) {
      throw new UserError(`cannot signal pid ${pid}: ${(e as Error).message}. Is it another user's process?`, EXIT.ENV);
    }
    const t0 = Date.now();
    while (pidAlive(pid) && Date.now() - t0 < STOP_TIMEOUT_MS) await sleep(POLL_MS);
    const stopped = !pidAlive(pid);
    const waitedMs = Date.now() - t0;
    if (values.json) printJson({ stopped, running: !stopped, pid, waited_ms: waitedMs });
    else if (stopped) process.stdout.write(`active-brain daemon stopped (pid ${pid}, ${waitedMs} ms)\n`);
    if (!stopped) {
      throw new UserError(
        `daemon pid ${pid} did not exit within ${STOP_TIMEOUT_MS / 1000} s. Run "active-brain stop" again, or "kill -9 ${pid}" (the next start recovers the lock).`,
        EXIT.FAIL,
      );
    }
    return EXIT.OK;
  },
};
