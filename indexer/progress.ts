/**
 * The indexer's progress bar: files done / total and chunks per second, redrawn on stderr
 * in place — only when stderr is a TTY (and not CI); silent otherwise, so scripts and
 * `--json` output stay clean. Fed by indexer/indexer.ts through the ProgressSink interface.
 */
import { isTty } from '../shared/terminal.js';
import type { ProgressSink } from '../shared/progress-sink.js';

export type { ProgressSink };


/** Bar width in characters. */
const BAR_WIDTH = 24;
/** Redraw at most this often (ms). */
const REDRAW_MS = 100;

/** One progress line: `[#####-----] 12/40 files · 350 chunks · 210 chunks/s`. Pure. */
export function progressLine(done: number, total: number, chunks: number, seconds: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(share * BAR_WIDTH);
  const rate = seconds > 0 ? Math.round(chunks / seconds) : 0;
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} files · ${chunks} chunks · ${rate} chunks/s`;
}

/** A sink that draws nothing. */
export const silentProgress: ProgressSink = { start() {}, update() {}, done() {} };

/** Progress on stderr when it is a terminal, silent otherwise. */
export function createProgress(stream: NodeJS.WriteStream = process.stderr, tty = isTty()): ProgressSink {
  if (!tty) return silentProgress;
  let total = 0;
  let t0 = 0;
  let last = 0;
  let drawn = false;
  const draw = (done: number, chunks: number) => {
    stream.write(`\r${progressLine(done, total, chunks, (Date.now() - t0) / 1000)}\x1b[K`);
    drawn = true;
  };
  return {
    start(n) {
      total = n;
      t0 = Date.now();
      draw(0, 0);
    },
    update(done, chunks) {
      const now = Date.now();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      draw(done, chunks);
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
