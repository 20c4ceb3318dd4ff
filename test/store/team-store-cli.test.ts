import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PG_SCHEMA_VERSION } from '../../store/pg-schema.js';
import { PgSyncConnection } from '../../store/pg-sync.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

// The team store through the real CLI (dist/ binaries) on a real PostgreSQL server: store init
// prints the role URLs, the writer indexes team and private notes with --audience, each user's
// search sees team notes and only their own private ones, the team reader sees team only, and
// a reader configured with a URL that can write is refused with the fix.
const cli = join(repoRoot, 'bin', 'active-brain.js');

describe('team store CLI: store init, index add --audience, search per reader', () => {
  let server: TestPostgres;
  let dir: string;
  let init: { url: string; readerUrl: string; writerUrl: string; schema: string; vectors: string; users: Record<string, string> };
  const run = (args: string[], storeUrl: string | null, home = join(dir, 'home')) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    delete env.ACTIVE_BRAIN_STORE_URL;
    if (storeUrl) env.ACTIVE_BRAIN_STORE_URL = storeUrl;
    const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const handles = (url: string, query: string) => {
    const r = run(['search', query, '--k', '10', '--json'], url);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    return (JSON.parse(r.out) as { hits: Array<{ handle: string }> }).hits.map((h) => h.handle.split('#')[0]).sort();
  };

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    dir = mkdtempSync(join(tmpdir(), 'ab-teamcli-'));
    const note = (sub: string, name: string, body: string) => {
      mkdirSync(join(dir, sub), { recursive: true });
      writeFileSync(join(dir, sub, name), body);
    };
    note('team', 'pool.md', '# Postgres pool timeouts\n\nECONNRESET under load was fixed by raising the idle timeout of the connection pool to 30 seconds.\n');
    note('alice', 'alice-pool.md', '# Alice pool notes\n\nMy private trick for ECONNRESET: restart the pool sidecar before raising the idle timeout.\n');
    note('bob', 'bob-pool.md', '# Bob pool notes\n\nBob keeps the connection pool idle timeout at 10 seconds after an ECONNRESET outage.\n');
  }, 120_000);
  afterAll(() => {
    server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('store init --json prints the URLs and the vector choice', () => {
    const r = run(['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--user', 'bob', '--json'], null);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    init = JSON.parse(r.out);
    expect(Object.keys(init).sort()).toEqual(['readerUrl', 'schema', 'url', 'users', 'vectors', 'writerUrl']);
    expect(init).toMatchObject({ schema: 'active_brain', vectors: 'in-memory' });
    expect(init.url).not.toContain('test-superuser-pw');
    expect(new URL(init.readerUrl).username).toBe('active_brain_reader');
    expect(new URL(init.writerUrl).username).toBe('active_brain_writer');
    expect(Object.keys(init.users).sort()).toEqual(['alice', 'bob']);
  });

  it('store migrate: nothing to do on a current schema, the URLs keep working; a schema with no store is refused', () => {
    const r = run(['store', 'migrate', '--url', server.urlFor('team'), '--json'], null);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(JSON.parse(r.out)).toEqual({ schema: 'active_brain', from: PG_SCHEMA_VERSION, to: PG_SCHEMA_VERSION, migrated: false });
    expect(run(['store', 'migrate', '--url', server.urlFor('team')], null).out).toMatch(/at version \d+ already: nothing to do/);
    const missing = run(['store', 'migrate', '--url', server.urlFor('team'), '--schema', 'nothing_here'], null);
    expect(missing.code).toBe(3);
    expect(missing.err).toMatch(/no team store in schema nothing_here: create it with `active-brain store init/);
    for (const u of [init.readerUrl, init.writerUrl]) {
      const wrong = run(['store', 'migrate', '--url', u], null);
      expect(wrong.code).toBe(2);
      expect(wrong.err).toMatch(/store migrate needs the administrator URL \(the owner of schema active_brain or a superuser\); role active_brain_(reader|writer) is not/);
    }
    expect(run(['store', 'migrate', '--help'], null).out).toMatch(/roles, passwords and grants are not touched/);
    expect(run(['store', 'migrate'], null).code).toBe(2);
    // The URLs from store init still log in (migrate issued no new passwords).
    for (const u of [init.readerUrl, init.writerUrl, init.users.alice]) PgSyncConnection.connect(u).close();
  });

  it('an empty search says why: no chunk for the reader\'s audiences yet, or no audience granted at all', () => {
    const none = run(['search', 'pool', '--json'], init.readerUrl);
    expect(none.code).toBe(3);
    expect(none.err).toMatch(/holds no chunks for this reader's audiences \(team\): index or push notes with the writer URL/);
    const bob = new URL(init.users.bob).username;
    server.psql(`DELETE FROM active_brain.reader_audiences WHERE role = '${bob}'`, 'team');
    try {
      const r = run(['search', 'pool', '--json'], init.users.bob);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/shows this reader nothing: its role has no audience granted/);
      expect(run(['recall', 'notes/x.md#0'], init.users.bob).err).toMatch(/no audience granted/);
    } finally {
      server.psql(`INSERT INTO active_brain.reader_audiences (role, audience) VALUES ('${bob}', 'team'), ('${bob}', 'user:bob')`, 'team');
    }
  });

  it('the writer indexes team and private notes; each reader sees its audience only', () => {
    for (const [sub, audience] of [['team', 'team'], ['alice', 'user:alice'], ['bob', 'user:bob']] as const) {
      const r = run(['index', 'add', join(dir, sub), '--region', sub, '--audience', audience, '--json'], init.writerUrl);
      expect(r.code, r.err).toBe(0);
      expect(JSON.parse(r.out)).toMatchObject({ audience, indexed: 1 });
    }
    const q = 'ECONNRESET connection pool idle timeout';
    expect(handles(init.users.alice, q)).toEqual(['alice/alice-pool.md', 'team/pool.md']);
    expect(handles(init.users.bob, q)).toEqual(['bob/bob-pool.md', 'team/pool.md']);
    expect(handles(init.readerUrl, q)).toEqual(['team/pool.md']);
    // recall of another user's handle: unknown to this reader, as if it did not exist.
    const rec = run(['recall', 'bob/bob-pool.md#0'], init.users.alice);
    expect(rec.code).toBe(1);
    expect(rec.out).not.toContain('10 seconds');
    expect(run(['recall', 'alice/alice-pool.md#0'], init.users.alice).out).toContain('sidecar');
  });

  it('a reader given a URL that can write is refused, naming the fix; status and doctor say which backend', () => {
    const r = run(['search', 'pool', '--json'], init.writerUrl);
    expect(r.code).toBe(2);
    expect(r.err).toMatch(/refusing the team store .*readerUrl .*role active_brain_writer .*may write/);
    expect(r.err).not.toContain(new URL(init.writerUrl).password);
    const st = run(['status', '--json'], init.users.alice);
    const s = JSON.parse(st.out) as { store: { backend: string; path: string; chunks: number } };
    expect(s.store).toMatchObject({ backend: 'postgres', chunks: 2 });
    expect(s.store.path).not.toContain(new URL(init.users.alice).password);
    const doc = run(['doctor', '--json'], init.users.alice);
    const storeCheck = (JSON.parse(doc.out) as { checks: Array<{ name: string; ok: boolean; message?: string; detail?: string }> }).checks.find((c) => c.name === 'store');
    expect(JSON.stringify(storeCheck)).toMatch(/team store \(PostgreSQL\) postgres:\/\/active_brain_reader_alice:\*\*\*@.*2 chunk/);
    expect(doc.out).not.toContain(new URL(init.users.alice).password);
  });

  it('bad input: --audience on the local SQLite store and a malformed audience are usage errors, nothing registered', () => {
    const local = run(['index', 'add', join(dir, 'team'), '--region', 'team', '--audience', 'user:alice'], null, join(dir, 'home-local'));
    expect(local.code).toBe(2);
    expect(local.err).toMatch(/needs the team store/);
    const bad = run(['index', 'add', join(dir, 'team'), '--region', 'team', '--audience', 'everyone'], init.writerUrl);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--audience "everyone" is not valid/);
  });
});
