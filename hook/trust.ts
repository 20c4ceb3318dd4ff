/**
 * Which of the hook's own files it may trust, and reads that cannot block. The hook reads
 * files the daemon and CLI wrote (settings, fixes, caches, its session state) and writes its
 * state, lock and log beside them: it trusts such a file only when it is a regular file of
 * this user that nobody else may write, in folders of this user that nobody else may write and
 * that are not symlinks (the state dir and the file's own folder: one lstat each per run).
 * Every open is O_NOFOLLOW | O_NONBLOCK (a FIFO or a symlink swapped in after the check is
 * refused at the open, not waited on), and the opened file is checked again by fstat (same
 * inode as checked, still a regular file of this user). A transcript (not ours) is opened the
 * same non-blocking way, only when its real path stays under the transcript root's.
 *
 * "This user" is the effective uid (root's files for root). Windows has no owner to check:
 * only the file kinds are. Nothing here throws: callers get a status.
 */
import { closeSync, constants, fstatSync, lstatSync, openSync, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { sep } from 'node:path';

/** Mode bits that let someone other than the owner write: group and others. */
export const OTHERS_WRITE = 0o022;
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0;
const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** Open flags of every read of a file the hook trusts, or of a transcript. */
export const SAFE_READ_FLAGS = constants.O_RDONLY | O_NOFOLLOW | O_NONBLOCK;
/** Open flags of the hook's log (append, created 0600, never through a symlink). */
export const SAFE_APPEND_FLAGS = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NOFOLLOW | O_NONBLOCK;

const euid: number | null = typeof process.geteuid === 'function' ? process.geteuid() : null;

/** Owned by this user (any owner where there is none to check) and writable by nobody else. */
export function ownedSafely(st: Pick<Stats, 'uid' | 'mode'>, uid: number | null = euid): boolean {
  return (uid === null || st.uid === uid) && (st.mode & OTHERS_WRITE) === 0;
}

export type DirTrust = 'ok' | 'missing' | 'untrusted';

/** Each folder's verdict, once per run (the hook is one short process). */
const dirs = new Map<string, DirTrust>();

/** A folder of this user, nobody else may write, not a symlink; 'missing' when it is not there. */
export function dirTrust(dir: string): DirTrust {
  let v = dirs.get(dir);
  if (v) return v;
  try {
    const st = lstatSync(dir, { throwIfNoEntry: false });
    v = !st ? 'missing' : st.isDirectory() && ownedSafely(st) ? 'ok' : 'untrusted';
  } catch {
    v = 'untrusted';
  }
  dirs.set(dir, v);
  return v;
}

/** Forget the folder verdicts (tests; a folder the hook itself just created). */
export function forgetDirs(): void {
  dirs.clear();
}

/** Read all of an open regular file of `size` bytes. */
function readWhole(fd: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/**
 * The text of one of the hook's own files: undefined when it does not exist; 'invalid' when it
 * is too big, unreadable, or not to be trusted (not a regular file, another user's, writable by
 * others, or in a folder of `folders` that is a symlink, another user's or writable by others).
 * A missing file is told by lstat's undefined, not by a thrown ENOENT (the process's first fs
 * error costs ~0.4 ms: hook/inputs.ts readJsonFile).
 */
export function readOwnFile(path: string, maxBytes: number, folders: readonly string[]): string | undefined | 'invalid' {
  let fd: number | null = null;
  try {
    const st = lstatSync(path, { throwIfNoEntry: false });
    if (!st) return undefined;
    if (!st.isFile() || !ownedSafely(st)) return 'invalid';
    for (const d of folders) if (dirTrust(d) !== 'ok') return 'invalid';
    if (st.size > maxBytes) return 'invalid';
    fd = openSync(path, SAFE_READ_FLAGS);
    const now = fstatSync(fd);
    if (!now.isFile() || now.ino !== st.ino || now.dev !== st.dev || !ownedSafely(now) || now.size > maxBytes) return 'invalid';
    return readWhole(fd, now.size).toString('utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'invalid';
  } finally {
    if (fd !== null) try { closeSync(fd); } catch { /* closed */ }
  }
}

/** The transcript root's real path, once per run (null when it cannot be resolved). */
const realRoots = new Map<string, string | null>();
function realRoot(root: string): string | null {
  if (realRoots.has(root)) return realRoots.get(root)!;
  let r: string | null;
  try {
    r = realpathSync.native(root);
  } catch {
    r = null;
  }
  realRoots.set(root, r);
  return r;
}

/** `real` lies under `rootReal` (a real path itself). */
function under(real: string, rootReal: string): boolean {
  return real.startsWith(rootReal.endsWith(sep) ? rootReal : rootReal + sep);
}

export type TranscriptOpen = { fd: number; size: number } | 'missing' | 'untrusted';

/**
 * Open a transcript (already lexically accepted under `root`) without blocking: only when its
 * real path — symlinks resolved, one libc walk — stays under the root's real path and ends in
 * `.jsonl`, opened O_NONBLOCK | O_NOFOLLOW at that real path and kept only when the open file is
 * a regular file. A FIFO, a device or a symlink out of the root is 'untrusted', never waited
 * on. The caller closes the fd.
 */
export function openTranscript(path: string, root: string): TranscriptOpen {
  // No transcript: no exception (readOwnFile).
  if (!statSync(path, { throwIfNoEntry: false })) return 'missing';
  let fd: number | null = null;
  try {
    const rootReal = realRoot(root);
    const real = realpathSync.native(path);
    if (!rootReal || !under(real, rootReal) || !real.endsWith('.jsonl')) return 'untrusted';
    fd = openSync(real, SAFE_READ_FLAGS);
    const st = fstatSync(fd);
    if (!st.isFile()) return 'untrusted';
    const out = { fd, size: st.size };
    fd = null;
    return out;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'ENOENT' ? 'missing' : code === 'ELOOP' || code === 'ENXIO' ? 'untrusted' : 'missing';
  } finally {
    if (fd !== null) try { closeSync(fd); } catch { /* closed */ }
  }
}
