/**
 * The tailer's watcher errors (daemon/tailer.ts, from chokidar), reported one per kind at most
 * every WATCH_ERROR_REPEAT_MS with how many were held back: when the inotify watch limit is
 * reached chokidar fails once per file, and thousands of sessions must not flood the log.
 * Files without a watch are still read: the sweep stats known files and rescans changed
 * folders (a lower pace, not a loss). The warning goes to the consumer as `watch-error`.
 */

/** The same kind of watcher error is reported at most this often (the rest are counted). */
const WATCH_ERROR_REPEAT_MS = 10 * 60 * 1000;

export class WatchErrorReports {
  /** By code: when one was last reported and how many were held back since. */
  private readonly seen = new Map<string, { last: number; held: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** The warning for this error (its message says what to do), or null when held back. */
  report(e: unknown): { message: string; code: string } | null {
    const code = (e as NodeJS.ErrnoException)?.code ?? 'other';
    const now = this.now();
    const seen = this.seen.get(code) ?? { last: -Infinity, held: 0 };
    this.seen.set(code, seen);
    if (now - seen.last < WATCH_ERROR_REPEAT_MS) {
      seen.held++;
      return null;
    }
    const held = seen.held;
    seen.last = now;
    seen.held = 0;
    const message =
      code === 'ENOSPC'
        ? 'ENOSPC: inotify watch limit reached; unwatched files are still read by the sweep, more slowly. Raise it: sysctl fs.inotify.max_user_watches=524288'
        : code === 'EMFILE'
          ? 'EMFILE: too many open files; unwatched files are still read by the sweep, more slowly. Raise ulimit -n'
          : e instanceof Error ? e.message : String(e);
    return { message: `${held > 0 ? `(${held} more since the last report) ` : ''}${message}`, code };
  }
}
