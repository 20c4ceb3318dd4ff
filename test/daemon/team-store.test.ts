import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { appendExchange, cli, decisions, events, newSession, startDaemon, statusRunning, tempEnv, waitCanary, waitFor, type Env } from './helpers.js';

// The real daemon on the team store: configured with the writer's URL it refuses the store
// (says why, names the reader URL, keeps running silent: store-unreadable); with a reader's
// URL (control) it opens it without an error and status shows the team store.
describe('daemon on the team store (PostgreSQL)', () => {
  let server: TestPostgres;
  let init: { readerUrl: string; writerUrl: string; users: Record<string, string> };
  const envs: Env[] = [];

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    const e = tempEnv('ab-daemon-pg-');
    envs.push(e);
    const r = cli(e, ['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--json']);
    expect(r.code, r.stderr).toBe(0);
    init = JSON.parse(r.stdout);
    const notes = join(e.home, '..', 'notes');
    mkdirSync(notes, { recursive: true });
    writeFileSync(join(notes, 'pool.md'), '# Postgres pool timeouts\n\nECONNRESET under load was fixed by raising the idle timeout of the connection pool to 30 seconds.\n');
    const ix = cli({ ...e, env: { ...e.env, ACTIVE_BRAIN_STORE_URL: init.writerUrl } }, ['index', 'add', notes, '--region', 'notes', '--json']);
    expect(ix.code, ix.stderr).toBe(0);
  }, 120_000);
  afterAll(() => {
    for (const e of envs) e.cleanup();
    server?.stop();
  });

  const daemonWith = async (url: string) => {
    const e = tempEnv('ab-daemon-pg-');
    envs.push(e);
    e.env.ACTIVE_BRAIN_STORE_URL = url;
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    appendExchange(s, 'The connection pool throws ECONNRESET under load again', 'Looking at the pool settings now.');
    await waitFor(() => decisions(e).length >= 1, 20_000, 'first decision');
    return { e, d };
  };

  it('refuses the writer URL, naming the fix, and stays up silent', async () => {
    const { e, d } = await daemonWith(init.writerUrl);
    const refusal = events(e, 'error').find((r) => r.reason === 'store-unreadable');
    expect(String(refusal?.message)).toMatch(/refusing the team store .*readerUrl/);
    expect(String(refusal?.message)).not.toContain(new URL(init.writerUrl).password);
    expect(d.child.exitCode).toBeNull();
    const st = JSON.parse(cli(e, ['status', '--json']).stdout) as { running: boolean; last_error: string | null };
    expect(st.running).toBe(true);
    expect(st.last_error).toMatch(/store-unreadable: refusing the team store/);
  });

  it('control: opens the reader URL without an error; status shows the team store', async () => {
    const { e } = await daemonWith(init.users.alice);
    expect(events(e, 'error').filter((r) => String(r.reason).startsWith('store'))).toEqual([]);
    expect(events(e, 'store-missing')).toEqual([]);
    const st = await statusRunning(e);
    expect(st).toMatchObject({ running: true, last_error: null, store: { backend: 'postgres', chunks: 1 } });
  });
});
