/**
 * Issue 38's comparison: which of the probe's sixteen shapes (eval/secret-shapes.ts
 * PROBE_SHAPES) each detector catches, in each of the four places a session puts a secret
 * (first prompt, error lead, fix command, reply). A place counts as caught when, with every
 * range the detector reports masked, no planted value nor a 12-character piece of one is left.
 * Detectors: the product's (shared/redact.ts) and secretlint's recommended preset when
 * SECRETLINT_DIR points at an install (bench/independent-scan.ts; a measuring instrument, never
 * a dependency). Prints a Markdown table (docs/REDACTION.md); exit 0.
 *
 *   npm run build && SECRETLINT_DIR=/tmp/secretlint node dist/bench/probe-tools.js
 */
import { pathToFileURL } from 'node:url';
import { PROBE_SHAPES } from '../eval/secret-shapes.js';
import { seededRandom } from '../shared/prng.js';
import { createRedactor } from '../shared/redact.js';
import { loadSecretlint } from './independent-scan.js';

const PIECE = 12;
const SEED = 38;

/** The four places, as text around the framed secret (the shapes the probe test plants). */
export const PLACES: ReadonlyArray<[string, (framed: string, name: string) => string]> = [
  ['title', (f) => `Deploy ticket PROJ-48213 with these credentials: ${f}`],
  ['error-lead', (f, name) => `Exit code 1\nError: ${name} was refused by the gateway: ${f}\n    at deploy (deploy.sh:12)`],
  ['fix-command', (f, name) => (name === 'mysql-p-password' ? `${f} < db/schema.sql` : `./configure --set ${f}`)],
  ['reply', (f) => `Deployed PROJ-48213. It needed ${f} in the configuration.`],
];

type Ranges = Array<[number, number]>;

function masked(text: string, ranges: Ranges): string {
  const chars = text.split('');
  for (const [a, b] of ranges) for (let i = a; i < b && i < chars.length; i++) chars[i] = '\u0000';
  return chars.join('');
}

function survives(values: readonly string[], text: string): boolean {
  return values.some((v) => v.split('\n').some((line) => {
    if (line.length < PIECE) return text.includes(line);
    for (let i = 0; i + PIECE <= line.length; i++) if (text.includes(line.slice(i, i + PIECE))) return true;
    return false;
  }));
}

async function main(): Promise<void> {
  const ours = createRedactor();
  const secretlint = await loadSecretlint();
  const rnd = seededRandom(SEED);
  const rows: string[] = [];
  const totals = { ours: 0, secretlint: 0, places: 0 };
  for (const shape of PROBE_SHAPES) {
    const { framed, values } = shape.make(rnd);
    let o = 0;
    let s = 0;
    for (const [, place] of PLACES) {
      const text = place(framed, shape.name);
      if (!survives(values, masked(text, ours.findings(text).map((f) => [f.start, f.end])))) o++;
      if (secretlint) {
        const found = await secretlint(text);
        const ranges: Ranges = found.flatMap((f) => {
          const out: Ranges = [];
          for (let at = text.indexOf(f.value); at >= 0; at = text.indexOf(f.value, at + 1)) out.push([at, at + f.value.length]);
          return out;
        });
        if (!survives(values, masked(text, ranges))) s++;
      }
      totals.places++;
    }
    totals.ours += o;
    totals.secretlint += s;
    rows.push(`| ${shape.name} | ${shape.held ? 'before' : 'issue 38'} | ${o}/${PLACES.length} | ${secretlint ? `${s}/${PLACES.length}` : '—'} |`);
  }
  process.stdout.write(
    [
      `| shape | caught since | product | secretlint recommended |`,
      `|---|---|---|---|`,
      ...rows,
      `| **all** | | **${totals.ours}/${totals.places}** | ${secretlint ? `**${totals.secretlint}/${totals.places}**` : '—'} |`,
    ].join('\n') + '\n',
  );
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
