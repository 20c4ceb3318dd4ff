/**
 * A parsed JSON object (not null, not an array) and the guard that tells one. Every reader of
 * untrusted JSON (transcripts, settings files, logs, data sets) narrows with this before it
 * reads a field. Pure.
 */

/** A JSON object as parsed: keys to unknown values. */
export type Obj = Record<string, unknown>;

/** True for a plain object value: not null, not an array, not a primitive. */
export function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
