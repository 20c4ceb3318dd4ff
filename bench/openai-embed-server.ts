/**
 * A real OpenAI-compatible embeddings server on 127.0.0.1 (node:http) for the embedding
 * server tests (test/embed/server*.test.ts) and the benchmark (bench/embed-server.bench.ts).
 * It answers `POST /v1/embeddings {input, model?}` like llama.cpp / vLLM / OpenAI do, with
 * deterministic vectors: a hashed bag of words (so search results are checkable), and can be
 * told to misbehave: an HTTP status for some batches, HTML, NaN, wrong lengths, a hang, a
 * key requirement, another dimension, simulated model time. It records what it received and
 * its own handling time per request (for the client-overhead figure; `GET /stats` gives them).
 * Run as a program (`node dist/bench/openai-embed-server.js <dim> <workMsPerText>`) it serves in
 * its own process and prints its URL: the benchmark measures the client without the server
 * sharing its event loop.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { pathToFileURL } from 'node:url';

/** drop-once: close the connection without answering (a kept-alive socket the server dropped), then ok. */
export type Answer = 'ok' | 'html' | 'nan' | 'null-number' | 'short' | 'few' | 'hang' | 'no-data' | 'drop-once' | 'redirect';

export interface Received {
  input: string[];
  model: string | null;
  authorization: string | null;
}

export interface EmbedServerOptions {
  dim?: number;
  /** Bearer key the server requires (401 without it or with another). */
  requireKey?: string;
  /** Simulated model time per text (ms), to measure the client against a server that works. */
  workMsPerText?: number;
}

/** FNV-1a of a word: its bucket in the bag-of-words vector. */
function fnv1a(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}

/** The server's vector for a text: counts of its lowercase words hashed into `dim` buckets. */
export function bagOfWords(text: string, dim: number): number[] {
  const v = new Array<number>(dim).fill(0);
  for (const w of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) v[fnv1a(w) % dim] += 1;
  return v;
}

export class OpenAIEmbedServer {
  readonly received: Received[] = [];
  /** The server's own time per answered request (ms): body parsed → answer written. */
  readonly serverMs: number[] = [];
  answer: Answer = 'ok';
  /** An HTTP status for a batch (e.g. 500 when it holds a marker word), or null to answer. */
  failWhen: ((input: string[]) => number | null) | null = null;
  dim: number;
  requireKey: string | undefined;
  workMsPerText: number;
  private server: Server | null = null;
  private port = 0;

  constructor(opts: EmbedServerOptions = {}) {
    this.dim = opts.dim ?? 64;
    this.requireKey = opts.requireKey;
    this.workMsPerText = opts.workMsPerText ?? 0;
  }

  /** Base URL (`http://127.0.0.1:<port>`); the endpoint is `<url>/v1/embeddings`. */
  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** Listen (on the same port again after close(), so a client sees the server come back). */
  start(): Promise<string> {
    const server = createServer((req, res) => void this.handle(req, res));
    server.keepAliveTimeout = 5000;
    this.server = server;
    return new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => {
        this.port = (server.address() as AddressInfo).port;
        resolve(this.url);
      });
    });
  }

  /** Stop listening and drop every connection (a hanging request too). */
  close(): Promise<void> {
    const s = this.server;
    this.server = null;
    if (!s) return Promise.resolve();
    return new Promise((resolve) => {
      s.close(() => resolve());
      s.closeAllConnections();
    });
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const t0 = performance.now();
    if (req.method === 'GET' && req.url === '/stats') return this.send(res, 200, { serverMs: this.serverMs });
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/embeddings') return this.send(res, 404, { error: { message: 'not found' } });
    let body: { input?: unknown; model?: unknown };
    try {
      body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return this.send(res, 400, { error: { message: 'bad json' } });
    }
    const input = Array.isArray(body.input) ? body.input.map(String) : [String(body.input)];
    const authorization = req.headers.authorization ?? null;
    this.received.push({ input, model: typeof body.model === 'string' ? body.model : null, authorization });
    if (this.requireKey && authorization !== `Bearer ${this.requireKey}`) return this.send(res, 401, { error: { message: 'invalid api key' } });
    const status = this.failWhen?.(input) ?? null;
    if (status !== null) return this.send(res, status, { error: { message: 'input is too large to process. increase the physical batch size' } });
    if (this.answer === 'hang') return; // never answers; close() drops it
    if (this.answer === 'drop-once') {
      this.answer = 'ok';
      return void req.socket.destroy();
    }
    if (this.answer === 'redirect') {
      res.writeHead(308, { location: `${this.url}/api/v2/embeddings` });
      return void res.end();
    }
    if (this.answer === 'html') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end('<!doctype html><html><body>It works!</body></html>');
    }
    if (this.workMsPerText > 0) await new Promise((r) => setTimeout(r, this.workMsPerText * input.length));
    const vectors = input.map((t) => bagOfWords(t, this.dim));
    if (this.answer === 'short') vectors[0] = vectors[0].slice(1);
    if (this.answer === 'few') vectors.pop();
    const data = vectors.map((embedding, index) => ({ object: 'embedding', index, embedding }));
    let text = JSON.stringify(this.answer === 'no-data' ? { object: 'list', results: data } : { object: 'list', data, model: 'test-embed', usage: { prompt_tokens: 0, total_tokens: 0 } });
    if (this.answer === 'nan') text = text.replace(/"embedding":\[(-?\d+)/, '"embedding":[NaN');
    if (this.answer === 'null-number') text = text.replace(/"embedding":\[(-?\d+)/, '"embedding":[null');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(text);
    this.serverMs.push(performance.now() - t0);
  }

  private send(res: ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const server = new OpenAIEmbedServer({ dim: Number(process.argv[2] ?? 64), workMsPerText: Number(process.argv[3] ?? 0) });
  process.stdout.write(`${await server.start()}\n`);
  process.on('SIGTERM', () => void server.close().then(() => process.exit(0)));
}
