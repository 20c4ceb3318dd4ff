import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MessageChannel } from 'node:worker_threads';
import { fileURLToPath } from 'node:url';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { PgSyncConnection } from '../../store/pg-sync.js';
import { awaitReply, newReplySignal, postReply } from '../../store/pg-reply.js';

// The synchronous bridge to PostgreSQL (store/pg-sync.ts ⇄ store/pg-worker.ts) pairs every
// reply with its request. The real worker runs on a real server under two schedules a loaded
// machine produces (test/store/fixtures): a notify that arrives late, waking the wait for the
// next request with nothing for it (the old bridge then reported "no reply" and took the late
// reply as the answer to the request after: a CI run's indexer read `listDocuments` rows
// without `path`), and a reply that comes twice, the second time after the next request.
const fixture = (name: string) => fileURLToPath(new URL(`fixtures/${name}.mjs`, import.meta.url));
/** Each query runs this long on the server, so the late notify lands while the main thread waits. */
const QUERY_SECONDS = 0.02;
const ROUNDS = 12;

describe('PostgreSQL bridge: each reply answers its own request', () => {
  let server: TestPostgres;
  beforeAll(async () => {
    server = await startPostgres();
  }, 120_000);
  afterAll(() => server?.stop());

  /** Alternate two query shapes (a count, then rows with a path, as the indexer's count and
   *  listDocuments); what each call returned, or the error it threw. */
  function run(conn: PgSyncConnection): { got: unknown[]; want: unknown[] } {
    const got: unknown[] = [];
    const want: unknown[] = [];
    for (let i = 1; i <= ROUNDS; i++) {
      try {
        if (i % 2) got.push(conn.query(`SELECT count(*) AS n, pg_sleep($2) FROM generate_series(1, $1::int)`, [i, QUERY_SECONDS]).map((r) => r.n));
        else got.push(conn.query(`SELECT 'note' || g || '.md' AS path, pg_sleep($2) FROM generate_series(1, $1::int) g`, [2, QUERY_SECONDS]).map((r) => r.path));
      } catch (e) {
        got.push(`threw: ${(e as Error).message}`);
      }
      want.push(i % 2 ? [i] : ['note1.md', 'note2.md']);
    }
    return { got, want };
  }

  it('a notify that arrives late wakes the wait for the next request: it waits on for its own reply', () => {
    const conn = PgSyncConnection.connect(server.url, fixture('pg-worker-late-wake'));
    try {
      const { got, want } = run(conn);
      expect(got).toEqual(want);
    } finally {
      conn.close();
    }
  });

  it('a late reply to an earlier request is dropped, never taken for the next one', () => {
    const conn = PgSyncConnection.connect(server.url, fixture('pg-worker-late-reply'));
    try {
      const { got, want } = run(conn);
      expect(got).toEqual(want);
    } finally {
      conn.close();
    }
  });

  it('control: the real worker on its own schedule gives the same answers', () => {
    const conn = PgSyncConnection.connect(server.url);
    try {
      const { got, want } = run(conn);
      expect(got).toEqual(want);
    } finally {
      conn.close();
    }
  });
});

describe('awaitReply (store/pg-reply.ts)', () => {
  it('property: takes the reply with its id, drops the earlier ones, leaves the later ones on the port', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 99 }), { maxLength: 8 }), fc.array(fc.integer({ min: 101, max: 199 }), { maxLength: 4 }), (stale, later) => {
        const { port1, port2 } = new MessageChannel();
        const signal = new Int32Array(newReplySignal());
        for (const id of stale) postReply(port2, signal, { id, result: `stale ${id}` });
        postReply(port2, signal, { id: 100, result: 'mine' });
        for (const id of later) postReply(port2, signal, { id, result: `later ${id}` });
        expect(awaitReply(port1, signal, 100, Date.now() + 1_000)).toEqual({ id: 100, result: 'mine' });
        for (const id of later) expect(awaitReply(port1, signal, id, Date.now() + 1_000)?.result).toBe(`later ${id}`);
        port1.close();
      }),
      { numRuns: 50 },
    );
  });

  it('no reply with its id by the deadline: null (the caller gives the connection up), after the deadline', () => {
    const { port1, port2 } = new MessageChannel();
    const signal = new Int32Array(newReplySignal());
    postReply(port2, signal, { id: 1, result: 'stale' });
    const t0 = Date.now();
    expect(awaitReply(port1, signal, 2, t0 + 100)).toBeNull();
    expect(Date.now() - t0).toBeGreaterThanOrEqual(100);
    port1.close();
  });
});
