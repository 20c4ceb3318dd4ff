/**
 * What the tailer (daemon/tailer.ts, tail-read.ts) hands its consumer (the daemon's
 * daemon/consumer.ts, or a test): the lines it read and what happened to the files, as typed
 * callbacks given to the tailer when it is made. Types only.
 */
import type { LineItem, SkippedLine } from '../transcript/lines.js';
import type { OffsetStore, ResumeVerdict } from './offsets.js';

export type TailLine = LineItem;

export interface LinesInfo {
  /** History read on first sight: build state from it, never offer on it. */
  seed: boolean;
  /** From a subagent file (worker traffic). */
  subagent: boolean;
  /** First delivery for this file (after start, discovery, truncation or replacement). */
  first: boolean;
  /** On `first`: the state committed with the resume offset (undefined when fresh). */
  state: unknown;
  /** Every byte before this offset has now been read (includes skipped lines). */
  endOffset: number;
}

/** Why a line or a file was not read: an over-long line (transcript/lines.ts), a file that
 *  cannot be stat'ed or opened, or a symlink out of the root. */
export type SkipReason = SkippedLine['reason'] | 'unreadable' | 'permission-denied' | 'outside-root';

export interface SkipDetail {
  /** The skipped line's byte range (over-long lines). */
  startOffset?: number;
  endOffset?: number;
  /** The errno code (unreadable files). */
  code?: string;
}

/** Why a file's reading starts over: replaced (another inode) or truncated. */
export type ResetReason = Exclude<ResumeVerdict, 'resume'>;

/** Trouble the tailer works around: offsets that do not load (daemon/offsets.ts) or save, the
 *  root gone, a watcher error, a read that threw, a consumer that threw. */
export type WarningReason = NonNullable<OffsetStore['loadProblem']> | 'offsets-not-saved' | 'root-missing' | 'watch-error' | 'tail-error' | 'consumer-error';

export interface WarningDetail {
  message?: string;
  code?: string;
  path?: string;
  root?: string;
}

export interface TailerEvents {
  /** New complete lines of one file. A returned promise is awaited before the tailer reads
   *  further (back-pressure, bounded memory); the consumer commits offsets (`commit`) once
   *  the lines are processed. */
  lines(path: string, sessionId: string, lines: TailLine[], info: LinesInfo): void | Promise<void>;
  /** An over-long line, a permission denied, an unreadable file. */
  skipped(path: string, reason: SkipReason, detail: SkipDetail): void;
  /** The file was truncated or replaced: drop its assembly state. */
  reset(path: string, reason: ResetReason): void;
  /** The file was deleted. */
  removed(path: string): void;
  warning(reason: WarningReason, detail: WarningDetail): void;
}
