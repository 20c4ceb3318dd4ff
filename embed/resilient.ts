/**
 * The daemon's embedder for an embedding server: never waits for a server that is down.
 *
 *   ok ──(call fails: unreachable, deadline, key, garbage, dimension)──▶ unavailable
 *   unavailable ──(background retry, backoff RETRY_MIN_MS doubling to RETRY_MAX_MS)──▶ ok
 *
 * While unavailable, embed() throws EmbedderUnavailable('embedder-unavailable') at once (the
 * pipeline turns it into a silent decision); a batch the server refuses with an HTTP error
 * throws EmbedderUnavailable('embedder-refused') and leaves the state ok. health() is what
 * the daemon writes into the canary for `status`. A server that comes back with another
 * dimension than the one expected (the store's, or the one it had) stays unavailable with
 * a message saying to re-index. With a local model, createDaemonEmbedder is createEmbedder.
 */
import type { Config } from '../config/schema.js';
import type { EmbedderHealth } from '../shared/types.js';
import { openStoreReader } from '../store/sqlite-store.js';
import { createEmbedder } from './embedder.js';
import { EmbedBatchRefused, EmbedderUnavailable } from './errors.js';
import { createServerEmbedder, endpointUrl, serverModelId } from './server.js';
import type { Embedder, EmbedOptions } from './types.js';

/** First retry after a failure (ms); each failed retry doubles the wait. */
export const RETRY_MIN_MS = 1000;
/** Longest wait between two retries (ms): a server back up is noticed within a minute. */
export const RETRY_MAX_MS = 60_000;

export interface ResilientOptions {
  modelId: string;
  url: string;
  /** Connect: a fresh client that has answered once (its dim known), or throws. */
  connect: () => Promise<Embedder>;
  /** The dimension expected before the server answers (the store's), 0 when unknown. */
  expectDim: number;
  retryMinMs?: number;
  retryMaxMs?: number;
  now?: () => number;
}

/** Longest message kept in the health (the canary's limit). */
const MAX_MESSAGE_CHARS = 500;
const message = (e: unknown) => (e instanceof Error ? e.message : String(e)).slice(0, MAX_MESSAGE_CHARS);

export class ResilientEmbedder implements Embedder {
  readonly modelId: string;
  private inner: Embedder | null = null;
  private expectDim: number;
  private state: EmbedderHealth;
  private timer: NodeJS.Timeout | null = null;
  private connecting: Promise<void> | null = null;
  private disposed = false;
  private readonly now: () => number;

  constructor(private readonly opts: ResilientOptions) {
    this.modelId = opts.modelId;
    this.expectDim = opts.expectDim;
    this.now = opts.now ?? Date.now;
    this.state = { state: 'unavailable', url: opts.url, since: this.now(), message: 'not connected yet', failures: 0, nextRetryAt: null };
  }

  get dim(): number {
    return this.inner?.dim ?? this.expectDim;
  }

  health(): EmbedderHealth {
    return { ...this.state };
  }

  /** One connection attempt now (the daemon awaits the first one at start). */
  connect(): Promise<void> {
    this.connecting ??= this.attempt().finally(() => (this.connecting = null));
    return this.connecting;
  }

  async embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]> {
    const inner = this.inner;
    if (!inner) throw new EmbedderUnavailable('embedder-unavailable', this.state.message ?? 'embedding server unavailable');
    try {
      return await inner.embed(texts, opts);
    } catch (e) {
      if (e instanceof EmbedBatchRefused) throw new EmbedderUnavailable('embedder-refused', e.message);
      this.down(inner, message(e));
      throw new EmbedderUnavailable('embedder-unavailable', message(e));
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.connecting?.catch(() => undefined);
    await this.inner?.dispose();
    this.inner = null;
  }

  private async attempt(): Promise<void> {
    let fresh: Embedder;
    try {
      fresh = await this.opts.connect();
    } catch (e) {
      return this.failed(message(e));
    }
    if (this.disposed) return void (await fresh.dispose());
    if (this.expectDim > 0 && fresh.dim !== this.expectDim) {
      await fresh.dispose();
      return this.failed(
        message(`the embedding server at ${this.opts.url} now answers ${fresh.dim}-dimensional vectors where ${this.expectDim} were expected: its model changed. ` +
          'Restore the model, or re-index with it (`active-brain index --rebuild`) and restart the daemon.'),
      );
    }
    this.expectDim = fresh.dim;
    this.inner = fresh;
    this.state = { state: 'ok', url: this.opts.url, since: this.now(), message: null, failures: 0, nextRetryAt: null };
  }

  /** A call on `inner` failed: unavailable from now on, retried in the background. */
  private down(inner: Embedder, why: string): void {
    if (this.inner !== inner) return; // another call already noticed
    this.inner = null;
    void inner.dispose().catch(() => undefined);
    this.failed(why, true);
  }

  private failed(why: string, first = false): void {
    const failures = first ? 1 : this.state.failures + 1;
    const since = this.state.state === 'ok' || first ? this.now() : this.state.since;
    const min = this.opts.retryMinMs ?? RETRY_MIN_MS;
    const wait = Math.min(this.opts.retryMaxMs ?? RETRY_MAX_MS, min * 2 ** Math.max(0, failures - 1));
    this.state = { state: 'unavailable', url: this.opts.url, since, message: why, failures, nextRetryAt: this.now() + wait };
    if (this.disposed) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      void this.connect();
    }, wait);
    this.timer.unref();
  }
}

/** The health of the daemon's embedder, when it is a server (undefined for a local model). */
export function embedderHealth(e: Embedder): EmbedderHealth | undefined {
  return e instanceof ResilientEmbedder ? e.health() : undefined;
}

/** The dimension the store recorded for this model id, 0 when it has none (or another model). */
function storeDim(storePath: string | undefined, modelId: string): number {
  if (!storePath) return 0;
  try {
    const r = openStoreReader(storePath);
    try {
      const info = r.info();
      return info.model === modelId && info.dim ? info.dim : 0;
    } finally {
      r.close();
    }
  } catch {
    return 0; // no store yet, or unreadable: the daemon reports that itself
  }
}

/**
 * The daemon's embedder: the local model as createEmbedder loads it, or for embedding.url a
 * ResilientEmbedder that has made its first connection attempt (a server down at start
 * leaves the daemon up and retrying).
 */
export async function createDaemonEmbedder(cfg: Config['embedding'], env: NodeJS.ProcessEnv, opts: { storePath?: string } = {}): Promise<Embedder> {
  if (!cfg.url) return createEmbedder(cfg, env);
  const modelId = serverModelId(cfg.url, cfg.model);
  const e = new ResilientEmbedder({
    modelId,
    url: endpointUrl(cfg.url),
    connect: () => createServerEmbedder(cfg, env),
    expectDim: storeDim(opts.storePath, modelId),
  });
  await e.connect();
  return e;
}
