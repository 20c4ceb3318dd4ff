/**
 * Bad input and faults of the team store through the real CLI (dist/ binaries) on a real
 * PostgreSQL server: a URL nothing listens on, a refused password, an unknown database, a
 * schema newer than this build, a reader URL that may write (search, recall, status) and a
 * server that goes away while a search waits on it. Each: a clear error saying what to do,
 * exit 3 (environment) or 2 (configuration), nothing printed as results — and never a silent
 * fallback to the local SQLite store, which holds a note of its own here. Control: the good
 * reader URL finds the team note, and the SQLite store is found when no URL is set.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');

describe('team store CLI: bad input and faults', () => {
  let server: TestPostgres;
  let dir: string;
  let init: { readerUrl: string; writerUrl: string; users: Record<string, string> };
  const envFor = (storeUrl: string | null) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ACTIVE_BRAIN_HOME: join(dir, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    delete env.ACTIVE_BRAIN_STORE_URL;
    delete env.ACTIVE_BRAIN_STORE;
    if (storeUrl) env.ACTIVE_BRAIN_STORE_URL = storeUrl;
    return env;
  };
  const run = (args: string[], storeUrl: string | null) => {
    const r = spawnSync(process.execPath, [cli, ...args], { env: envFor(storeUrl), encoding: 'utf8', timeout: 90_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  /** No results printed and nothing from the local SQLite store (its note says "sqlitenote"). */
  const noFallback = (r: { out: string; err: string }) => {
    expect(r.out).not.toMatch(/sqlitenote|"hits"\s*:\s*\[\s*\{/);
    expect(r.err).not.toMatch(/sqlitenote|unexpected error/);
  };

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    dir = mkdtempSync(join(tmpdir(), 'ab-pgfaults-'));
    for (const [sub, body] of [
      ['team', '# Postgres pool timeouts\n\nECONNRESET under load was fixed by raising the idle timeout of the connection pool to 30 seconds.\n'],
      ['local', '# Local sqlitenote pool\n\nThe sqlitenote pool fix: ECONNRESET under load, idle timeout of the connection pool.\n'],
    ]) {
      mkdirSync(join(dir, sub), { recursive: true });
      writeFileSync(join(dir, sub, 'pool.md'), body);
    }
    const r = run(['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--json'], null);
    expect(r.code, r.err).toBe(0);
    init = JSON.parse(r.out);
    expect(run(['index', 'add', join(dir, 'team'), '--region', 'team', '--json'], init.writerUrl).code).toBe(0);
    // The local SQLite store (<home>/store.sqlite) a fallback would read.
    expect(run(['index', 'add', join(dir, 'local'), '--region', 'local', '--json'], null).code).toBe(0);
  }, 180_000);
  afterAll(() => {
    server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('control: the reader URL finds the team note; without a URL the SQLite store answers', () => {
    const team = run(['search', 'connection pool idle timeout', '--json'], init.users.alice);
    expect(team.code, team.err).toBe(0);
    expect(team.out).toContain('Postgres pool timeouts');
    expect(team.out).not.toContain('sqlitenote');
    const local = run(['search', 'connection pool idle timeout', '--json'], null);
    expect(local.code, local.err).toBe(0);
    expect(local.out).toContain('sqlitenote');
  });

  it('a URL nothing listens on: exit 3, says to check the server and store.url', async () => {
    const u = new URL(init.users.alice);
    u.port = String(server.port === 1 ? 2 : 1);
    const r = run(['search', 'pool', '--json'], u.toString());
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/cannot reach the team store .*check that the server runs and store\.url/);
    expect(r.err).not.toContain(u.password);
    noFallback(r);
  });

  it('a refused password: exit 3, names the URLs store init printed, never echoes the password', () => {
    const u = new URL(init.users.alice);
    u.password = 'wrong-password-xyz';
    const r = run(['search', 'pool', '--json'], u.toString());
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/refused the login .*store init/);
    expect(r.err).not.toContain('wrong-password-xyz');
    noFallback(r);
  });

  it('an unknown database: exit 3, says to create it and run store init', () => {
    const u = new URL(init.users.alice);
    u.pathname = '/no_such_db';
    const r = run(['search', 'pool', '--json'], u.toString());
    expect(r.code).toBe(3);
    expect(r.err).toMatch(/no database at .*no_such_db.*create the database/);
    noFallback(r);
  });

  it('a reader URL that may write is refused by search, recall and status', () => {
    const s = run(['search', 'pool', '--json'], init.writerUrl);
    expect(s.code).toBe(2);
    expect(s.err).toMatch(/refusing the team store .*readerUrl/);
    noFallback(s);
    const handle = (JSON.parse(run(['search', 'connection pool idle timeout', '--json'], init.users.alice).out) as { hits: Array<{ handle: string }> }).hits[0].handle;
    const rc = run(['recall', handle], init.writerUrl);
    expect(rc.code).toBe(2);
    expect(rc.err).toMatch(/refusing the team store .*readerUrl/);
    expect(rc.out).not.toContain('idle timeout');
    expect(run(['recall', handle], init.users.alice).code).toBe(0); // control
    const st = run(['status', '--json'], init.writerUrl);
    const store = (JSON.parse(st.out) as { store: { backend: string; error?: string; chunks?: number } }).store;
    expect(store.backend).toBe('postgres');
    expect(store.error).toMatch(/refusing the team store .*readerUrl/);
    expect(store.chunks).toBeUndefined();
    expect(st.out).not.toContain(new URL(init.writerUrl).password);
  });

  it('a schema newer than this build: exit 3, says to upgrade active-brain; nothing changed', () => {
    const q = (sql: string) => server.psql(sql, 'team').trim();
    const v = q(`SELECT value FROM active_brain.meta WHERE key = 'schema_version'`);
    q(`UPDATE active_brain.meta SET value = '${Number(v) + 1}' WHERE key = 'schema_version'`);
    try {
      const r = run(['search', 'pool', '--json'], init.users.alice);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/schema version \d+ is newer than this active-brain supports .*upgrade active-brain/);
      noFallback(r);
      const ix = run(['index', '--json'], init.writerUrl);
      expect(ix.code).toBe(3);
      expect(ix.err).toMatch(/newer than this active-brain supports/);
      expect(q(`SELECT count(*) FROM active_brain.documents`)).toBe('1');
    } finally {
      q(`UPDATE active_brain.meta SET value = '${v}' WHERE key = 'schema_version'`);
    }
    expect(run(['search', 'pool', '--json'], init.users.alice).code).toBe(0); // control
  });

  it('the server goes away while a search waits on it: exit 3, says the connection was lost, no results', async () => {
    // A transaction holds the chunks table, so the search blocks inside its query; then the server stops.
    const locker = spawn('psql', ['-X', '-q', '-h', '127.0.0.1', '-p', String(server.port), '-U', 'postgres', '-d', 'team', '-c',
      'BEGIN; LOCK TABLE active_brain.chunks IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(120);'], { env: { ...process.env, PGPASSWORD: 'test-superuser-pw' }, stdio: 'ignore' });
    try {
      await new Promise((r) => setTimeout(r, 500));
      const waiting = () => Number(server.psql(`SELECT count(*) FROM pg_locks WHERE NOT granted`, 'team').trim());
      const search = new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
        const c = spawn(process.execPath, [cli, 'search', 'connection pool idle timeout', '--json'], { env: envFor(init.users.alice), stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        let err = '';
        c.stdout.on('data', (b) => (out += b));
        c.stderr.on('data', (b) => (err += b));
        c.on('exit', (code) => resolve({ code, out, err }));
      });
      const t0 = Date.now();
      while (waiting() === 0) {
        if (Date.now() - t0 > 60_000) throw new Error('the search never waited on the lock');
        await new Promise((r) => setTimeout(r, 50));
      }
      server.halt();
      const r = await search;
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/lost the connection to the team store .*check that the server runs/);
      noFallback(r);
    } finally {
      locker.kill();
      server.resume();
    }
    expect(run(['search', 'connection pool idle timeout', '--json'], init.users.alice).code).toBe(0); // control: back
  }, 120_000);
});
