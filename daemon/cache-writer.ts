/**
 * Offer caches `<home>/cache/<session>.json` (shared/types.ts OfferCache, built by
 * core/publish.ts): the daemon's channel to the hook. Written atomically (shared/atomic.ts: temp + fsync + rename) after every
 * decision — silence included (offer null) — stamped with the turn, byte offset and exchange
 * uuid it was computed for, so the hook can reject a stale offer. Cleared on kill.
 * Session ids that are not safe file names are refused (never written).
 */
import { readdirSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import { safeSessionId } from '../shared/paths.js';
import type { OfferCache, ToolCache } from '../shared/types.js';

export class CacheWriter {
  constructor(private readonly dir: string) {}

  /** Write one session's cache atomically. Throws on IO errors (the caller logs and skips). */
  write(cache: OfferCache): string {
    const id = safeSessionId(cache.sessionId);
    if (!id) throw Object.assign(new Error('unsafe session id'), { code: 'EUNSAFEID' });
    ensureDir(this.dir);
    const path = join(this.dir, `${id}.json`);
    writeJsonAtomic(path, cache);
    return path;
  }

  /** Write one session's tool-channel cache (`<session>.tool.json`) atomically. */
  writeTool(cache: ToolCache): string {
    const id = safeSessionId(cache.sessionId);
    if (!id) throw Object.assign(new Error('unsafe session id'), { code: 'EUNSAFEID' });
    ensureDir(this.dir);
    const path = join(this.dir, `${id}.tool.json`);
    writeJsonAtomic(path, cache);
    return path;
  }

  /** Remove every cache (and leftover temp file). Returns how many files were removed. */
  clearAll(): number {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if (!name.endsWith('.json') && !name.endsWith('.tmp')) continue;
      try {
        unlinkSync(join(this.dir, name));
        n++;
      } catch { /* gone already */ }
    }
    return n;
  }
}
