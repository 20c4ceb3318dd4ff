/**
 * The local embedder: transformers.js feature-extraction with mean pooling and L2
 * normalization, batched and serialized (one ONNX run at a time).
 *
 *   config.embedding ─▶ resolveModel() ─▶ pipeline('feature-extraction') ─▶ Float32Array[]
 *
 * Model source: `embedding.url` set → an OpenAI-compatible embeddings server instead
 * (embed/server.ts; createEmbedder is the one factory every command uses). Else
 * `embedding.localModelPath` / ACTIVE_BRAIN_MODEL_PATH (a transformers.js model folder,
 * fully offline), else `embedding.model` (default DEFAULT_LOCAL_MODEL) downloaded once into
 * <home>/models. When it cannot be had, EmbedderError (exit 3) says what to do. The model id
 * and dimension are what the store records.
 */
import { existsSync, readFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import type { Embedder, EmbedOptions } from './types.js';
import type { Config } from '../config/schema.js';
import { modelCacheDir } from '../shared/paths.js';
import { EmbedderError } from './errors.js';
import { createServerEmbedder, serverModelId } from './server.js';
import { skipImageLibrary } from './no-images.js';
import { dropVocabCopy } from './tokenizer-vocab.js';

export { EmbedderError } from './errors.js';

/** The local model when neither embedding.url, localModelPath nor model is set. */
export const DEFAULT_LOCAL_MODEL = 'Xenova/all-MiniLM-L6-v2';

/** The text used to learn the model's output dimension at load time. */
const PROBE_TEXT = 'dimension probe';

export interface ResolvedModel {
  /** Id recorded in the store. */
  modelId: string;
  /** Name passed to transformers.js (relative to localModelPath when local). */
  name: string;
  local: boolean;
  /** Folder transformers.js resolves `name` against (local) or caches into (remote). */
  root: string;
}

/** Decide where the model comes from. Pure apart from reading a local config.json. */
export function resolveModel(cfg: Config['embedding'], env: NodeJS.ProcessEnv = process.env): ResolvedModel {
  if (cfg.url) return { modelId: serverModelId(cfg.url, cfg.model), name: cfg.model ?? '', local: false, root: cfg.url };
  if (cfg.localModelPath) {
    const dir = resolve(cfg.localModelPath);
    if (!existsSync(join(dir, 'config.json'))) {
      throw new EmbedderError(
        `no transformers.js model at ${dir} (config.json missing). Point ACTIVE_BRAIN_MODEL_PATH / embedding.localModelPath at a model folder, ` +
          'or build the offline test model with `npm run model:offline`.',
      );
    }
    let modelId = basename(dir);
    try {
      const c = JSON.parse(readFileSync(join(dir, 'config.json'), 'utf8')) as { _name_or_path?: string };
      if (c._name_or_path) modelId = c._name_or_path;
    } catch {
      throw new EmbedderError(`${join(dir, 'config.json')} is not valid JSON: the model folder is damaged; rebuild or re-download it.`);
    }
    return { modelId, name: basename(dir), local: true, root: dirname(dir) };
  }
  const model = cfg.model ?? DEFAULT_LOCAL_MODEL;
  return { modelId: model, name: model, local: false, root: modelCacheDir(env) };
}

interface Tensor {
  data: Float32Array | BigInt64Array | number[];
  dims: number[];
}
/** The parts of a transformers.js feature-extraction pipeline this module uses. */
interface Extractor {
  tokenizer: (texts: string[], opts: { padding: boolean; truncation: boolean }) => Record<string, Tensor> & { attention_mask: Tensor };
  model: (inputs: Record<string, Tensor>) => Promise<{ last_hidden_state: Tensor }>;
  dispose?: () => Promise<void>;
}

/**
 * Tokenize once, run the model, and mean-pool over the attention mask ourselves, then L2
 * normalize. Identical to the pipeline's `pooling: 'mean', normalize: true` (max difference
 * ~1e-7), but ~5× less CPU: the pipeline's pooling reads the tensor element by element
 * through a slow accessor. A text with no known token pools to the zero vector and stays
 * zero (cosine 0 to everything: "no signal"), where normalizing would give NaN.
 */
async function embedBatch(extractor: Extractor, batch: string[]): Promise<Float32Array[]> {
  const inputs = extractor.tokenizer(batch, { padding: true, truncation: true });
  const hidden = (await extractor.model(inputs)).last_hidden_state;
  const data = hidden.data as Float32Array;
  const [B, S, D] = hidden.dims;
  const mask = inputs.attention_mask.data;
  const out: Float32Array[] = [];
  for (let b = 0; b < B; b++) {
    const v = new Float32Array(D);
    for (let t = 0; t < S; t++) {
      if (!Number(mask[b * S + t])) continue;
      const o = (b * S + t) * D;
      for (let d = 0; d < D; d++) v[d] += data[o + d];
    }
    let norm = 0;
    for (let d = 0; d < D; d++) norm += v[d] * v[d];
    norm = Math.sqrt(norm);
    if (norm > 0 && Number.isFinite(norm)) for (let d = 0; d < D; d++) v[d] /= norm;
    else v.fill(0);
    out.push(v);
  }
  return out;
}

class TransformersEmbedder implements Embedder {
  private queue: Promise<unknown> = Promise.resolve();
  constructor(
    readonly modelId: string,
    readonly dim: number,
    private readonly extractor: Extractor,
    private readonly batchSize: number,
    private readonly maxChars: number,
  ) {}

  /** The local model embeds queries and documents alike (its prefixes are not configured). */
  embed(texts: string[], _opts?: EmbedOptions): Promise<Float32Array[]> {
    const run = this.queue.then(() => this.embedNow(texts));
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async embedNow(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) {
      const batch = texts.slice(i, i + this.batchSize).map((t) => (t.length > this.maxChars ? t.slice(0, this.maxChars) : t));
      out.push(...(await embedBatch(this.extractor, batch)));
    }
    return out;
  }

  async dispose(): Promise<void> {
    await this.queue;
    await this.extractor.dispose?.();
  }
}

/** Load the configured model (once per process; reuse the Embedder). */
export async function createEmbedder(cfg: Config['embedding'], env: NodeJS.ProcessEnv = process.env): Promise<Embedder> {
  if (cfg.url) return createServerEmbedder(cfg, env);
  const model = resolveModel(cfg, env);
  skipImageLibrary(); // text only: transformers.js would load libvips (embed/no-images.ts)
  const { pipeline, env: tenv } = await import('@xenova/transformers');
  tenv.allowLocalModels = true;
  if (model.local) {
    tenv.allowRemoteModels = false;
    tenv.localModelPath = model.root + '/';
  } else {
    tenv.allowRemoteModels = true;
    tenv.localModelPath = model.root + '/';
    tenv.cacheDir = model.root;
  }
  let extractor: Extractor;
  try {
    extractor = (await pipeline('feature-extraction', model.name, { quantized: cfg.quantized })) as unknown as Extractor;
  } catch (e) {
    const why = (e as Error).message?.split('\n')[0] ?? String(e);
    throw new EmbedderError(
      model.local
        ? `could not load the local model at ${join(model.root, model.name)}: ${why}. Rebuild it (\`npm run model:offline\` for the test model) or fix embedding.localModelPath.`
        : `could not load model ${model.name} (${why}). It is downloaded once into ${model.root}; with no network, set ACTIVE_BRAIN_MODEL_PATH to a local transformers.js model folder ("npm run model:offline" builds a small offline one and prints its path).`,
    );
  }
  dropVocabCopy(extractor.tokenizer); // a second copy of the vocabulary (embed/tokenizer-vocab.ts)
  const [probe] = await embedBatch(extractor, [PROBE_TEXT]);
  const dim = probe.length;
  return new TransformersEmbedder(model.modelId, dim, extractor, cfg.batchSize, cfg.maxChars);
}

/** Cosine of two normalized vectors (their dot product). */
export function cosine(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}
