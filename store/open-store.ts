/**
 * Backend dispatch, in one place: a `postgres://` location opens the team store
 * (store/pg-reader.ts, store/pg-writer.ts: reader and writer roles, audiences by row-level
 * security), anything else the embedded SQLite file (store/reader.ts, store/writer.ts). The
 * backends never import each other; what they share sits below them (store/reader-core.ts,
 * store/keyword-index.ts, store/vector-matrix.ts, store/handles.ts).
 */
import type { StoreReader, StoreWriter } from './types.js';
import type { ScanMethod } from './vector-matrix.js';
import type { PruneOptions } from './term-stats.js';
import { isPostgresUrl } from './pg-sync.js';
import { openSqliteStoreReader, type KeywordArm } from './reader.js';
import { openSqliteStoreWriter } from './writer.js';
import { openPgStoreReader } from './pg-reader.js';
import { openPgStoreWriter } from './pg-writer.js';

export interface ReaderOptions {
  /** Vector scan implementation; default: WebAssembly SIMD when available. Tests force 'js'. */
  scanMethod?: ScanMethod;
  /** Keyword-query pruning (default store/term-stats.ts PRUNE_DEFAULTS). */
  prune?: PruneOptions;
  /** SQLite only: the keyword arm ('memory' default: the in-memory index; 'fts5': FTS5 on disk,
   *  no build at open — for short-lived readers). The team store always searches in memory. */
  keywords?: KeywordArm;
  /** SQLite only: the connection's page cache in KiB (store/open.ts ReadonlyDbOptions; default
   *  better-sqlite3's 16 MB). The daemon, a long-lived reader, keeps it small. */
  pageCacheKiB?: number;
}

/** Open the store read-only. Throws StoreError (STORE_MISSING, STORE_EMPTY, SCHEMA_OLD /
 *  SCHEMA_TOO_NEW, ROLE_CAN_WRITE, …); each message says what to run. */
export function openStoreReader(path: string, opts: ReaderOptions = {}): StoreReader {
  return isPostgresUrl(path) ? openPgStoreReader(path, opts) : openSqliteStoreReader(path, opts);
}

/** Open the store for writing (the indexer; SQLite creates the file, dir 0700 / file 0600). */
export function openStoreWriter(path: string): StoreWriter {
  return isPostgresUrl(path) ? openPgStoreWriter(path) : openSqliteStoreWriter(path);
}
