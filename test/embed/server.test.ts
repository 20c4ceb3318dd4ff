/**
 * The embedding server client (embed/server.ts) against a real OpenAI-compatible server on
 * 127.0.0.1 (bench/openai-embed-server.ts): good answers (normalized, in order, batched, the
 * model and the prefixes sent), a refused batch (missing, later batches go on), the deadline,
 * garbage (HTML, NaN, null, wrong length and count, wrong shape), a dimension change, the
 * key (401 without, ok with), connection refused; the pure parts by property.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigSchema } from '../../config/schema.js';
import { createEmbedder, resolveModel } from '../../embed/embedder.js';
import { EmbedBatchRefused, EmbedderError } from '../../embed/errors.js';
import { createServerEmbedder, endpointUrl, parseAnswer, requestText, serverModelId } from '../../embed/server.js';
import { cosine } from '../../embed/embedder.js';
import { bagOfWords, OpenAIEmbedServer } from '../../bench/openai-embed-server.js';

let server: OpenAIEmbedServer;
beforeEach(async () => {
  server = new OpenAIEmbedServer({ dim: 64 });
  await server.start();
});
afterEach(() => server.close());

const cfg = (over: Record<string, unknown> = {}) => ConfigSchema.parse({ embedding: { url: server.url, ...over } }).embedding;
const norm = (v: Float32Array) => Math.hypot(...v);

describe('embedding server client: good answers', () => {
  it('learns the dimension from the server, returns unit vectors in input order, batched', async () => {
    const e = await createServerEmbedder(cfg({ batchSize: 4, model: 'nomic-embed-text' }));
    expect(e.dim).toBe(64);
    expect(e.modelId).toBe(`server:${new URL(server.url).host}/nomic-embed-text`);
    const texts = Array.from({ length: 10 }, (_, i) => `note ${i} about pool ${i % 2 ? 'postgres' : 'bread'}`);
    server.received.length = 0;
    const vs = await e.embed(texts);
    expect(vs).toHaveLength(10);
    for (const v of vs) expect(norm(v)).toBeCloseTo(1, 5);
    expect(server.received.map((r) => r.input.length)).toEqual([4, 4, 2]);
    expect(server.received.every((r) => r.model === 'nomic-embed-text')).toBe(true);
    // The vector is the server's, normalized: compare with the server's own bag of words.
    const raw = bagOfWords(texts[7], 64);
    const n = Math.hypot(...raw);
    expect(cosine(vs[7], Float32Array.from(raw, (x) => x / n))).toBeCloseTo(1, 5);
  });

  it('the factory chooses the server when embedding.url is set (control: the local model id without it)', async () => {
    const e = await createEmbedder(cfg());
    expect(e.modelId).toBe(`server:${new URL(server.url).host}/default`);
    expect(resolveModel(cfg()).modelId).toBe(e.modelId);
    expect(resolveModel(ConfigSchema.parse({}).embedding).modelId).toBe('Xenova/all-MiniLM-L6-v2');
  });

  it('sends no model field when embedding.model is unset (llama.cpp serves one model)', async () => {
    await createServerEmbedder(cfg());
    expect(server.received[0].model).toBeNull();
  });

  it('sends the query prefix for queries, the document prefix for documents, none without a kind', async () => {
    const e = await createServerEmbedder(cfg({ queryPrefix: 'task: search result | query: ', documentPrefix: 'title: none | text: ' }));
    server.received.length = 0;
    await e.embed(['where is the bread'], { kind: 'query' });
    await e.embed(['bread recipe'], { kind: 'document' });
    await e.embed(['plain']);
    expect(server.received.map((r) => r.input[0])).toEqual(['task: search result | query: where is the bread', 'title: none | text: bread recipe', 'plain']);
  });

  it('an empty text gets the zero vector without asking the server', async () => {
    const e = await createServerEmbedder(cfg());
    server.received.length = 0;
    const [a, b] = await e.embed(['', 'bread']);
    expect(Array.from(a).every((x) => x === 0)).toBe(true);
    expect(norm(b)).toBeCloseTo(1, 5);
    expect(server.received.map((r) => r.input)).toEqual([['bread']]);
  });

  it('answers given out of order (by index) come back in input order', () => {
    const body = JSON.stringify({ data: [{ index: 1, embedding: [0, 2] }, { index: 0, embedding: [3, 0] }] });
    const [a, b] = parseAnswer(body, 2, null, 'u');
    expect(Array.from(a)).toEqual([1, 0]);
    expect(Array.from(b)).toEqual([0, 1]);
  });
});

describe('embedding server client: failures', () => {
  it('a batch answered with HTTP 500 is missing; the other batches go on (embed() refuses the whole call)', async () => {
    const e = await createServerEmbedder(cfg({ batchSize: 2 }));
    server.failWhen = (input) => (input.some((t) => t.includes('oversize')) ? 500 : null);
    server.received.length = 0;
    const texts = ['a bread', 'b bread', 'c oversize', 'd bread', 'e bread', 'f bread'];
    const got = await e.embedAllowingMissing(texts);
    expect(got.map((v) => (v ? 'ok' : 'missing'))).toEqual(['ok', 'ok', 'missing', 'missing', 'ok', 'ok']);
    expect(server.received).toHaveLength(3); // the batch after the refused one was asked
    const err = await e.embed(texts).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedBatchRefused);
    expect((err as EmbedBatchRefused).status).toBe(500);
    expect((err as Error).message).toContain(server.url);
  });

  it('a server that does not answer within embedding.timeoutMs stops with the deadline named', async () => {
    const e = await createServerEmbedder(cfg({ timeoutMs: 300 }));
    server.answer = 'hang';
    const t0 = Date.now();
    const err = await e.embed(['bread']).catch((x: unknown) => x);
    expect(Date.now() - t0).toBeLessThan(3000);
    expect(err).toBeInstanceOf(EmbedderError);
    expect(err).not.toBeInstanceOf(EmbedBatchRefused);
    expect((err as Error).message).toMatch(/no answer within 300 ms.*embedding\.timeoutMs/);
    expect((err as Error).message).toContain(`${server.url}/v1/embeddings`);
  });

  for (const [answer, what] of [
    ['html', /not JSON/],
    ['nan', /not JSON/],
    ['null-number', /non-finite number/],
    ['short', /different lengths|dimensional/],
    ['few', /vectors for .* texts/],
    ['no-data', /no "data" array/],
  ] as const) {
    it(`garbage (${answer}) stops with an error naming the URL, never a vector`, async () => {
      const e = await createServerEmbedder(cfg());
      server.answer = answer;
      const err = await e.embedAllowingMissing(['bread', 'butter']).catch((x: unknown) => x);
      expect(err).toBeInstanceOf(EmbedderError);
      expect(err).not.toBeInstanceOf(EmbedBatchRefused);
      expect((err as Error).message).toMatch(what);
      expect((err as Error).message).toContain(server.url);
      server.answer = 'ok'; // control: the same client works again on a good answer
      expect(await e.embed(['bread'])).toHaveLength(1);
    });
  }

  it('the dimension changing mid-run stops with the re-index advice', async () => {
    const e = await createServerEmbedder(cfg());
    server.dim = 32;
    const err = await e.embed(['bread']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toMatch(/32-dimensional vectors where it gave 64.*--rebuild/);
  });

  it('a key required: 401 without it names the variable to set; with it the bearer token is sent', async () => {
    server.requireKey = 'sk-test-123';
    const err = await createServerEmbedder(cfg({ apiKeyEnv: 'AB_TEST_EMBED_KEY' }), {}).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toMatch(/needs an API key \(HTTP 401\).*AB_TEST_EMBED_KEY/);
    const wrong = await createServerEmbedder(cfg({ apiKeyEnv: 'AB_TEST_EMBED_KEY' }), { AB_TEST_EMBED_KEY: 'nope' }).catch((x: unknown) => x);
    expect((wrong as Error).message).toMatch(/refused the API key in \$AB_TEST_EMBED_KEY/);
    const e = await createServerEmbedder(cfg({ apiKeyEnv: 'AB_TEST_EMBED_KEY' }), { AB_TEST_EMBED_KEY: 'sk-test-123' });
    expect(e.dim).toBe(64);
    expect(server.received.at(-1)!.authorization).toBe('Bearer sk-test-123');
  });

  it('a connection the server drops without an answer is asked again once on a new one (control: dropped twice fails)', async () => {
    const e = await createServerEmbedder(cfg());
    server.answer = 'drop-once';
    server.received.length = 0;
    expect(await e.embed(['bread'])).toHaveLength(1);
    expect(server.received).toHaveLength(2);
    let drops = 0;
    server.failWhen = () => {
      if (drops++ < 2) server.answer = 'drop-once';
      return null;
    };
    const err = await e.embed(['bread']).catch((x: unknown) => x);
    expect((err as Error).message).toMatch(/cannot reach .*the server closed the connection/);
  });

  it('a redirect is not followed: stops naming where it points', async () => {
    const e = await createServerEmbedder(cfg());
    server.answer = 'redirect';
    const err = await e.embed(['bread']).catch((x: unknown) => x);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as Error).message).toMatch(/redirects \(HTTP 308\) to http:\/\/127\.0\.0\.1:\d+\/api\/v2\/embeddings: put the endpoint/);
  });

  it('a wrong endpoint (404) and a closed port stop with what to fix', async () => {
    const bad = await createServerEmbedder(cfg({ url: `${server.url}/v2/embeddings` })).catch((x: unknown) => x);
    expect((bad as Error).message).toMatch(/answered 404.*embedding\.url/);
    const url = server.url;
    await server.close();
    const down = await createServerEmbedder(cfg({ url })).catch((x: unknown) => x);
    expect(down).toBeInstanceOf(EmbedderError);
    expect((down as Error).message).toMatch(/cannot reach the embedding server at .*ECONNREFUSED.*embedding\.url/);
  });
});

describe('embedding server client: pure parts', () => {
  it('endpointUrl: any base, …/v1 or full endpoint gives one …/embeddings endpoint; applying it again changes nothing', () => {
    expect(endpointUrl('http://127.0.0.1:8080')).toBe('http://127.0.0.1:8080/v1/embeddings');
    expect(endpointUrl('http://localhost:11434/v1/')).toBe('http://localhost:11434/v1/embeddings');
    expect(endpointUrl('https://api.openai.com/v1/embeddings')).toBe('https://api.openai.com/v1/embeddings');
    fc.assert(
      fc.property(fc.webUrl({ withQueryParameters: false, withFragments: false }), (u) => {
        const ep = endpointUrl(u);
        expect(new URL(ep).pathname.endsWith('/embeddings')).toBe(true);
        expect(endpointUrl(ep)).toBe(ep);
        expect(serverModelId(u, 'm')).toBe(`server:${new URL(u).host}/m`);
      }),
    );
  });

  it('requestText: the prefix is kept whole and the text cut to maxChars', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: 20 }), fc.integer({ min: 1, max: 50 }), (text, prefix, maxChars) => {
        const c = { queryPrefix: prefix, documentPrefix: '', maxChars };
        const q = requestText(text, 'query', c);
        expect(q.startsWith(prefix)).toBe(true);
        expect(q.length).toBe(prefix.length + Math.min(text.length, maxChars));
        expect(requestText(text, 'document', c)).toBe(text.slice(0, maxChars));
      }),
    );
  });

  it('parseAnswer: finite vectors of one length come back normalized (zero stays zero); a bad number never passes', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 8 }).chain((dim) => fc.array(fc.array(fc.integer({ min: -1000, max: 1000 }), { minLength: dim, maxLength: dim }), { minLength: 1, maxLength: 5 })),
        (vectors) => {
          const out = parseAnswer(JSON.stringify({ data: vectors.map((embedding) => ({ embedding })) }), vectors.length, null, 'u');
          out.forEach((v, i) => {
            const zero = vectors[i].every((x) => x === 0);
            if (zero) expect(Array.from(v).every((x) => x === 0)).toBe(true);
            else expect(norm(v)).toBeCloseTo(1, 4);
          });
          const broken = JSON.stringify({ data: vectors.map((embedding, i) => ({ embedding: i === 0 ? [...embedding.slice(1), 'x'] : embedding })) });
          expect(() => parseAnswer(broken, vectors.length, null, 'u')).toThrow(EmbedderError);
        },
      ),
    );
  });
});
