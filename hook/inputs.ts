/**
 * The hook's reads of the outside world, each bounded: stdin (size, and time whatever the
 * writer does), this session's offer cache, the fixes file of one error signature, the
 * session's tool cache and lineage (size; only files hook/trust.ts trusts), and the payload's
 * transcript (only trusted when it is an absolute `.jsonl` path under the transcript root whose
 * realpath stays under the root's realpath, opened non-blocking and kept only when it is a
 * regular file). Everything returns a status instead of throwing.
 */
import { closeSync, fstatSync, read, readSync, realpathSync, statSync, type Stats } from 'node:fs';
import { isAbsolute, resolve, sep } from 'node:path';
import { cacheDir, fixesDir, fixPath, homeDir, sessionCachePath, sessionLineagePath, sessionToolCachePath } from '../shared/paths.js';
import { openTranscript, readOwnFile } from './trust.js';
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

type StdinRead = { status: StdinStatus; text: string };

/** Node's libuv stream handle for a pipe or socket, as net.Socket drives it (internal bindings:
 *  see readStdinStream). Only the members used here. */
interface PipeHandle {
  open(fd: number): number;
  readStart(): number;
  readStop(): number;
  unref(): void;
  onread: (ab: ArrayBuffer) => void;
}
interface StreamBindings {
  Pipe: new (type: number) => PipeHandle;
  SOCKET: number;
  state: Int32Array;
  nread: number;
  offset: number;
}

/** The stream bindings net.Socket itself is made of, without loading net and its streams (~8 ms
 *  of a run): process.binding's allow-list serves both. null when this Node has other shapes or
 *  refuses (the permission model): the caller falls back to fs.read. */
function streamBindings(): StreamBindings | null {
  const quiet = process.noDeprecation;
  process.noDeprecation = true; // process.binding's deprecation warning: the hook never writes to stderr
  try {
    const binding = (process as unknown as { binding(name: string): Record<string, unknown> }).binding;
    const sw = binding('stream_wrap') as { streamBaseState?: unknown; kReadBytesOrError?: unknown; kArrayBufferOffset?: unknown };
    const pw = binding('pipe_wrap') as { Pipe?: unknown; constants?: { SOCKET?: unknown } };
    if (!(sw.streamBaseState instanceof Int32Array) || typeof sw.kReadBytesOrError !== 'number' || typeof sw.kArrayBufferOffset !== 'number') return null;
    if (typeof pw.Pipe !== 'function' || typeof pw.constants?.SOCKET !== 'number') return null;
    return { Pipe: pw.Pipe as StreamBindings['Pipe'], SOCKET: pw.constants.SOCKET, state: sw.streamBaseState, nread: sw.kReadBytesOrError, offset: sw.kArrayBufferOffset };
  } catch {
    return null;
  } finally {
    process.noDeprecation = quiet;
  }
}

/** Is stdin a terminal? Asked of the binding node:tty asks (that module loads net: ~8 ms);
 *  false when it cannot be asked (fs.read then, as for a file). */
function isTerminal(): boolean {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const tty = (process as unknown as { binding(name: string): { isTTY?: (fd: number) => boolean } }).binding('tty_wrap');
    return typeof tty.isTTY === 'function' && tty.isTTY(0) === true;
  } catch {
    return false;
  } finally {
    process.noDeprecation = quiet;
  }
}

/** Collects stdin's chunks up to MAX_STDIN_BYTES and settles once (ok, too-large, timeout). */
function collector(timeoutMs: number, done: (r: StdinRead) => void, stop: () => void) {
  const chunks: Buffer[] = [];
  let size = 0;
  let finished = false;
  const finish = (status: StdinStatus) => {
    if (finished) return;
    finished = true;
    clearTimeout(timer);
    try { stop(); } catch { /* the read is over either way */ }
    done({ status, text: status === 'ok' ? Buffer.concat(chunks).toString('utf8') : '' });
  };
  const timer = setTimeout(() => finish('timeout'), Math.max(1, timeoutMs));
  const add = (chunk: Buffer) => {
    if (finished) return;
    size += chunk.length;
    if (size > MAX_STDIN_BYTES) return finish('too-large');
    chunks.push(chunk);
  };
  return { add, finish, get finished() { return finished; } };
}

/**
 * A pipe or socket stdin (what Claude Code and Codex CLI give) read through a libuv stream
 * handle, as net.Socket reads it: non-blocking, on the event loop, nothing in the thread pool.
 * A blocking fs.read would park a pool thread in read(2) until the writer closes, and Node's
 * exit waits for its pool threads: a parent holding stdin open with no data held the hook
 * until it closed, long past the deadline. null when the bindings are not there.
 */
function readStdinStream(timeoutMs: number): Promise<StdinRead> | null {
  const b = streamBindings();
  if (!b) return null;
  let h: PipeHandle;
  try {
    h = new b.Pipe(b.SOCKET);
    if (h.open(0) !== 0) return null;
  } catch {
    return null;
  }
  return new Promise((done) => {
    const c = collector(timeoutMs, done, () => {
      h.onread = () => undefined; // must stay a function (a native assertion checks)
      h.readStop();
      h.unref();
    });
    h.onread = (ab: ArrayBuffer) => {
      const n = b.state[b.nread];
      // A view of this read's own buffer, as net.Socket keeps it. n < 0: end of input or an error.
      if (n > 0) c.add(Buffer.from(ab, b.state[b.offset], n));
      else if (n < 0) c.finish('ok');
    };
    if (h.readStart() !== 0) c.finish('ok');
  });
}

/** Any other stdin (a file, /dev/null): fs.read on fd 0, which ends at the file's end. A
 *  non-blocking descriptor with nothing yet (EAGAIN) is asked again shortly. */
function readStdinFile(timeoutMs: number): Promise<StdinRead> {
  return new Promise((done) => {
    const c = collector(timeoutMs, done, () => undefined);
    const step = () => {
      const buf = Buffer.allocUnsafe(STDIN_CHUNK_BYTES);
      read(0, buf, 0, buf.length, null, (err, n) => {
        if (c.finished) return;
        if (err) {
          if (err.code === 'EAGAIN') setTimeout(step, STDIN_RETRY_MS);
          else c.finish('ok');
          return;
        }
        if (n === 0) return c.finish('ok');
        c.add(buf.subarray(0, n));
        if (!c.finished) step();
      });
    };
    step();
  });
}

/**
 * Read all of stdin within `timeoutMs`, never past it whatever the writer does: a pipe or a
 * socket through a stream handle (readStdinStream), anything else by fs.read; a terminal is
 * no payload (reading it would wait for a person). No process.stdin: its stream machinery costs
 * ~8 ms to load.
 */
export function readStdin(timeoutMs: number): Promise<StdinRead> {
  let st: Stats;
  try {
    st = fstatSync(0);
  } catch {
    return Promise.resolve({ status: 'ok', text: '' }); // no stdin at all
  }
  if (st.isFIFO() || st.isSocket()) return readStdinStream(timeoutMs) ?? readStdinFile(timeoutMs);
  if (st.isCharacterDevice() && isTerminal()) return Promise.resolve({ status: 'ok', text: '' });
  return readStdinFile(timeoutMs);
}

/** Parsed JSON of one of the hook's own files of at most `maxBytes`, in `folder` of the state
 *  dir (hook/trust.ts readOwnFile: a regular file of this user nobody else may write, in folders
 *  likewise, never through a symlink); undefined when it does not exist; 'invalid' when it is
 *  too big, unreadable, untrusted or not JSON. */
export function readJsonFile(path: string, maxBytes: number, folders: readonly string[]): unknown {
  const raw = readOwnFile(path, maxBytes, folders);
  if (raw === undefined || raw === 'invalid') return raw;
  try {
    return JSON.parse(raw) as unknown;
  } catch {
    return 'invalid';
  }
}

/** Parsed cache JSON; undefined when there is no cache file; 'invalid' when unreadable. */
export function readCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionCachePath(sessionId, env), MAX_CACHE_BYTES, [homeDir(env), cacheDir(env)]);
}

/** The session's tool cache (ToolCache JSON), as readCache. */
export function readToolCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionToolCachePath(sessionId, env), MAX_CACHE_BYTES, [homeDir(env), cacheDir(env)]);
}

/** The session's lineage as the daemon found it in the store (LineageCache JSON), as readCache. */
export function readLineageCache(sessionId: string, env: NodeJS.ProcessEnv): unknown {
  return readJsonFile(sessionLineagePath(sessionId, env), MAX_CACHE_BYTES, [homeDir(env), cacheDir(env)]);
}

/** The fixes file of one signature (FixFile JSON); undefined when there is none. */
export function readFixFile(sig: string, env: NodeJS.ProcessEnv): unknown {
  const path = fixPath(sig, env);
  return path ? readJsonFile(path, MAX_FIXES_BYTES, [homeDir(env), fixesDir(env)]) : undefined;
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
  const t = openTranscript(path, root);
  if (typeof t === 'string') return [];
  const fd = t.fd;
  try {
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
    try { closeSync(fd); } catch { /* closed */ }
  }
}

/** The session's transcript just before the failure: its last TAIL_BYTES (shared/fix-place.ts,
 *  where a fix's place must show), '' when the path is not a trusted transcript or cannot be
 *  read. `end` is where "now" is in the file (replay: the failing call's result record, which
 *  the host writes after the hook); default its size. Bounded: one fstat and one read. */
export function transcriptTail(path: unknown, root: string, end?: number): string {
  if (typeof path !== 'string' || !transcriptPathAcceptable(path, root)) return '';
  const t = openTranscript(path, root);
  if (typeof t === 'string') return '';
  const fd = t.fd;
  try {
    const stop = end ?? t.size;
    const from = Math.max(0, stop - TAIL_BYTES);
    const buf = Buffer.alloc(stop - from);
    const n = readSync(fd, buf, 0, buf.length, from);
    return buf.toString('utf8', 0, n);
  } catch {
    return '';
  } finally {
    try { closeSync(fd); } catch { /* closed */ }
  }
}
