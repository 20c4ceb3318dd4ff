/**
 * Offer caches `<home>/cache/<session>.json` (shared/types.ts OfferCache, built by
 * core/publish.ts): the daemon's channel to the hook; beside them each session's tool cache
 * (`.tool.json`) and lineage (`.lineage.json`). Written atomically (shared/atomic.ts: temp + fsync + rename) after every
 * decision — silence included (offer null) — stamped with the turn, byte offset and exchange
 * uuid it was computed for, so the hook can reject a stale offer. Cleared on stop and kill
 * (lineage files stay).
 * Session ids that are not safe file names are refused (never written).
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import { LINEAGE_SUFFIX, TOOL_CACHE_SUFFIX, safeSessionId } from '../shared/paths.js';
import type { LineageCache, OfferCache, ToolCache } from '../shared/types.js';

export class CacheWriter {
  constructor(private readonly dir: string) {}

  /** Write one session's cache atomically. Throws on IO errors (the caller logs and skips). */
  write(cache: OfferCache): string {
    return this.writeFor(cache.sessionId, '.json', cache);
  }

  /** Write one session's tool-channel cache (`<session>.tool.json`) atomically. */
  writeTool(cache: ToolCache): string {
    return this.writeFor(cache.sessionId, TOOL_CACHE_SUFFIX, cache);
  }

  /** Write one session's lineage (`<session>.lineage.json`) atomically. */
  writeLineage(cache: LineageCache): string {
    return this.writeFor(cache.sessionId, LINEAGE_SUFFIX, cache);
  }

  private writeFor(sessionId: string, suffix: string, value: unknown): string {
    const id = safeSessionId(sessionId);
    if (!id) throw Object.assign(new Error('unsafe session id'), { code: 'EUNSAFEID' });
    ensureDir(this.dir);
    const path = join(this.dir, id + suffix);
    writeJsonAtomic(path, value);
    return path;
  }

  /** Remove every offer and tool cache (and leftover temp file); lineage files stay (a fact
   *  about the session, never stale: housekeeping removes them with the hook state). Returns
   *  how many files were removed. */
  clearAll(): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if ((!name.endsWith('.json') && !name.endsWith('.tmp')) || name.endsWith(LINEAGE_SUFFIX)) continue;
      try {
        unlinkSync(join(this.dir, name));
        n++;
      } catch { /* gone already */ }
    }
    return n;
  }
}
