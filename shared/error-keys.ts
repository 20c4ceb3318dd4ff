/**
 * The keys a tool error is looked up by (pure, dependency-free: the hook bundles it). Input:
 * the error's key lines (shared/error-signature.ts keyLines). Output: its exact signature and
 * its line keys — one per distinctive key line — which name the hook's precomputed fixes
 * files `<home>/fixes/<key>.json` (core/fixes.ts writes one per key of every resolved
 * episode; the hook reads the exact one, else the first line key that has a file).
 *
 * Why line keys: the same error often comes back with another line in front or under it (a
 * test name printed first, a warning before the fatal line, conda start-up noise, two
 * commands of one call failing in another order), so its two-line head differs while its
 * telling line is the same. A key line names a failure (LEAD_RE) and has at least
 * MIN_KEY_LINE_WORDS content words, so `error` or `exit code <n>` never is one.
 */
import { HEAD_LINES, LEAD_RE, hash53 } from './error-signature.js';

/** Fewest content words (3+ letters) in a key line: "fatal: not a git repository" has 3. */
export const MIN_KEY_LINE_WORDS = 3;
/** Line keys looked up per error (the hook checks at most this many files). */
export const MAX_LINE_KEYS = 6;
/** Prefix hashed with a line, so a line key never equals a signature. */
const LINE_KEY_PREFIX = 'line\n';

const WORD_RE = /[a-z][a-z0-9_-]{2,}/g;

/** A line distinctive enough to key a near match. */
export function isKeyLine(line: string): boolean {
  if (!LEAD_RE.test(line)) return false;
  return new Set(line.replace(/<[a-z]+>/g, ' ').match(WORD_RE) ?? []).size >= MIN_KEY_LINE_WORDS;
}

/** The key of one line (14 hex digits, like a signature). */
export function lineKey(line: string): string {
  return hash53(LINE_KEY_PREFIX + line);
}

export interface ErrorKeys {
  /** The exact signature (hash of the first HEAD_LINES key lines). */
  sig: string;
  /** Keys of its distinctive lines, in order, deduplicated, at most MAX_LINE_KEYS. */
  lineKeys: string[];
}

/** The lookup keys of an error's key lines; null when there are none. */
export function errorKeys(lines: readonly string[]): ErrorKeys | null {
  if (!lines.length) return null;
  const sig = hash53(lines.slice(0, HEAD_LINES).join('\n'));
  const keys: string[] = [];
  for (const l of lines) {
    if (!isKeyLine(l)) continue;
    const k = lineKey(l);
    if (!keys.includes(k)) keys.push(k);
    if (keys.length >= MAX_LINE_KEYS) break;
  }
  return { sig, lineKeys: keys };
}
