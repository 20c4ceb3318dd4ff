/**
 * Regular-expression helpers shared by the hook, the daemon and retrieval (pure).
 */

/** `s` as a literal inside a RegExp source. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
