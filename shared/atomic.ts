/**
 * Atomic file writes: temp file in the same directory → fsync → rename → fsync(dir).
 * Readers see the old file or the new one, never a partial one. Files are 0600, created
 * directories 0700. Tiny and dependency-free: the hook imports it.
 */
import { constants, openSync, writeSync, fsyncSync, closeSync, renameSync, unlinkSync, mkdirSync } from 'node:fs';
import { dirname, basename, join } from 'node:path';

let counter = 0;

export function ensureDir(dir: string): void {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
}

export function writeFileAtomic(path: string, data: string | Uint8Array, mode = 0o600): void {
  const dir = dirname(path);
  const tmp = join(dir, `.${basename(path)}.${process.pid}.${Date.now()}.${counter++}.tmp`);
  let fd = -1;
  try {
    fd = openSync(tmp, 'wx', mode);
    const buf = typeof data === 'string' ? Buffer.from(data, 'utf8') : data;
    let off = 0;
    while (off < buf.length) off += writeSync(fd, buf, off, buf.length - off);
    fsyncSync(fd);
    closeSync(fd);
    fd = -1;
    renameSync(tmp, path);
  } catch (e) {
    if (fd >= 0) {
      try { closeSync(fd); } catch { /* already failing */ }
    }
    try { unlinkSync(tmp); } catch { /* may not exist */ }
    throw e;
  }
  try {
    const dfd = openSync(dir, 'r');
    try { fsyncSync(dfd); } finally { closeSync(dfd); }
  } catch {
    /* directory fsync is best effort (not supported everywhere) */
  }
}

export function writeJsonAtomic(path: string, value: unknown, mode = 0o600): void {
  writeFileAtomic(path, JSON.stringify(value) + '\n', mode);
}

/** Open flags of every append to a log: created 0600, never through a symlink at its name. */
export const APPEND_NOFOLLOW = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | (constants.O_NOFOLLOW ?? 0);

/** Append `text` to a log file (one write), never through a symlink (ELOOP is thrown instead). */
export function appendNoFollow(path: string, text: string, mode = 0o600): void {
  const fd = openSync(path, APPEND_NOFOLLOW, mode);
  try {
    writeSync(fd, text);
  } finally {
    closeSync(fd);
  }
}
