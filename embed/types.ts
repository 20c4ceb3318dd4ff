/**
 * The embedder interface: text in, unit-length Float32Array out. One implementation over
 * transformers.js (embed/embedder.ts); tests and benchmarks use the offline model folder.
 */
export interface Embedder {
  /** Model id as recorded in the store (e.g. `Xenova/all-MiniLM-L6-v2`, `offline-glove-sif`). */
  readonly modelId: string;
  readonly dim: number;
  /** Batched; returns normalized vectors in input order. */
  embed(texts: string[]): Promise<Float32Array[]>;
  dispose(): Promise<void>;
}
