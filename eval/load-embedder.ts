/**
 * The embedder an evaluation or search uses: the effective config (defaults < config.json <
 * env < --set flags), with `--model PATH` (a local transformers.js model folder, e.g.
 * .models/offline-glove-sif) taking precedence over embedding.localModelPath and embedding.url.
 */
import { resolve } from 'node:path';
import { loadConfig } from '../config/load.js';
import { createEmbedder } from '../embed/embedder.js';
import type { Embedder } from '../embed/types.js';

export async function loadEmbedder(modelPath: string | undefined, setFlags: string[] | undefined): Promise<Embedder> {
  const { config } = loadConfig({ flags: setFlags });
  // --model names a local folder: it wins over an embedding server too.
  const embedding = modelPath ? { ...config.embedding, url: undefined, localModelPath: resolve(modelPath) } : config.embedding;
  return createEmbedder(embedding);
}
