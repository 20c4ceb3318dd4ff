/**
 * The indexer's embedding batches: documents queued with their chunks (a chunk whose text the
 * document already stores reuses its vector: StoreWriter.reusableVectors), embedded together
 * at a flush (sorted by length, so each model batch pads little), then each document written
 * in its own store transaction. A batch the embedder fails is retried per document, so one bad
 * document costs only itself; a broken embedder (EmbedderError) stops the run. Used by
 * indexer/indexer.ts, which decides when to flush (indexer.embedFlushChunks).
 */
import { embedAllowingMissing, type Embedder } from '../embed/types.js';
import { EmbedderError } from '../embed/errors.js';
import type { ChunkInput, DocumentInput, StoreWriter } from '../store/types.js';
import type { Problem } from './files.js';

/** Where a batch's outcome goes: the run's store, embedder, problems, warnings and counts. */
export interface BatchSink {
  store: Pick<StoreWriter, 'reusableVectors' | 'replaceDocument'>;
  /** The embedder, loaded on first use (a model that cannot load stops the run). */
  embedder(): Promise<Embedder>;
  problem(p: Problem): void;
  warn(key: string, n: number): void;
  summary: { indexed: number; chunks_added: number; chunks_embedded: number; episodes_added: number };
}

interface PendingDoc {
  doc: DocumentInput;
  chunks: ChunkInput[];
  /** Embedding texts of the chunks that need a vector (the others reuse the stored one). */
  texts: string[];
  /** Per chunk: reuse the stored vector. */
  reuse: boolean[];
}

/** Text given to the embedder for one chunk: where it sits, then what it says. */
export function embeddingText(title: string, heading: string, text: string): string {
  const head = !heading ? title : !title || heading.startsWith(title) ? heading : `${title} — ${heading}`;
  return head ? `${head}\n${text}` : text;
}

/**
 * Embed texts (as documents) sorted by length (so each model batch pads little), results in
 * input order. Padding to the longest text of a batch is most of the cost when lengths are
 * mixed. A null is a text whose batch the embedding server refused.
 */
export async function embedByLength(embedder: Embedder, texts: string[]): Promise<Array<Float32Array | null>> {
  const order = texts.map((_, i) => i).sort((a, b) => texts[a].length - texts[b].length);
  const sorted = await embedAllowingMissing(embedder, order.map((i) => texts[i]), { kind: 'document' });
  const out = new Array<Float32Array | null>(texts.length);
  order.forEach((i, k) => (out[i] = sorted[k]));
  return out;
}

export class EmbedBatch {
  private pending: PendingDoc[] = [];
  /** Chunks queued that need a vector (the caller flushes past its limit). */
  pendingChunks = 0;

  constructor(private readonly sink: BatchSink) {}

  /** Queue a document: its chunks that the store cannot reuse a vector for get embedded at the next flush. */
  queue(doc: DocumentInput, chunks: ChunkInput[]): void {
    const reuse = this.sink.store.reusableVectors(doc.path, doc.title, chunks);
    const texts = chunks.filter((_, i) => !reuse[i]).map((c) => embeddingText(doc.title, c.heading, c.text));
    this.pending.push({ doc, chunks, texts, reuse });
    this.pendingChunks += texts.length;
  }

  /** Embed everything pending in one call, then write each document in its own transaction. */
  async flush(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.pendingChunks = 0;
    if (batch.length === 0) return;
    const all = batch.flatMap((d) => d.texts);
    let vectors: Array<Float32Array | null> | null = null;
    let embedder: Embedder | null = null;
    if (all.length > 0) {
      embedder = await this.sink.embedder(); // a model that cannot load, or mismatches the store, stops the run
      try {
        vectors = await embedByLength(embedder, all);
      } catch (e) {
        if (e instanceof EmbedderError) throw e; // the embedder itself is broken (a server down or answering garbage): stop
        vectors = null; // retried per document below, so one bad document costs only itself
      }
    }
    let off = 0;
    for (const d of batch) {
      let vecs: Array<Float32Array | null> | null = vectors ? vectors.slice(off, off + d.texts.length) : null;
      off += d.texts.length;
      if (!vecs && d.texts.length > 0) {
        try {
          vecs = await embedAllowingMissing(embedder!, d.texts, { kind: 'document' });
        } catch (e) {
          if (e instanceof EmbedderError) throw e;
          this.sink.problem({ path: d.doc.path, reason: 'embed_failed', message: `embedding failed for ${d.doc.path} (${(e as Error).message.split('\n')[0]}): skipped, its previous version is kept` });
          continue;
        }
      }
      this.writeEmbedded(d, vecs ?? []);
    }
  }

  /** Write a document with the chunks that got a vector (or reuse a stored one). None of
   *  those that needed one did (every batch refused): the document is skipped and keeps its
   *  previous version. Some did: the rest are left out and counted (warnings.chunks_not_embedded). */
  private writeEmbedded(d: PendingDoc, vecs: Array<Float32Array | null>): void {
    const missing = vecs.filter((v) => v === null).length;
    if (missing === 0) return this.write(d, vecs as Float32Array[]);
    if (missing === vecs.length) {
      this.sink.problem({ path: d.doc.path, reason: 'embed_failed', message: `the embedding server refused every chunk of ${d.doc.path}: skipped, its previous version is kept` });
      return;
    }
    this.sink.warn('chunks_not_embedded', missing);
    const chunks: ChunkInput[] = [];
    const reuse: boolean[] = [];
    const texts: string[] = [];
    const kept: Float32Array[] = [];
    let k = 0;
    d.chunks.forEach((c, i) => {
      if (d.reuse[i]) {
        chunks.push(c);
        reuse.push(true);
        return;
      }
      const v = vecs[k];
      const t = d.texts[k];
      k++;
      if (!v) return;
      chunks.push(c);
      reuse.push(false);
      texts.push(t);
      kept.push(v);
    });
    this.write({ ...d, chunks, reuse, texts }, kept);
  }

  private write(d: PendingDoc, embedded: Float32Array[]): void {
    let k = 0;
    const vectors = d.reuse.map((r) => (r ? null : embedded[k++]));
    try {
      this.sink.store.replaceDocument(d.doc, d.chunks, vectors);
      this.sink.summary.indexed++;
      this.sink.summary.chunks_added += d.chunks.length;
      this.sink.summary.chunks_embedded += embedded.length;
      this.sink.summary.episodes_added += d.chunks.filter((c) => c.episode).length;
    } catch (e) {
      this.sink.problem({ path: d.doc.path, reason: 'store_failed', message: `could not store ${d.doc.path} (${(e as Error).message.split('\n')[0]}): skipped, its previous version is kept` });
    }
  }
}
