/**
 * A throw-away team store on PostgreSQL for evaluations (eval/temp-store.ts with
 * --store-url): a fresh schema with a random name and its roles, created through an
 * administrator's URL (store/pg-schema.ts initPgStore) and dropped again — schema, writer,
 * readers — by drop(). Gives the writer and team-reader URLs the store opens with.
 */
import { randomBytes } from 'node:crypto';
import { initPgStore, roleNames, urlWithRole } from './pg-schema.js';
import { connectPg, pgConnectError } from './pg-common.js';

/** Prefix of temporary schemas (a leftover from a killed run is recognisable by it). */
export const TEMP_SCHEMA_PREFIX = 'ab_tmp_';

export interface TempPgStore {
  schema: string;
  writerUrl: string;
  readerUrl: string;
  /** Drop the schema and its roles (idempotent). */
  drop(): void;
}

export function createTempPgStore(adminUrl: string): TempPgStore {
  const db = connectPg(adminUrl);
  const schema = `${TEMP_SCHEMA_PREFIX}${randomBytes(5).toString('hex')}`;
  const roles = roleNames(schema);
  let dropped = false;
  const drop = () => {
    if (dropped) return;
    dropped = true;
    try {
      db.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      for (const r of [roles.teamReader, roles.readers, roles.writer]) db.query(`DROP ROLE IF EXISTS ${r}`);
    } finally {
      db.close();
    }
  };
  try {
    const r = initPgStore(db, schema, []);
    return {
      schema,
      writerUrl: urlWithRole(adminUrl, r.roles.writer.name, r.roles.writer.password),
      readerUrl: urlWithRole(adminUrl, r.roles.readers[0].name, r.roles.readers[0].password),
      drop,
    };
  } catch (e) {
    try {
      drop();
    } catch {
      /* the first error says what went wrong */
    }
    throw pgConnectError(adminUrl, e);
  }
}
