/**
 * The rejected alternative, kept so the measurement in docs/STORE.md can be repeated
 * (bench/store.bench.ts): vector search with the sqlite-vec extension, either
 * (a) `vec_distance_cosine` over the store's own BLOBs (full scan in SQL), or
 * (b) a `vec0` virtual table (brute-force KNN inside the extension). The vec0 table is
 * built in a separate scratch file so the measured store is never written. Not used by
 * the product's search path.
 */
import Database from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { rmSync } from 'node:fs';
import type { Hit } from './types.js';
import { float32ToBlob } from './vector-matrix.js';

export interface VecProbe {
  /** (a): one SQL full scan per query with vec_distance_cosine. */
  scanBlobs(queries: Float32Array[], k: number): Hit[][];
  /** (b): build the vec0 table (ms taken). */
  buildVec0(): number;
  /** (b): one vec0 KNN query per query vector. */
  knnVec0(queries: Float32Array[], k: number): Hit[][];
  close(): void;
}

export function openVecProbe(storePath: string, dim: number, scratchPath: string): VecProbe {
  const store = new Database(storePath, { readonly: true, fileMustExist: true });
  sqliteVec.load(store);
  const scan = store.prepare(`SELECT chunk_id AS id, vec_distance_cosine(vec, ?) AS d FROM vectors ORDER BY d LIMIT ?`);
  rmSync(scratchPath, { force: true });
  const scratch = new Database(scratchPath);
  sqliteVec.load(scratch);
  let knn: Database.Statement | null = null;
  const toHits = (rows: Array<{ id: number; d: number }>): Hit[] => rows.map((r, i) => ({ chunkId: r.id, score: 1 - r.d, rank: i + 1 }));
  return {
    scanBlobs(queries, k) {
      return queries.map((q) => toHits(scan.all(float32ToBlob(q), k) as Array<{ id: number; d: number }>));
    },
    buildVec0() {
      const t0 = performance.now();
      scratch.exec(`CREATE VIRTUAL TABLE vec_index USING vec0(embedding float[${dim}] distance_metric=cosine)`);
      const ins = scratch.prepare(`INSERT INTO vec_index (rowid, embedding) VALUES (?, ?)`);
      const rows = store.prepare(`SELECT chunk_id, vec FROM vectors`).raw();
      scratch.transaction(() => {
        for (const [id, vec] of rows.iterate() as IterableIterator<[number, Buffer]>) ins.run(BigInt(id), vec);
      })();
      knn = scratch.prepare(`SELECT rowid AS id, distance AS d FROM vec_index WHERE embedding MATCH ? AND k = ?`);
      return performance.now() - t0;
    },
    knnVec0(queries, k) {
      if (!knn) throw new Error('buildVec0 first');
      const stmt = knn;
      return queries.map((q) => toHits(stmt.all(float32ToBlob(q), k) as Array<{ id: number; d: number }>));
    },
    close() {
      store.close();
      scratch.close();
      rmSync(scratchPath, { force: true });
    },
  };
}
