/**
 * Helpers for the store tests: temp dirs, a seeded PRNG, random unit vectors and a small
 * real store built through the writer. Real SQLite files in temp dirs; no mocks.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openStoreWriter } from '../../store/sqlite-store.js';
import type { StoreWriter, SourceRecord } from '../../store/types.js';

export function tempDir(tag = 'ab-store-'): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), tag));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Seeded PRNG and random unit vectors: the benchmarks' own (bench/synthetic.ts). */
export { prng, randomUnit } from '../../bench/synthetic.js';

export interface Fixture {
  path: string;
  writer: StoreWriter;
  sources: Record<string, SourceRecord>;
}

/** A store with regions `notes` (global) and `api` (project:/work/api/**), model `test-model`/dim. */
export function makeStore(dir: string, dim = 8): Fixture {
  const path = join(dir, 'state', 'store.sqlite');
  const writer = openStoreWriter(path);
  writer.setModel('test-model', dim);
  writer.ensureRegion('notes', 'global');
  writer.ensureRegion('api', 'project:/work/api/**');
  const sources = {
    notes: writer.addSource('notes', join(dir, 'notes'), 'notes'),
    api: writer.addSource('api', join(dir, 'api-notes'), 'notes'),
  };
  return { path, writer, sources };
}
