import { describe, it, expect } from 'vitest';
import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineEmbedder } from '../helpers/embedder.js';
import { createEmbedder, cosine, resolveModel, EmbedderError } from '../../embed/embedder.js';
import { ConfigSchema } from '../../config/schema.js';

describe('offline embedder (real transformers.js over the offline model)', () => {
  it('loads with the offline model id and dimension', async () => {
    const e = await offlineEmbedder();
    expect(e.modelId).toBe('offline-glove-sif');
    expect(e.dim).toBe(100);
  });

  it('returns unit vectors in input order, batched', async () => {
    const e = await offlineEmbedder();
    const texts = Array.from({ length: 70 }, (_, i) => `note number ${i} about database connection pools`);
    const vs = await e.embed(texts);
    expect(vs).toHaveLength(70);
    for (const v of vs) expect(Math.hypot(...v)).toBeCloseTo(1, 4);
    const again = await e.embed([texts[42]]);
    expect(cosine(again[0], vs[42])).toBeCloseTo(1, 5);
  });

  it('gives related sentences a higher cosine than unrelated ones', async () => {
    const e = await offlineEmbedder();
    const [a, b, c] = await e.embed([
      'the database connection pool times out under load',
      'postgres pool connections time out when traffic is high',
      'my cat likes to sleep on the sofa in the afternoon',
    ]);
    expect(cosine(a, b)).toBeGreaterThan(cosine(a, c) + 0.2);
  });

  it('maps text with no known word to the zero vector, not NaN', async () => {
    const e = await offlineEmbedder();
    const [empty, punct] = await e.embed(['', '!!! ???']);
    for (const v of [empty, punct]) {
      expect(Array.from(v).every((x) => x === 0)).toBe(true);
    }
  });

  it('serializes concurrent calls without mixing results', async () => {
    const e = await offlineEmbedder();
    const [x, y] = await Promise.all([e.embed(['alpha database']), e.embed(['sleepy cat sofa'])]);
    const [x2, y2] = await e.embed(['alpha database', 'sleepy cat sofa']);
    expect(cosine(x[0], x2)).toBeCloseTo(1, 5);
    expect(cosine(y[0], y2)).toBeCloseTo(1, 5);
  });

  it('says what to do when the local model folder is missing or damaged', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-model-'));
    const cfg = ConfigSchema.parse({ embedding: { localModelPath: join(dir, 'nope') } }).embedding;
    expect(() => resolveModel(cfg)).toThrow(/npm run model:offline/);
    mkdirSync(join(dir, 'broken'));
    writeFileSync(join(dir, 'broken', 'config.json'), '{"model_type":"bert"}');
    const cfg2 = ConfigSchema.parse({ embedding: { localModelPath: join(dir, 'broken') } }).embedding;
    const err = await createEmbedder(cfg2).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(EmbedderError);
    expect((err as EmbedderError).exitCode).toBe(3);
  });
});

describe('self-pooling equals the pipeline pooling', () => {
  it('matches transformers.js mean pooling + normalize within float error', async () => {
    const { pipeline, env } = await import('@xenova/transformers');
    const { offlineModelPath } = await import('../helpers/model.js');
    const { dirname, basename } = await import('node:path');
    const path = offlineModelPath();
    env.allowRemoteModels = false;
    env.localModelPath = dirname(path) + '/';
    const pipe = (await pipeline('feature-extraction', basename(path))) as unknown as (t: string[], o: object) => Promise<{ data: Float32Array }>;
    const texts = ['short text', 'a much longer text about postgres connection pools timing out under heavy load', 'zzqxj'];
    const ref = await pipe(texts, { pooling: 'mean', normalize: true });
    const e = await offlineEmbedder();
    const ours = await e.embed(texts);
    for (let i = 0; i < texts.length; i++) {
      const row = ref.data.slice(i * e.dim, (i + 1) * e.dim);
      // The pipeline turns an all-unknown text into NaN; ours keeps the zero vector.
      if (Number.isNaN(row[0])) expect(Array.from(ours[i]).every((x) => x === 0)).toBe(true);
      else for (let d = 0; d < e.dim; d++) expect(Math.abs(ours[i][d] - row[d])).toBeLessThan(1e-5);
    }
  });
});
