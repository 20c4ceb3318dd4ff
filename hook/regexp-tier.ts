/**
 * Imported first by hook/main.ts: compile each regular expression straight to native code
 * instead of interpreting it first and compiling it again after its first run (V8's
 * "regexp tier-up"). The hook is a one-shot process whose regexes (escaping, the error
 * signature) each run a few dozen times: the tier-up only adds a second compilation. Measured
 * on the tool channel's 10,000-char error, the cold signature took about a third of the time
 * (docs/HOOK.md, "Why CommonJS, and other speed choices"). Set before any regex runs; V8
 * reads the flag when it compiles a regex. A Node without the flag ignores it.
 */
import { setFlagsFromString } from 'node:v8';

try {
  setFlagsFromString('--no-regexp-tier-up');
} catch { /* the defaults are only slower */ }
