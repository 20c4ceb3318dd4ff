/**
 * `index` and `search` through the real CLI (node bin/active-brain.js, ACTIVE_BRAIN_HOME in a
 * temp dir) with embedding.url pointing at a real OpenAI-compatible server on 127.0.0.1
 * (bench/openai-embed-server.ts, hashed bag-of-words vectors so rankings are checkable):
 * end to end, the store's recorded model, prefixes as configured, a refused batch (left out,
 * counted, the later batches go on), a dimension change (the re-index error), a key
 * (401 without, ok with), a server that is down (exit 3 naming the URL).
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { openStoreReader } from '../../store/sqlite-store.js';
import { OpenAIEmbedServer } from '../../bench/openai-embed-server.js';

const bin = join(repoRoot, 'bin', 'active-brain.js');

let base: string;
let notes: string;
let server: OpenAIEmbedServer;

/** The CLI as a child process, awaited without blocking this process (the server lives here). */
function cli(args: string[], env: Record<string, string | undefined> = {}): Promise<{ code: number; out: string; err: string }> {
  const fullEnv: NodeJS.ProcessEnv = {
    ...process.env,
    ACTIVE_BRAIN_HOME: join(base, 'home'),
    ACTIVE_BRAIN_EMBEDDING_URL: server.url,
    CI: 'true',
    ...env,
  };
  delete fullEnv.ACTIVE_BRAIN_MODEL_PATH; // the server, not the offline model
  delete fullEnv.ACTIVE_BRAIN_STORE;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete fullEnv[k];
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, ...args], { env: fullEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (err += b));
    child.on('exit', (code) => resolve({ code: code ?? -1, out, err }));
  });
}

function note(name: string, text: string): void {
  writeFileSync(join(notes, name), text);
}

beforeEach(async () => {
  base = mkdtempSync(join(tmpdir(), 'ab-embed-cli-'));
  notes = join(base, 'notes');
  mkdirSync(notes);
  note('bread.md', '# Baking\n\nSourdough bread needs a lively starter, high hydration and a hot oven for a good crust.\n');
  note('cars.md', '# Garage\n\nThe car needed new tyres, brakes and an oil change before the long trip north.\n');
  note('postgres.md', '# Database\n\nThe postgres connection pool timed out; raising the idle timeout and keepalive fixed ECONNRESET.\n');
  server = new OpenAIEmbedServer({ dim: 64 });
  await server.start();
});
afterEach(async () => {
  await server.close();
  rmSync(base, { recursive: true, force: true });
});

const storeInfo = () => {
  const r = openStoreReader(join(base, 'home', 'store.sqlite'));
  try {
    return r.info();
  } finally {
    r.close();
  }
};

describe('index and search with an embedding server (real CLI, real server)', () => {
  it('indexes through the server and finds by its vectors; the store records server:<host>/<model> and its dimension', async () => {
    const add = await cli(['index', 'add', notes, '--region', 'notes', '--json', '--set', 'embedding.model=bow-64']);
    expect(add.code, add.err).toBe(0);
    const s = JSON.parse(add.out);
    expect(s).toMatchObject({ indexed: 3, chunks_added: 3 });
    expect(storeInfo()).toMatchObject({ model: `server:${new URL(server.url).host}/bow-64`, dim: 64 });
    expect(server.received.every((r) => r.model === 'bow-64')).toBe(true);

    const q = await cli(['search', 'sourdough starter oven', '--arm', 'vector', '--json', '--k', '3', '--set', 'embedding.model=bow-64']);
    expect(q.code, q.err).toBe(0);
    const hits = JSON.parse(q.out).hits as Array<{ title: string; heading: string }>;
    expect(hits[0].heading).toBe('Baking');
    const q2 = await cli(['search', 'postgres pool keepalive', '--arm', 'vector', '--json', '--set', 'embedding.model=bow-64']);
    expect((JSON.parse(q2.out).hits as Array<{ heading: string }>)[0].heading).toBe('Database');
  });

  it('sends the document prefix when indexing and the query prefix when searching', async () => {
    const sets = ['--set', 'embedding.documentPrefix=title: none | text: ', '--set', 'embedding.queryPrefix=task: search result | query: '];
    expect((await cli(['index', 'add', notes, '--region', 'notes', '--json', ...sets])).code).toBe(0);
    const docs = server.received.slice(1).flatMap((r) => r.input); // [0] is the dimension probe
    expect(docs).toHaveLength(3);
    for (const d of docs) expect(d.startsWith('title: none | text: ')).toBe(true);
    server.received.length = 0;
    expect((await cli(['search', 'bread crust', '--arm', 'vector', '--json', ...sets])).code).toBe(0);
    expect(server.received.at(-1)!.input).toEqual(['task: search result | query: bread crust']);
  });

  it('a batch the server refuses (500) is left out and counted; the later batches go on; exit 1', async () => {
    for (let i = 0; i < 6; i++) note(`extra-${i}.md`, `# Extra ${i}\n\nA plain note number ${i} about gardening and tomatoes in the summer sun.\n`);
    note('huge.md', '# H\n\nThe oversize note: the server refuses it.\n'); // the shortest: in the first batch
    server.failWhen = (input) => (input.some((t) => t.includes('oversize')) ? 500 : null);
    const r = await cli(['index', 'add', notes, '--region', 'notes', '--json', '--set', 'embedding.batchSize=2']);
    expect(r.code, r.err).toBe(1);
    const s = JSON.parse(r.out);
    // 10 one-chunk notes in batches of 2, sorted by length: the first batch is refused.
    const refused = server.received.filter((q) => q.input.some((t) => t.includes('oversize')));
    expect(refused).toHaveLength(1);
    expect(refused[0].input).toHaveLength(2);
    expect(server.received.indexOf(refused[0])).toBe(1); // [0] is the dimension probe
    expect(server.received).toHaveLength(1 + 5); // the 4 batches after it were asked too
    // A note whose every chunk was refused is skipped and keeps its previous version.
    expect(s.skipped.embed_failed).toBe(2);
    expect(s.indexed).toBe(8);
    expect(storeInfo().chunks).toBe(s.indexed);

    // The next run retries the skipped notes: with the server fixed, everything is in.
    server.failWhen = null;
    const again = await cli(['index', '--json']);
    expect(again.code, again.err).toBe(0);
    expect(storeInfo().documents).toBe(10);
  });

  it('a refused batch inside one document leaves just those chunks out (warnings.chunks_not_embedded)', async () => {
    const sections = Array.from({ length: 4 }, (_, i) => `## Part ${i}\n\n${i === 2 ? 'This oversize section breaks the server.' : `Ordinary words for section ${i} about rivers and boats.`} ${'filler '.repeat(40 + i * 5)}`);
    note('long.md', `# Long\n\n${sections.join('\n\n')}\n`);
    server.failWhen = (input) => (input.some((t) => t.includes('oversize')) ? 500 : null);
    const r = await cli(['index', 'add', join(notes, 'long.md'), '--region', 'long', '--json', '--set', 'embedding.batchSize=1', '--set', 'indexer.maxChunkChars=400']);
    const s = JSON.parse(r.out);
    expect(r.code).toBe(1);
    expect(s.warnings.chunks_not_embedded).toBe(1);
    expect(s.indexed).toBe(1);
    expect(s.chunks_added).toBeGreaterThanOrEqual(3);
    const plain = await cli(['index', 'add', join(notes, 'long.md'), '--region', 'long']);
    expect(plain.code).toBe(0); // unchanged now: nothing to embed
  });

  it('the server changing dimension: index and search stop with the re-index error (exit 3); --rebuild fixes it', async () => {
    expect((await cli(['index', 'add', notes, '--region', 'notes', '--json'])).code).toBe(0);
    server.dim = 32;
    note('new.md', '# New\n\nA new note about kites and wind.\n');
    const idx = await cli(['index']);
    expect(idx.code).toBe(3);
    expect(idx.err).toMatch(/dim 64.*dim 32.*--rebuild/);
    const q = await cli(['search', 'bread', '--arm', 'vector']);
    expect(q.code).toBe(3);
    expect(q.err).toMatch(/re-index with `active-brain index --rebuild`/);
    const kw = await cli(['search', 'bread', '--arm', 'keyword', '--json']);
    expect(kw.code).toBe(0); // control: the keyword arm needs no vectors
    const rebuilt = await cli(['index', '--rebuild', '--json']);
    expect(rebuilt.code, rebuilt.err).toBe(0);
    expect(storeInfo()).toMatchObject({ dim: 32, documents: 4 });
  });

  it('a key required: exit 3 naming the variable without it; indexed with it', async () => {
    server.requireKey = 'sk-local-1';
    const no = await cli(['index', 'add', notes, '--region', 'notes'], { ACTIVE_BRAIN_EMBEDDING_KEY: undefined });
    expect(no.code).toBe(3);
    expect(no.err).toMatch(/needs an API key \(HTTP 401\).*ACTIVE_BRAIN_EMBEDDING_KEY/);
    const yes = await cli(['index', 'add', notes, '--region', 'notes', '--json'], { ACTIVE_BRAIN_EMBEDDING_KEY: 'sk-local-1' });
    expect(yes.code, yes.err).toBe(0);
    expect(server.received.at(-1)!.authorization).toBe('Bearer sk-local-1');
  });

  it('a server that is down, or answers HTML: exit 3 with the URL and what to do; nothing indexed is lost', async () => {
    expect((await cli(['index', 'add', notes, '--region', 'notes', '--json'])).code).toBe(0);
    note('new.md', '# New\n\nA new note about kites and wind.\n');
    server.answer = 'html';
    const html = await cli(['index']);
    expect(html.code).toBe(3);
    expect(html.err).toContain(`${server.url}/v1/embeddings did not answer like an OpenAI-compatible embeddings server`);
    await server.close();
    const down = await cli(['index']);
    expect(down.code).toBe(3);
    expect(down.err).toMatch(/cannot reach the embedding server at http:\/\/127\.0\.0\.1:\d+\/v1\/embeddings \(ECONNREFUSED\): start it, or fix embedding\.url/);
    expect(storeInfo().documents).toBe(3);
  });
});
