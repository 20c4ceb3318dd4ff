/**
 * The one way the daemon's consumer (daemon/consumer.ts) writes the files the hook reads:
 * offer, tool and lineage caches (built by core/publish.ts, written by daemon/cache-writer.ts).
 * A decision's cache is not written once the KILL file exists (it wins at once, not only at
 * the next cycle). A write that fails is logged as `cache-write-failed` with its errno code
 * and becomes the daemon's last error; the daemon keeps running.
 */
import { existsSync } from 'node:fs';
import type { CacheWriter } from './cache-writer.js';
import { errMsg, type Reporter } from './reporter.js';

export class CacheSink {
  constructor(
    /** The cache folder's writer (also cleared at stop and kill: daemon/shutdown.ts, cycle.ts). */
    readonly caches: CacheWriter,
    private readonly killFile: string,
    private readonly report: Reporter,
  ) {}

  /** Is the KILL file there? */
  killFilePresent(): boolean {
    return existsSync(this.killFile);
  }

  /** Write one cache file of `sessionId` through `put`. Returns null when written, else the
   *  failed write's errno code (`error` when it has none), logged and kept as the last error. */
  write(sessionId: string, put: (caches: CacheWriter) => void): string | null {
    try {
      put(this.caches);
      return null;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      this.report.lastError = `cache-write-failed: ${errMsg(e)}`;
      this.report.event({ event: 'cache-write-failed', reason: code, sessionId, message: errMsg(e) });
      return code;
    }
  }

  /** Write a decision's cache unless the KILL file is there; the time since `t0` (ms, two
   *  decimals) goes into the decision's `latency.cache` once written. */
  forDecision(d: { sessionId: string; latency: Record<string, number> }, t0: number, put: (caches: CacheWriter) => void): void {
    if (this.killFilePresent()) return;
    if (this.write(d.sessionId, put) === null) d.latency.cache = Math.round((performance.now() - t0) * 100) / 100;
  }
}
