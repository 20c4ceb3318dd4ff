import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import pg from 'pg';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';

// The test server itself: started as the postgres user on 127.0.0.1, reachable over TCP with
// the superuser password, and gone (dir removed) after stop().
describe('test PostgreSQL server', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  });
  afterAll(() => server?.stop());

  it('answers over TCP on 127.0.0.1 and refuses a wrong password', async () => {
    const c = new pg.Client({ connectionString: server.url });
    await c.connect();
    const r = await c.query('SELECT current_user AS u, inet_server_addr()::text AS a, current_setting($1) AS f', ['fsync']);
    await c.end();
    expect(r.rows[0]).toEqual({ u: 'postgres', a: '127.0.0.1/32', f: 'off' });
    const bad = new pg.Client({ connectionString: server.url.replace(/:[^:@]+@/, ':wrong@') });
    await expect(bad.connect()).rejects.toThrow(/password authentication failed/);
  });

  it('stop() stops the server and removes its dir', async () => {
    const other = await startPostgres();
    expect(existsSync(other.dir)).toBe(true);
    other.stop();
    expect(existsSync(other.dir)).toBe(false);
    const c = new pg.Client({ connectionString: other.url, connectionTimeoutMillis: 2000 });
    await expect(c.connect()).rejects.toThrow();
  });
});
