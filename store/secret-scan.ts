/**
 * The store's secret scan: every stored text (store/stored-texts.ts) through the redactor's
 * detector (shared/redact.ts). Reports where a finding is (handle, field, kind) and counts by
 * kind — never the value. Used by `active-brain store scan`, doctor's `secrets` check and the
 * indexer after a re-scrub. Pure over its input.
 */
import { countByKind, type Redactor } from '../shared/redact.js';
import type { StoredText } from './stored-texts.js';

/** Findings listed in a scan (the counts are always complete). */
export const MAX_SCAN_ITEMS = 1000;

export interface ScanItem {
  handle: string;
  field: string;
  kind: string;
}

export interface ScanSummary {
  /** Stored texts looked at. */
  texts: number;
  findings: number;
  by_kind: Record<string, number>;
  /** Where each finding is (at most MAX_SCAN_ITEMS). */
  items: ScanItem[];
}

export interface StoredTextSource {
  storedTexts(): Iterable<StoredText>;
}

export function scanTexts(texts: Iterable<StoredText>, redactor: Redactor, maxItems = MAX_SCAN_ITEMS): ScanSummary {
  const out: ScanSummary = { texts: 0, findings: 0, by_kind: {}, items: [] };
  for (const t of texts) {
    out.texts++;
    const f = redactor.findings(t.text);
    if (f.length === 0) continue;
    out.findings += f.length;
    for (const [k, n] of Object.entries(countByKind(f))) out.by_kind[k] = (out.by_kind[k] ?? 0) + n;
    for (const x of f) if (out.items.length < maxItems) out.items.push({ handle: t.handle, field: t.field, kind: x.kind });
  }
  return out;
}

export function scanStore(store: StoredTextSource, redactor: Redactor, maxItems = MAX_SCAN_ITEMS): ScanSummary {
  return scanTexts(store.storedTexts(), redactor, maxItems);
}
