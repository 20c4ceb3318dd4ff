/**
 * SQLite's own consistency check of a store file, bounded: `PRAGMA quick_check(N)` — every page
 * read once, the first N problems listed, no index content compared — on a read-only connection,
 * and only for a file up to QUICK_CHECK_MAX_BYTES (SQLite checks a few hundred MB a second; a
 * larger file is reported unchecked rather than holding the command). Used by `doctor` (the
 * store check) and `index` (it refuses to write into a store that fails). Never throws: the
 * verdict says what happened.
 */
import { statSync } from 'node:fs';
import Database from 'better-sqlite3';

/** Problems SQLite lists at most (the first names the damage; the rest is detail). */
export const QUICK_CHECK_ERRORS = 5;
/** SQLite result codes that mean a damaged file (extended codes start with these). */
const DAMAGE_CODES = ['SQLITE_CORRUPT', 'SQLITE_NOTADB'];
/** Largest store file checked (bytes): beyond it the check would take more than a few seconds. */
export const QUICK_CHECK_MAX_BYTES = 2 * 1024 ** 3;

export type QuickCheck =
  | { state: 'ok'; ms: number }
  | { state: 'damaged'; problems: string[]; ms: number }
  | { state: 'unknown'; reason: string; ms: number };

/** Read SQLite's answer (pure): ['ok'] is a sound file; a failure to open or read is damage too
 *  (SQLite says "file is not a database", "database disk image is malformed"). */
export function quickCheckVerdict(out: { rows?: string[]; error?: string }, ms: number): QuickCheck {
  if (out.error !== undefined) return { state: 'damaged', problems: [out.error], ms };
  const rows = out.rows ?? [];
  if (rows.length === 1 && rows[0] === 'ok') return { state: 'ok', ms };
  if (rows.length === 0) return { state: 'unknown', reason: 'SQLite returned no rows', ms };
  return { state: 'damaged', problems: rows, ms };
}

/** Run the bounded check on a SQLite store file. */
export function quickCheck(path: string, maxBytes = QUICK_CHECK_MAX_BYTES): QuickCheck {
  const t0 = Date.now();
  try {
    const size = statSync(path).size;
    if (size > maxBytes) return { state: 'unknown', reason: `the file is ${Math.round(size / 1024 ** 2)} MB, over the ${Math.round(maxBytes / 1024 ** 2)} MB checked`, ms: 0 };
  } catch (e) {
    return { state: 'unknown', reason: (e as Error).message, ms: 0 };
  }
  let db: Database.Database | null = null;
  let out: { rows?: string[]; error?: string };
  try {
    db = new Database(path, { readonly: true, fileMustExist: true });
    const rows = db.pragma(`quick_check(${QUICK_CHECK_ERRORS})`) as Record<string, unknown>[];
    out = { rows: rows.map((r) => String(Object.values(r)[0])) };
  } catch (e) {
    // Damage only when SQLite says so; anything else (busy, a WAL a read-only connection cannot
    // recover after a crash, no permission) is no verdict: the writer's own open handles it.
    const code = (e as { code?: string }).code ?? '';
    if (!DAMAGE_CODES.some((c) => code === c || code.startsWith(`${c}_`))) {
      return { state: 'unknown', reason: (e as Error).message, ms: Date.now() - t0 };
    }
    out = { error: (e as Error).message };
  } finally {
    try { db?.close(); } catch { /* closing */ }
  }
  return quickCheckVerdict(out, Date.now() - t0);
}

/** One line for a message: the first problem, and how many more. */
export function quickCheckSummary(c: Extract<QuickCheck, { state: 'damaged' }>): string {
  const more = c.problems.length > 1 ? ` (+${c.problems.length - 1} more)` : '';
  return `${c.problems[0].slice(0, 200)}${more}`;
}

/** What to do about a store that fails the check (doctor's fix, index's refusal). */
export function damagedStoreFix(path: string): string {
  return `move it aside ("mv ${path} ${path}.damaged") and build it again: "active-brain setup", or "active-brain index add <path> --region <name>" for each source, then "active-brain index" — a running daemon picks the new store up by itself`;
}
