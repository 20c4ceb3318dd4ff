/**
 * Offer caches `<home>/cache/<session>.json` (shared/types.ts OfferCache, built by
 * core/publish.ts): the daemon's channel to the hook; beside them each session's tool cache
 * (`.tool.json`) and lineage (`.lineage.json`). Written atomically (shared/atomic.ts: temp + fsync + rename) after every
 * decision — silence included (offer null) — stamped with the turn, byte offset and exchange
 * uuid it was computed for, so the hook can reject a stale offer. Cleared on stop and kill
 * (lineage files stay).
 * Session ids that are not safe file names are refused (never written).
 */
import { lstatSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
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

  /** Remove every offer and tool cache it writes (and its leftover temp files): only names it
   *  gives its files (`<session>.json`, `<session>.tool.json`, shared/atomic.ts temp names) whose
   *  JSON names that session, only regular files of this user, and only in a real folder of this
   *  user — never through a symlink, never another file that happens to end in .json. Lineage files stay (a fact about
   *  the session, never stale: housekeeping removes them with the hook state). Returns how many
   *  files were removed. */
  clearAll(): number {
    let names: string[];
    try {
      if (!ownRealDir(this.dir)) return 0;
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    let n = 0;
    for (const name of names) {
      if (!isCacheFileName(name)) continue;
      const path = join(this.dir, name);
      try {
        const st = lstatSync(path);
        if (!st.isFile() || (euid !== null && st.uid !== euid)) continue;
        if (!name.endsWith('.tmp') && !writtenBySelf(path, name, st.size)) continue;
        unlinkSync(path);
        n++;
      } catch { /* gone already */ }
    }
    return n;
  }
}

const euid: number | null = typeof process.geteuid === 'function' ? process.geteuid() : null;

/** Largest file read to tell a cache of ours (caches are a few KB). */
const MAX_CACHE_READ = 256 * 1024;

/** Is this one of the writer's caches: JSON naming, as `sessionId`, the session its name names?
 *  (A file someone else left there with a cache-like name is not removed.) */
function writtenBySelf(path: string, name: string, size: number): boolean {
  if (size > MAX_CACHE_READ) return false;
  const id = name.endsWith(TOOL_CACHE_SUFFIX) ? name.slice(0, -TOOL_CACHE_SUFFIX.length) : name.slice(0, -'.json'.length);
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { sessionId?: unknown; version?: unknown } | null;
    return !!v && typeof v === 'object' && v.sessionId === id && typeof v.version === 'number';
  } catch {
    return false;
  }
}

/** A folder (not a symlink) of this user. */
function ownRealDir(dir: string): boolean {
  const st = lstatSync(dir);
  return st.isDirectory() && (euid === null || st.uid === euid);
}

/** Temp files of shared/atomic.ts writeFileAtomic: `.<name>.<pid>.<ms>.<n>.tmp`. */
const TEMP_RE = /^\.(.+)\.\d+\.\d+\.\d+\.tmp$/;

/** A name the writer gives an offer or tool cache (or its temp file); never a lineage file. */
export function isCacheFileName(name: string): boolean {
  const m = TEMP_RE.exec(name);
  const base = m ? m[1] : name;
  if (base.endsWith(LINEAGE_SUFFIX)) return false;
  const id = base.endsWith(TOOL_CACHE_SUFFIX) ? base.slice(0, -TOOL_CACHE_SUFFIX.length) : base.endsWith('.json') ? base.slice(0, -'.json'.length) : null;
  return id !== null && safeSessionId(id) === id;
}
