/**
 * The daemon's JSONL log: `<home>/logs/daemon.jsonl`, size-rotated by rotating-file-stream
 * (classic logrotate numbering: daemon.jsonl.1 is the newest rotated file). Two record types,
 * each with a JSON Schema in logs-schema/: `decision` (one per exchange the pipeline saw) and
 * `event` (lifecycle, skipped input, sessions). Records carry ids, hashes, scores and reason
 * codes only: callers build them from core/pipeline.ts Decisions, never from raw text.
 * A failing log (disk full, unwritable) never stops the daemon: the error is counted and kept
 * for the canary's lastError.
 */
import { createStream, type RotatingFileStream } from 'rotating-file-stream';
import { join } from 'node:path';
import { closeSync, lstatSync, openSync, readSync, statSync } from 'node:fs';
import { ensureDir } from '../shared/atomic.js';
import { cutCodePoints } from '../shared/escape.js';
import type { Config } from '../config/schema.js';
import type { ModeState, Offer, OfferType } from '../shared/types.js';
import type { Decision, ToolDecision } from '../core/decision.js';

/** File name of the daemon log inside the logs dir. */
export const DAEMON_LOG_FILE = 'daemon.jsonl';

export type EventName =
  | 'start'
  | 'stop'
  | 'kill'
  | 'idle-exit'
  | 'error'
  | 'skipped-line'
  | 'session-new'
  | 'session-evicted'
  | 'file-removed'
  | 'store-missing'
  | 'cache-write-failed'
  | 'config-reloaded'
  | 'housekeeping'
  | 'fixes-synced'
  | 'root-missing'
  | 'store-down'
  | 'store-reconnected'
  | 'index-scheduled';

/** One `event` record (logs-schema/daemon-event.schema.json). */
export interface EventRecord {
  type: 'event';
  ts: number;
  pid: number;
  event: EventName;
  /** A reason code (e.g. `malformed`, `line-too-long`, `EACCES`), never free text from transcripts. */
  reason?: string;
  sessionId?: string;
  /** Transcript file path (a path, not content). */
  path?: string;
  offset?: number;
  bytes?: number;
  /** Error message from the daemon's own code or the OS (never transcript content). */
  message?: string;
  figures?: Record<string, number>;
}

/** One `decision` record (logs-schema/daemon-decision.schema.json). */
export interface DecisionRecord {
  type: 'decision';
  ts: number;
  sessionId: string;
  turn: number;
  exchangeUuid: string;
  offset: number;
  mode: string | null;
  mode_state: ModeState | null;
  worker: boolean;
  sidechain: boolean;
  seed: boolean;
  prompt_only: boolean;
  injected: boolean;
  trigger: 'drift' | 'stall' | 'error' | null;
  /** Trigger figures (cosines, z-scores, thresholds): numbers only. */
  trigger_values: Record<string, number>;
  /** Gate outcomes in order: each gate name with pass/fail and a reason code. */
  gates: Array<{ gate: string; pass: boolean; reason: string | null }>;
  /** True when an offer was produced (logged whatever the mode's state; soak never prints). */
  would_fire: boolean;
  /** Reason code for silence, null when an offer was produced. */
  silence: string | null;
  offer: null | {
    id: string;
    chunkId: number;
    handle: string;
    type: OfferType;
    confidence: number;
    region: string;
    wildcard: boolean;
    reasoned: boolean;
    /** The offer's one line as the hook prints it after the type and confidence (already
     *  redacted and escaped: the one offer text the log keeps, for `label` and the report). */
    reason?: string;
  };
  sufficiency: number | null;
  candidates: number;
  latency_ms: Record<string, number>;
  /** Decided on a still-open exchange for the offer cache (the final decision follows). */
  provisional: boolean;
}

/** One tool-channel `decision` record (channel = tool; logs-schema/daemon-tool-decision.schema.json). */
export interface ToolDecisionRecord {
  type: 'decision';
  channel: 'tool';
  ts: number;
  sessionId: string;
  /** 1-based ordinal of the tool call among the session's main-lane tool calls. */
  step: number;
  tool_use_id: string | null;
  offset: number;
  mode: string | null;
  mode_state: ModeState | null;
  worker: boolean;
  seed: boolean;
  trigger: 'drift' | 'stall' | 'error' | null;
  /** Error signature (14 hex digits), never the error text. */
  sig: string | null;
  /** How the Past fix was found: exact / near / keyword. */
  match: string | null;
  trigger_values: Record<string, number>;
  would_fire: boolean;
  silence: string | null;
  offer: DecisionRecord['offer'];
  latency_ms: Record<string, number>;
}

export type LogRecord = EventRecord | DecisionRecord | ToolDecisionRecord;

export interface JsonlLog {
  /** Append one record. The promise resolves once its bytes reached the file (or the write
   *  failed and was counted): the daemon commits transcript offsets only after that, so a
   *  crash never leaves an exchange both unlogged and marked as processed. Never rejects. */
  write(record: LogRecord): Promise<void>;
  /** Flush and close; resolves when everything written has reached the file. */
  close(): Promise<void>;
  /** Write errors so far (the log never throws at callers). */
  readonly errors: number;
  readonly lastError: string | null;
  /** Records dropped while the log could not be written (disk full, unwritable dir). */
  readonly dropped: number;
}

/** After a write error the stream is reopened on a later write, at most this often. */
export const LOG_REOPEN_BACKOFF_MS = 1000;

/** True when the file is missing, empty, or ends in a newline (no torn last line). */
function endsClean(path: string): boolean {
  try {
    const size = statSync(path).size;
    if (size === 0) return true;
    const fd = openSync(path, 'r');
    try {
      const b = Buffer.alloc(1);
      readSync(fd, b, 0, 1, size - 1);
      return b[0] === 0x0a;
    } finally {
      closeSync(fd);
    }
  } catch {
    return true;
  }
}

/** Open `<dir>/<file>` as a rotating JSONL log with config.logs limits. A write error (disk
 *  full, directory gone) kills the stream; the next write after LOG_REOPEN_BACKOFF_MS opens
 *  a new one, first ending any torn last line, so logging resumes once the cause is gone. */
export function openJsonlLog(dir: string, logs: Config['logs'], file = DAEMON_LOG_FILE): JsonlLog {
  let errors = 0;
  let dropped = 0;
  let lastError: string | null = null;
  let stream: RotatingFileStream | null = null;
  let reopenAt = 0;
  let tornLine = false;
  const fail = (e: unknown) => {
    errors++;
    lastError = `log ${file}: ${(e as Error)?.message ?? String(e)}`;
  };
  const open = (): RotatingFileStream | null => {
    try {
      ensureDir(dir);
      // rotating-file-stream opens with plain 'a': anything but a regular file at the log's name
      // (a symlink, a FIFO) is refused first.
      const at = lstatSync(join(dir, file), { throwIfNoEntry: false });
      if (at && !at.isFile()) throw new Error(`${join(dir, file)} is not a regular file: the log is not written through it (remove it)`);
      tornLine = !endsClean(join(dir, file));
      const s = createStream(file, { path: dir, size: logs.rotateSize, rotate: logs.maxFiles, mode: 0o600 });
      s.on('error', (e) => {
        fail(e);
        if (stream === s) {
          stream = null;
          reopenAt = Date.now() + LOG_REOPEN_BACKOFF_MS;
        }
      });
      s.on('warning', fail);
      return s;
    } catch (e) {
      fail(e);
      reopenAt = Date.now() + LOG_REOPEN_BACKOFF_MS;
      return null;
    }
  };
  stream = open();
  let closing: Promise<void> | null = null;
  return {
    write(record) {
      if (closing) return Promise.resolve();
      if (!stream && Date.now() >= reopenAt) stream = open();
      const s = stream;
      if (!s) {
        dropped++;
        return Promise.resolve();
      }
      const line = (tornLine ? '\n' : '') + JSON.stringify(record) + '\n';
      tornLine = false;
      return new Promise<void>((resolve) => {
        try {
          s.write(line, (err) => {
            if (err) {
              dropped++;
              fail(err);
            }
            resolve();
          });
        } catch (e) {
          dropped++;
          fail(e);
          resolve();
        }
      });
    },
    close() {
      if (closing) return closing;
      closing = new Promise<void>((resolve) => {
        if (!stream) return resolve();
        const s = stream;
        s.once('finish', () => resolve());
        s.once('error', () => resolve());
        s.end();
      });
      return closing;
    },
    get errors() {
      return errors;
    },
    get lastError() {
      return lastError;
    },
    get dropped() {
      return dropped;
    },
  };
}

/** The daemon log's files, oldest first (rotated .N files, highest N first, then the live file). */
export function daemonLogFiles(dir: string, names: string[], file = DAEMON_LOG_FILE): string[] {
  const rotated = names
    .map((n) => ({ n, m: new RegExp(`^${file.replace(/\./g, '\\.')}\\.(\\d+)$`).exec(n) }))
    .filter((x) => x.m)
    .sort((a, b) => Number(b.m![1]) - Number(a.m![1]))
    .map((x) => join(dir, x.n));
  return names.includes(file) ? [...rotated, join(dir, file)] : rotated;
}

/** Longest offer reason a decision record keeps (code points, its ellipsis included): the hook never prints more
 *  (it considers at most 2 × hook.maxBytes, whose ceiling is 2,000). */
export const LOG_REASON_MAX_CHARS = 4000;

/** The decision log record for one pipeline Decision (ids, figures and reason codes; of the
 *  offer, the reason line it prints — what a person labelling it must see). */
function offerIds(o: Offer | null): DecisionRecord['offer'] {
  return o
    ? { id: o.id, chunkId: o.chunkId, handle: o.handle, type: o.type, confidence: o.confidence, region: o.region, wildcard: o.wildcard, reasoned: o.reasoned, reason: cutCodePoints(o.reason, LOG_REASON_MAX_CHARS - 1) }
    : null;
}

export function toolDecisionRecord(d: ToolDecision, ts: number): ToolDecisionRecord {
  return {
    type: 'decision',
    channel: 'tool',
    ts,
    sessionId: d.sessionId,
    step: d.step,
    tool_use_id: d.toolUseId,
    offset: d.offset,
    mode: d.mode,
    mode_state: d.modeState,
    worker: d.worker !== null,
    seed: d.seed,
    trigger: d.trigger,
    sig: d.sig,
    match: d.match,
    trigger_values: d.triggerValues,
    would_fire: d.offer !== null,
    silence: d.silence,
    offer: offerIds(d.offer),
    latency_ms: d.latency,
  };
}

export function decisionRecord(d: Decision, ts: number): DecisionRecord {
  return {
    type: 'decision',
    ts,
    sessionId: d.sessionId,
    turn: d.turn,
    exchangeUuid: d.exchangeUuid,
    offset: d.offset,
    mode: d.mode,
    mode_state: d.modeState,
    worker: d.worker !== null,
    sidechain: d.sidechain,
    seed: d.seed,
    prompt_only: d.promptOnly,
    injected: d.injected,
    trigger: d.trigger,
    trigger_values: d.triggerValues,
    gates: d.gates.map((g) => ({ gate: g.gate, pass: g.pass, reason: g.reason })),
    would_fire: d.offer !== null,
    silence: d.silence,
    offer: offerIds(d.offer),
    sufficiency: d.sufficiency,
    candidates: d.candidates,
    latency_ms: d.latency,
    provisional: d.provisional,
  };
}
