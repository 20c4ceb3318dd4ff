/** A real embedder (the offline model) wrapped to count the texts it is asked to embed. */
import type { Embedder } from '../../embed/types.js';

export class CountingEmbedder implements Embedder {
  texts: string[] = [];
  constructor(private readonly inner: Embedder) {}
  get modelId(): string {
    return this.inner.modelId;
  }
  get dim(): number {
    return this.inner.dim;
  }
  embed(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
  reset(): void {
    this.texts = [];
  }
  dispose(): Promise<void> {
    return Promise.resolve(); // the shared offline embedder outlives this wrapper
  }
}
