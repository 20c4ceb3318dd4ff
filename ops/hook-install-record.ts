/**
 * What `install` needs to remember so `uninstall` can undo it exactly: beside the settings
 * file, `<file>.active-brain.bak` holds the user's original (written once, at the first
 * install that changed the file; none when install created the file) and
 * `<file>.active-brain-install.json` the record: whether install created the file, the
 * original's hash and how many entries of ours it had, and the hash of the text install last
 * wrote. `uninstall` then (planUninstall, pure):
 *   - the file is what install last wrote, the original had none of ours → restore the
 *     original byte for byte (or remove the file install created);
 *   - otherwise (someone changed it since, or no record) → remove only our entries, keeping
 *     the rest of the text as it is (ops/hook-settings-text.ts).
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { writeFileAtomic } from '../shared/atomic.js';

export const BACKUP_SUFFIX = '.active-brain.bak';
export const RECORD_SUFFIX = '.active-brain-install.json';

export interface InstallRecord {
  version: 1;
  /** The file did not exist before the first install. */
  created: boolean;
  /** sha256 of the original text (null when created). */
  original_sha256: string | null;
  /** Entries of ours the original already had (an older install): then no exact restore. */
  original_ours: number;
  /** sha256 of the text install last wrote. */
  written_sha256: string;
}

export const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

export function readRecord(path: string): InstallRecord | null {
  try {
    const r = JSON.parse(readFileSync(path + RECORD_SUFFIX, 'utf8')) as InstallRecord;
    return r && r.version === 1 && typeof r.written_sha256 === 'string' ? r : null;
  } catch {
    return null;
  }
}

/** The record after install wrote `written` over `before` (pure). The first install keeps
 *  the original; a later one only moves the written hash. */
export function nextRecord(prev: InstallRecord | null, before: { exists: boolean; text: string; ours: number }, written: string): InstallRecord {
  if (prev) return { ...prev, written_sha256: sha256(written) };
  return {
    version: 1,
    created: !before.exists,
    original_sha256: before.exists ? sha256(before.text) : null,
    original_ours: before.exists ? before.ours : 0,
    written_sha256: sha256(written),
  };
}

export type UninstallPlan =
  | { kind: 'restore'; text: string }
  | { kind: 'delete' }
  | { kind: 'remove-entries'; why: string };

/** How to undo install on `current` (pure). `backup`: the .bak text, when present. */
export function planUninstall(rec: InstallRecord | null, current: string, backup: string | null): UninstallPlan {
  if (!rec) return { kind: 'remove-entries', why: 'no install record' };
  if (sha256(current) !== rec.written_sha256) return { kind: 'remove-entries', why: 'changed since install' };
  if (rec.original_ours > 0) return { kind: 'remove-entries', why: 'the original had an older registration' };
  if (rec.created) return { kind: 'delete' };
  if (backup === null || sha256(backup) !== rec.original_sha256) return { kind: 'remove-entries', why: 'the backup is missing or changed' };
  return { kind: 'restore', text: backup };
}

export function writeRecord(path: string, rec: InstallRecord): void {
  writeFileAtomic(path + RECORD_SUFFIX, JSON.stringify(rec) + '\n');
}

/** After an uninstall: the record goes; the backup too when the original is back (or was none). */
export function clearRecord(path: string, opts: { backup: boolean }): void {
  rmSync(path + RECORD_SUFFIX, { force: true });
  if (opts.backup) rmSync(path + BACKUP_SUFFIX, { force: true });
}

export function readBackup(path: string): string | null {
  return existsSync(path + BACKUP_SUFFIX) ? readFileSync(path + BACKUP_SUFFIX, 'utf8') : null;
}
