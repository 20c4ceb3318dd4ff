/**
 * Persisted per-file tailing positions (<home>/offsets.json).
 *
 * Written by daemon/tailer.ts when its consumer commits processed lines; read at daemon
 * start so a restart neither re-processes nor skips. Each entry is keyed by absolute path
 * and remembers the file's identity (dev, inode, birth time) and the size at commit, so a
 * truncated or replaced file restarts cleanly from 0. Written atomically (shared/atomic.ts);
 * an unreadable or corrupt file is set aside and tailing starts fresh (history as seed).
 */
import { readFileSync, renameSync, type Stats } from 'node:fs';
import { dirname } from 'node:path';
import { ensureDir, writeJsonAtomic } from '../shared/atomic.js';

export interface FileIdentity {
  dev: number;
  ino: number;
  /** 0 where the file system does not report a birth time. */
  birthtimeMs: number;
}

export interface OffsetEntry extends FileIdentity {
  /** Every byte before this offset has been processed by the consumer. */
  offset: number;
  /** File size when the entry was written. */
  size: number;
  /** Lines ending at or before this offset are seed history (never offered on). */
  seedUntil: number;
  /** Opaque consumer state committed with the offset (e.g. the assembler snapshot). */
  state?: unknown;
  updatedAt: number;
}

interface OffsetsFile {
  version: 1;
  files: Record<string, OffsetEntry>;
}

export type ResumeVerdict = 'resume' | 'truncated' | 'replaced';

export function identityOf(st: Stats): FileIdentity {
  return { dev: st.dev, ino: st.ino, birthtimeMs: Math.round(st.birthtimeMs || 0) };
}

export function sameFile(a: FileIdentity, b: FileIdentity): boolean {
  return a.dev === b.dev && a.ino === b.ino && (a.birthtimeMs === 0 || b.birthtimeMs === 0 || a.birthtimeMs === b.birthtimeMs);
}

/** Pure: may tailing continue at `entry.offset` in the file `st` describes? */
export function resumeVerdict(entry: OffsetEntry, st: FileIdentity & { size: number }): ResumeVerdict {
  if (!sameFile(entry, st)) return 'replaced';
  if (st.size < entry.offset) return 'truncated';
  return 'resume';
}

function validEntry(v: unknown): v is OffsetEntry {
  if (typeof v !== 'object' || v === null) return false;
  const e = v as Record<string, unknown>;
  const n = (x: unknown) => typeof x === 'number' && Number.isFinite(x) && x >= 0;
  return n(e.offset) && n(e.size) && n(e.dev) && n(e.ino) && n(e.birthtimeMs) && n(e.seedUntil);
}

/** The valid entries of an offsets file's text; null when it is not one (corrupt). Read-only:
 *  OffsetStore.load sets a corrupt file aside; daemon/logged-decisions.ts only peeks. */
export function parseOffsets(raw: string): Map<string, OffsetEntry> | null {
  try {
    const parsed = JSON.parse(raw) as Partial<OffsetsFile>;
    if (parsed?.version !== 1 || typeof parsed.files !== 'object' || parsed.files === null) return null;
    return new Map(Object.entries(parsed.files).filter((kv): kv is [string, OffsetEntry] => validEntry(kv[1])));
  } catch {
    return null;
  }
}

export class OffsetStore {
  private files = new Map<string, OffsetEntry>();
  /** Why loading started fresh (null when the file was fine or absent). */
  loadProblem: 'offsets-unreadable' | 'offsets-corrupt' | null = null;

  constructor(readonly path: string) {}

  load(): this {
    this.files.clear();
    this.loadProblem = null;
    let raw: string;
    try {
      raw = readFileSync(this.path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') this.loadProblem = 'offsets-unreadable';
      return this;
    }
    const entries = parseOffsets(raw);
    if (entries) this.files = entries;
    else {
      this.loadProblem = 'offsets-corrupt';
      try {
        renameSync(this.path, `${this.path}.corrupt-${Date.now()}`);
      } catch {
        /* keep going fresh even if it cannot be moved */
      }
    }
    return this;
  }

  get(path: string): OffsetEntry | undefined {
    return this.files.get(path);
  }
  set(path: string, entry: OffsetEntry): void {
    this.files.set(path, entry);
  }
  delete(path: string): boolean {
    return this.files.delete(path);
  }
  paths(): string[] {
    return [...this.files.keys()];
  }

  /** Write the whole table atomically. Throws on I/O failure (the caller logs and retries). */
  save(): void {
    ensureDir(dirname(this.path));
    const files: Record<string, OffsetEntry> = {};
    for (const [p, e] of this.files) files[p] = e;
    writeJsonAtomic(this.path, { version: 1, files } satisfies OffsetsFile);
  }
}
