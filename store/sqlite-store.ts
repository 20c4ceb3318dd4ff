/**
 * The knowledge store's entry point: open a reader (daemon, search, recall, MCP; it cannot
 * write) or the writer (indexer only), on the embedded SQLite file or the team store on
 * PostgreSQL (store/open-store.ts decides by the location). Everything outside store/ imports
 * from here and store/types.ts, never SQL.
 */
export { openStoreReader, openStoreWriter } from './open-store.js';
export { makeHandle, relativeDocPath } from './handles.js';
export { StoreError, StoreModelMismatchError, modelMismatchMessage } from './errors.js';
export type { StoreErrorCode } from './errors.js';
export { toFtsQuery, queryTokens } from './fts-query.js';
export { SCHEMA_VERSION } from './schema.js';
export { missingStoreMessage } from './open.js';
export type * from './types.js';
