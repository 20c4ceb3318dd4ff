/**
 * Regular-expression helpers shared by the hook, the daemon and retrieval (pure).
 */

/** A regular expression built on its first use (then kept). For the Unicode property classes
 *  (`\p{L}`, `\p{Script=Han}`): V8 checks a regex literal's syntax when it compiles the code
 *  around it, and for such a class that check builds the class from ICU's tables — ~1–2 ms of
 *  every hook start that never needs the regex (docs/HOOK.md, speed choices). Built from a
 *  string only when asked for, it costs nothing until then. */
export function lazyRegExp(source: string, flags: string): () => RegExp {
  let re: RegExp | null = null;
  return () => (re ??= new RegExp(source, flags));
}

/** `s` as a literal inside a RegExp source. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
