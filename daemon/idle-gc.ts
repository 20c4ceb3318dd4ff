/**
 * One full garbage collection when the daemon turns quiet after a burst of work. Start-up
 * leaves tens of MB of garbage — the model file's bytes read for ONNX, the tokenizer's JSON,
 * the pages of the keyword index build — and an idle V8 may not collect it for minutes: the
 * idle RSS counted it (a 10k-chunk store: ~80 MB of dead buffers and strings; docs/DAEMON.md).
 * The cycle timer (daemon/cycle.ts) feeds this the process's CPU time; a cycle that used more
 * than BUSY_CPU_MS marks work, and once QUIET_MS pass with no such cycle one collection runs
 * (when `gc` is exposed: --expose-gc in shared/daemon-node-flags.ts; without it, nothing).
 * The decision is pure (idleGcDue); IdleCollector keeps the few numbers it needs.
 */

/** CPU milliseconds within one cycle that count as work (an idle cycle — canary, stat calls —
 *  uses well under a millisecond; one exchange through the pipeline a few). */
export const BUSY_CPU_MS = 20;
/** Quiet time after the last busy cycle before the collection runs. */
export const QUIET_MS = 5_000;

export interface IdleGcState {
  /** Work happened since the last collection. */
  dirty: boolean;
  /** When the last busy cycle was seen (ms). */
  lastBusyAt: number;
}

/** The state after a cycle that used `cpuMs` CPU at time `now`, and whether to collect now. */
export function idleGcDue(state: IdleGcState, cpuMs: number, now: number): { state: IdleGcState; collect: boolean } {
  if (cpuMs > BUSY_CPU_MS) return { state: { dirty: true, lastBusyAt: now }, collect: false };
  if (state.dirty && now - state.lastBusyAt >= QUIET_MS) return { state: { dirty: false, lastBusyAt: state.lastBusyAt }, collect: true };
  return { state, collect: false };
}

/** Process CPU time (user + system) in ms. */
function cpuNowMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

export class IdleCollector {
  // Start-up is work: the first quiet stretch after it collects.
  private state: IdleGcState;
  private lastCpu: number;
  /** Collections run so far (status and tests). */
  collections = 0;

  constructor(
    private readonly gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc,
    private readonly cpu: () => number = cpuNowMs,
    now = Date.now(),
  ) {
    this.state = { dirty: true, lastBusyAt: now };
    this.lastCpu = this.cpu();
  }

  /** Call once per cycle; runs the collection when due. */
  tick(now = Date.now()): void {
    const cpu = this.cpu();
    const { state, collect } = idleGcDue(this.state, cpu - this.lastCpu, now);
    this.state = state;
    this.lastCpu = cpu;
    if (!collect || !this.gc) return;
    this.gc();
    this.collections++;
    // The collection's own CPU is not work.
    this.lastCpu = this.cpu();
  }
}
