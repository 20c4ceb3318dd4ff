/**
 * The tests' PostgreSQL server: the one helper bench/postgres-server.ts (the PostgreSQL bench
 * starts its server the same way), re-exported so tests keep their import path.
 */
export * from '../../bench/postgres-server.js';
