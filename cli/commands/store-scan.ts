/**
 * `active-brain store scan [--url URL] [--json]`: look for secrets in everything the store
 * keeps (store/scan-location.ts) and list where each one is — handle, field, kind — never
 * the value. Exit 0 when none is found, 1 when some are (so a script can gate on it).
 */
import { parseFlags, printJson, EXIT, UserError } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { StoreError } from '../../store/errors.js';
import { isPostgresUrl } from '../../store/pg-sync.js';
import { displayLocation, storeLocation } from '../../store/location.js';
import { scanLocation, type LocationScan } from '../../store/scan-location.js';
import { createRedactor, RedactConfigError } from '../../shared/redact.js';
import { sanitizeLine } from '../../shared/escape.js';

export const SCAN_HELP = `usage: active-brain store scan [--url postgres://…] [--json] [--set key.path=value ...]

Looks for secrets (the indexer's detector: API keys and tokens, private keys, JWTs,
Authorization / Bearer values, passwords in URLs and in password/secret/token assignments,
and your redact.patterns; redact.allow left alone) in every text the store keeps: document
titles, chunk headings, texts and aliases, error episodes and quoted signatures. Lists where
each finding is (chunk handle or doc:<path>, field, kind), never the value. Default: the
store the daemon reads (store.url or store.path); --url: a team store (its writer URL sees
every row, a reader URL only its audiences).

Also says how the stored text was redacted: scrubbed (with these rules), unscrubbed (indexed
before redaction) or other-rules (other rules or redact.* config) — for the last two, run
\`active-brain index\`: it re-reads and redacts every document.

--json prints {"store","texts","findings","by_kind","items":[{"handle","field","kind"}],
"redaction"} (items: at most 1000; the counts are complete).
Exit 0 no finding · 1 findings · 2 usage or config error · 3 store missing or unreadable.`;

export function scanText(store: string, s: LocationScan): string {
  const lines = [`${s.findings} secret finding(s) in ${s.texts} stored text(s) of ${store} (redaction: ${s.redaction})`];
  for (const [k, n] of Object.entries(s.by_kind).sort((a, b) => b[1] - a[1])) lines.push(`  ${k.padEnd(22)} ${n}`);
  for (const i of s.items) lines.push(`  ${sanitizeLine(i.handle)}  ${i.field}  ${i.kind}`);
  if (s.findings > s.items.length) lines.push(`  … ${s.findings - s.items.length} more (counts above are complete)`);
  if (s.findings > 0 || s.redaction !== 'scrubbed') lines.push('fix: run `active-brain index` (it re-reads and redacts every document; unchanged text keeps its vectors)');
  return lines.join('\n');
}

export async function runScan(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { url: { type: 'string' } });
  if (values.help) {
    process.stdout.write(SCAN_HELP + '\n');
    return EXIT.OK;
  }
  if (positionals.length) throw new UserError(`store scan takes no arguments besides flags (got ${positionals.join(' ')})`, EXIT.USAGE);
  if (values.url !== undefined && !isPostgresUrl(values.url)) throw new UserError('store scan --url needs a postgres:// URL (the file store is scanned by default)', EXIT.USAGE);
  const { config } = loadConfig({ flags: values.set });
  let redactor;
  try {
    redactor = createRedactor(config.redact);
  } catch (e) {
    if (e instanceof RedactConfigError) throw new UserError(e.message, EXIT.USAGE);
    throw e;
  }
  const location = values.url ?? storeLocation(config);
  let scan: LocationScan;
  try {
    scan = scanLocation(location, redactor);
  } catch (e) {
    if (e instanceof StoreError) throw new UserError(e.message, e.exitCode);
    throw e;
  }
  const store = displayLocation(location);
  if (values.json) printJson({ store, ...scan });
  else process.stdout.write(scanText(store, scan) + '\n');
  return scan.findings === 0 ? EXIT.OK : EXIT.FAIL;
}
