/**
 * The daemon's view of a store it may lose (the team store on PostgreSQL: server restart,
 * network gone). StoreGuard wraps the open StoreReader: every call passes through; a call that
 * fails because the server is unreachable (store/pg-sync.ts isStoreUnreachable) marks the store
 * down, and from then on every call through that reader throws at once (no half-read result
 * can be completed from a dead connection). `faults` counts losses, so the daemon can drop any
 * decision that overlapped one (no offer built from a partial retrieval). Reconnecting is the
 * daemon's (daemon/store-life.ts), paced by retryDelayMs. The health goes into the canary and
 * `active-brain status` (shared/types.ts StoreHealth). A SQLite store never goes down here.
 */
import { PgError, isConnectionLoss, isStoreUnreachable } from '../store/pg-sync.js';
import type { StoreReader } from '../store/types.js';
import type { StoreHealth } from '../shared/types.js';

/** First reconnect attempt this long after the loss (ms): a restart is usually over by then. */
export const STORE_RETRY_FIRST_MS = 1_000;
/** The wait doubles after each failed attempt up to this (ms): a server down for hours costs one
 *  connection attempt a minute, and recovery is noticed within a minute. */
export const STORE_RETRY_MAX_MS = 60_000;

/** Wait before reconnect attempt number `failures` (1-based): 1 s, 2 s, 4 s … capped at 60 s. */
export function retryDelayMs(failures: number): number {
  const n = Math.max(1, Math.floor(failures));
  return Math.min(STORE_RETRY_MAX_MS, STORE_RETRY_FIRST_MS * 2 ** Math.min(n - 1, 30));
}

/** Thrown by a guarded reader once its store is down. */
export class StoreDownError extends Error {
  constructor(message: string) {
    super(`team store unreachable: ${message}`);
    this.name = 'StoreDownError';
  }
}

export class StoreGuard {
  /** Connection losses seen so far (a decision that saw this move is discarded). */
  faults = 0;
  private health: StoreHealth | null = null;

  constructor(private readonly location: string, private readonly now: () => number = Date.now) {}

  /** The reader, with every method watched for a lost server. */
  wrap(reader: StoreReader): StoreReader {
    let lost: string | null = null;
    const guard = this;
    return new Proxy(reader, {
      get(target, prop, receiver) {
        const v = Reflect.get(target, prop, receiver) as unknown;
        if (typeof v !== 'function' || prop === 'close') return typeof v === 'function' ? v.bind(target) : v;
        return (...args: unknown[]) => {
          if (lost !== null) throw new StoreDownError(lost);
          try {
            return (v as (...a: unknown[]) => unknown).apply(target, args);
          } catch (e) {
            if (isStoreUnreachable(e)) {
              lost = (e as Error).message;
              guard.lost(e);
            }
            throw e;
          }
        };
      },
    });
  }

  /** Record a loss (a guarded call or a failed open); returns the delay before the next attempt. */
  lost(e: unknown): number {
    // The CLI's text for a lost connection ends "run the command again"; the daemon retries by
    // itself, so it keeps only what the server or socket said.
    const message = e instanceof PgError && isConnectionLoss(e.info) ? `lost the connection: ${e.info.message}` : e instanceof Error ? e.message : String(e);
    const t = this.now();
    const wasDown = this.health?.state === 'down';
    if (!wasDown) this.faults++;
    const failures = (wasDown ? this.health!.failures : 0) + 1;
    const delay = retryDelayMs(failures);
    this.health = {
      state: 'down',
      location: this.location,
      since: wasDown ? this.health!.since : t,
      message: message.slice(0, 300),
      failures,
      nextRetryAt: t + delay,
    };
    return delay;
  }

  /** The store answered (opened or reopened). */
  ok(): void {
    if (this.health?.state === 'ok') return;
    this.health = { state: 'ok', location: this.location, since: this.now(), message: null, failures: 0, nextRetryAt: null };
  }

  get down(): boolean {
    return this.health?.state === 'down';
  }

  /** Is a reconnect attempt due? */
  due(): boolean {
    return this.down && this.now() >= (this.health!.nextRetryAt ?? 0);
  }

  /** For the canary: null until the store was opened or lost once. */
  snapshot(): StoreHealth | null {
    return this.health ? { ...this.health } : null;
  }
}
