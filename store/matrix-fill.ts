/**
 * A first fill of the vector matrix (store/vector-matrix.ts) from runs of stored vectors: the
 * backend hands over many rows per call as one contiguous Float32 block (SQLite: one BLOB per
 * page, store/reader.ts), instead of one row object and one Buffer per chunk — at 100k chunks
 * that per-row work (and the garbage it leaves) was most of the first search after open.
 * The rows kept are exactly those a row-by-row fill keeps: vectors of visible chunks, in id
 * order, each with its chunk's region. Data in: the visible ids/regions and the runs; out: a
 * new matrix. No SQL here.
 */
import { VectorMatrix, type ScanMethod } from './vector-matrix.js';

/** Stored vectors of one dimension, ids ascending; row j of `data` (dim floats) is ids[j]'s. */
export interface VectorRun {
  ids: ArrayLike<number>;
  data: Float32Array;
}

/** A matrix of capacity `capacity` holding the vector of every visible id that has one (ids
 *  ascending, regions[i] the region of ids[i]); runs must come in ascending id order. */
export function fillMatrix(dim: number, capacity: number, ids: Int32Array, regions: Int32Array, runs: Iterable<VectorRun>, method?: ScanMethod): VectorMatrix {
  const m = new VectorMatrix(dim, capacity, { method });
  let at = 0; // position in ids: every id below ids[at] is behind us
  for (const run of runs) {
    if (run.data.length !== run.ids.length * dim) throw new Error(`a vector run of ${run.data.length} floats for ${run.ids.length} ${dim}-d rows`);
    for (let j = 0; j < run.ids.length; ) {
      while (at < ids.length && ids[at] < run.ids[j]) at++;
      if (at >= ids.length) return m;
      if (ids[at] !== run.ids[j]) {
        j++; // a vector of no visible chunk
        continue;
      }
      // The longest stretch where the run's ids and the visible ids agree: one copy.
      let count = 1;
      while (j + count < run.ids.length && at + count < ids.length && run.ids[j + count] === ids[at + count]) count++;
      m.addRun(ids, regions, at, run.data, j, count);
      j += count;
      at += count;
    }
  }
  return m;
}
