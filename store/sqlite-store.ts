/**
 * The SQLite knowledge store's entry point: open a reader (daemon, search, recall, MCP; it
 * cannot write) or the writer (indexer only). Everything outside store/ imports from here
 * and store/types.ts, never SQL. A PostgreSQL + pgvector store can sit behind the same
 * StoreReader / StoreWriter interfaces later.
 */
export { openStoreReader } from './reader.js';
export { openStoreWriter, makeHandle, relativeDocPath } from './writer.js';
export { StoreError, StoreModelMismatchError, modelMismatchMessage } from './errors.js';
export type { StoreErrorCode } from './errors.js';
export { toFtsQuery, queryTokens } from './fts-query.js';
export { SCHEMA_VERSION } from './schema.js';
export { missingStoreMessage } from './open.js';
export type * from './types.js';
