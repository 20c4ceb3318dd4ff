/**
 * Bounded-memory line scanner over a file handle, with byte offsets.
 *
 * Reads a byte range in fixed chunks and yields batches of complete lines (each with its
 * start / end byte offset). A line longer than `maxLineBytes` is never held whole: once it
 * passes the limit its bytes are dropped and it is reported as skipped when its newline
 * arrives. An unterminated last line waits (tailing) or is taken as is (whole-file reads).
 * Used by daemon/tailer.ts (live files) and transcript/exchanges.ts (indexer, replay).
 */
import type { FileHandle } from 'node:fs/promises';

export interface LineItem {
  line: string;
  startOffset: number;
  /** Just past the line's newline. */
  endOffset: number;
}

export interface SkippedLine {
  startOffset: number;
  endOffset: number;
  reason: 'line-too-long';
}

/** Where a scan stands: `offset` = every byte before it is consumed. */
export interface ScanState {
  offset: number;
  /** Start of an over-long line still being skipped (its newline not seen yet), else null. */
  skippingFrom: number | null;
}

export interface LineBatch {
  lines: LineItem[];
  skipped: SkippedLine[];
  /** State after this batch: resume from here. */
  state: ScanState;
}

export interface ScanOptions {
  maxLineBytes: number;
  /** Bytes per read call. */
  chunkBytes: number;
  /** A batch is yielded once its lines hold this many bytes… */
  maxBatchBytes: number;
  /** …or this many lines. */
  maxBatchLines: number;
  /** At `limit`, take an unterminated last line as complete (whole-file reads), else leave it. */
  includeUnterminated: boolean;
}

export const DEFAULT_SCAN: ScanOptions = {
  maxLineBytes: 8 * 1024 * 1024,
  chunkBytes: 64 * 1024,
  maxBatchBytes: 1024 * 1024,
  maxBatchLines: 2000,
  includeUnterminated: false,
};

const NL = 0x0a;

function decode(parts: Buffer[], tail: Buffer | null): string {
  const all = tail ? [...parts, tail] : parts;
  const b = all.length === 1 ? all[0] : Buffer.concat(all);
  let s = b.toString('utf8');
  if (s.endsWith('\r')) s = s.slice(0, -1);
  return s;
}

/**
 * Scan `[state.offset, limit)` of an open file. Yields batches (possibly empty at the end,
 * always at least one) so the caller can process and apply back-pressure between them.
 */
export async function* scanLines(
  fh: FileHandle,
  start: ScanState,
  limit: number,
  opts: Partial<ScanOptions> = {},
): AsyncGenerator<LineBatch> {
  const o = { ...DEFAULT_SCAN, ...opts };
  const buf = Buffer.allocUnsafe(Math.max(1, o.chunkBytes));
  let pos = start.offset;
  let skippingFrom = start.skippingFrom;
  let lineStart = pos;
  let parts: Buffer[] = [];
  let partLen = 0;
  let lines: LineItem[] = [];
  let skipped: SkippedLine[] = [];
  let batchBytes = 0;

  const stateNow = (): ScanState =>
    skippingFrom !== null ? { offset: pos, skippingFrom } : { offset: lineStart, skippingFrom: null };

  const pushLine = (text: string, s: number, e: number) => {
    if (text.length > 0 && text.trim().length > 0) {
      lines.push({ line: text, startOffset: s, endOffset: e });
      batchBytes += e - s;
    }
  };

  while (pos < limit) {
    let n: number;
    try {
      n = (await fh.read(buf, 0, Math.min(buf.length, limit - pos), pos)).bytesRead;
    } catch {
      break; // file went away or became unreadable mid-read: stop at what is consumed
    }
    if (n === 0) break;
    let i = 0;
    while (i < n) {
      let nl = buf.indexOf(NL, i);
      if (nl >= n) nl = -1;
      if (skippingFrom !== null) {
        if (nl === -1) {
          i = n;
          break;
        }
        skipped.push({ startOffset: skippingFrom, endOffset: pos + nl + 1, reason: 'line-too-long' });
        skippingFrom = null;
        lineStart = pos + nl + 1;
        i = nl + 1;
        continue;
      }
      const segEnd = nl === -1 ? n : nl;
      const segLen = segEnd - i;
      if (partLen + segLen > o.maxLineBytes) {
        skippingFrom = lineStart;
        parts = [];
        partLen = 0;
        continue; // re-examine this chunk position in skipping mode
      }
      if (nl === -1) {
        parts.push(Buffer.from(buf.subarray(i, n))); // copy: buf is reused
        partLen += n - i;
        i = n;
      } else {
        const text = decode(parts, buf.subarray(i, nl));
        parts = [];
        partLen = 0;
        pushLine(text, lineStart, pos + nl + 1);
        lineStart = pos + nl + 1;
        i = nl + 1;
      }
    }
    pos += n;
    if (batchBytes >= o.maxBatchBytes || lines.length >= o.maxBatchLines || skipped.length >= o.maxBatchLines) {
      yield { lines, skipped, state: stateNow() };
      lines = [];
      skipped = [];
      batchBytes = 0;
    }
  }

  if (o.includeUnterminated && pos >= limit) {
    if (skippingFrom !== null) {
      skipped.push({ startOffset: skippingFrom, endOffset: pos, reason: 'line-too-long' });
      skippingFrom = null;
      lineStart = pos;
    } else if (partLen > 0) {
      pushLine(decode(parts, null), lineStart, pos);
      parts = [];
      partLen = 0;
      lineStart = pos;
    }
  }
  yield { lines, skipped, state: stateNow() };
}
