/**
 * The SQLite file's rows for the reader core (store/local-indexes.ts RowSource): the visible
 * chunk ids with their regions, vectors and each chunk's FTS5 terms (store/sqlite-terms.ts),
 * read in bulk — page by page on a first fill, by id or by id range when an index run appended
 * rows. One read transaction per sync. Used by store/reader.ts; reads only.
 */
import type Database from 'better-sqlite3';
import { getMeta } from './schema.js';
import type { RowSource } from './local-indexes.js';
import type { SqliteChunkTerms } from './sqlite-terms.js';

/** Chunks read and indexed per step of a warm-up (the reader's warm(), a first fill of the
 *  keyword index); between steps the event loop runs. */
export const WARM_PAGE = 2_000;

/** Region ids below this let a chunk's id and region travel as one number (id · REGION_KEY +
 *  region id, exact in a double for ids below 2³¹): the visible-rows listing then returns plain
 *  numbers instead of a [id, region] array per row (at 100k chunks: ~4× faster). */
export const REGION_KEY = 2 ** 21;
/** Vector rows read per statement call while filling the matrix (all() per page: one call into
 *  SQLite per page instead of one per row, without holding every row at once). */
export const VECTOR_PAGE = 5_000;
/** Vector rows per BLOB of a first fill (store/matrix-fill.ts): at 100-d a 400 KB BLOB; at 100k
 *  chunks 1k-row pages cost less CPU than 5k-row ones (measured: 171 vs 199 ms, median of 5). */
export const VECTOR_RUN_ROWS = 1_000;
/** Rows asked for by ascending ids that fill at least 1/FETCH_RANGE_SPAN of their id range (the
 *  chunks an index run appended: all of it) are read with one range scan of each table, the rows
 *  not asked for skipped, instead of one lookup per id through json_each: at 1,000 appended
 *  chunks of a 100k store, 1.1 + 1.4 ms CPU (vectors + texts) instead of 4.1 + 4.7 ms (median of
 *  15). A scan reads the rows between the ids asked for too, ~3× cheaper per row than a lookup
 *  here, so a span of at most twice the ids asked for stays well ahead. */
export const FETCH_RANGE_SPAN = 2;
/** Bytes per stored vector value (Float32). */
const FLOAT_BYTES = 4;

/** Character codes of the id list: digits and the separator. */
const DIGIT_0 = 48;
const DIGIT_9 = 57;
const COMMA = 44;

/** The ids of a group_concat(chunk_id) list ("3,4,9"), checked ascending and above `after`. Read
 *  digit by digit: no substring per id (at 100k ids, fewer allocations for the GC to follow). */
export function parseIdList(list: string, after: number): Float64Array {
  let count = 1;
  for (let i = 0; i < list.length; i++) if (list.charCodeAt(i) === COMMA) count++;
  const ids = new Float64Array(count);
  let prev = after;
  let n = 0;
  let id = 0;
  let digits = 0;
  for (let i = 0; i <= list.length; i++) {
    const c = i < list.length ? list.charCodeAt(i) : COMMA;
    if (c >= DIGIT_0 && c <= DIGIT_9) {
      id = id * 10 + (c - DIGIT_0);
      digits++;
      continue;
    }
    if (c !== COMMA || digits === 0 || !(id > prev)) throw new Error(`vector ids out of order or malformed at ${list.slice(Math.max(0, i - 12), i + 1)} (after ${prev})`);
    ids[n++] = prev = id;
    id = 0;
    digits = 0;
  }
  return ids;
}

/** The SQLite file's rows for the reader core (one read transaction per sync). */
export function sqliteRows(db: Database.Database, terms: () => SqliteChunkTerms): RowSource {
  // The region index (region_id, id) is a few bytes per chunk; the table holds the texts: listing
  // through the index and sorting by id here reads ~1 MB instead of the whole table at 100k.
  const visibleKeys = db.prepare(`SELECT id * ${REGION_KEY} + region_id FROM chunks INDEXED BY chunks_region`).pluck();
  const visiblePairs = db.prepare(`SELECT id, region_id FROM chunks ORDER BY id`).raw();
  const maxRegion = db.prepare(`SELECT coalesce(max(id), 0) FROM regions`).pluck();
  // Driven by the id list (a lookup per id), never a scan of the table.
  const vectors = db.prepare(`SELECT v.chunk_id, v.vec FROM json_each(?) j JOIN vectors v ON v.chunk_id = j.value`).raw();
  const texts = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM json_each(?) j JOIN chunks c ON c.id = j.value
                            JOIN documents d ON d.id = c.document_id`).raw();
  const vectorRange = db.prepare(`SELECT chunk_id, vec FROM vectors WHERE chunk_id BETWEEN ? AND ?`).raw();
  const textRange = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id
                                WHERE c.id BETWEEN ? AND ?`).raw();
  const vectorPage = db.prepare(`SELECT chunk_id, vec FROM vectors WHERE chunk_id > ? ORDER BY chunk_id LIMIT ?`).raw();
  // Through the region index as well (the count over the table's rowid range reads every page).
  const countUpTo = db.prepare(`SELECT count(*) FROM chunks INDEXED BY chunks_region WHERE id <= ?`).pluck();
  const after = db.prepare(`SELECT id, region_id FROM chunks WHERE id > ? ORDER BY id`).raw();
  const rowKeyOf = db.prepare(`SELECT row_key FROM chunks WHERE id = ?`).pluck();
  // A first fill reads the vectors of one dimension a page at a time as one BLOB and one id list
  // (group_concat: one Buffer and one string per VECTOR_RUN_ROWS rows instead of a row array and
  // a Buffer per chunk). Both aggregates take the rows in the same order, so the k-th id is the
  // k-th vector's; the ids are checked ascending. (group_concat's own ORDER BY would sort again:
  // ~60 ms more at 100k; a separate id listing scans the table again: ~55 ms more.)
  const vectorBlock = db.prepare(`SELECT group_concat(chunk_id), CAST(group_concat(vec, '') AS BLOB)
                                  FROM (SELECT chunk_id, vec FROM vectors WHERE chunk_id > ? AND length(vec) = ? ORDER BY chunk_id LIMIT ?)`).raw();
  /** The content key (store/chunk-key.ts rowKey) of the largest id the last listing returned. */
  let top: { id: number; key: unknown } | null = null;
  const remember = (ids: Int32Array) => {
    if (ids.length) top = { id: ids[ids.length - 1], key: rowKeyOf.get(ids[ids.length - 1]) };
  };
  const columns = (rows: Array<[number, number]>) => {
    const ids = new Int32Array(rows.length);
    const regions = new Int32Array(rows.length);
    for (let i = 0; i < rows.length; i++) {
      ids[i] = rows[i][0];
      regions[i] = rows[i][1];
    }
    remember(ids);
    return { ids, regions };
  };
  const listVisible = () => {
    if ((maxRegion.get() as number) >= REGION_KEY) return columns(visiblePairs.all() as Array<[number, number]>);
    const keys = Float64Array.from(visibleKeys.all() as number[]).sort();
    const ids = new Int32Array(keys.length);
    const regions = new Int32Array(keys.length);
    for (let i = 0; i < keys.length; i++) {
      const id = Math.floor(keys[i] / REGION_KEY);
      ids[i] = id;
      regions[i] = keys[i] - id * REGION_KEY;
    }
    remember(ids);
    return { ids, regions };
  };
  const allTexts = db.prepare(`SELECT c.id, d.title, c.heading, c.text FROM chunks c JOIN documents d ON d.id = c.document_id`).raw();
  return {
    dim: () => {
      const d = getMeta(db, 'dim');
      return d === null ? null : Number(d);
    },
    snapshot: (fn) => db.transaction(fn)(),
    visible: listVisible,
    // Chunk rows are never updated in place: a changed chunk is a new row. Its id is new too
    // unless every row above it was deleted first (SQLite gives max(id) + 1), and then the row
    // at the last id seen was deleted as well: the same count up to that id and the same content
    // key at it mean nothing up to it changed.
    idsReused: true,
    appended: (last, count) =>
      top !== null && top.id === last && countUpTo.get(last) === count && rowKeyOf.get(last) === top.key
        ? columns(after.all(last) as Array<[number, number]>)
        : null,
    fetch: (ids, want) => {
      // Dense ascending ids (FETCH_RANGE_SPAN): range scans, keeping the rows asked for.
      const range = denseRange(ids);
      const json = range ? '' : JSON.stringify(ids);
      const asked = range ? new Set(ids) : null;
      const read = <R extends [number, ...unknown[]]>(byIds: Database.Statement, byRange: Database.Statement): R[] =>
        range ? (byRange.all(range[0], range[1]) as R[]).filter((r) => asked!.has(r[0])) : (byIds.all(json) as R[]);
      const out = new Map<number, { id: number; vec?: Uint8Array | null; terms?: ReturnType<SqliteChunkTerms['termsOf']>[number] | null }>();
      if (want.vec) for (const [id, vec] of read<[number, Buffer]>(vectors, vectorRange)) out.set(id, { id, vec });
      if (want.terms) {
        const rows = read<[number, string, string, string]>(texts, textRange);
        const parsed = terms().termsOf(rows.map((r) => [r[1], r[2], r[3]] as const));
        rows.forEach((r, i) => {
          const e = out.get(r[0]) ?? { id: r[0] };
          e.terms = parsed[i];
          out.set(r[0], e);
        });
      }
      return out.values();
    },
    *vectorRuns(dim) {
      const bytes = dim * FLOAT_BYTES;
      for (let last = 0; ; ) {
        const [list, blob] = vectorBlock.get(last, bytes, VECTOR_RUN_ROWS) as [string | null, Buffer | null];
        if (list === null || blob === null) return;
        const run = parseIdList(list, last);
        if (blob.byteLength !== run.length * bytes) throw new Error(`a vector page of ${blob.byteLength} bytes for ${run.length} ${dim}-d rows`);
        // Buffers of this size get their own memory (offset 0); copied when not Float32-aligned.
        const data = blob.byteOffset % FLOAT_BYTES === 0
          ? new Float32Array(blob.buffer, blob.byteOffset, blob.byteLength / FLOAT_BYTES)
          : new Float32Array(Uint8Array.from(blob).buffer);
        yield { ids: run, data };
        if (run.length < VECTOR_RUN_ROWS) return;
        last = run[run.length - 1];
      }
    },
    *all(want) {
      if (want.vec) {
        for (let last = 0; ; ) {
          const page = vectorPage.all(last, VECTOR_PAGE) as Array<[number, Buffer]>;
          for (const [id, vec] of page) yield { id, vec };
          if (page.length < VECTOR_PAGE) break;
          last = page[page.length - 1][0];
        }
      }
      if (want.terms) {
        const page: Array<[number, string, string, string]> = [];
        const flush = function* () {
          const parsed = terms().termsOf(page.map((r) => [r[1], r[2], r[3]] as const));
          for (let i = 0; i < page.length; i++) yield { id: page[i][0], terms: parsed[i] };
          page.length = 0;
        };
        for (const r of allTexts.iterate() as IterableIterator<[number, string, string, string]>) {
          page.push(r);
          if (page.length >= WARM_PAGE) yield* flush();
        }
        yield* flush();
      }
    },
  };
}

/** [first, last] of `ids` when they ascend and fill at least 1/FETCH_RANGE_SPAN of that range; else null. */
export function denseRange(ids: readonly number[]): [number, number] | null {
  if (ids.length === 0) return null;
  for (let i = 1; i < ids.length; i++) if (!(ids[i] > ids[i - 1])) return null;
  const first = ids[0];
  const last = ids[ids.length - 1];
  return last - first + 1 <= ids.length * FETCH_RANGE_SPAN ? [first, last] : null;
}
