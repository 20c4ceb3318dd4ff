/** One offline embedder per test file (loading takes ~0.5 s). */
import { ConfigSchema } from '../../config/schema.js';
import { createEmbedder } from '../../embed/embedder.js';
import type { Embedder } from '../../embed/types.js';
import { offlineModelPath } from './model.js';

let shared: Promise<Embedder> | null = null;

export function offlineEmbedder(): Promise<Embedder> {
  shared ??= createEmbedder(ConfigSchema.parse({ embedding: { localModelPath: offlineModelPath() } }).embedding);
  return shared;
}
