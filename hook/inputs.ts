/**
 * The hook's reads of the outside world, each bounded: stdin (size and time), this
 * session's offer cache, the fixes file of one error signature, the session's tool cache and
 * lineage (size), and the payload's transcript (only trusted when it is an absolute `.jsonl` path
 * under the transcript root whose realpath stays under the root's realpath). Everything
 * returns a status instead of throwing.
 */
import { closeSync, fstatSync, openSync, read, readFileSync, readSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { fixPath, sessionCachePath, sessionLineagePath, sessionToolCachePath } from '../shared/paths.js';
import type { StdinStatus, TranscriptFacts } from './gates.js';
import { TAIL_BYTES } from '../shared/fix-place.js';

/** Largest payload read (the prompt is part of it; bigger → silence). */
export const MAX_STDIN_BYTES = 4 * 1024 * 1024;
/** Bytes per stdin read, and the retry pause when a non-blocking stdin has nothing yet. */
const STDIN_CHUNK_BYTES = 64 * 1024;
const STDIN_RETRY_MS = 1;
/** Largest cache file read (offer cache, tool cache). */
export const MAX_CACHE_BYTES = 64 * 1024;
/** Largest fixes file read (a few offers of ≤ 2 KB each, best first). */
export const MAX_FIXES_BYTES = 64 * 1024;

/**
 * Read all of stdin within `timeoutMs`. Uses fs.read on fd 0 (libuv thread pool) rather than
 * process.stdin: no stream machinery to load, and a parent that never closes stdin cannot
 * hold the hook — the caller's timer still fires and exits.
 */
export function readStdin(timeoutMs: number): Promise<{ status: StdinStatus; text: string }> {
  return new Promise((done) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (status: StdinStatus) => {
      if (finished) return;
      finished = true;
      clearTimeout(timer);
      done({ status, text: status === 'ok' ? Buffer.concat(chunks).toString('utf8') : '' });
    };
    const timer = setTimeout(() => finish('timeout'), Math.max(1, timeoutMs));
    const step = () => {
      const buf = Buffer.allocUnsafe(STDIN_CHUNK_BYTES);
      read(0, buf, 0, buf.length, null, (err, n) => {
        if (finished) return;
        if (err) {
          // A non-blocking pipe with nothing yet: try again shortly. Anything else ends the input.
          if (err.code === 'EAGAIN') setTimeout(step, STDIN_RETRY_MS);
          else finish('ok');
          return;
        }
        if (n === 0) return finish('ok');
        size += n;
        if (size > MAX_STDIN_BYTES) return finish('too-large');
        chunks.push(buf.subarray(0, n));
        step();
      });
    };
    step();
  });
}

/** Parsed JSON of a file of at most `maxBytes`; undefined when it does not exist (nor its
 *  directory); 'invalid' when it is too big, unreadable or not JSON. A missing file is told
 *  by statSync's undefined, not by a thrown ENOENT: the first fs error a process throws costs
 *  ~0.4 ms (Node builds its error machinery then), and every later one tens of µs — the tool
 *  path looks for up to seven fixes files, a tool cache and a lineage file that may not exist. */
export function readJsonFile(path: string, maxBytes: number): unknown {
  let raw: string;
  try {
    const st = statSync(path, { throwIfNoEntry: false });
    if (!st) return undefined;
    if (st.size > maxBytes) return 'invalid';
    raw = readFileSync(path, 'utf8');
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : 'invalid';
  }
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return 'invalid';
  }
}

/** Parsed cache JSON; undefined when there is no cache file; 'invalid' when unreadable. */
export function readCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionCachePath(sessionId, env), MAX_CACHE_BYTES);
}

/** The session's tool cache (ToolCache JSON), as readCache. */
export function readToolCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionToolCachePath(sessionId, env), MAX_CACHE_BYTES);
}

/** The session's lineage as the daemon found it in the store (LineageCache JSON), as readCache. */
export function readLineageCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionLineagePath(sessionId, env), MAX_CACHE_BYTES);
}

/** The fixes file of one signature (FixFile JSON); undefined when there is none. */
export function readFixFile(sig: string, env: NodeJS.ProcessEnv): unknown {
  const path = fixPath(sig, env);
  return path ? readJsonFile(path, MAX_FIXES_BYTES) : undefined;
}

/** Lexical check: absolute, ends in .jsonl, no `..`, inside root. */
export function transcriptPathAcceptable(path: unknown, root: string): path is string {
  if (!root || typeof path !== 'string' || !path || !isAbsolute(path) || !path.endsWith('.jsonl')) return false;
  if (path.split(/[\\/]/).includes('..')) return false;
  const r = resolve(root);
  return resolve(path).startsWith(r.endsWith(sep) ? r : r + sep);
}

export function transcriptFacts(path: unknown, root: string): TranscriptFacts {
  if (path === undefined || path === null || path === '') return { status: 'absent' };
  if (!transcriptPathAcceptable(path, root)) return { status: 'untrusted' };
  try {
    // The libc realpath: one syscall-level walk instead of Node's JS lstat-per-component.
    const realRoot = realpathSync.native(root);
    const real = realpathSync.native(path);
    if (!real.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep) || !real.endsWith('.jsonl')) return { status: 'untrusted' };
    const st = statSync(real);
    if (!st.isFile()) return { status: 'untrusted' };
    return { status: 'ok', size: st.size };
  } catch {
    return { status: 'missing' };
  }
}

/** Bytes of a transcript's head read for its lineage: a resumed or forked file starts with
 *  copies of its parent's records, each naming the session it was written in. */
export const LINEAGE_HEAD_BYTES = 64 * 1024;
/** Session ids taken from one head (a chain of resumes names a few). */
const MAX_LINEAGE_IDS = 16;
const SESSION_ID_RE = /"sessionId"\s*:\s*"([A-Za-z0-9._-]{1,128})"/g;

/** The other sessions a transcript's head names (its lineage as the file itself tells it),
 *  [] when the path is not a trusted transcript or cannot be read. Bounded: one read of at
 *  most LINEAGE_HEAD_BYTES. Used by the hook at a failure that has a fix, and by replay. */
export function transcriptLineage(path: unknown, root: string, own: string): string[] {
  if (typeof path !== 'string' || !transcriptPathAcceptable(path, root)) return [];
  let fd: number | null = null;
  try {
    if (!statSync(path, { throwIfNoEntry: false })) return []; // no transcript: no exception (readJsonFile)
    fd = openSync(path, 'r');
    const buf = Buffer.alloc(LINEAGE_HEAD_BYTES);
    const n = readSync(fd, buf, 0, LINEAGE_HEAD_BYTES, 0);
    const text = buf.toString('utf8', 0, n);
    const out = new Set<string>();
    for (const m of text.matchAll(SESSION_ID_RE)) {
      if (m[1] !== own) out.add(m[1]);
      if (out.size >= MAX_LINEAGE_IDS) break;
    }
    return [...out];
  } catch {
    return [];
  } finally {
    if (fd !== null) try { closeSync(fd); } catch { /* closed */ }
  }
}

/** The session's transcript just before the failure: its last TAIL_BYTES (shared/fix-place.ts,
 *  where a fix's place must show), '' when the path is not a trusted transcript or cannot be
 *  read. `end` is where "now" is in the file (replay: the failing call's result record, which
 *  the host writes after the hook); default its size. Bounded: one fstat and one read. */
export function transcriptTail(path: unknown, root: string, end?: number): string {
  if (typeof path !== 'string' || !transcriptPathAcceptable(path, root)) return '';
  let fd: number | null = null;
  try {
    if (!statSync(path, { throwIfNoEntry: false })) return ''; // no transcript: no exception (readJsonFile)
    fd = openSync(path, 'r');
    const stop = end ?? fstatSync(fd).size;
    const from = Math.max(0, stop - TAIL_BYTES);
    const buf = Buffer.alloc(stop - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    return buf.toString('utf8', 0, n);
  } catch {
    return '';
  } finally {
    if (fd !== null) try { closeSync(fd); } catch { /* closed */ }
  }
}
