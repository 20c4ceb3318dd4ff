/**
 * The embedding server client: an OpenAI-compatible `POST /v1/embeddings` (llama.cpp server,
 * Ollama, vLLM, OpenAI) instead of the local model, over node:http / node:https with kept-alive
 * connections (a third of fetch's CPU per call: bench/embed-server.bench.ts).
 *
 *   texts ─▶ prefix (query / document) ─▶ cut to maxChars ─▶ batches of batchSize
 *         ─▶ {input, model?} + bearer key from $apiKeyEnv ─▶ answer ─▶ checked, normalized
 *
 * Config: embedding.url, model, apiKeyEnv, queryPrefix, documentPrefix, batchSize,
 * timeoutMs, maxChars (config/schema.ts). The dimension is what the server answers to a probe
 * at creation; the model id the store records is `server:<host>/<model>` (serverModelId).
 *
 * Failure rules (docs/EMBEDDING.md): a batch answered with an HTTP error (not 401/403/404) is
 * EmbedBatchRefused — embedAllowingMissing gives its texts `null` and goes on with the next
 * batch. Everything that says the server is not usable — unreachable, past the deadline,
 * 401/403 (the key), 404 (the endpoint or model), an answer that is not the OpenAI shape,
 * a non-finite number, a wrong vector count or length, the dimension changing — is an
 * EmbedderError (exit 3) naming the URL and what to do.
 */
import type { Config } from '../config/schema.js';
import type { Embedder, EmbedKind, EmbedOptions } from './types.js';
import { Agent as HttpAgent, request as httpRequest } from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import { EmbedBatchRefused, EmbedderError } from './errors.js';

/** The text whose answer tells the server's dimension at creation. */
export const PROBE_TEXT = 'dimension probe';
/** Characters of a server's error body quoted in a message. */
const BODY_EXCERPT_CHARS = 200;
/** Model part of the recorded id when embedding.model is not set (llama.cpp serves one model). */
const UNNAMED_MODEL = 'default';

export type ServerConfig = Pick<
  Config['embedding'],
  'url' | 'model' | 'apiKeyEnv' | 'queryPrefix' | 'documentPrefix' | 'batchSize' | 'timeoutMs' | 'maxChars'
>;

/** The embeddings endpoint for a configured URL: `…/embeddings` as given, `…/v1` + `/embeddings`,
 *  else + `/v1/embeddings`. Query strings are kept. */
export function endpointUrl(url: string): string {
  const u = new URL(url);
  const path = u.pathname.replace(/\/+$/, '');
  if (/\/embeddings$/.test(path)) u.pathname = path;
  else if (/\/v1$/.test(path)) u.pathname = `${path}/embeddings`;
  else u.pathname = `${path}/v1/embeddings`;
  return u.toString();
}

/** The model id the store records for a server: `server:<host[:port]>/<model>`. */
export function serverModelId(url: string, model: string | undefined): string {
  return `server:${new URL(url).host}/${model ?? UNNAMED_MODEL}`;
}

/** A text as sent: its kind's prefix, then cut to maxChars (the prefix always kept whole). */
export function requestText(text: string, kind: EmbedKind | undefined, cfg: Pick<ServerConfig, 'queryPrefix' | 'documentPrefix' | 'maxChars'>): string {
  const prefix = kind === 'query' ? cfg.queryPrefix : kind === 'document' ? cfg.documentPrefix : '';
  const body = text.length > cfg.maxChars ? text.slice(0, cfg.maxChars) : text;
  return prefix + body;
}

const oneLine = (s: string) => s.replace(/\s+/g, ' ').trim().slice(0, BODY_EXCERPT_CHARS);

/**
 * Check and normalize one answer: `{data: [{embedding: number[], index?}], model?}` with one
 * entry per input, every vector of one length (= `dim` when known), every number finite.
 * A zero vector stays zero (no signal), like the local embedder. Throws EmbedderError.
 */
export function parseAnswer(body: string, count: number, dim: number | null, endpoint: string): Float32Array[] {
  const broken = (what: string) =>
    new EmbedderError(
      `${endpoint} did not answer like an OpenAI-compatible embeddings server (${what}). ` +
        'Check embedding.url points at the server\'s embeddings endpoint (…/v1/embeddings) and embedding.model names an embedding model.',
    );
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw broken(`not JSON: "${oneLine(body).slice(0, 60)}"`);
  }
  const data = (json as { data?: unknown } | null)?.data;
  if (!Array.isArray(data)) throw broken('no "data" array');
  if (data.length !== count) throw broken(`${data.length} vectors for ${count} texts`);
  const out = new Array<Float32Array>(count);
  for (let i = 0; i < count; i++) {
    const item = data[i] as { embedding?: unknown; index?: unknown } | null;
    const at = typeof item?.index === 'number' ? item.index : i;
    if (!Number.isInteger(at) || at < 0 || at >= count || out[at]) throw broken(`bad or repeated index ${String(item?.index)}`);
    const e = item?.embedding;
    if (!Array.isArray(e)) throw broken(typeof e === 'string' ? 'base64 vectors: the server must answer floats' : 'an entry without an "embedding" array');
    if (e.length === 0) throw broken('an empty vector');
    const want = dim ?? out.find(Boolean)?.length ?? e.length;
    if (e.length !== want) {
      throw new EmbedderError(
        dim !== null
          ? `${endpoint} answered ${e.length}-dimensional vectors where it gave ${dim} before: the model behind it changed. ` +
            'Restore the model, or re-index with it: `active-brain index --rebuild`.'
          : `${endpoint} answered vectors of different lengths (${want} and ${e.length}) in one answer: check the server and its model.`,
      );
    }
    const v = new Float32Array(e.length);
    let norm = 0;
    for (let d = 0; d < e.length; d++) {
      const x = e[d];
      if (typeof x !== 'number' || !Number.isFinite(x)) throw broken(`a non-finite number (${String(x)}) in vector ${at}`);
      v[d] = x;
      norm += x * x;
    }
    norm = Math.sqrt(norm);
    if (norm > 0 && Number.isFinite(norm)) for (let d = 0; d < v.length; d++) v[d] /= norm;
    else v.fill(0);
    out[at] = v;
  }
  return out;
}

/** Errors of a kept-alive connection the server closed (it restarted): asked again once, on a new one. */
const STALE_CONNECTION_CODES: readonly string[] = ['ECONNRESET', 'EPIPE'];

class DeadlineError extends Error {}

interface Reply {
  status: number;
  statusText: string;
  /** Where a redirect points (redirects are not followed: the URL in config should be the real one). */
  location: string | null;
  body: string;
}

/** One POST; the whole answer must arrive within timeoutMs (DeadlineError otherwise). */
function postOnce(url: URL, headers: Record<string, string>, body: string, timeoutMs: number, agents: Agents): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const secure = url.protocol === 'https:';
    const signal = AbortSignal.timeout(timeoutMs);
    const fail = (e: unknown) => reject(signal.aborted ? new DeadlineError() : e);
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method: 'POST', headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) }, agent: secure ? agents.https : agents.http, signal },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, statusText: res.statusMessage ?? '', location: res.headers.location ?? null, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', fail);
        res.on('close', () => !res.complete && fail(Object.assign(new Error('the server closed the connection'), { code: 'ECONNRESET' })));
      },
    );
    req.on('error', fail);
    req.end(body);
  });
}

/** Why a request failed, as words: the system error code, or the deadline. */
function requestProblem(e: unknown, timeoutMs: number): string {
  if (e instanceof DeadlineError) return `no answer within ${timeoutMs} ms`;
  const err = e as NodeJS.ErrnoException;
  if (err?.code === 'ECONNRESET') return 'the server closed the connection';
  return err?.code ?? err?.message ?? String(e);
}

interface Agents {
  http: HttpAgent;
  https: HttpsAgent;
}

export class ServerEmbedder implements Embedder {
  readonly endpoint: string;
  private dimension: number | null = null;
  /** Kept-alive connections (free sockets do not keep the process alive). */
  private readonly agents: Agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

  constructor(
    readonly modelId: string,
    private readonly cfg: ServerConfig & { url: string },
    private readonly apiKey: string | undefined,
  ) {
    this.endpoint = endpointUrl(cfg.url);
  }

  get dim(): number {
    return this.dimension ?? 0;
  }

  /** Ask for one vector: learns the dimension (and proves the server and key work). */
  async probe(): Promise<void> {
    await this.post([PROBE_TEXT]);
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.cfg.batchSize) out.push(...(await this.batch(texts.slice(i, i + this.cfg.batchSize), opts.kind)));
    return out;
  }

  async embedAllowingMissing(texts: string[], opts: EmbedOptions = {}): Promise<Array<Float32Array | null>> {
    const out: Array<Float32Array | null> = [];
    for (let i = 0; i < texts.length; i += this.cfg.batchSize) {
      const part = texts.slice(i, i + this.cfg.batchSize);
      try {
        out.push(...(await this.batch(part, opts.kind)));
      } catch (e) {
        if (!(e instanceof EmbedBatchRefused)) throw e;
        for (let k = 0; k < part.length; k++) out.push(null);
      }
    }
    return out;
  }

  async dispose(): Promise<void> {
    this.agents.http.destroy();
    this.agents.https.destroy();
  }

  /** One batch: empty texts get the zero vector without asking (no signal, as locally). */
  private async batch(texts: string[], kind: EmbedKind | undefined): Promise<Float32Array[]> {
    const send: number[] = [];
    texts.forEach((t, i) => t.trim() !== '' && send.push(i));
    const got = send.length ? await this.post(send.map((i) => requestText(texts[i], kind, this.cfg))) : [];
    const out: Float32Array[] = texts.map(() => new Float32Array(this.dim));
    send.forEach((i, k) => (out[i] = got[k]));
    return out;
  }

  private async post(input: string[]): Promise<Float32Array[]> {
    const { endpoint } = this;
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
    const body = JSON.stringify(this.cfg.model ? { input, model: this.cfg.model } : { input });
    let res: Reply;
    try {
      const url = new URL(endpoint);
      const ask = () => postOnce(url, headers, body, this.cfg.timeoutMs, this.agents);
      try {
        res = await ask();
      } catch (e) {
        if (!STALE_CONNECTION_CODES.includes((e as NodeJS.ErrnoException)?.code ?? '')) throw e;
        res = await ask();
      }
    } catch (e) {
      const why = requestProblem(e, this.cfg.timeoutMs);
      throw new EmbedderError(
        why.startsWith('no answer')
          ? `the embedding server at ${endpoint} gave ${why} (embedding.timeoutMs): check it is not stuck, or raise embedding.timeoutMs / lower embedding.batchSize.`
          : `cannot reach the embedding server at ${endpoint} (${why}): start it, or fix embedding.url (unset it to use the local model).`,
      );
    }
    const text = res.body;
    if (res.status === 401 || res.status === 403) {
      const env = this.cfg.apiKeyEnv;
      throw new EmbedderError(
        this.apiKey
          ? `the embedding server at ${endpoint} refused the API key in $${env} (HTTP ${res.status}): put a valid key in $${env}.`
          : `the embedding server at ${endpoint} needs an API key (HTTP ${res.status}): put it in the environment variable ${env} (embedding.apiKeyEnv names it).`,
      );
    }
    if (res.status === 404) {
      throw new EmbedderError(
        `the embedding server at ${endpoint} answered 404 (${oneLine(text) || 'not found'}): check embedding.url is the OpenAI-compatible embeddings endpoint ` +
          'and embedding.model names a model the server has (Ollama: pulled; vLLM: the served name).',
      );
    }
    if (res.status >= 300 && res.status < 400) {
      throw new EmbedderError(`the embedding server at ${endpoint} redirects (HTTP ${res.status}) to ${res.location ?? '(no location)'}: put the endpoint it redirects to in embedding.url.`);
    }
    if (res.status >= 400) {
      throw new EmbedBatchRefused(`the embedding server at ${endpoint} refused a batch of ${input.length} text(s) with HTTP ${res.status}: ${oneLine(text) || res.statusText}`, res.status);
    }
    const vectors = parseAnswer(text, input.length, this.dimension, endpoint);
    this.dimension ??= vectors[0].length;
    return vectors;
  }
}

/** Connect to the configured server: probes it once (dimension, key, endpoint) or throws EmbedderError. */
export async function createServerEmbedder(cfg: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<ServerEmbedder> {
  if (!cfg.url) throw new EmbedderError('embedding.url is not set: no embedding server to use');
  const key = env[cfg.apiKeyEnv];
  const e = new ServerEmbedder(serverModelId(cfg.url, cfg.model), { ...cfg, url: cfg.url }, key ? key : undefined);
  await e.probe();
  return e;
}
