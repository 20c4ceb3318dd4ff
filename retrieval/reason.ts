/**
 * The one-line reason of an offer, from templates over chunk metadata (type, region, title,
 * date, the shared error string or contradicted term) — never text pasted from the note.
 * Input: the chunk (ChunkRecord) and its type evidence. Output: one escaped line (shared/
 * escape.ts escapeField), at most REASON_MAX_CHARS code points. Pure.
 */
import type { ChunkRecord } from '../store/types.js';
import { escapeField, cutCodePoints } from '../shared/escape.js';
import type { TypeEvidence } from './offer-type.js';

/** Longest reason (code points) before the hook's own caps apply. */
export const REASON_MAX_CHARS = 160;
/** Longest title / term quoted inside a reason. */
const FIELD_MAX_CHARS = 60;

function field(s: string): string {
  return cutCodePoints(escapeField(s), FIELD_MAX_CHARS);
}

/** YYYY-MM-DD of an epoch-ms time, or null when unknown. */
export function isoDate(ms: number): string | null {
  if (!Number.isFinite(ms) || ms <= 0) return null;
  const d = new Date(ms);
  return Number.isNaN(d.getTime()) ? null : d.toISOString().slice(0, 10);
}

export function reasonFor(chunk: Pick<ChunkRecord, 'region' | 'title' | 'createdAt' | 'kind'>, ev: TypeEvidence): string {
  const date = isoDate(chunk.createdAt);
  const title = field(chunk.title || '');
  const region = field(chunk.region);
  const where = title ? `“${title}” (${region})` : region;
  let line: string;
  switch (ev.type) {
    case 'past-fix':
      line = `same ${field(ev.sharedError ?? 'failure')} as ${date ? `the ${date} session` : 'a past session'} in ${region}; resolved there`;
      break;
    case 'contradicts':
      line = `${where} advises against ${field(ev.contradictTerm ?? 'this')}, which this turn does`;
      break;
    case 'analogous':
      line = `similar case in ${where}${date ? `, ${date}` : ''}`;
      break;
    default:
      line = `a side thread: ${where}${date ? `, ${date}` : ''}`;
  }
  return cutCodePoints(escapeField(line), REASON_MAX_CHARS);
}
