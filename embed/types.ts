/**
 * The embedder interface: text in, unit-length Float32Array out. Two implementations: the
 * local model over transformers.js (embed/embedder.ts) and an OpenAI-compatible embeddings
 * server (embed/server.ts); createEmbedder (embed/embedder.ts) chooses from config. The
 * daemon wraps a server in embed/resilient.ts. Tests and benchmarks use the offline model.
 */

/** What a text is: a query (a search, the daemon's exchanges) or a document (an indexed
 *  chunk). Some models embed them differently (embedding.queryPrefix / documentPrefix). */
export const EMBED_KINDS = ['query', 'document'] as const;
export type EmbedKind = (typeof EMBED_KINDS)[number];

export interface EmbedOptions {
  /** Omitted: the text is embedded as it is (no prefix). */
  kind?: EmbedKind;
}

export interface Embedder {
  /** Model id as recorded in the store (e.g. `Xenova/all-MiniLM-L6-v2`, `offline-glove-sif`,
   *  `server:127.0.0.1:8080/nomic-embed-text`). */
  readonly modelId: string;
  readonly dim: number;
  /** Batched; returns normalized vectors in input order. Any failure fails the whole call. */
  embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>;
  /** Like embed, but a batch the backend refused (a server's HTTP error, e.g. llama.cpp's 500
   *  for an input over its batch size) comes back as `null` entries — missing vectors — and
   *  the later batches go on. A broken backend still throws. Optional: an embedder without
   *  it never refuses part of a call (use embedAllowingMissing). */
  embedAllowingMissing?(texts: string[], opts?: EmbedOptions): Promise<Array<Float32Array | null>>;
  dispose(): Promise<void>;
}

/** embedder.embedAllowingMissing when it has one, else embed (which never leaves gaps). */
export function embedAllowingMissing(embedder: Embedder, texts: string[], opts?: EmbedOptions): Promise<Array<Float32Array | null>> {
  return embedder.embedAllowingMissing ? embedder.embedAllowingMissing(texts, opts) : embedder.embed(texts, opts);
}
