/**
 * Doctor's `secrets` check: the store's text scanned for secrets (store/scan-location.ts with
 * the indexer's redactor and the user's redact.* config). 0 findings passes; any finding fails
 * with the kinds and the fix (`active-brain index` re-redacts; `store scan` lists where). A
 * store indexed before redaction but with no finding passes and says so.
 */
import type { Config } from '../config/schema.js';
import { createRedactor } from '../shared/redact.js';
import { displayLocation, storeLocation, storePresent } from '../store/location.js';
import { scanLocation } from '../store/scan-location.js';

export interface SecretsCheck {
  name: string;
  pass: boolean;
  detail: string;
  fix: string;
}

const NAME = 'secrets';
const FIX = 'run "active-brain index" (it re-reads and redacts every document); "active-brain store scan" lists where each finding is';

export function checkSecrets(config: Config, env: NodeJS.ProcessEnv = process.env): SecretsCheck {
  const location = storeLocation(config, env);
  const shown = displayLocation(location);
  if (!storePresent(location)) return { name: NAME, pass: true, detail: `no store at ${shown}: nothing to scan`, fix: '' };
  try {
    const s = scanLocation(location, createRedactor(config.redact), 0);
    if (s.findings > 0) {
      const kinds = Object.entries(s.by_kind).map(([k, n]) => `${k} ${n}`).join(', ');
      return { name: NAME, pass: false, detail: `${s.findings} secret finding(s) in ${shown} (${kinds}); redaction: ${s.redaction}`, fix: FIX };
    }
    const note = s.redaction === 'scrubbed' ? '' : `; the store was redacted with ${s.redaction === 'unscrubbed' ? 'no rules (indexed before redaction)' : 'other rules'}: "active-brain index" records the current ones`;
    return { name: NAME, pass: true, detail: `0 secret findings in ${s.texts} stored text(s)${note}`, fix: '' };
  } catch (e) {
    return { name: NAME, pass: false, detail: `cannot scan ${shown}: ${(e as Error).message}`, fix: FIX };
  }
}
