/**
 * A full garbage collection before a timed section, so garbage an earlier section left (a closed
 * reader's 100k-chunk keyword index: ~150–300 MB) is not collected inside the timing of the
 * next one. Uses the gc function --expose-gc gives; enabled here at first use when the bench
 * process was started without it (v8.setFlagsFromString, then a fresh context's `gc`).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let collect: (() => void) | null = null;

/** Run one full garbage collection now. */
export function settleHeap(): void {
  if (!collect) {
    const own = (globalThis as { gc?: () => void }).gc;
    if (own) collect = own;
    else {
      setFlagsFromString('--expose-gc');
      collect = runInNewContext('gc') as () => void;
    }
  }
  collect();
}
