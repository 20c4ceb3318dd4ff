/**
 * Housekeeping for a daemon that runs for months: per-session files that nobody will read
 * again are removed, so the state dir does not grow with every session ever seen.
 *
 *   <home>/hook-state/<session>.json   not written for hookStateRetentionDays  → removed
 *   <home>/hook-state/<session>.lock   older than LEFTOVER_MS (the hook breaks
 *   (and its .lock.break)              its own lock after 2 s; an hour-old one
 *                                      is a leftover, whoever left it)         → removed
 *   <home>/cache/<session>.json        older than cacheTtlSeconds (the hook
 *   (and .tool.json)                   ignores it already: staleness gate)     → removed
 *   <home>/cache/<session>.lineage.json  not written for hookStateRetentionDays
 *                                      (a lineage never goes stale; it goes with
 *                                      the session's hook state)               → removed
 *   *.tmp leftovers of atomic writes   older than LEFTOVER_MS                  → removed
 *
 * `planPrune` decides from names and mtimes (pure, tested with properties); `runHousekeeping`
 * lists the two folders, unlinks what the plan names and returns counts for the daemon's
 * `housekeeping` event. A file that changed or vanished in between is left alone / skipped;
 * a hook state file is removed only under its session's lock (the hook's own O_EXCL lock),
 * so a prompt arriving at that moment either wins (the file stays) or finds it gone.
 * Nothing else in the state dir is touched (logs rotate themselves; offsets, canary, config,
 * KILL and the store are never candidates).
 */
import { readdirSync, statSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { LINEAGE_SUFFIX, cacheDir, hookStateDir } from '../shared/paths.js';
import { acquireLock } from '../hook/state.js';
import { BREAK_SUFFIX } from '../shared/break-lock.js';

/** Lock and temp files this old belong to a process that died (the hook's own lock is
 *  broken after 2 s; an atomic write finishes in milliseconds). */
export const LEFTOVER_MS = 60 * 60 * 1000;
const DAY_MS = 24 * 60 * 60 * 1000;

export interface PrunePolicy {
  /** Hook state files not written for this many days go (0 = keep forever). */
  hookStateRetentionDays: number;
  /** Offer caches older than this are expired for the hook anyway. */
  cacheTtlSeconds: number;
}

export interface DirEntry {
  name: string;
  mtimeMs: number;
}

export type Folder = 'hook-state' | 'cache';

/** What goes, by folder. Pure. Only names of the shapes this product writes are candidates. */
export function planPrune(folder: Folder, entries: readonly DirEntry[], now: number, policy: PrunePolicy): string[] {
  const out: string[] = [];
  for (const e of entries) {
    const age = now - e.mtimeMs;
    if (e.name.endsWith('.tmp')) {
      if (age > LEFTOVER_MS) out.push(e.name);
    } else if (folder === 'hook-state' && (e.name.endsWith('.lock') || e.name.endsWith(`.lock${BREAK_SUFFIX}`))) {
      if (age > LEFTOVER_MS) out.push(e.name);
    } else if ((folder === 'hook-state' && e.name.endsWith('.json')) || (folder === 'cache' && e.name.endsWith(LINEAGE_SUFFIX))) {
      // A session's own memory (hook state, lineage): kept for the retention since last written.
      if (policy.hookStateRetentionDays > 0 && age > policy.hookStateRetentionDays * DAY_MS) out.push(e.name);
    } else if (folder === 'cache' && e.name.endsWith('.json')) {
      if (age > policy.cacheTtlSeconds * 1000) out.push(e.name);
    }
  }
  return out;
}

export interface HousekeepingResult {
  hookStates: number;
  caches: number;
  leftovers: number;
  /** Files that could not be removed (permissions, races). */
  failed: number;
}

function list(dir: string): DirEntry[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const out: DirEntry[] = [];
  for (const name of names) {
    try {
      const st = statSync(join(dir, name));
      if (st.isFile()) out.push({ name, mtimeMs: st.mtimeMs });
    } catch {
      /* vanished meanwhile */
    }
  }
  return out;
}

/** Remove what planPrune names in the hook-state and cache folders; counts by kind. */
export function runHousekeeping(policy: PrunePolicy, env: NodeJS.ProcessEnv = process.env, now: number = Date.now()): HousekeepingResult {
  const res: HousekeepingResult = { hookStates: 0, caches: 0, leftovers: 0, failed: 0 };
  const folders: Array<[Folder, string]> = [
    ['hook-state', hookStateDir(env)],
    ['cache', cacheDir(env)],
  ];
  for (const [folder, dir] of folders) {
    for (const name of planPrune(folder, list(dir), now, policy)) {
      const path = join(dir, name);
      const isState = folder === 'hook-state' && name.endsWith('.json');
      const release = isState ? acquireLock(join(dir, `${name.slice(0, -'.json'.length)}.lock`), 0) : () => undefined;
      if (!release) continue; // a hook holds this session right now: not stale
      try {
        // re-check: a file written since the listing is not stale any more
        const fresh = planPrune(folder, [{ name, mtimeMs: statSync(path).mtimeMs }], Date.now(), policy);
        if (fresh.length === 0) continue;
        unlinkSync(path);
        if (name.endsWith('.json')) {
          if (folder === 'hook-state') res.hookStates++;
          else res.caches++;
        } else res.leftovers++;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'ENOENT') res.failed++;
      } finally {
        release();
      }
    }
  }
  return res;
}
