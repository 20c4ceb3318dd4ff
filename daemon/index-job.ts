/**
 * The index job both schedules run — the daemon's own (daemon/index-schedule.ts) and the
 * service manager's timer (ops/index-schedule-files.ts, ops/service.ts): the CLI it starts,
 * its arguments, its CPU priority and where its output goes. Here, below both, so the daemon
 * never reaches up into ops/.
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { logsDir } from '../shared/paths.js';

/** The arguments after the CLI path: what every scheduled run executes. */
export const INDEX_ARGS = ['index'] as const;
/** The lowest CPU priority (nice 19): a scheduled index never competes with the user's work. */
export const INDEX_NICE = 19;

export function cliPath(): string {
  // dist/daemon/index-job.js → <package>/bin/active-brain.js
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'active-brain.js');
}

/** Output of the scheduled index runs. */
export const indexOutFile = (env: NodeJS.ProcessEnv = process.env) => join(logsDir(env), 'index.out');
