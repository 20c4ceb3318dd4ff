/**
 * Helpers for the retrieval tests: real small knowledge stores in temp dirs (store writer +
 * the offline model), and OfferRequests whose vectors come from the same model. No mocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import { createRedactor } from '../../shared/redact.js';
import type { SourceKind, StoreReader } from '../../store/types.js';
import type { Embedder } from '../../embed/types.js';
import type { Exchange } from '../../shared/types.js';
import type { OfferRequest, TriggerKind } from '../../retrieval/types.js';
import { ConfigSchema, type Config } from '../../config/schema.js';
import { offlineEmbedder } from '../helpers/embedder.js';
export { seededRandom as prng } from '../../shared/prng.js';

export interface DocSpec {
  region: string;
  scope?: string;
  kind?: SourceKind;
  /** File name relative to the region's source folder. */
  file: string;
  title: string;
  chunks: Array<{ heading?: string; text: string; hasError?: boolean; resolved?: boolean; createdAt?: number; aliases?: string[] }>;
}

export interface TestStore {
  dir: string;
  path: string;
  reader: StoreReader;
  embedder: Embedder;
  /** Chunk id by handle. */
  ids: Map<string, number>;
  cleanup: () => void;
}

export const DAY = 86_400_000;
export const T0 = Date.UTC(2026, 9, 12, 10, 0, 0);

export function tempDir(tag = 'ab-retrieval-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), tag));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Build a real store from document specs, embedding every chunk with the offline model. */
export async function buildStore(docs: DocSpec[], opts: { modelId?: string; dim?: number; vectors?: (text: string) => Float32Array } = {}): Promise<TestStore> {
  const { dir, cleanup } = tempDir();
  const embedder = await offlineEmbedder();
  const path = join(dir, 'store.sqlite');
  const writer = openStoreWriter(path);
  writer.setModel(opts.modelId ?? embedder.modelId, opts.dim ?? embedder.dim);
  const sources = new Map<string, number>();
  for (const d of docs) {
    writer.ensureRegion(d.region, d.scope ?? 'global');
    let sid = sources.get(d.region);
    if (sid === undefined) {
      sid = writer.addSource(d.region, join(dir, 'src', d.region), d.kind ?? 'notes').id;
      sources.set(d.region, sid);
    }
    const vectors = opts.vectors ? d.chunks.map((c) => opts.vectors!(c.text)) : await embedder.embed(d.chunks.map((c) => `${d.title}\n${c.heading ?? ''}\n${c.text}`));
    writer.replaceDocument(
      { sourceId: sid, path: join(dir, 'src', d.region, d.file), hash: d.file, mtime: T0, size: 1, title: d.title },
      d.chunks.map((c) => ({ heading: c.heading ?? d.title, text: c.text, createdAt: c.createdAt ?? T0, hasError: c.hasError, resolved: c.resolved, aliases: c.aliases })),
      vectors,
    );
  }
  // The fixture text is invented and holds no secret (the redactor finds none: checked here),
  // so the store is recorded as redacted with the current rules, as an index run would.
  const redactor = createRedactor();
  const found = docs.flatMap((d) => d.chunks.filter((c) => redactor.redact(c.text) !== c.text).map(() => d.file));
  if (found.length) throw new Error(`fixture text holds a secret-shaped string: ${found.join(', ')}`);
  writer.setRedaction(redactor.fingerprint);
  writer.close();
  const reader = openStoreReader(path);
  const ids = new Map<string, number>();
  const all = reader.vectorSearch([new Float32Array(opts.dim ?? embedder.dim).fill(1 / Math.sqrt(opts.dim ?? embedder.dim))], 10_000)[0];
  for (const c of reader.getChunks(all.map((h) => h.chunkId))) ids.set(c.handle, c.id);
  return {
    dir,
    path,
    reader,
    embedder,
    ids,
    cleanup: () => {
      reader.close();
      cleanup();
    },
  };
}

export function exchange(p: Partial<Exchange> & { user: string }): Exchange {
  return {
    sessionId: 's1',
    uuid: 'u-' + Math.random().toString(36).slice(2),
    index: 5,
    startOffset: 0,
    endOffset: 100,
    timestamp: T0 + 30 * DAY,
    cwd: '/work/app',
    gitBranch: null,
    entrypoint: 'cli',
    isSidechain: false,
    assistant: '',
    toolCalls: [],
    toolErrors: [],
    assistantVisible: true,
    injected: false,
    ...p,
  };
}

function mean(vs: Float32Array[]): Float32Array {
  const out = new Float32Array(vs[0].length);
  for (const v of vs) for (let i = 0; i < v.length; i++) out[i] += v[i];
  let n = 0;
  for (const x of out) n += x * x;
  n = Math.sqrt(n) || 1;
  for (let i = 0; i < out.length; i++) out[i] /= n;
  return out;
}

/** A request whose vectors come from the offline model (exchange text; centroid over recent). */
export async function request(
  embedder: Embedder,
  ex: Exchange,
  opts: { recent?: string[]; trigger?: TriggerKind; cwd?: string | null; exclude?: number[]; rng?: () => number } = {},
): Promise<OfferRequest> {
  const text = [ex.user, ...ex.toolErrors, ex.assistant].join('\n');
  const [v] = await embedder.embed([text]);
  const recent = opts.recent?.length ? await embedder.embed(opts.recent) : [v];
  return {
    sessionId: ex.sessionId,
    cwd: opts.cwd === undefined ? ex.cwd : opts.cwd,
    exchange: ex,
    recent: [],
    exchangeVector: v,
    centroid: mean([...recent, v]),
    trigger: opts.trigger ?? 'stall',
    excludeChunkIds: opts.exclude ?? [],
    rng: opts.rng ?? (() => 0.99),
  };
}

/** Config for tests: the query budget is lifted so a loaded CI machine cannot skip queries
 *  (the budget itself has its own test). */
export function config(retrieval: Partial<Config['retrieval']> = {}): Config {
  return ConfigSchema.parse({ retrieval: { queryBudgetMs: 60_000, ...retrieval } });
}

