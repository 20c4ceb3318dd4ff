/**
 * A short, read-only summary of the knowledge store for `status` (chunks, regions, size,
 * model). Opens the store through store/ read-only and closes it; never throws (an unreadable
 * store is reported with its error).
 */
import type { StoreSummary } from './status.js';

export async function summarizeStore(path: string): Promise<StoreSummary> {
  try {
    const { openStoreReader } = await import('../store/open-store.js');
    const reader = openStoreReader(path);
    try {
      const info = reader.info();
      return {
        path,
        present: true,
        chunks: info.chunks,
        regions: info.regions,
        documents: info.documents,
        bytes: info.bytes,
        model: info.model,
        dim: info.dim,
      };
    } finally {
      reader.close();
    }
  } catch (e) {
    return { path, present: true, error: (e as Error).message };
  }
}
