import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { PgSyncConnection, PgError } from '../../store/pg-sync.js';
import { initPgStore, migratePgStore, urlWithRole, type InitResult } from '../../store/pg-schema.js';
import { openStoreReader, openStoreWriter, StoreError } from '../../store/sqlite-store.js';
import type { PgStoreReader } from '../../store/pg-reader.js';
import type { ChunkInput, StoreWriter } from '../../store/types.js';

// The team store on a real PostgreSQL server: the writer role indexes, a reader role reads
// (keyword on tsvector, vectors in memory, names, episodes) and cannot write — refused by the
// database itself, whatever the transaction mode — and the daemon-side open refuses a role
// that can write.
const DIM = 8;
function vec(seed: number): Float32Array {
  const v = new Float32Array(DIM);
  for (let i = 0; i < DIM; i++) v[i] = Math.sin(seed * (i + 1));
  return v;
}

describe('team store on PostgreSQL', () => {
  let server: TestPostgres;
  let init: InitResult;
  let dbUrl: string;
  let writerUrl: string;
  let readerUrl: string;
  let aliceUrl: string;
  const dir = mkdtempSync(join(tmpdir(), 'ab-pgstore-'));

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    dbUrl = server.urlFor('team');
    const admin = PgSyncConnection.connect(dbUrl);
    init = initPgStore(admin, 'active_brain', ['alice']);
    admin.close();
    writerUrl = urlWithRole(dbUrl, init.roles.writer.name, init.roles.writer.password);
    readerUrl = urlWithRole(dbUrl, init.roles.readers[0].name, init.roles.readers[0].password);
    aliceUrl = urlWithRole(dbUrl, init.roles.readers[1].name, init.roles.readers[1].password);
  });
  afterAll(() => {
    server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  function index(w: StoreWriter, region: string, path: string, audience: string, docs: Array<{ file: string; title: string; chunks: ChunkInput[] }>, seed: number) {
    w.ensureRegion(region, 'global');
    const s = w.addSource(region, path, 'notes', audience);
    for (const [i, d] of docs.entries()) {
      w.replaceDocument({ sourceId: s.id, path: join(path, d.file), hash: `h${seed}${i}`, mtime: 1, size: 1, title: d.title }, d.chunks, d.chunks.map((_, j) => vec(seed + i * 10 + j)));
    }
  }

  it('writer indexes; the team reader finds by keyword, vector, name; episodes by signature', () => {
    const w = openStoreWriter(writerUrl);
    w.setModel('test-model', DIM);
    index(w, 'notes', join(dir, 'team'), 'team', [
      { file: 'git.md', title: 'Git push', chunks: [
        { heading: 'Upstream', text: 'git push fails with no upstream branch: use --set-upstream origin', createdAt: 5, aliases: ['gpush'] },
        { heading: 'Rebase', text: 'rebasing onto main keeps history linear', createdAt: 6, signatures: [{ sig: 'sig-upstream', head: ['fatal'], words: ['upstream'], fix: 'set upstream' }] },
      ] },
    ], 1);
    index(w, 'private', join(dir, 'alice'), 'user:alice', [
      { file: 'secret.md', title: 'Alice notes', chunks: [{ heading: 'Keys', text: 'alice rotates the upstream deploy keys monthly', createdAt: 7 }] },
    ], 2);
    w.close();

    const r = openStoreReader(readerUrl);
    const kw = r.keywordSearch('upstream deploy keys', 5);
    expect(kw.length).toBe(1); // alice's private chunk matches better: the team reader never sees it
    const [c] = r.getChunks([kw[0].chunkId]);
    expect(c.handle).toBe('notes/git.md#0');
    expect(c.title).toBe('Git push');
    const vs = r.vectorSearch([vec(1)], 3)[0];
    expect(vs[0].chunkId).toBe(c.id);
    expect(vs.length).toBe(2);
    expect(r.nameSearch('gpush', 3).map((h) => h.match)).toEqual(['alias']);
    expect(r.nameSearch('git.md', 3)[0].chunkId).toBe(c.id);
    expect(r.episodesBySignature(['sig-upstream']).map((e) => e.source)).toEqual(['note']);
    expect(r.info()).toMatchObject({ chunks: 2, documents: 1, sources: 1, model: 'test-model', dim: DIM });
    expect(r.chunkByHandle('private/secret.md#0')).toBeNull();
    r.close();

    const a = openStoreReader(aliceUrl);
    const akw = a.keywordSearch('upstream deploy keys', 5);
    expect(a.getChunks(akw.map((h) => h.chunkId)).map((x) => x.handle)).toEqual(['private/secret.md#0', 'notes/git.md#0']);
    expect(a.vectorSearch([vec(2)], 5)[0].length).toBe(3);
    expect(a.chunkByHandle('private/secret.md#0')?.text).toMatch(/deploy keys/);
    a.close();
  });

  it('the reader role cannot INSERT, UPDATE or DELETE: read-only by default, permission denied even in a READ WRITE transaction', () => {
    const r = openStoreReader(readerUrl) as PgStoreReader;
    const db = r.connectionForTests();
    const writes = [
      `INSERT INTO regions (name, scope) VALUES ('evil', 'global')`,
      `UPDATE chunks SET text = 'x'`,
      `DELETE FROM documents`,
      `UPDATE meta SET value = '99' WHERE key = 'schema_version'`,
      `INSERT INTO reader_audiences (role, audience) VALUES (current_user, 'user:bob')`,
    ];
    for (const sql of writes) {
      expect(() => db.query(sql)).toThrow(/read-only transaction/);
      db.query('BEGIN READ WRITE');
      let err: unknown = null;
      try {
        db.query(sql);
      } catch (e) {
        err = e;
      }
      db.query('ROLLBACK');
      expect(err).toBeInstanceOf(PgError);
      expect((err as PgError).code).toBe('42501');
      expect((err as PgError).message).toMatch(/permission denied/);
    }
    // Control: the same connection reads, and the writer's same statement succeeds.
    expect(db.query(`SELECT count(*) AS n FROM chunks`)[0]).toEqual({ n: 2 });
    const w = PgSyncConnection.connect(writerUrl);
    w.query('BEGIN');
    expect(() => w.query(`UPDATE chunks SET text = 'x'`)).not.toThrow();
    w.query('ROLLBACK');
    w.close();
    r.close();
  });

  it('a reader open refuses a role that can write (writer, superuser) and names the fix', () => {
    for (const url of [writerUrl, dbUrl]) {
      let err: unknown = null;
      try {
        openStoreReader(url).close();
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(StoreError);
      expect((err as StoreError).code).toBe('ROLE_CAN_WRITE');
      expect((err as StoreError).message).toMatch(/readerUrl .*store init/);
      expect((err as StoreError).message).not.toContain(init.roles.writer.password);
    }
  });

  it('bad input: wrong password, no server, no schema — clear errors, never another store', () => {
    const bad = readerUrl.replace(/:[^:@/]+@/, ':nope@');
    expect(() => openStoreReader(bad)).toThrow(/refused the login.*store init/);
    expect(() => openStoreReader(`postgres://x:y@127.0.0.1:1/team`)).toThrow(/cannot reach the team store/);
    server.psql('CREATE DATABASE empty');
    expect(() => openStoreWriter(server.urlFor('empty'))).toThrow(/no team store schema.*store init/);
  });

  it('a re-indexed document keeps unchanged rows and reuses vectors; readers see the change (generation)', () => {
    const r = openStoreReader(readerUrl);
    const before = r.vectorSearch([vec(1)], 5)[0].length;
    const w = openStoreWriter(writerUrl);
    const src = w.listSources().find((s) => s.region === 'notes')!;
    const path = join(dir, 'team', 'git.md');
    const old = r.chunkByHandle('notes/git.md#0')!;
    const chunks: ChunkInput[] = [
      { heading: 'Upstream', text: 'git push fails with no upstream branch: use --set-upstream origin', createdAt: 5, aliases: ['gpush'] },
      { heading: 'Rebase', text: 'rebasing onto main keeps history linear, say it again', createdAt: 6 },
      { heading: 'Third', text: 'a third chunk about cherry picking', createdAt: 8 },
    ];
    expect(w.reusableVectors(path, 'Git push', chunks)).toEqual([true, false, false]);
    const { handles } = w.replaceDocument({ sourceId: src.id, path, hash: 'h2', mtime: 2, size: 2, title: 'Git push' }, chunks, [null, vec(50), vec(51)]);
    expect(handles).toEqual(['notes/git.md#0', 'notes/git.md#1', 'notes/git.md#2']);
    w.close();
    // Past the generation check interval the reader sees the new chunk and the kept row's id.
    const deadline = Date.now() + 2000;
    while (r.vectorSearch([vec(51)], 5)[0].length === before && Date.now() < deadline) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 50);
    expect(r.vectorSearch([vec(51)], 5)[0].length).toBe(before + 1);
    expect(r.chunkByHandle('notes/git.md#0')!.id).toBe(old.id);
    expect(r.keywordSearch('cherry picking', 3).length).toBe(1);
    expect(r.episodesBySignature(['sig-upstream'])).toEqual([]); // the quoting chunk changed
    r.close();
  });

  it('schema v1 → v2: readers refuse the old schema naming store migrate; it adds the listing index, drops the unused GIN index, keeps rows, roles and passwords', () => {
    server.psql('CREATE DATABASE old');
    const url = server.urlFor('old');
    const admin = PgSyncConnection.connect(url);
    try {
      const first = initPgStore(admin, 'active_brain', []);
      const reader = urlWithRole(url, first.roles.readers[0].name, first.roles.readers[0].password);
      const writer = urlWithRole(url, first.roles.writer.name, first.roles.writer.password);
      const w = openStoreWriter(writer);
      w.setModel('test-model', DIM);
      index(w, 'notes', join(dir, 'old'), 'team', [{ file: 'a.md', title: 'A', chunks: [{ heading: '', text: 'kept across the migration', createdAt: 1 }] }], 90);
      w.close();
      // Take it back to version 1 (what a store made by the previous release holds).
      admin.query(`DROP INDEX active_brain.chunks_listing`);
      admin.query(`CREATE INDEX chunks_fts ON active_brain.chunks USING gin(fts)`);
      admin.query(`UPDATE active_brain.meta SET value = '1' WHERE key = 'schema_version'`);
      expect(() => openStoreReader(reader)).toThrow(/older than 2: run `active-brain store migrate --url <administrator URL>` \(roles and passwords are kept\)/);
      expect(() => openStoreWriter(writer)).toThrow(/store migrate/);
      expect(migratePgStore(admin, 'active_brain')).toEqual({ schema: 'active_brain', from: 1, to: 2 });
      expect(migratePgStore(admin, 'active_brain')).toEqual({ schema: 'active_brain', from: 2, to: 2 }); // nothing left to do
      expect(() => migratePgStore(admin, 'nothing_here')).toThrow(/no team store in schema nothing_here: create it with `active-brain store init/);
      const indexes = admin.query<{ indexname: string }>(`SELECT indexname FROM pg_indexes WHERE schemaname = 'active_brain' AND tablename = 'chunks'`).map((x) => x.indexname);
      expect(indexes).toContain('chunks_listing');
      expect(indexes).not.toContain('chunks_fts');
      const r = openStoreReader(reader); // the URL from before the migration still works
      expect(r.getChunks(r.keywordSearch('migration', 5).map((h) => h.chunkId)).map((c) => c.text)).toEqual(['kept across the migration']);
      r.close();
    } finally {
      admin.close();
    }
  });
});
