/**
 * The real daemon process with embedding.url pointing at a real OpenAI-compatible server on
 * 127.0.0.1 that goes down and comes back: the daemon starts while it is down and stays up,
 * decides nothing that needs a vector (decisions silent `embedder-unavailable`, valid against
 * logs-schema/), says so in the canary and `status`, and recovers by itself when the server
 * returns (retry with backoff) — twice: down at start, and down mid-run.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { BIN, appendExchange, decisions, newSession, readJson, startDaemon, tempEnv, waitCanary, waitFor, type Env } from '../daemon/helpers.js';
import { OpenAIEmbedServer } from '../../bench/openai-embed-server.js';

let e: Env;
let server: OpenAIEmbedServer;
afterEach(async () => {
  await server?.close();
  e?.cleanup();
});

const schemas = { decision: loadSchema('daemon-decision'), canary: loadSchema('canary') };

/** `status --json` without blocking this process (the server lives here). */
function status(env: Env): Promise<{ code: number; json: Record<string, unknown>; human: string }> {
  const run = (args: string[]) =>
    new Promise<{ code: number; out: string }>((resolve) => {
      const c = spawn(process.execPath, [BIN, ...args], { env: env.env, stdio: ['ignore', 'pipe', 'ignore'] });
      let out = '';
      c.stdout.on('data', (b) => (out += b));
      c.on('exit', (code) => resolve({ code: code ?? -1, out }));
    });
  return Promise.all([run(['status', '--json']), run(['status'])]).then(([j, h]) => ({ code: j.code, json: JSON.parse(j.out), human: h.out }));
}

const canaryEmbedder = (env: Env) => (readJson(join(env.home, 'canary.json')) as { embedder?: { state: string; message: string | null } } | null)?.embedder;

describe('daemon with an embedding server that goes down and comes back (real processes)', () => {
  it('stays up, is silent with embedder-unavailable, says so in status, and recovers', async () => {
    server = new OpenAIEmbedServer({ dim: 64 });
    await server.start();
    await server.close(); // the port is known, nothing listens: down at the daemon's start
    e = tempEnv('ab-embed-daemon-');
    delete e.env.ACTIVE_BRAIN_MODEL_PATH;
    e.env.ACTIVE_BRAIN_EMBEDDING_URL = server.url;
    const d = startDaemon(e, ['embedding.queryPrefix=query: ', 'embedding.timeoutMs=3000']);
    const canary = await waitCanary(e, d.pid);
    expect(validate(schemas.canary, canary)).toEqual([]);
    expect(canary.embedder).toMatchObject({ state: 'unavailable', url: `${server.url}/v1/embeddings` });

    const st = await status(e);
    expect(st.code).toBe(0);
    expect(st.json).toMatchObject({ running: true, embedder: { state: 'unavailable' } });
    expect(String((st.json.embedder as { message: string }).message)).toMatch(/ECONNREFUSED/);
    expect(st.human).toMatch(/embedder: server .* UNAVAILABLE .* no decisions meanwhile/);

    // Down: an exchange is decided silent, with the embedder's reason; nothing crashes.
    const sess = newSession(e);
    appendExchange(sess, 'How do I configure the postgres connection pool?', 'Set max connections and the idle timeout.');
    const first = await waitFor(() => decisions(e)[0], 15_000, 'first decision');
    expect(first).toMatchObject({ sessionId: sess.id, silence: 'embedder-unavailable', would_fire: false });
    expect(validate(schemas.decision, first)).toEqual([]);

    // Back: the daemon notices by itself (backoff) and decides with vectors again.
    await server.start();
    await waitFor(() => canaryEmbedder(e)?.state === 'ok', 20_000, 'embedder ok in the canary');
    expect((await status(e)).json).toMatchObject({ running: true, embedder: { state: 'ok', message: null } });
    appendExchange(sess, 'And the pool throws ECONNRESET after a while?', 'Idle connections get reset; enable keepAlive.');
    const second = await waitFor(() => decisions(e)[1], 15_000, 'second decision');
    expect(second.silence).not.toBe('embedder-unavailable');
    expect(second.silence).not.toBe('embedder-refused');
    const asked = server.received.flatMap((r) => r.input);
    expect(asked.some((t) => t.startsWith('query: ') && t.includes('ECONNRESET'))).toBe(true);

    // Down mid-run: the next call fails, the daemon goes silent and stays up; then recovers.
    await server.close();
    appendExchange(sess, 'Which timeout should the pool use in production?', 'Thirty seconds is a common choice.');
    const third = await waitFor(() => decisions(e)[2], 15_000, 'third decision');
    expect(third.silence).toBe('embedder-unavailable');
    await waitFor(() => canaryEmbedder(e)?.state === 'unavailable', 5000, 'embedder unavailable in the canary');
    await server.start();
    await waitFor(() => canaryEmbedder(e)?.state === 'ok', 20_000, 'embedder ok again');
    appendExchange(sess, 'Does keepAlive need a probe interval too?', 'Yes, set the keepalive initial delay.');
    const fourth = await waitFor(() => decisions(e)[3], 15_000, 'fourth decision');
    expect(fourth.silence).not.toBe('embedder-unavailable');

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('control: with a local model there is no embedder field in the canary or status', async () => {
    e = tempEnv('ab-embed-daemon-');
    const d = startDaemon(e);
    const canary = await waitCanary(e, d.pid);
    expect(canary).not.toHaveProperty('embedder');
    expect((await status(e)).json).toMatchObject({ running: true, embedder: null });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
