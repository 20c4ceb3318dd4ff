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

/** mulberry32: deterministic floats in [0, 1). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randomUnit(rand: () => number, dim: number): Float32Array {
  const v = new Float32Array(dim);
  let ss = 0;
  for (let i = 0; i < dim; i++) {
    // Box–Muller: isotropic directions.
    const g = Math.sqrt(-2 * Math.log(rand() + 1e-12)) * Math.cos(2 * Math.PI * rand());
    v[i] = g;
    ss += g * g;
  }
  const inv = 1 / Math.sqrt(ss);
  for (let i = 0; i < dim; i++) v[i] *= inv;
  return v;
}

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
