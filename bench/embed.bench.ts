/**
 * Embedder throughput and load time with the offline model (real transformers.js path):
 * model load, single short text latency (the daemon's per-exchange cost), batch throughput.
 */
import { performance } from 'node:perf_hooks';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import type { BenchOptions, BenchResult } from './types.js';
import { quantile } from './stats.js';

const SENTENCE = 'the connection pool times out under load after the deploy; raising idle timeout fixed ECONNRESET';

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const cfg = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } }).embedding;
  const t0 = performance.now();
  const e = await createEmbedder(cfg);
  const loadMs = performance.now() - t0;
  const singles: number[] = [];
  for (let i = 0; i < (opts.quick ? 50 : 300); i++) {
    const t = performance.now();
    await e.embed([`${SENTENCE} ${i}`]);
    singles.push(performance.now() - t);
  }
  const n = opts.quick ? 500 : 4000;
  const texts = Array.from({ length: n }, (_, i) => `${SENTENCE} variant ${i} with more words about postgres pools`);
  const t1 = performance.now();
  await e.embed(texts);
  const perS = n / ((performance.now() - t1) / 1000);
  await e.dispose();
  return {
    name: 'embed',
    about: 'Local embedder (transformers.js feature-extraction, mean pooling, normalized) over the offline model.',
    figures: [
      { metric: 'model load', value: loadMs, unit: 'ms' },
      { metric: 'one text p50', value: quantile(singles, 0.5), unit: 'ms' },
      { metric: 'one text p95', value: quantile(singles, 0.95), unit: 'ms' },
      { metric: 'batch throughput', value: perS, unit: 'texts/s' },
      { metric: 'peak RSS', value: process.resourceUsage().maxRSS / 1024, unit: 'MB' },
    ],
    notes: [`${singles.length} single-text calls, then ${n} texts in batches of ${cfg.batchSize}.`],
  };
}
