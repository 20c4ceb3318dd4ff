#!/usr/bin/env node
// The Claude Code hook as `active-brain install` and the plugin register it: CommonJS, so Node
// starts it without its ESM loader (measurably faster, see docs/HOOK.md). Runs the one bundled,
// dependency-free file: the build's (dist/hook.bundle.cjs), else the committed copy
// (hooks/hook.bundle.cjs, what a plugin copy installed by Claude Code has: no dist/). If neither
// loads, the prompt or tool call still passes untouched: exit 0, print nothing.
//
// Two speed choices live here because they must come before the bundle is compiled:
// - V8 compiles each regex once, natively (--no-regexp-tier-up): the hook is a one-shot process
//   whose regexes run a few dozen times each; the tier-up only adds a second compilation. Set
//   through process.binding('v8') (node:v8 loads the stream modules with it: ~2 ms), with the
//   deprecation warning off for that call (the hook never writes to stderr), else node:v8.
// - A V8 code cache beside the bundle (<bundle>.<node version>-<arch>.codecache): the bytecode
//   of the bundle's functions, so a run does not parse and compile them again (docs/HOOK.md,
//   "Code cache"). Written after a run that found none or whose cache V8 refused (another
//   Node, other flags, another bundle: its header names the bundle's size, times and inode),
//   once the run is over, after the hook's warm-up (hook/warm.ts) so that it holds both
//   channels' code; atomically (a temp file renamed). Read only when it is a regular file of
//   this user's (or root's) that nobody else may write: bytecode runs as code. Node options
//   (execArgv, NODE_OPTIONS) other than none get a file of their own (V8 refuses a cache made
//   under other flags). ACTIVE_BRAIN_HOOK_CODE_CACHE=off reads and writes none, and so does
//   Windows (no owner to check a cache against). A folder the user cannot write gets none:
//   the hook runs as before.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const REGEXP_FLAGS = '--no-regexp-tier-up';
const BUNDLES = [path.join(__dirname, '..', 'dist', 'hook.bundle.cjs'), path.join(__dirname, '..', 'hooks', 'hook.bundle.cjs')];
/** How the bundles beside it end (the tool channel's, hook-tool.bundle.cjs: hook/tool-bundle.ts). */
const BUNDLE_SUFFIX = '.bundle.cjs';
const CODE_CACHE_ENV = 'ACTIVE_BRAIN_HOOK_CODE_CACHE';
const CODE_CACHE_MAGIC = 'active-brain hook code cache v1';
/** A cache is ~130 KB; a file far larger is not one (read each run, it would cost more than it saves). */
const MAX_CODE_CACHE_BYTES = 4 * 1024 * 1024;
// The CommonJS wrapper Node itself puts around a module: the bundle sees what require gives it.
const WRAP_HEAD = '(function (exports, require, module, __filename, __dirname) { ';
const WRAP_TAIL = '\n})';

function setRegexpFlags() {
  const quiet = process.noDeprecation;
  process.noDeprecation = true;
  try {
    const set = typeof process.binding === 'function' ? process.binding('v8').setFlagsFromString : undefined;
    if (typeof set === 'function') return void set(REGEXP_FLAGS);
  } catch {
    // refused (a later Node, the permission model): node:v8 below
  } finally {
    process.noDeprecation = quiet;
  }
  try {
    require('node:v8').setFlagsFromString(REGEXP_FLAGS);
  } catch {
    // a Node without the flag: regexes tier up as usual
  }
}

/** What names this exact bundle file: any rewrite changes its ctime (and mostly its size). */
function stampOf(st) {
  return `${CODE_CACHE_MAGIC} ${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino}\n`;
}

/** The Node options this process started with, as a short name part: V8 refuses a cache made
 *  under other flags, so each set of options keeps its own file ('' for none, the registered
 *  command's case). FNV-1a, 32 bits: a name, not a check. */
function optionsTag() {
  const opts = `${process.execArgv.join(' ')}|${process.env.NODE_OPTIONS || ''}`;
  if (opts === '|') return '';
  let h = 0x811c9dc5;
  for (let i = 0; i < opts.length; i++) h = Math.imul(h ^ opts.charCodeAt(i), 0x01000193) >>> 0;
  return `-${h.toString(16).padStart(8, '0')}`;
}

const uid = () => (typeof process.geteuid === 'function' ? process.geteuid() : null);

/** Up to `size` bytes of an open file from its start (fewer when it ended sooner). */
function readOpen(fd, size) {
  const buf = Buffer.allocUnsafe(size);
  let got = 0;
  while (got < size) {
    const n = fs.readSync(fd, buf, got, size - got, got);
    if (n === 0) break;
    got += n;
  }
  return buf.subarray(0, got);
}

/** The cache file, read only when it is ours to trust: opened without following a link and
 *  without blocking (a FIFO in its place), a regular file owned by this user (or root) that
 *  nobody else may write. Bytecode runs as code: a cache anyone else could have written must
 *  not be loaded. Returns { data } for this bundle's cache; { stale: true } for a file of ours
 *  that is not (another bundle, damaged: rewrite it); {} when absent; { foreign: true } for a
 *  file not to touch. */
function readCodeCache(file, stamp) {
  if (!fs.statSync(file, { throwIfNoEntry: false })) return {};
  const fd = fs.openSync(file, fs.constants.O_RDONLY | (fs.constants.O_NOFOLLOW || 0) | (fs.constants.O_NONBLOCK || 0));
  try {
    const st = fs.fstatSync(fd);
    const me = uid();
    // One link: the launcher makes a cache by rename, never a second name for another file.
    const trusted = st.isFile() && st.nlink === 1 && (st.uid === me || st.uid === 0) && (st.mode & 0o022) === 0;
    if (!trusted) return { foreign: true };
    // Not this bundle's: rewrite it only when it is this user's (a root-owned one in a shared
    // folder could not be replaced, and trying would cost a warm-up on every run).
    const stale = st.uid === me ? { stale: true } : { foreign: true };
    if (st.size > MAX_CODE_CACHE_BYTES) return stale;
    const buf = readOpen(fd, st.size);
    const head = Buffer.byteLength(stamp);
    return buf.length > head && buf.toString('latin1', 0, head) === stamp ? { data: buf.subarray(head) } : stale;
  } finally {
    fs.closeSync(fd);
  }
}

/** Whether this process may write into dir (a cheap look at its mode, no throwing access()). */
function mayWrite(dir) {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) return false;
  const me = uid();
  if (me === 0) return true;
  if (st.uid === me) return (st.mode & 0o200) !== 0;
  const groups = new Set([...(typeof process.getgroups === 'function' ? process.getgroups() : []), typeof process.getegid === 'function' ? process.getegid() : -1]);
  if (groups.has(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

/** At exit: warm the rest of the code up, then write the cache atomically; any failure: none.
 *  The temp file is created first, so that a folder that refuses it (read-only, full) costs
 *  no warm-up. */
function writeCodeCache(script, mod, file, stamp) {
  let tmp = null;
  let fd;
  try {
    if (!mayWrite(path.dirname(file))) return;
    tmp = `${file}.${process.pid}.tmp`;
    fd = fs.openSync(tmp, 'wx', 0o644);
  } catch {
    return; // refused (read-only, full, a leftover of the same pid): no warm-up either
  }
  try {
    const exported = mod.exports;
    if (exported && typeof exported.warmUp === 'function') exported.warmUp();
    const bytes = Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]);
    // A short write (a full disk) must not become a cache V8 refuses at every start.
    if (fs.writeSync(fd, bytes) !== bytes.length) throw new Error('short write');
    fs.closeSync(fd);
    fd = undefined;
    fs.renameSync(tmp, file);
  } catch {
    try {
      if (fd !== undefined) fs.closeSync(fd);
      fs.unlinkSync(tmp);
    } catch {
      // never written
    }
  }
}

/** The bundle's text and the stamp of the very file it was read from (one open: a bundle
 *  rewritten between a stat and a read would otherwise meet the old one's cache). */
function readBundle(bundle) {
  const fd = fs.openSync(bundle, 'r');
  try {
    const st = fs.fstatSync(fd);
    const buf = readOpen(fd, st.size);
    if (buf.length !== st.size) throw new Error('bundle changed while read');
    return { source: buf.toString('utf8'), stamp: stampOf(st) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Compile one bundle file with its code cache and keep that cache current; returns a function
 *  that runs it (with `req` as its require) and gives its exports. */
function compileCached(bundle, req) {
  const { Script } = require('node:vm');
  const cacheFile = `${bundle}.${process.version}-${process.arch}${optionsTag()}.codecache`;
  const { source, stamp } = readBundle(bundle);
  let read;
  try {
    read = readCodeCache(cacheFile, stamp);
  } catch {
    read = { foreign: true }; // unreadable: leave it alone
  }
  const script = new Script(WRAP_HEAD + source + WRAP_TAIL, { filename: bundle, cachedData: read.data });
  const mod = { exports: {} };
  const write = read.data ? script.cachedDataRejected === true : !read.foreign;
  if (write) process.once('exit', () => writeCodeCache(script, mod, cacheFile, stamp));
  return () => {
    script.runInThisContext()(mod.exports, req, mod, bundle, path.dirname(bundle));
    return mod.exports;
  };
}

/** The require the hook's bundle runs with: another bundle beside it (the tool channel's,
 *  required at a tool event) is compiled with a code cache of its own, once; anything else
 *  (node: built-ins) is Node's own require. A bundle that cannot be compiled that way is
 *  required as Node would. */
function bundleRequire(dir) {
  const loaded = new Map();
  return (id) => {
    if (typeof id !== 'string' || !id.endsWith(BUNDLE_SUFFIX) || path.dirname(id) !== dir) return require(id);
    if (!loaded.has(id)) {
      let run;
      try {
        run = compileCached(id, require);
      } catch {
        run = () => require(id);
      }
      loaded.set(id, run());
    }
    return loaded.get(id);
  };
}

/** Compile the hook's bundle with its code cache, run it, and keep the cache current. */
function runCached(bundle) {
  const run = compileCached(bundle, bundleRequire(path.dirname(bundle)));
  return () => void run();
}

/** The first bundle that exists, run; any failure before or during its run: exit 0, silent. */
function main() {
  setRegexpFlags();
  for (const bundle of BUNDLES) {
    let st;
    try {
      st = fs.statSync(bundle, { throwIfNoEntry: false });
    } catch {
      continue; // a folder in the way (not a folder, not readable): the next copy
    }
    if (!st) continue;
    let run;
    try {
      // No owner to check a cache against (Windows: no geteuid, no O_NOFOLLOW either): none.
      const cached = process.env[CODE_CACHE_ENV] !== 'off' && uid() !== null;
      run = cached ? runCached(bundle) : () => require(bundle);
    } catch {
      run = () => require(bundle); // the cache could not be used: compile as Node would
    }
    try {
      run();
    } catch {
      process.exit(0);
    }
    return;
  }
  process.exit(0);
}

try {
  main();
} catch {
  process.exit(0);
}
