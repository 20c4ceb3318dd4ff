/**
 * A minimal progress line for evaluations (`label done/total`), redrawn in place on stderr
 * only when stderr is a terminal (and not CI): `--json` output and logs stay clean.
 */
import { isTty } from '../shared/terminal.js';

export interface Progress {
  update(done: number): void;
  done(): void;
}

/** Redraw at most this often (ms). */
const REDRAW_MS = 100;
/** Bar width in characters. */
const BAR_WIDTH = 24;

/** `[#####-----] 3/6 conversations`. Pure. */
export function progressText(label: string, done: number, total: number): string {
  const share = total > 0 ? Math.min(1, done / total) : 1;
  const filled = Math.round(share * BAR_WIDTH);
  return `[${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}] ${done}/${total} ${label}`;
}

export function createProgress(label: string, total: number, tty = isTty(), stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!tty) return { update() {}, done() {} };
  let last = 0;
  let drawn = false;
  return {
    update(done) {
      const now = Date.now();
      if (now - last < REDRAW_MS && done < total) return;
      last = now;
      stream.write(`\r${progressText(label, done, total)}\x1b[K`);
      drawn = true;
    },
    done() {
      if (drawn) stream.write('\n');
    },
  };
}
