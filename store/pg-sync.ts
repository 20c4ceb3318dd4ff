/**
 * A synchronous PostgreSQL connection for the store's synchronous reader/writer interface
 * (store/types.ts): node-postgres runs in a worker thread (store/pg-worker.ts); query()
 * posts the request with an id and blocks until the worker's reply with that id is in
 * (store/pg-reply.ts: Atomics.wait on a shared counter, the reply taken with
 * receiveMessageOnPort). Every call has a deadline, so a server that goes away yields a
 * PgError, never a hang. Why this and not an async interface: docs/STORE.md.
 */
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join, dirname } from 'node:path';
import { awaitReply, newReplySignal, type BridgeRequest } from './pg-reply.js';

/** A connection attempt gives up after this long (ms): a wrong host fails fast. */
export const PG_CONNECT_TIMEOUT_MS = 5_000;
/** The server cancels one statement after this long (ms); the bridge waits a little longer. */
export const PG_STATEMENT_TIMEOUT_MS = 30_000;
const BRIDGE_SLACK_MS = 5_000;

export interface PgErrorInfo {
  message: string;
  /** SQLSTATE (e.g. 42501 insufficient_privilege, 25006 read_only_sql_transaction) or a node error code. */
  code: string | null;
}

/** Server-side codes and client conditions that mean the connection itself is gone. */
const CONNECTION_CODES = new Set(['CONNECTION_LOST', 'TIMEOUT', 'NOT_CONNECTED', 'CLOSED', '57P01', '57P02', '57P03', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE']);
const CONNECTION_MESSAGE = /connection terminated|connection lost|ECONNRESET|socket hang up/i;

export class PgError extends Error {
  /** 3 (environment problem) for the CLI: every database failure is one. */
  readonly exitCode = 3;
  constructor(readonly info: PgErrorInfo) {
    super(
      isConnectionLoss(info)
        ? `lost the connection to the team store (${info.message}): check that the server runs, then run the command again — what was committed stays readable and the next run continues`
        : info.message,
    );
    this.name = 'PgError';
  }
  get code(): string | null {
    return this.info.code;
  }
}

/** The compiled worker: next to this module in dist/, or dist/store/ when this runs from source (tests). */
function workerFile(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  const local = join(here, 'pg-worker.js');
  if (existsSync(local)) return local;
  const dist = join(here, '..', 'dist', 'store', 'pg-worker.js');
  if (existsSync(dist)) return dist;
  throw new Error(`pg-worker.js not found next to ${here}: run \`npm run build\``);
}

export class PgSyncConnection {
  private readonly worker: Worker;
  private readonly port: MessagePort;
  private readonly signal: Int32Array;
  /** The id of the last request posted (each reply names the request it answers). */
  private lastId = 0;
  private closed = false;

  private constructor(worker: string) {
    const sab = newReplySignal();
    this.signal = new Int32Array(sab);
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(worker, { workerData: { signal: sab, port: port2 }, transferList: [port2] });
    this.worker.unref();
    this.port.unref();
  }

  /** Connect to `url` (throws PgError: refused, bad password, unknown database…). `worker`:
   *  the worker script (default: the built store/pg-worker.js; the bridge's tests run it under
   *  a perturbed schedule). */
  static connect(url: string, worker = workerFile()): PgSyncConnection {
    const c = new PgSyncConnection(worker);
    try {
      c.call({ op: 'connect', url, statementTimeoutMs: PG_STATEMENT_TIMEOUT_MS, connectTimeoutMs: PG_CONNECT_TIMEOUT_MS }, PG_CONNECT_TIMEOUT_MS + BRIDGE_SLACK_MS);
    } catch (e) {
      c.terminate();
      throw e;
    }
    return c;
  }

  private call(req: Omit<BridgeRequest, 'id'>, timeoutMs: number): unknown {
    if (this.closed) throw new PgError({ message: 'connection is closed', code: 'CLOSED' });
    const id = ++this.lastId;
    this.port.postMessage({ ...req, id });
    const reply = awaitReply(this.port, this.signal, id, Date.now() + timeoutMs);
    if (!reply) {
      // The request may still be running: this connection is unusable from here on.
      this.terminate();
      throw new PgError({ message: `no answer from the server within ${timeoutMs} ms`, code: 'TIMEOUT' });
    }
    if (reply.error) throw new PgError(reply.error);
    return reply.result;
  }

  query<T = Record<string, unknown>>(sql: string, params: unknown[] = []): T[] {
    return (this.call({ op: 'query', sql, params }, PG_STATEMENT_TIMEOUT_MS + BRIDGE_SLACK_MS) as { rows: T[] }).rows;
  }

  one<T = Record<string, unknown>>(sql: string, params: unknown[] = []): T | undefined {
    return this.query<T>(sql, params)[0];
  }

  private terminate(): void {
    this.closed = true;
    void this.worker.terminate();
  }

  close(): void {
    if (this.closed) return;
    try {
      this.call({ op: 'close' }, PG_CONNECT_TIMEOUT_MS);
    } catch {
      /* closing a broken connection: nothing to keep */
    }
    this.terminate();
  }
}

export function isConnectionLoss(info: PgErrorInfo): boolean {
  return (info.code !== null && CONNECTION_CODES.has(info.code)) || CONNECTION_MESSAGE.test(info.message);
}

/** True when `e` means the team store's server cannot be reached right now (connection lost,
 *  refused or timed out, also when opening: the StoreError keeps the PgError as its cause),
 *  as opposed to a setup error that retrying cannot fix (bad password, unknown database…). */
export function isStoreUnreachable(e: unknown): boolean {
  if (e instanceof PgError) return isConnectionLoss(e.info);
  const cause = (e as { cause?: unknown } | null)?.cause;
  return cause instanceof PgError && isConnectionLoss(cause.info);
}

/** True for a `postgres://` / `postgresql://` store location. */
export function isPostgresUrl(location: string): boolean {
  return /^postgres(ql)?:\/\//i.test(location);
}

/** The URL without its password (for messages and status). */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return url.replace(/:[^:@/]*@/, ':***@');
  }
}
