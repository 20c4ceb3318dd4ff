/**
 * The daemon's own index schedule (indexer.schedule = "daemon"): where no user service manager
 * runs the timer (containers, WSL, SSH sessions without lingering), the daemon starts the same
 * command the timer runs — `<node> <cli> index`, the incremental re-index of every source, at
 * nice 19 — every indexer.intervalMinutes. The daemon itself stays read-only: the run is a
 * separate process, the store's only writer, taking the indexer lock (indexer/lock.ts) that
 * the timer's runs and a user's `active-brain index` take too, and recorded in
 * logs/index.jsonl like every run. At most one run at a time: no new one while the last is
 * alive. Its output goes to logs/index.out, as the timer's does.
 *
 * The decision (is a run due) is pure (`dueAt`); the process start is injected so tests can
 * count starts. The state goes into the canary (`indexSchedule`), where `status` and `doctor`
 * read it.
 */
import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { setPriority } from 'node:os';
import { INDEX_ARGS, INDEX_NICE, indexOutFile } from './index-job.js';
import { lastIndexRun, readIndexLog } from './index-runs.js';
import { APPEND_NOFOLLOW, ensureDir } from '../shared/atomic.js';
import { logsDir } from '../shared/paths.js';
import type { IndexScheduleState } from '../shared/types.js';

const MS_PER_MINUTE = 60_000;

/** When the next run is due (pure): an interval after the last run started (or, without one,
 *  ended), or now when none is known. */
export function dueAt(last: { startedAt: number | null; endedAt: number | null }, intervalMinutes: number, now: number): number {
  const from = last.startedAt ?? last.endedAt;
  return from === null ? now : from + intervalMinutes * MS_PER_MINUTE;
}

/** A started run: its pid and a way to hear its end. */
export interface IndexChild {
  pid: number;
  onExit(cb: (code: number | null) => void): void;
}

/** Starts `<node> <cli> index` at nice 19 with its output appended to logs/index.out. */
export function spawnIndexRun(cli: string, env: NodeJS.ProcessEnv): IndexChild | null {
  ensureDir(logsDir(env));
  const fd = openSync(indexOutFile(env), APPEND_NOFOLLOW, 0o600);
  try {
    const child = spawn(process.execPath, [cli, ...INDEX_ARGS], { stdio: ['ignore', fd, fd], env });
    if (!child.pid) return null;
    try { setPriority(child.pid, INDEX_NICE); } catch { /* not permitted here: runs at the daemon's priority */ }
    return { pid: child.pid, onExit: (cb) => child.once('exit', (code) => cb(code)) };
  } finally {
    closeSync(fd);
  }
}

export interface ScheduleEvents {
  started(pid: number): void;
  ended(pid: number, code: number | null): void;
  failed(message: string): void;
}

export class DaemonIndexSchedule {
  private running: IndexChild | null = null;
  private startedAt: number | null = null;
  private endedAt: number | null = null;
  private lastExit: number | null = null;
  private enabled = false;
  private intervalMinutes = 0;

  constructor(
    private readonly start: () => IndexChild | null,
    private readonly events: ScheduleEvents,
    /** The last run recorded in logs/index.jsonl for this store (a restart does not re-run at once). */
    lastRecorded: { startedAt: number | null; endedAt: number | null } = { startedAt: null, endedAt: null },
  ) {
    this.startedAt = lastRecorded.startedAt;
    this.endedAt = lastRecorded.endedAt;
  }

  /** Called every cycle with the current config: starts a run when one is due. */
  tick(schedule: { enabled: boolean; intervalMinutes: number }, now = Date.now()): void {
    this.enabled = schedule.enabled;
    this.intervalMinutes = schedule.intervalMinutes;
    if (!this.enabled || this.running) return;
    if (now < dueAt({ startedAt: this.startedAt, endedAt: this.endedAt }, this.intervalMinutes, now)) return;
    let child: IndexChild | null;
    try {
      child = this.start();
    } catch (e) {
      this.events.failed((e as Error).message);
      this.startedAt = now;
      return;
    }
    this.startedAt = now; // a start that failed is retried an interval later, not every cycle
    if (!child) {
      this.events.failed('could not start `active-brain index`');
      return;
    }
    this.running = child;
    this.events.started(child.pid);
    child.onExit((code) => {
      this.running = null;
      this.endedAt = Date.now();
      this.lastExit = code;
      this.events.ended(child.pid, code);
    });
  }

  /** For the canary: null while the schedule is someone else's (indexer.schedule = "service"). */
  snapshot(now = Date.now()): IndexScheduleState | null {
    if (!this.enabled) return null;
    return {
      intervalMinutes: this.intervalMinutes,
      lastRunAt: this.startedAt,
      nextRunAt: this.running ? null : dueAt({ startedAt: this.startedAt, endedAt: this.endedAt }, this.intervalMinutes, now),
      runningPid: this.running?.pid ?? null,
      lastExit: this.lastExit,
    };
  }
}

/** The last run's start and end from logs/index.jsonl for this store. */
export function lastRecordedRun(storePath: string, env: NodeJS.ProcessEnv): { startedAt: number | null; endedAt: number | null } {
  try {
    const l = lastIndexRun(readIndexLog(env), storePath).last;
    return { startedAt: l?.started ?? null, endedAt: l?.ts ?? null };
  } catch {
    return { startedAt: null, endedAt: null };
  }
}
