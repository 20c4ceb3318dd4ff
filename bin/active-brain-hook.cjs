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
//   channels' code; atomically (a temp file renamed). ACTIVE_BRAIN_HOOK_CODE_CACHE=off reads and
//   writes none. A folder the user cannot write gets none: the hook runs as before.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const REGEXP_FLAGS = '--no-regexp-tier-up';
const BUNDLES = [path.join(__dirname, '..', 'dist', 'hook.bundle.cjs'), path.join(__dirname, '..', 'hooks', 'hook.bundle.cjs')];
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

/** The cached bytecode when the file is this bundle's, else undefined. */
function readCodeCache(file, stamp) {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st || !st.isFile() || st.size > MAX_CODE_CACHE_BYTES) return undefined;
  const buf = fs.readFileSync(file);
  const head = Buffer.byteLength(stamp);
  return buf.length > head && buf.toString('latin1', 0, head) === stamp ? buf.subarray(head) : undefined;
}

/** Whether this process may write into dir (a cheap look at its mode, no throwing access()). */
function mayWrite(dir) {
  const st = fs.statSync(dir, { throwIfNoEntry: false });
  if (!st) return false;
  if (typeof process.getuid !== 'function') return true;
  const uid = process.getuid();
  if (uid === 0) return true;
  if (st.uid === uid) return (st.mode & 0o200) !== 0;
  if (process.getgroups().includes(st.gid)) return (st.mode & 0o020) !== 0;
  return (st.mode & 0o002) !== 0;
}

/** At exit: warm the rest of the code up, then write the cache atomically; any failure: none.
 *  The temp file is created first, so that a folder that refuses it (read-only, full) costs
 *  no warm-up. */
function writeCodeCache(script, mod, file, stamp) {
  if (!mayWrite(path.dirname(file))) return;
  const tmp = `${file}.${process.pid}.tmp`;
  let fd;
  try {
    fd = fs.openSync(tmp, 'wx', 0o644);
  } catch {
    return;
  }
  try {
    const exported = mod.exports;
    if (exported && typeof exported.warmUp === 'function') exported.warmUp();
    fs.writeSync(fd, Buffer.concat([Buffer.from(stamp, 'latin1'), script.createCachedData()]));
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

/** Compile the bundle with its code cache, run it, and keep the cache current. */
function runCached(bundle, st) {
  const { Script } = require('node:vm');
  const cacheFile = `${bundle}.${process.version}-${process.arch}.codecache`;
  const stamp = stampOf(st);
  let cachedData;
  try {
    cachedData = readCodeCache(cacheFile, stamp);
  } catch {
    cachedData = undefined;
  }
  const script = new Script(WRAP_HEAD + fs.readFileSync(bundle, 'utf8') + WRAP_TAIL, { filename: bundle, cachedData });
  const mod = { exports: {} };
  if (!cachedData || script.cachedDataRejected) process.once('exit', () => writeCodeCache(script, mod, cacheFile, stamp));
  return () => script.runInThisContext()(mod.exports, require, mod, bundle, path.dirname(bundle));
}

function main() {
  setRegexpFlags();
  for (const bundle of BUNDLES) {
    const st = fs.statSync(bundle, { throwIfNoEntry: false });
    if (!st) continue;
    let run;
    try {
      run = process.env[CODE_CACHE_ENV] === 'off' ? () => require(bundle) : runCached(bundle, st);
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

main();
