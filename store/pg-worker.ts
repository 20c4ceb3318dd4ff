/**
 * The worker thread behind store/pg-sync.ts: holds one node-postgres connection and runs the
 * requests the main thread posts (connect, query, close), one at a time, replying on the
 * message port and waking the main thread through the shared flag. Errors travel back as
 * {message, code}; nothing here decides anything about the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';

interface Request {
  op: 'connect' | 'query' | 'close';
  url?: string;
  sql?: string;
  params?: unknown[];
  /** Per-statement limit (ms) set on connect. */
  statementTimeoutMs?: number;
  connectTimeoutMs?: number;
}

// bigint (int8, e.g. count(*)) and numeric as JS numbers: store ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

const flag = new Int32Array(workerData.flag as SharedArrayBuffer);
const port = workerData.port as import('node:worker_threads').MessagePort;
let client: pg.Client | null = null;
let broken: string | null = null;

function reply(msg: unknown): void {
  port.postMessage(msg);
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
}

async function handle(req: Request): Promise<unknown> {
  if (req.op === 'connect') {
    client = new pg.Client({ connectionString: req.url, connectionTimeoutMillis: req.connectTimeoutMs, statement_timeout: req.statementTimeoutMs, application_name: 'active-brain' });
    client.on('error', (e) => {
      broken = e.message;
    });
    await client.connect();
    return { ok: true };
  }
  if (req.op === 'close') {
    const c = client;
    client = null;
    await c?.end().catch(() => undefined);
    return { ok: true };
  }
  if (!client) throw Object.assign(new Error('not connected'), { code: 'NOT_CONNECTED' });
  if (broken) throw Object.assign(new Error(`connection lost: ${broken}`), { code: 'CONNECTION_LOST' });
  const r = await client.query({ text: req.sql!, values: req.params ?? [] });
  return { rows: r.rows, rowCount: r.rowCount };
}

port.on('message', (req: Request) => {
  handle(req).then(
    (result) => reply({ result }),
    (e: Error & { code?: string }) => reply({ error: { message: e?.message ?? String(e), code: e?.code ?? null } }),
  );
});
parentPort?.postMessage('ready');
