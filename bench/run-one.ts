/**
 * Runs one benchmark module in its own process (so memory and CPU figures are its own) and
 * prints its BenchResult as one JSON line on stdout. Used by bench/run-all.ts.
 *   node dist/bench/run-one.js <module.bench.js> <options JSON>
 */
import { pathToFileURL } from 'node:url';
import type { BenchOptions, BenchResult } from './types.js';

const [modulePath, optsJson] = process.argv.slice(2);
const mod = (await import(pathToFileURL(modulePath).href)) as { run: (o: BenchOptions) => Promise<BenchResult> };
const result = await mod.run(JSON.parse(optsJson) as BenchOptions);
process.stdout.write('\n@@BENCH@@' + JSON.stringify(result) + '\n');
process.exit(0);
