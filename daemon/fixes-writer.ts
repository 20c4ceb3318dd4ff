/**
 * The hook's precomputed Past fixes, `<home>/fixes/<key>.json` (shared/types.ts FixFile, built
 * by core/fixes.ts buildFixFiles from the store's episodes: one file per signature and per
 * key line). Whoever changes the store keeps the folder in step with it: the indexer after
 * every run (`active-brain index`, `index add`, the schedule: cli/commands/index-cmd.ts), the
 * daemon whenever the store's change stamp moves (a team store another writer changed). Every
 * file is written atomically (temp + fsync + rename), files of keys no longer in the store are
 * removed, unchanged ones are not rewritten. The folder is NOT cleared when the daemon stops:
 * the Past fix at a failure needs no daemon (the files are valid while the store is
 * unchanged); the kill file silences the hook before it reads any (hook/gates.ts).
 */
import { lstatSync, readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import { ownDirProblem } from './own-dirs.js';
import type { FixFile } from '../shared/types.js';
import type { EpisodeReader } from '../store/types.js';
import { buildFixFiles } from '../core/fixes.js';

const SIG_FILE_RE = /^[0-9a-f]{14}\.json$/;

export interface FixesSync {
  written: number;
  removed: number;
  unchanged: number;
  failed: number;
}

/** The content that matters for "unchanged" (createdAt and the stamp change on every sync). */
function body(f: FixFile): string {
  return JSON.stringify(f.fixes);
}

export class FixesWriter {
  constructor(private readonly dir: string) {}

  /** Make the folder hold exactly `files`. IO errors on one file are counted, not thrown. */
  sync(files: ReadonlyMap<string, FixFile>): FixesSync {
    const r: FixesSync = { written: 0, removed: 0, unchanged: 0, failed: 0 };
    ensureDir(this.dir);
    // Never through a symlink, never into another user's folder (daemon/own-dirs.ts).
    const verdict = ownDirProblem(lstatSync(this.dir), typeof process.geteuid === 'function' ? process.geteuid() : null);
    if (typeof verdict === 'object') throw new Error(`${this.dir} ${verdict.refuse}: the fixes are not written there (remove it; it is created 0700)`);
    for (const name of this.list()) {
      if (files.has(name.slice(0, -'.json'.length))) continue;
      try {
        unlinkSync(join(this.dir, name));
        r.removed++;
      } catch {
        r.failed++;
      }
    }
    for (const [sig, f] of files) {
      const path = join(this.dir, `${sig}.json`);
      try {
        const old = JSON.parse(readFileSync(path, 'utf8')) as FixFile;
        if (old && Array.isArray(old.fixes) && body(old) === body(f)) {
          r.unchanged++;
          continue;
        }
      } catch { /* absent or unreadable: write it */ }
      try {
        writeJsonAtomic(path, f);
        r.written++;
      } catch {
        r.failed++;
      }
    }
    return r;
  }

  /** Remove every fixes file (and leftover temp files). Returns how many were removed. */
  clearAll(): number {
    let n = 0;
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return 0;
    }
    for (const name of names) {
      if (!SIG_FILE_RE.test(name) && !name.endsWith('.tmp')) continue;
      try {
        unlinkSync(join(this.dir, name));
        n++;
      } catch { /* gone already */ }
    }
    return n;
  }

  private list(): string[] {
    try {
      return readdirSync(this.dir).filter((n) => SIG_FILE_RE.test(n));
    } catch {
      return [];
    }
  }
}

/** Rebuild the fixes folder from a store reader: what the indexer runs after an index run and
 *  the daemon when the store changed. Returns the sync figures and the keys written. */
export function syncFixesFrom(reader: Pick<EpisodeReader, 'fixEpisodes'>, dir: string, stamp: string, now: number = Date.now()): FixesSync & { keys: number } {
  const files = buildFixFiles(reader.fixEpisodes(), stamp, now);
  return { ...new FixesWriter(dir).sync(files), keys: files.size };
}
