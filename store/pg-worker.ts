/**
 * The worker thread behind store/pg-sync.ts: holds one node-postgres connection and runs the
 * requests the main thread posts (connect, query, close), one at a time, answering each with a
 * reply that carries the request's id (store/pg-reply.ts: the reply on the message port, then
 * the shared counter moves and the main thread is woken). Errors travel back as
 * {message, code}; nothing here decides anything about the store.
 */
import { parentPort, workerData } from 'node:worker_threads';
import pg from 'pg';
import { postReply, type BridgeRequest } from './pg-reply.js';

// bigint (int8, e.g. count(*)) and numeric as JS numbers: store ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));
pg.types.setTypeParser(1700, (v) => Number(v));

const signal = new Int32Array(workerData.signal as SharedArrayBuffer);
const port = workerData.port as import('node:worker_threads').MessagePort;
let client: pg.Client | null = null;
let broken: string | null = null;

async function handle(req: BridgeRequest): Promise<unknown> {
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

port.on('message', (req: BridgeRequest) => {
  handle(req).then(
    (result) => postReply(port, signal, { id: req.id, result }),
    (e: Error & { code?: string }) => postReply(port, signal, { id: req.id, error: { message: e?.message ?? String(e), code: e?.code ?? null } }),
  );
});
parentPort?.postMessage('ready');
