/**
 * What the team store's reader and writer share on PostgreSQL: the schema-version check,
 * StoreInfo from the server, the rights check that makes the daemon refuse a role that can
 * write, and turning connection failures (refused, bad password, unknown database, timeout)
 * into StoreErrors that say what to do. No decisions about search here.
 */
import { StoreError } from './errors.js';
import type { StoreInfo } from './types.js';
import { PgError, PgSyncConnection, redactUrl } from './pg-sync.js';
import { PG_SCHEMA_VERSION, PG_TABLES } from './pg-schema.js';

const INIT_HINT = 'create it with `active-brain store init --url <administrator URL>`';

/** Connect to `url`; a failure is the StoreError pgConnectError makes of it (naming the fix). */
export function connectPg(url: string): PgSyncConnection {
  try {
    return PgSyncConnection.connect(url);
  } catch (e) {
    throw pgConnectError(url, e);
  }
}

/** Connection failure → StoreError naming the fix. */
export function pgConnectError(url: string, e: unknown): StoreError {
  if (e instanceof StoreError) return e;
  // The cause stays attached: the daemon tells "unreachable, retry later" (store/pg-sync.ts
  // isStoreUnreachable: refused, reset, server starting up) from a setup error.
  return Object.assign(connectError(url, e), { cause: e });
}

function connectError(url: string, e: unknown): StoreError {
  const where = redactUrl(url);
  const code = e instanceof PgError ? e.code : (e as { code?: string })?.code ?? null;
  const msg = (e as Error)?.message ?? String(e);
  if (code === '28P01' || code === '28000') {
    return new StoreError('STORE_UNREADABLE', `the team store at ${where} refused the login (${msg}): use a URL \`active-brain store init\` printed (re-running it issues new passwords)`);
  }
  if (code === '3D000') return new StoreError('STORE_MISSING', `no database at ${where} (${msg}): create the database, then ${INIT_HINT}`);
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EHOSTUNREACH' || code === 'TIMEOUT' || /timeout|ECONNREFUSED|ENOTFOUND/i.test(msg)) {
    return new StoreError('STORE_UNREADABLE', `cannot reach the team store at ${where} (${msg}): check that the server runs and store.url (or ACTIVE_BRAIN_STORE_URL) names its host and port`);
  }
  return new StoreError('STORE_UNREADABLE', `cannot use the team store at ${where} (${msg}): check store.url (or ACTIVE_BRAIN_STORE_URL), or ${INIT_HINT}`);
}

/** The connected role's schema must be exactly PG_SCHEMA_VERSION (readers cannot migrate; store init does). */
export function checkPgSchema(db: PgSyncConnection, where: string): number {
  const t = db.one<{ ok: boolean }>(`SELECT to_regclass('meta') IS NOT NULL AS ok`);
  if (!t?.ok) throw new StoreError('STORE_EMPTY', `no team store schema visible at ${where}: ${INIT_HINT} (its URLs set the role's search_path)`);
  const row = db.one<{ value: string }>(`SELECT value FROM meta WHERE key = 'schema_version'`);
  const v = row ? Number(row.value) : 0;
  if (v > PG_SCHEMA_VERSION) throw new StoreError('SCHEMA_TOO_NEW', `team store schema version ${v} is newer than this active-brain supports (${PG_SCHEMA_VERSION}): upgrade active-brain`);
  if (v < PG_SCHEMA_VERSION) throw new StoreError('SCHEMA_OLD', `team store schema version ${v} is older than ${PG_SCHEMA_VERSION}: run \`active-brain store migrate --url <administrator URL>\` (roles and passwords are kept)`);
  return v;
}

export interface RoleRights {
  role: string;
  /** What makes the role unfit for a reader (empty: read-only). */
  problems: string[];
}

/** Can the connected role change anything? (superuser, BYPASSRLS, any write privilege on a store table, read-write default.) */
export function roleRights(db: PgSyncConnection): RoleRights {
  const r = db.one<{ role: string; super: boolean; bypass: boolean; ro: string }>(
    `SELECT current_user AS role, rolsuper AS super, rolbypassrls AS bypass, current_setting('default_transaction_read_only') AS ro FROM pg_roles WHERE rolname = current_user`,
  )!;
  const problems: string[] = [];
  if (r.super) problems.push('is a superuser');
  if (r.bypass) problems.push('bypasses row-level security');
  if (r.ro !== 'on') problems.push('has default_transaction_read_only off');
  const writable = db.query<{ t: string }>(
    `SELECT t FROM unnest($1::text[]) AS t WHERE to_regclass(t) IS NOT NULL AND has_table_privilege(t, 'INSERT, UPDATE, DELETE, TRUNCATE')`,
    [[...PG_TABLES]],
  );
  if (writable.length) problems.push(`may write ${writable.map((w) => w.t).join(', ')}`);
  return { role: r.role, problems };
}

export function pgInfo(db: PgSyncConnection, url: string): StoreInfo {
  const c = db.one<{ regions: number; sources: number; documents: number; chunks: number }>(
    `SELECT (SELECT count(*) FROM regions) AS regions, (SELECT count(*) FROM sources) AS sources,
            (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks`,
  )!;
  const meta = new Map(db.query<{ key: string; value: string }>(`SELECT key, value FROM meta WHERE key IN ('schema_version', 'model', 'dim')`).map((r) => [r.key, r.value]));
  const size = db.one<{ b: number }>(`SELECT coalesce(sum(pg_total_relation_size(to_regclass(t))), 0) AS b FROM unnest($1::text[]) AS t`, [[...PG_TABLES]]);
  return {
    path: redactUrl(url),
    schemaVersion: Number(meta.get('schema_version') ?? 0),
    model: meta.get('model') ?? null,
    dim: meta.has('dim') ? Number(meta.get('dim')) : null,
    ...c,
    bytes: size?.b ?? 0,
  };
}
