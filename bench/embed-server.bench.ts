/**
 * Embedding server client benchmark (issue 14 item 2). Against a real OpenAI-compatible
 * server on 127.0.0.1 (bench/openai-embed-server.ts, 768-dimensional vectors):
 *  1. client overhead over the server's own time at batch 32: per call, the client's wall
 *     time (request built, sent, answer parsed, checked, normalized) next to the time the
 *     server spent on the request (body parsed → answer written, simulated model time
 *     included); median of (client − server) / server. Target ≤ 5%. The server simulates a
 *     fast model (SIMULATED_MS_PER_TEXT); the absolute overhead with no model time is
 *     reported too.
 *  2. indexing the generated notes corpus of index.bench.ts through the real indexer and
 *     store, with the server answering at once (not the bottleneck). Target ≥ 200 chunks/s.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createServerEmbedder } from '../embed/server.js';
import { openStoreWriter } from '../store/sqlite-store.js';
import { runIndex } from '../indexer/indexer.js';
import { OpenAIEmbedServer } from './openai-embed-server.js';
import { writeCorpus } from './index.bench.js';
import { median, quantile } from './stats.js';

const DIM = 768;
const BATCH = 32;
/** Simulated model time per text (ms): 32 texts in ~32 ms, a fast GPU server's pace; a CPU
 *  llama.cpp server is 10–100× slower, which only shrinks the client's share. */
const SIMULATED_MS_PER_TEXT = 1;
const TARGET_OVERHEAD = 0.05;
const TARGET_CHUNKS_PER_S = 200;
const NOTES_FULL = 2000;
const NOTES_QUICK = 300;

/** A chunk-sized text (~1,400 characters) that differs per i. */
function chunkText(i: number): string {
  const words = 'postgres pool connection timeout idle keepalive socket reset retry backoff migration index table schema query'.split(' ');
  const out: string[] = [];
  for (let k = 0; out.join(' ').length < 1400; k++) out.push(words[(i * 7 + k * 3) % words.length]);
  return `${i} ${out.join(' ')}`;
}

/** Per call: [client wall ms, server ms]. */
async function measureCalls(server: OpenAIEmbedServer, calls: number): Promise<Array<[number, number]>> {
  const cfg = ConfigSchema.parse({ embedding: { url: server.url, batchSize: BATCH } }).embedding;
  const e = await createServerEmbedder(cfg);
  const out: Array<[number, number]> = [];
  for (let c = 0; c < calls + 3; c++) {
    const texts = Array.from({ length: BATCH }, (_, i) => chunkText(c * BATCH + i));
    const before = server.serverMs.length;
    const t0 = performance.now();
    await e.embed(texts, { kind: 'document' });
    const wall = performance.now() - t0;
    if (c >= 3) out.push([wall, server.serverMs[before]]); // the first calls warm the connection and the JIT
  }
  await e.dispose();
  return out;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  const calls = opts.quick ? 30 : 150;

  // 1. Overhead at batch 32, against a server that spends model time.
  const slow = new OpenAIEmbedServer({ dim: DIM, workMsPerText: SIMULATED_MS_PER_TEXT });
  await slow.start();
  let ratios: number[];
  let walls: number[];
  let servers: number[];
  try {
    const m = await measureCalls(slow, calls);
    ratios = m.map(([w, s]) => (w - s) / s);
    walls = m.map(([w]) => w);
    servers = m.map(([, s]) => s);
  } finally {
    await slow.close();
  }
  const medianRatio = median(ratios);
  figures.push(
    { metric: `client overhead over the server's own time, batch ${BATCH} (median of ${ratios.length} calls)`, value: Math.round(medianRatio * 1000) / 10, unit: '%', target: `≤ ${TARGET_OVERHEAD * 100}%`, pass: medianRatio <= TARGET_OVERHEAD },
    { metric: 'client overhead p95', value: Math.round(quantile(ratios, 0.95) * 1000) / 10, unit: '%' },
    { metric: 'client wall per call (median)', value: Math.round(median(walls) * 100) / 100, unit: 'ms' },
    { metric: 'server own time per call (median)', value: Math.round(median(servers) * 100) / 100, unit: 'ms' },
  );

  // The same with no model time: the absolute cost of HTTP + JSON + checks per call.
  const fast = new OpenAIEmbedServer({ dim: DIM });
  await fast.start();
  try {
    const m = await measureCalls(fast, calls);
    figures.push({ metric: `absolute client overhead per call, batch ${BATCH}, ${DIM} dims (median)`, value: Math.round(median(m.map(([w, s]) => w - s)) * 100) / 100, unit: 'ms' });
  } finally {
    await fast.close();
  }

  // 2. Indexing through a local server that is not the bottleneck.
  const dir = join(opts.workDir, 'embed-server-bench');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const notesDir = join(dir, 'notes');
  const n = opts.quick ? NOTES_QUICK : NOTES_FULL;
  writeCorpus(notesDir, n);
  const server = new OpenAIEmbedServer({ dim: DIM });
  await server.start();
  try {
    const config = ConfigSchema.parse({ embedding: { url: server.url } });
    const embedder = await createServerEmbedder(config.embedding);
    const storePath = join(dir, 'notes.sqlite');
    const store = openStoreWriter(storePath);
    try {
      store.ensureRegion('notes', 'global');
      store.addSource('notes', notesDir, 'notes');
      server.serverMs.length = 0;
      const s = await runIndex({ store, embedder, config });
      const serverShare = server.serverMs.reduce((a, b) => a + b, 0) / 1000 / s.seconds;
      figures.push(
        { metric: `index through a local server: ${s.indexed} notes → ${s.chunks_added} chunks`, value: s.chunks_per_s, unit: 'chunks/s', target: `≥ ${TARGET_CHUNKS_PER_S}`, pass: s.chunks_per_s >= TARGET_CHUNKS_PER_S },
        { metric: 'index: wall time', value: s.seconds, unit: 's' },
        { metric: "index: the server's share of the wall time", value: Math.round(serverShare * 1000) / 10, unit: '%' },
      );
    } finally {
      store.close();
      await embedder.dispose();
    }
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
  notes.push(
    `server: bench/openai-embed-server.ts in this process on 127.0.0.1 (node:http, keep-alive), hashed bag-of-words vectors of ${DIM} dimensions; its own time runs from the parsed body to the written answer`,
    `overhead: ${ratios.length} calls of ${BATCH} texts of ~1,400 characters after 3 warm-up calls; the server simulates ${SIMULATED_MS_PER_TEXT} ms of model time per text`,
    `indexing: the generated corpus of index.bench.ts (${n} notes, seed 42), embedding.batchSize 32, indexer.embedFlushChunks 256`,
    `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`,
  );
  return { name: 'embed-server', about: 'issue 14 item 2: OpenAI-compatible embedding server client — overhead and indexing throughput', figures, notes };
}
