/**
 * Where the knowledge store is: `store.url` (or ACTIVE_BRAIN_STORE_URL) = `postgres://…`
 * selects the team store on PostgreSQL; otherwise the embedded SQLite file (`store.path`,
 * default <home>/store.sqlite). Readers (daemon, search, recall, MCP, status) use the reader
 * URL in store.url; the indexer writes through store.writerUrl when set, else store.url.
 * openStoreReader / openStoreWriter take the location either way. No SQL here.
 */
import { existsSync } from 'node:fs';
import { defaultStorePath } from '../shared/paths.js';
import { isPostgresUrl, redactUrl } from './pg-sync.js';

export const STORE_BACKENDS = ['sqlite', 'postgres'] as const;
export type StoreBackend = (typeof STORE_BACKENDS)[number];

interface StoreConfig {
  store: { path?: string; url?: string; writerUrl?: string };
}

/** The location readers open. */
export function storeLocation(config: StoreConfig, env: NodeJS.ProcessEnv = process.env): string {
  return config.store.url ?? config.store.path ?? defaultStorePath(env);
}

/** The location the indexer writes. */
export function writerStoreLocation(config: StoreConfig, env: NodeJS.ProcessEnv = process.env): string {
  return config.store.writerUrl ?? storeLocation(config, env);
}

export function storeBackend(location: string): StoreBackend {
  return isPostgresUrl(location) ? 'postgres' : 'sqlite';
}

/** Is there a store to open? A file must exist; a server is asked when opened. */
export function storePresent(location: string): boolean {
  return isPostgresUrl(location) || existsSync(location);
}

/** The location as shown to users (a URL without its password). */
export function displayLocation(location: string): string {
  return isPostgresUrl(location) ? redactUrl(location) : location;
}
