/**
 * Opening the store file. Readers (daemon, search, recall, MCP) get a connection that
 * cannot write: better-sqlite3 `readonly` + `fileMustExist` + `PRAGMA query_only`. The one
 * writer (the indexer) creates the directory (0700) and file (0600), uses WAL so readers
 * keep reading the last committed state while it works, and migrates the schema.
 */
import Database from 'better-sqlite3';
import { existsSync, mkdirSync, openSync, closeSync, chmodSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StoreError } from './errors.js';

/** How long a connection waits for another's lock before failing (ms). */
export const BUSY_TIMEOUT_MS = 5000;

/** A file SQLite cannot read (not a database, corrupt, permission): a StoreError that says what to do. */
export function unreadableStore(path: string, e: unknown): StoreError {
  return new StoreError(
    'STORE_UNREADABLE',
    `cannot read the knowledge store at ${path} (${(e as Error)?.message ?? String(e)}): check its permissions, or move it away and rebuild with \`active-brain index add <path> --region <name>\``,
  );
}

export function missingStoreMessage(path: string): string {
  return `no knowledge store at ${path}: build one with \`active-brain index add <path> --region <name>\``;
}

export interface ReadonlyDbOptions {
  /** SQLite's page cache limit for this connection in KiB (`PRAGMA cache_size = -N`). Unset:
   *  better-sqlite3's build default, 16 MB, which a long-lived reader fills (the keyword index
   *  build reads every chunk once) and glibc then keeps resident. */
  pageCacheKiB?: number;
}

/** A connection that cannot write (the test suite proves a write through it fails). */
export function openReadonlyDb(path: string, opts: ReadonlyDbOptions = {}): Database.Database {
  const file = resolve(path);
  if (!existsSync(file)) throw new StoreError('STORE_MISSING', missingStoreMessage(file));
  let db: Database.Database;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true });
  } catch (e) {
    throw unreadableStore(file, e);
  }
  db.pragma('query_only = ON');
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (opts.pageCacheKiB !== undefined) db.pragma(`cache_size = -${Math.max(0, Math.floor(opts.pageCacheKiB))}`);
  return db;
}

/** The writer's connection: creates dir/file with private permissions, WAL, foreign keys. */
export function openWritableDb(path: string): Database.Database {
  const file = resolve(path);
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) {
    closeSync(openSync(file, 'a', 0o600));
    chmodSync(file, 0o600);
  }
  const db = new Database(file, { fileMustExist: true });
  db.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`);
  db.pragma('journal_mode = WAL');
  // WAL + NORMAL: a crash loses at most the last transactions, never consistency.
  db.pragma('synchronous = NORMAL');
  db.pragma('foreign_keys = ON');
  return db;
}
