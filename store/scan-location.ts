/**
 * Scan the store at a location (the SQLite file, or the team store through a postgres:// URL:
 * its writer URL sees every row, a reader URL its audiences) for secrets: read-only, no
 * migration. Says also which redaction the stored text was made with (meta `redaction`):
 * `scrubbed` (these rules), `unscrubbed` (written before redaction: run `active-brain
 * index`), `other-rules` (older rules or other `redact.*` config: run `active-brain index`).
 * Used by `active-brain store scan` and doctor's `secrets` check.
 */
import type { Redactor } from '../shared/redact.js';
import { openReadonlyDb } from './open.js';
import { isPostgresUrl } from './pg-sync.js';
import { connectPg } from './pg-common.js';
import { checkSchema, getMeta, REDACTION_META } from './schema.js';
import { PG_REDACTION_META } from './pg-schema.js';
import { pgStoredTexts, sqliteStoredTexts } from './stored-texts.js';
import { scanTexts, type ScanSummary } from './secret-scan.js';

export const REDACTION_STATES = ['scrubbed', 'unscrubbed', 'other-rules'] as const;
export type RedactionState = (typeof REDACTION_STATES)[number];

export interface LocationScan extends ScanSummary {
  redaction: RedactionState;
}

export function redactionState(recorded: string | null, redactor: Redactor): RedactionState {
  if (!recorded) return 'unscrubbed';
  return recorded === redactor.fingerprint ? 'scrubbed' : 'other-rules';
}

export function scanLocation(location: string, redactor: Redactor, maxItems?: number): LocationScan {
  if (isPostgresUrl(location)) {
    const db = connectPg(location);
    try {
      const recorded = db.one<{ value: string }>(`SELECT value FROM meta WHERE key = $1`, [PG_REDACTION_META])?.value ?? null;
      return { ...scanTexts(pgStoredTexts(db), redactor, maxItems), redaction: redactionState(recorded, redactor) };
    } finally {
      db.close();
    }
  }
  const db = openReadonlyDb(location);
  try {
    checkSchema(db, location); // a store from before redaction: "run `active-brain index` once"
    return { ...scanTexts(sqliteStoredTexts(db), redactor, maxItems), redaction: redactionState(getMeta(db, REDACTION_META), redactor) };
  } finally {
    db.close();
  }
}

/** Only the recorded redaction state (status: no scan); null when the store cannot be read. */
export function storeRedaction(location: string, redactor: Redactor): RedactionState | null {
  try {
    if (isPostgresUrl(location)) {
      const db = connectPg(location);
      try {
        return redactionState(db.one<{ value: string }>(`SELECT value FROM meta WHERE key = $1`, [PG_REDACTION_META])?.value ?? null, redactor);
      } finally {
        db.close();
      }
    }
    const db = openReadonlyDb(location);
    try {
      return redactionState(getMeta(db, REDACTION_META), redactor);
    } finally {
      db.close();
    }
  } catch {
    return null;
  }
}
