/**
 * Chunk handles and document paths, the same for both backends (store/writer.ts for SQLite,
 * store/pg-writer.ts for PostgreSQL). Pure.
 *
 * Handles are `<region>/<path relative to the source>#<ordinal>`; when two sources of one
 * region hold the same relative path, the later one gets `<region>/s<sourceId>/<rel>#<n>`.
 */
import { basename, relative, sep } from 'node:path';

/** The handle of chunk `ordinal` of a file at `relPath` (relative to its source) in `region`. */
export function makeHandle(region: string, relPath: string, ordinal: number): string {
  return `${region}/${relPath}#${ordinal}`;
}

/** The path of a document relative to its source, `/`-separated (a file source → its name). */
export function relativeDocPath(sourcePath: string, docPath: string): string {
  const rel = relative(sourcePath, docPath);
  if (!rel || rel.startsWith('..')) return basename(docPath);
  return rel.split(sep).join('/');
}
