/**
 * The daemon's resilient embedder (embed/resilient.ts) over the real server client and a real
 * server on 127.0.0.1: ok → refused batch (EmbedderUnavailable 'embedder-refused', still ok)
 * → server down (at once 'embedder-unavailable', no waiting) → back (recovers by itself);
 * a server back with another dimension stays unavailable with the re-index advice; the
 * store's dimension is expected before the first answer; a local model is not wrapped.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ConfigSchema } from '../../config/schema.js';
import { EmbedderUnavailable } from '../../embed/errors.js';
import { createDaemonEmbedder, embedderHealth, ResilientEmbedder } from '../../embed/resilient.js';
import { createServerEmbedder } from '../../embed/server.js';
import { offlineModelPath } from '../helpers/model.js';
import { OpenAIEmbedServer } from '../../bench/openai-embed-server.js';

let server: OpenAIEmbedServer;
let e: ResilientEmbedder | null = null;
beforeEach(async () => {
  server = new OpenAIEmbedServer({ dim: 64 });
  await server.start();
});
afterEach(async () => {
  await e?.dispose();
  e = null;
  await server.close();
});

const cfg = () => ConfigSchema.parse({ embedding: { url: server.url, timeoutMs: 1000 } }).embedding;
const wrap = (expectDim = 0) =>
  new ResilientEmbedder({ modelId: 'server:test/default', url: server.url, connect: () => createServerEmbedder(cfg()), expectDim, retryMinMs: 50, retryMaxMs: 200 });
const until = async (ok: () => boolean, ms = 5000) => {
  const t0 = Date.now();
  while (!ok()) {
    if (Date.now() - t0 > ms) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 20));
  }
};
const reasonOf = (p: Promise<unknown>) => p.then(() => 'ok', (x: unknown) => (x instanceof EmbedderUnavailable ? x.reason : `other: ${String(x)}`));

describe('resilient embedder (daemon)', () => {
  it('refused batch: embedder-refused and still ok; down: unavailable at once; back: recovers by itself', async () => {
    e = wrap();
    await e.connect();
    expect(e.health()).toMatchObject({ state: 'ok', message: null, failures: 0 });
    expect(e.dim).toBe(64);
    expect(await reasonOf(e.embed(['bread']))).toBe('ok');

    server.failWhen = () => 500;
    expect(await reasonOf(e.embed(['bread']))).toBe('embedder-refused');
    expect(e.health().state).toBe('ok');
    server.failWhen = null;

    const url = server.url;
    await server.close();
    expect(await reasonOf(e.embed(['bread']))).toBe('embedder-unavailable');
    expect(e.health()).toMatchObject({ state: 'unavailable', url });
    // The kept-alive connection the server closed is asked again once, on a new one: refused.
    expect(e.health().message).toMatch(/cannot reach the embedding server at .*ECONNREFUSED/);
    const t0 = Date.now();
    expect(await reasonOf(e.embed(['bread']))).toBe('embedder-unavailable'); // no network call while down
    expect(Date.now() - t0).toBeLessThan(50);
    expect(e.dim).toBe(64); // the expected dimension stays while down

    await server.start();
    await until(() => e!.health().state === 'ok');
    expect(await reasonOf(e.embed(['bread']))).toBe('ok');
  });

  it('a server back with another dimension stays unavailable and says to re-index', async () => {
    e = wrap();
    await e.connect();
    await server.close();
    expect(await reasonOf(e.embed(['bread']))).toBe('embedder-unavailable');
    server.dim = 32;
    await server.start();
    await until(() => (e!.health().message ?? '').includes('32-dimensional'));
    expect(e.health().state).toBe('unavailable');
    expect(e.health().message).toMatch(/where 64 were expected.*--rebuild/);
    expect(await reasonOf(e.embed(['bread']))).toBe('embedder-unavailable');
  });

  it('down at start: unavailable with the store dimension expected, then ok when the server comes', async () => {
    await server.close();
    e = wrap(64);
    await e.connect();
    expect(e.health().state).toBe('unavailable');
    expect(e.dim).toBe(64);
    await server.start();
    await until(() => e!.health().state === 'ok');
  });

  it('control: createDaemonEmbedder wraps a server only; a local model comes back as it is', async () => {
    const s = await createDaemonEmbedder(cfg(), {});
    expect(embedderHealth(s)).toMatchObject({ state: 'ok' });
    await s.dispose();
    const local = await createDaemonEmbedder(ConfigSchema.parse({ embedding: { localModelPath: offlineModelPath() } }).embedding, {});
    expect(embedderHealth(local)).toBeUndefined();
    expect(local.modelId).toBe('offline-glove-sif');
    await local.dispose();
  });
});
