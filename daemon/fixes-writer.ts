/**
 * The hook's precomputed Past fixes, `<home>/fixes/<sig>.json` (shared/types.ts FixFile, built
 * by core/fixes.ts buildFixFiles from the store's resolved episodes). The daemon syncs the
 * folder when it opens the store and whenever the store file changes (the indexer wrote it):
 * every file is written atomically (temp + fsync + rename), files of signatures no longer in
 * the store are removed, unchanged ones are not rewritten. The folder is cleared when the
 * daemon stops or the kill file appears, like the offer caches: with no daemon to follow the
 * store, a fix from a source since removed must not be shown.
 */
import { readdirSync, readFileSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';
import type { FixFile } from '../shared/types.js';

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
