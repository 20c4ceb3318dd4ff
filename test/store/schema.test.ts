/**
 * Schema and migrations: a new store gets every table and schema_version; reopening is
 * idempotent; permissions are private; readers refuse missing, empty, too-new files with
 * messages that say what to run.
 */
import { describe, it, expect, afterEach } from 'vitest';
import Database from 'better-sqlite3';
import { statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { openStoreReader, openStoreWriter, SCHEMA_VERSION, StoreError } from '../../store/sqlite-store.js';
import { MIGRATIONS, migrate, checkSchema, type Migration } from '../../store/schema.js';
import { tempDir } from './helpers.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

function fresh(): string {
  const t = tempDir();
  cleanup = t.cleanup;
  return join(t.dir, 'state', 'sub', 'store.sqlite');
}

describe('store schema', () => {
  it('creates every table, records schema_version, private dir and file', () => {
    const path = fresh();
    openStoreWriter(path).close();
    const db = new Database(path, { readonly: true });
    const names = (db.prepare(`SELECT name FROM sqlite_master WHERE type IN ('table')`).all() as Array<{ name: string }>).map((r) => r.name);
    for (const t of ['meta', 'regions', 'sources', 'documents', 'chunks', 'aliases', 'chunks_fts', 'vectors']) expect(names).toContain(t);
    expect((db.prepare(`SELECT value FROM meta WHERE key='schema_version'`).get() as { value: string }).value).toBe(String(SCHEMA_VERSION));
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    db.close();
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(path)).mode & 0o777).toBe(0o700);
    expect(SCHEMA_VERSION).toBe(MIGRATIONS[MIGRATIONS.length - 1].version);
  });

  it('reopening migrates nothing twice and keeps data', () => {
    const path = fresh();
    const w = openStoreWriter(path);
    w.ensureRegion('notes', 'global');
    w.close();
    const w2 = openStoreWriter(path);
    expect(w2.info().regions).toBe(1);
    expect(w2.info().schemaVersion).toBe(SCHEMA_VERSION);
    w2.close();
  });

  it('a reader refuses a missing file (STORE_MISSING, says to index) without creating it', () => {
    const path = fresh();
    let err: unknown;
    try {
      openStoreReader(path);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('STORE_MISSING');
    expect((err as StoreError).exitCode).toBe(3);
    expect((err as Error).message).toContain('active-brain index add');
    expect(() => statSync(path)).toThrow();
  });

  it('a reader refuses an uninitialised file and a newer schema', () => {
    const path = fresh();
    openStoreWriter(path).close();
    const raw = new Database(path);
    raw.prepare(`UPDATE meta SET value = ? WHERE key = 'schema_version'`).run(String(SCHEMA_VERSION + 1));
    raw.close();
    expect(() => openStoreReader(path)).toThrow(/newer than this active-brain supports/);
    expect(() => openStoreWriter(path)).toThrow(/newer than this active-brain supports/);
    const empty = path + '.empty';
    writeFileSync(empty, '');
    expect(() => openStoreReader(empty)).toThrow(/not initialised/);
  });

  it('a file that is not a SQLite database → STORE_UNREADABLE (exit 3) for reader and writer', () => {
    const path = fresh();
    openStoreWriter(path).close();
    const junk = join(dirname(path), 'junk.sqlite');
    writeFileSync(junk, 'this is not a database, just some text that is long enough to fill a header '.repeat(20));
    for (const open of [openStoreReader, openStoreWriter]) {
      let err: unknown;
      try {
        open(junk);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).code).toBe('STORE_UNREADABLE');
      expect((err as StoreError).exitCode).toBe(3);
      expect((err as Error).message).toMatch(/cannot read the knowledge store at .*junk.sqlite/);
    }
  });

  it('migrations run in order, once, keep data; a reader of an older file asks to migrate', () => {
    const path = fresh();
    const w = openStoreWriter(path);
    w.ensureRegion('notes', 'global');
    w.close();
    const db = new Database(path);
    const v2: Migration[] = [...MIGRATIONS, { version: SCHEMA_VERSION + 1, up: `ALTER TABLE regions ADD COLUMN colour TEXT NOT NULL DEFAULT 'blue'` }];
    expect(() => checkSchema(db, path, SCHEMA_VERSION + 1)).toThrow(/older than .*run `active-brain index`/);
    expect(migrate(db, v2)).toBe(SCHEMA_VERSION + 1);
    expect(migrate(db, v2)).toBe(SCHEMA_VERSION + 1); // idempotent: ALTER would fail if re-run
    expect(db.prepare(`SELECT name, colour FROM regions`).all()).toEqual([{ name: 'notes', colour: 'blue' }]);
    expect(checkSchema(db, path, SCHEMA_VERSION + 1)).toBe(SCHEMA_VERSION + 1);
    db.close();
  });
});
