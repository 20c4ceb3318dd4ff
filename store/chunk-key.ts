/**
 * Keys of a stored chunk, computed by the writer (and the v3 migration's back-fill):
 *  - embedKey: the text its vector was computed from (document title, heading, text: the
 *    indexer embeds exactly these, indexer.ts embeddingText), so re-indexing a changed
 *    document reuses the vectors of its unchanged chunks. A change to what the indexer
 *    embeds for these fields needs `active-brain index --rebuild`.
 *  - rowKey: everything stored for the chunk, so an identical chunk at the same ordinal keeps
 *    its row (chunk id, handle, vector, FTS row) untouched.
 */
import { createHash } from 'node:crypto';
import type { ChunkInput } from './types.js';

const KEY_HEX = 32;

export function embedKey(title: string, heading: string, text: string): string {
  return createHash('sha256').update(title).update('\0').update(heading).update('\0').update(text).digest('hex').slice(0, KEY_HEX);
}

export function rowKey(title: string, c: ChunkInput): string {
  const fields = [title, c.heading, c.text, Math.round(c.createdAt), !!c.hasError, !!c.resolved, c.aliases ?? [], c.episode ?? null, c.signatures ?? []];
  return createHash('sha256').update(JSON.stringify(fields)).digest('hex').slice(0, KEY_HEX);
}
