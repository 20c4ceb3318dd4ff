/**
 * The optional reasoner against a real HTTP server on 127.0.0.1 that answers good, bad
 * (500), slow (past the deadline) and garbage; each ends in the right path. Control: a good
 * answer changes the offer's type and reason.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildStore, config, exchange, request, type TestStore } from './helpers.js';
import { FIXTURE, FILLER, PG_ERROR_TURN } from './fixture.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import { createReasoner, parseAnswer, boundedBody, REASONER_STATUS_CODE, workerEnv, type ReasonerInput } from '../../retrieval/reasoner.js';
import { ConfigSchema } from '../../config/schema.js';

type Mode = 'good' | 'good-anthropic' | 'none' | 'bad' | 'slow' | 'nonjson' | 'schema' | 'range' | 'fenced' | 'huge';
let mode: Mode = 'good';
const seen: Array<{ url: string; headers: IncomingMessage['headers']; bytes: number; body: string }> = [];
let server: Server;
let base = '';
let s: TestStore;

function reply(res: ServerResponse, content: string, anthropic = false): void {
  res.setHeader('content-type', 'application/json');
  res.end(anthropic ? JSON.stringify({ content: [{ type: 'text', text: content }] }) : JSON.stringify({ choices: [{ message: { role: 'assistant', content } }] }));
}

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: req.url ?? '', headers: req.headers, bytes: Buffer.byteLength(body), body });
      const good = JSON.stringify({ choice: 1, type: 'analogous', reason: 'the pool-size note applies to this load pattern' });
      switch (mode) {
        case 'good': return reply(res, good);
        case 'good-anthropic': return reply(res, good, true);
        case 'fenced': return reply(res, '```json\n' + good + '\n```');
        case 'none': return reply(res, JSON.stringify({ choice: null, type: 'tangent', reason: '' }));
        case 'bad': res.statusCode = 500; return res.end('{"error":"boom"}');
        case 'slow': { const t = setTimeout(() => reply(res, good), 1500); res.on('close', () => clearTimeout(t)); return; }
        case 'nonjson': res.setHeader('content-type', 'text/html'); return res.end('<html>gateway</html>');
        case 'schema': return reply(res, JSON.stringify({ pick: 1, kind: 'x' }));
        case 'range': return reply(res, JSON.stringify({ choice: 99, type: 'analogous', reason: 'out of range' }));
        case 'huge': return reply(res, 'x'.repeat(200_000));
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  s = await buildStore([...FIXTURE, ...FILLER]);
});
afterAll(async () => {
  s?.cleanup();
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

function reasonerCfg(p: Record<string, unknown> = {}) {
  return ConfigSchema.parse({ reasoner: { enabled: true, url: base + '/v1', model: 'test-model', deadlineMs: 400, ...p } }).reasoner;
}

async function decide(m: Mode, p: Record<string, unknown> = {}, env: NodeJS.ProcessEnv = { ACTIVE_BRAIN_REASONER_KEY: 'sk-test' }) {
  mode = m;
  const reasoner = createReasoner(reasonerCfg(p), env);
  const b = createOfferBuilder({ store: s.reader, embedder: s.embedder, config: config(), reasoner });
  return b.build(await request(s.embedder, exchange(PG_ERROR_TURN), { trigger: 'error' }));
}

describe('reasoner over real HTTP', () => {
  test('off by default: no reasoner, heuristic offer, figure reasoner=off', async () => {
    expect(createReasoner(ConfigSchema.parse({}).reasoner)).toBeNull();
    const b = createOfferBuilder({ store: s.reader, embedder: s.embedder, config: config() });
    const d = await b.build(await request(s.embedder, exchange(PG_ERROR_TURN), { trigger: 'error' }));
    expect(d.offer).toMatchObject({ type: 'past-fix', reasoned: false });
    expect(d.figures.reasoner).toBe(REASONER_STATUS_CODE.off);
  });

  test('control: a good answer picks the candidate and changes type and reason (OpenAI-compatible)', async () => {
    const heuristic = await decide('bad');
    const d = await decide('good');
    expect(d.figures.reasoner).toBe(REASONER_STATUS_CODE.ok);
    expect(d.offer).toMatchObject({ type: 'analogous', reasoned: true, reason: 'the pool-size note applies to this load pattern' });
    expect(d.offer!.chunkId).toBe(d.candidates[1].chunkId);
    expect(d.offer!.type).not.toBe(heuristic.offer!.type);
    const last = seen[seen.length - 1];
    expect(last.url).toBe('/v1/chat/completions');
    expect(last.headers.authorization).toBe('Bearer sk-test');
    expect(last.bytes).toBeLessThanOrEqual(8000);
    expect(JSON.parse(last.body).model).toBe('test-model');
  });

  test('Anthropic Messages API: x-api-key and anthropic-version headers, content blocks parsed', async () => {
    const d = await decide('good-anthropic', { api: 'anthropic' });
    expect(d.offer).toMatchObject({ type: 'analogous', reasoned: true });
    const last = seen[seen.length - 1];
    expect(last.url).toBe('/v1/messages');
    expect(last.headers['x-api-key']).toBe('sk-test');
    expect(last.headers['anthropic-version']).toBe('2023-06-01');
    expect(last.headers.authorization).toBeUndefined();
  });

  test('a fenced JSON answer is accepted; choice null → silence reasoner-declined', async () => {
    expect((await decide('fenced')).offer?.reasoned).toBe(true);
    const d = await decide('none');
    expect(d).toMatchObject({ offer: null, silence: 'reasoner-declined' });
  });

  const failures: Array<[Mode, keyof typeof REASONER_STATUS_CODE]> = [
    ['bad', 'http-error'],
    ['slow', 'timeout'],
    ['nonjson', 'invalid'],
    ['schema', 'invalid'],
    ['range', 'invalid'],
    ['huge', 'invalid'],
  ];
  for (const [m, status] of failures) {
    test(`${m} answer → heuristic offer, logged as ${status}`, async () => {
      const t0 = performance.now();
      const d = await decide(m);
      expect(d.figures.reasoner).toBe(REASONER_STATUS_CODE[status]);
      expect(d.offer).toMatchObject({ type: 'past-fix', reasoned: false });
      if (m === 'slow') expect(performance.now() - t0).toBeLessThan(1400);
    });
  }

  test('connection refused → http-error, heuristic offer', async () => {
    mode = 'good';
    const reasoner = createReasoner(ConfigSchema.parse({ reasoner: { enabled: true, url: 'http://127.0.0.1:9/v1', model: 'm', deadlineMs: 400 } }).reasoner, {});
    const b = createOfferBuilder({ store: s.reader, embedder: s.embedder, config: config(), reasoner });
    const d = await b.build(await request(s.embedder, exchange(PG_ERROR_TURN), { trigger: 'error' }));
    expect(d.figures.reasoner).toBe(REASONER_STATUS_CODE['http-error']);
    expect(d.offer?.reasoned).toBe(false);
  });
});

describe('reasoner pieces', () => {
  const input: ReasonerInput = {
    trigger: 'stall',
    turn: 'z'.repeat(50_000),
    candidates: Array.from({ length: 6 }, (_, i) => ({ handle: `r/n${i}.md#0`, region: 'r', title: 'T'.repeat(300), kind: 'notes', date: '2026-10-12', heuristicType: 'analogous' as const, wildcard: false, snippet: 's'.repeat(5000) })),
  };

  test('the request body always fits maxInputBytes', () => {
    for (const max of [512, 1000, 3000, 8000, 20000]) {
      const cfg = ConfigSchema.parse({ reasoner: { enabled: true, url: 'http://127.0.0.1:1', model: 'm', maxInputBytes: max } }).reasoner;
      const out = boundedBody(cfg, input);
      if (out) {
        expect(Buffer.byteLength(out.body)).toBeLessThanOrEqual(max);
        expect(out.count).toBeGreaterThanOrEqual(1);
      } else expect(max).toBeLessThan(1200); // the system prompt alone is ~630 bytes
    }
  });

  test('parseAnswer is strict', () => {
    expect(parseAnswer('{"choice":0,"type":"past-fix","reason":"r"}', 1)).toEqual({ choice: 0, type: 'past-fix', reason: 'r' });
    expect(parseAnswer('{"choice":1,"type":"past-fix","reason":"r"}', 1)).toBeNull();
    expect(parseAnswer('{"choice":0,"type":"wisdom","reason":"r"}', 1)).toBeNull();
    expect(parseAnswer('{"choice":0.5,"type":"past-fix","reason":"r"}', 2)).toBeNull();
    expect(parseAnswer('{"choice":0,"type":"past-fix","reason":"r","extra":1}', 2)).toBeNull();
    expect(parseAnswer('sure! {"choice":0}', 2)).toBeNull();
  });

  test('any subprocess would be marked as a worker with its own config dir', () => {
    const env = workerEnv('/tmp/state', 'ACTIVE_BRAIN_WORKER', {});
    expect(env.ACTIVE_BRAIN_WORKER).toBe('1');
    expect(env.CLAUDE_CONFIG_DIR).toBe('/tmp/state/worker-claude');
  });
});
