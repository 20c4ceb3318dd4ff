/**
 * A throw-away knowledge store for evaluations and benchmarks: items (external id, heading,
 * text) are embedded with the given Embedder and written straight through the store writer
 * API (no markdown indexer) into a fresh temp directory; the store is then reopened
 * read-only for searching. `dispose()` closes it and deletes the directory. With storeUrl
 * (an administrator's postgres:// URL) the store is a fresh temporary schema on that server
 * (store/pg-temp.ts), written by its writer role, searched through its team reader, and
 * dropped by dispose(): the evaluation then measures the PostgreSQL ranking.
 * Used by eval retrieval (LoCoMo), eval beir, bench/search.bench.ts and test/search;
 * GrowingStore (one document at a time) by eval/locomo-replay.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoreReader } from '../store/types.js';
import type { Embedder } from '../embed/types.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import { createTempPgStore, type TempPgStore } from '../store/pg-temp.js';
import { isPostgresUrl } from '../store/pg-sync.js';
import { UserError, EXIT } from '../shared/errors.js';

export interface TempItem {
  /** External id (LoCoMo dia_id, BEIR _id): what metrics compare. */
  id: string;
  /** Chunk heading (indexed by FTS with a higher BM25 weight than the body). */
  heading: string;
  text: string;
}

export interface TempGroup {
  /** Document name inside the temp source (one document per group, e.g. a LoCoMo session). */
  name: string;
  /** Document title (indexed by FTS with the highest weight). */
  title: string;
  items: TempItem[];
}

export interface TempStore {
  dir: string;
  path: string;
  reader: StoreReader;
  /** chunk id → external id. */
  idOf(chunkId: number): string | undefined;
  /** external id → chunk id. */
  chunkIdOf(id: string): number | undefined;
  dispose(): void;
}

/** Region name used in temp stores. */
export const TEMP_REGION = 'eval';
/** Items per replaceDocument when a group is split (bounds one transaction's size). */
export const TEMP_DOC_CHUNKS = 2000;

export interface BuildOptions {
  /** Directory prefix for mkdtemp (default: os.tmpdir()). */
  parent?: string;
  /** Called after each group is embedded and written, with items written so far. */
  onProgress?: (done: number) => void;
  /** Precomputed vectors by external id (skips embedding those items: benchmarks). */
  vectorOf?: (item: TempItem, index: number) => Float32Array | undefined;
  /** An administrator's postgres:// URL: build the store in a temporary schema there. */
  storeUrl?: string;
}

/** Embed and write every group into a fresh temp store; returns it opened read-only. */
export async function buildTempStore(embedder: Embedder, groups: TempGroup[], opts: BuildOptions = {}): Promise<TempStore> {
  const dir = mkdtempSync(join(opts.parent ?? tmpdir(), 'active-brain-eval-'));
  const handleToId = new Map<string, string>();
  let pg: TempPgStore | null = null;
  try {
    if (opts.storeUrl) pg = createTempPgStore(opts.storeUrl);
    const path = pg ? pg.readerUrl : join(dir, 'store.sqlite');
    const writer = openStoreWriter(pg ? pg.writerUrl : path);
    try {
      writer.setModel(embedder.modelId, embedder.dim);
      writer.ensureRegion(TEMP_REGION, 'global');
      const source = writer.addSource(TEMP_REGION, join(dir, 'docs'), 'notes');
      let done = 0;
      for (const g of groups) {
        for (let start = 0; start < g.items.length; start += TEMP_DOC_CHUNKS) {
          const part = g.items.slice(start, start + TEMP_DOC_CHUNKS);
          const vectors: Float32Array[] = new Array(part.length);
          const need: number[] = [];
          part.forEach((it, i) => {
            const v = opts.vectorOf?.(it, done + i);
            if (v) vectors[i] = v;
            else need.push(i);
          });
          if (need.length > 0) {
            const embedded = await embedder.embed(need.map((i) => embedText(part[i])), { kind: 'document' });
            need.forEach((i, j) => (vectors[i] = embedded[j]));
          }
          const suffix = start === 0 ? '' : `.${start / TEMP_DOC_CHUNKS}`;
          const { handles } = writer.replaceDocument(
            { sourceId: source.id, path: join(dir, 'docs', `${g.name}${suffix}.md`), hash: `${g.name}${suffix}`, mtime: 0, size: 0, title: g.title },
            part.map((it) => ({ heading: it.heading, text: it.text, createdAt: 0 })),
            vectors,
          );
          handles.forEach((h, i) => handleToId.set(h, part[i].id));
          done += part.length;
          opts.onProgress?.(done);
        }
      }
    } finally {
      writer.close();
    }
    const reader = openStoreReader(path, { keywords: 'memory' });
    const byChunk = new Map<number, string>();
    const byId = new Map<string, number>();
    for (const [chunkId, id] of chunkIdsOf(reader, handleToId)) {
      byChunk.set(chunkId, id);
      if (!byId.has(id)) byId.set(id, chunkId);
    }
    return {
      dir,
      path,
      reader,
      idOf: (chunkId) => byChunk.get(chunkId),
      chunkIdOf: (id) => byId.get(id),
      dispose() {
        try {
          reader.close();
        } finally {
          try {
            pg?.drop();
          } finally {
            rmSync(dir, { recursive: true, force: true });
          }
        }
      },
    };
  } catch (e) {
    try {
      pg?.drop();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
    throw e;
  }
}

/** [chunk id, external id] of each written handle the reader finds, in write order. */
function chunkIdsOf(reader: StoreReader, handleToId: Iterable<[string, string]>): Array<[number, string]> {
  const out: Array<[number, string]> = [];
  for (const [handle, id] of handleToId) {
    const c = reader.chunkByHandle(handle);
    if (c) out.push([c.id, id]);
  }
  return out;
}

/**
 * A temp SQLite store grown one document at a time (eval/locomo-replay.ts: a conversation's
 * sessions, each added after it was replayed), one region per document (scope global, kind
 * transcripts). An item's text alone is embedded (its heading is its external id). Opened
 * read-only between additions; dispose() deletes it.
 */
export class GrowingStore {
  readonly dir: string;
  readonly path: string;
  /** chunk id → external id (filled as documents are added). */
  readonly idOf = new Map<number, string>();

  constructor(private readonly embedder: Embedder, parent: string | undefined, prefix = 'active-brain-locomo-replay-') {
    this.dir = mkdtempSync(join(parent ?? tmpdir(), prefix));
    this.path = join(this.dir, 'store.sqlite');
    const w = openStoreWriter(this.path);
    try {
      w.setModel(embedder.modelId, embedder.dim);
    } finally {
      w.close();
    }
  }

  /** Embed and write `items` as one document in its own region (`region`, titled `title`). */
  async add(region: string, title: string, createdAt: number, items: TempItem[]): Promise<void> {
    if (items.length === 0) return;
    const vectors = await this.embedder.embed(items.map((t) => t.text), { kind: 'document' });
    const w = openStoreWriter(this.path);
    let handles: string[];
    try {
      w.ensureRegion(region, 'global');
      const src = w.addSource(region, join(this.dir, 'docs', region), 'transcripts');
      ({ handles } = w.replaceDocument(
        { sourceId: src.id, path: join(this.dir, 'docs', region, 'turns.md'), hash: region, mtime: createdAt, size: 0, title },
        items.map((t) => ({ heading: t.heading, text: t.text, createdAt })),
        vectors,
      ));
    } finally {
      w.close();
    }
    const r = openStoreReader(this.path);
    try {
      for (const [chunkId, id] of chunkIdsOf(r, handles.map((h, i) => [h, items[i].id] as [string, string]))) this.idOf.set(chunkId, id);
    } finally {
      r.close();
    }
  }

  open(): StoreReader {
    return openStoreReader(this.path);
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** The text embedded for an item: heading (e.g. a BEIR title) and body. */
export function embedText(it: TempItem): string {
  return it.heading ? `${it.heading}\n${it.text}` : it.text;
}

/** The evals' --store-url: undefined, or a postgres:// URL (else a usage error). */
export function checkStoreUrl(url: string | undefined): string | undefined {
  if (url === undefined) return undefined;
  if (!isPostgresUrl(url)) throw new UserError(`--store-url needs postgres://USER:PASSWORD@HOST:PORT/DATABASE, a role that may create schemas and roles (store init's administrator URL); got "${url}"`, EXIT.USAGE);
  return url;
}
