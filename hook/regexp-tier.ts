/**
 * Imported first by hook/main.ts: compile each regular expression straight to native code
 * instead of interpreting it first and compiling it again after its first run (V8's
 * "regexp tier-up"). The hook is a one-shot process whose regexes (escaping, the error
 * signature) each run a few dozen times: the tier-up only adds a second compilation. Measured
 * on the tool channel's 10,000-char error, the cold signature took about a third of the time
 * (docs/HOOK.md, "Why CommonJS, and other speed choices"). Set before any regex runs; V8
 * reads the flag when it compiles a regex. A Node without the flag ignores it.
 *
 * How: V8's own setFlagsFromString, reached through process.binding('v8') — the public
 * node:v8 wraps the same function but loads the stream modules with it (~2 ms of every start;
 * the bundle requires it only when called: scripts/bundles.mjs). process.binding is deprecated
 * (DEP0111) and warns on stderr, where the hook never writes: warnings are off for that one
 * call. Where it is missing or refused (a later Node, the permission model), node:v8 does it.
 */
import { setFlagsFromString } from 'node:v8';

const FLAGS = '--no-regexp-tier-up';

type V8Binding = { setFlagsFromString?: (flags: string) => void };

/** V8's setFlagsFromString without loading node:v8; false when that way is not there. */
function viaBinding(flags: string): boolean {
  const proc = process as unknown as { binding?: (name: string) => V8Binding; noDeprecation?: boolean };
  if (typeof proc.binding !== 'function') return false;
  const quiet = proc.noDeprecation;
  proc.noDeprecation = true;
  try {
    const set = proc.binding('v8').setFlagsFromString;
    if (typeof set !== 'function') return false;
    set(flags);
    return true;
  } catch {
    return false;
  } finally {
    proc.noDeprecation = quiet;
  }
}

try {
  if (!viaBinding(FLAGS)) setFlagsFromString(FLAGS);
} catch { /* the defaults are only slower */ }
