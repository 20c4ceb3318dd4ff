/**
 * What the running daemon says about itself: `event` records to its JSONL log (daemon/logs.ts)
 * and the last error, which the canary carries (daemon/cycle.ts) for `status` and `doctor`.
 * Every part of the daemon reports through one Reporter. Error messages may quote what failed
 * (a command line, a JSON snippet of a transcript line): they are redacted (shared/redact.ts)
 * before they reach a log, the canary or status, then clipped. Nothing here logs conversation
 * text: records carry ids, numbers and reason codes.
 */
import { createRedactor } from '../shared/redact.js';
import type { EventRecord, JsonlLog } from './logs.js';

/** Longest error message kept in logs and the canary. */
const MAX_MESSAGE_CHARS = 300;

const MESSAGE_REDACTOR = createRedactor();

/** A message redacted, then clipped to MAX_MESSAGE_CHARS. */
export const clip = (s: string): string => {
  const r = MESSAGE_REDACTOR.redact(s);
  return r.length > MAX_MESSAGE_CHARS ? r.slice(0, MAX_MESSAGE_CHARS) : r;
};

/** An error's message (or the value as text), redacted and clipped. */
export const errMsg = (e: unknown): string => clip(e instanceof Error ? e.message : String(e));

/** An `event` record without the fields the reporter stamps (type, ts, pid). */
export type DaemonEvent = Omit<EventRecord, 'type' | 'ts' | 'pid'>;

export class Reporter {
  /** The last error worth showing (`<reason>: <message>`), or null; parts clear their own. */
  lastError: string | null = null;

  constructor(
    readonly log: JsonlLog,
    private readonly pid: number,
  ) {}

  /** Log one event (its message clipped). */
  event(e: DaemonEvent): void {
    void this.log.write({ type: 'event', ts: Date.now(), pid: this.pid, ...e, ...(e.message ? { message: clip(e.message) } : {}) });
  }

  /** Log an `error` event with `reason` and remember it as the last error. */
  fail(reason: string, e: unknown, extra: Partial<EventRecord> = {}): void {
    this.lastError = `${reason}: ${errMsg(e)}`;
    this.event({ event: 'error', reason, message: errMsg(e), ...extra });
  }

  /** Run one step whose failure is logged (`fail(reason, …)`) and otherwise ignored. */
  attempt(reason: string, step: () => void, extra: Partial<EventRecord> = {}): void {
    try {
      step();
    } catch (e) {
      this.fail(reason, e, extra);
    }
  }

  /** What the canary shows: the log's own write error first, else the last error. */
  get shownError(): string | null {
    return this.log.lastError ?? this.lastError;
  }
}
