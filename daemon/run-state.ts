/**
 * The running daemon's few shared facts, one object that its parts (daemon/consumer.ts,
 * cycle.ts, shutdown.ts, store-life.ts) read and set: whether it is stopping or was killed,
 * when transcript lines last arrived (the idle exit) and how many cycles ran (the canary).
 */
export interface RunState {
  readonly pid: number;
  readonly startedAt: number;
  /** A stop began (signal, KILL, idle, lock lost): no new cache, no new offsets. */
  stopping: boolean;
  /** The KILL file was seen. */
  killed: boolean;
  /** Last time live (not seed) lines arrived (ms). */
  lastActivity: number;
  cycles: number;
}

export function newRunState(now: number = Date.now()): RunState {
  return { pid: process.pid, startedAt: now, stopping: false, killed: false, lastActivity: now, cycles: 0 };
}

/** Stopping or killed: decisions are no longer published, offsets no longer move. */
export function halted(s: RunState): boolean {
  return s.killed || s.stopping;
}
