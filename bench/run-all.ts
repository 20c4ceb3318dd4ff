/**
 * `npm run bench`: runs every benchmark module (dist/bench/*.bench.js), each in its own
 * process, and rewrites docs/BENCHMARKS.md (and docs/benchmarks.json) with the date, the
 * machine, the model and every figure next to its target.
 *
 *   node dist/bench/run-all.js [--only name,name] [--quick] [--eval-dir DIR] [--no-write]
 *
 * Eval data: --eval-dir, else ACTIVE_BRAIN_EVAL_DIR, else ../shared/eval when present;
 * benchmarks that need it say so and are listed as skipped when it is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync, rmSync, mkdirSync } from 'node:fs';
import { cpus, totalmem, tmpdir, release, platform } from 'node:os';
import { basename, join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { BenchOptions, BenchResult } from './types.js';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean' },
    'eval-dir': { type: 'string' },
    'no-write': { type: 'boolean' },
    /** Run nothing: write docs/BENCHMARKS.md again from docs/benchmarks.json (after a merge). */
    render: { type: 'boolean' },
    help: { type: 'boolean', short: 'h' },
  },
});
if (values.help) {
  process.stdout.write('usage: npm run bench -- [--only name,name] [--quick] [--eval-dir DIR] [--no-write] [--render]\n');
  process.exit(0);
}

function evalDir(): string | null {
  const candidates = [values['eval-dir'], process.env.ACTIVE_BRAIN_EVAL_DIR, join(root, '..', 'shared', 'eval')];
  for (const c of candidates) if (c && existsSync(c)) return resolve(c);
  return null;
}

const modelPath = execFileSync(process.execPath, [join(root, 'scripts', 'build-offline-model.mjs')], { encoding: 'utf8' }).trim();
const benchDir = join(root, 'dist', 'bench');
const only = values.render ? new Set<string>() : values.only ? new Set(values.only.split(',')) : null;
const modules = readdirSync(benchDir)
  .filter((f) => f.endsWith('.bench.js'))
  .filter((f) => !only || only.has(basename(f, '.bench.js')))
  .sort();
const workRoot = mkdtempSync(join(tmpdir(), 'ab-bench-'));
const ev = evalDir();
const results: BenchResult[] = [];
for (const file of modules) {
  const name = basename(file, '.bench.js');
  const workDir = join(workRoot, name);
  mkdirSync(workDir, { recursive: true });
  const opts: BenchOptions = { modelPath, evalDir: ev, workDir, quick: Boolean(values.quick) };
  process.stderr.write(`[bench] ${name} …\n`);
  const t0 = Date.now();
  const r = spawnSync(process.execPath, ['--expose-gc', join(benchDir, 'run-one.js'), join(benchDir, file), JSON.stringify(opts)], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    maxBuffer: 64 * 1024 * 1024,
  });
  const line = (r.stdout ?? '').split('\n').find((l) => l.startsWith('@@BENCH@@'));
  if (r.status !== 0 || !line) {
    results.push({ name, about: '', figures: [], notes: [`FAILED (exit ${r.status}); see stderr above`] });
  } else {
    results.push(JSON.parse(line.slice('@@BENCH@@'.length)) as BenchResult);
  }
  process.stderr.write(`[bench] ${name} done in ${((Date.now() - t0) / 1000).toFixed(1)} s\n`);
}
rmSync(workRoot, { recursive: true, force: true });

// `--only` refreshes some sections: keep the other benchmarks' last results (each says when
// it was measured).
const stamp = new Date().toISOString();
for (const r of results) r.measuredAt = stamp;
if (only && existsSync(join(root, 'docs', 'benchmarks.json'))) {
  try {
    const prev = JSON.parse(readFileSync(join(root, 'docs', 'benchmarks.json'), 'utf8')) as { results: BenchResult[] };
    const fresh = new Set(results.map((r) => r.name));
    results.push(...prev.results.filter((r) => !fresh.has(r.name)));
    results.sort((a, b) => a.name.localeCompare(b.name));
  } catch {
    /* an unreadable previous file: write only this run's results */
  }
}

function fmt(v: number | string): string {
  if (typeof v === 'string') return v;
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 1 ? v.toFixed(2) : v.toFixed(3);
}

const cpu = cpus()[0]?.model ?? 'unknown cpu';
const lines: string[] = [
  '# Benchmarks',
  '',
  'Written by `npm run bench` (bench/run-all.ts); do not edit by hand — rerun it.',
  'Benchmarks, not timed tests: medians and percentiles from one run on a shared, noisy machine;',
  'where a ratio is given, both sides were measured side by side in the same run.',
  '',
  `- Written: ${stamp}${values.render ? ' (re-rendered from docs/benchmarks.json: each section keeps its own date)' : only ? ` (this run: ${[...only].join(', ')}; other sections keep their own date)` : ''}`,
  `- Machine: ${cpus().length} × ${cpu}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, ${platform()} ${release()}, Node ${process.version}`,
  `- Model: offline-glove-sif (100-d, built by \`npm run model:offline\`); MiniLM was not available offline`,
  `- Eval data: ${ev ?? 'absent (benchmarks that need it are skipped)'}`,
  `- Reproduce: \`npm run bench\` (all), \`npm run bench -- --only ${modules.map((m) => basename(m, '.bench.js')).join(',')}\``,
  '',
];
for (const r of results) {
  lines.push(`## ${r.name}`, '');
  if (r.about) lines.push(r.about, '');
  if (r.measuredAt) lines.push(`Measured ${r.measuredAt}.`, '');
  if (r.skipped) lines.push(`Skipped: ${r.skipped}`, '');
  if (r.figures.length) {
    lines.push('| metric | value | target | pass |', '|---|---|---|---|');
    for (const f of r.figures) {
      lines.push(`| ${f.metric} | ${fmt(f.value)}${f.unit ? ' ' + f.unit : ''} | ${f.target ?? ''} | ${f.pass === undefined ? '' : f.pass ? 'yes' : '**no**'} |`);
    }
    lines.push('');
  }
  for (const n of r.notes) lines.push(`- ${n}`);
  if (r.notes.length) lines.push('');
}
const md = lines.join('\n');
if (!values['no-write']) {
  writeFileSync(join(root, 'docs', 'BENCHMARKS.md'), md);
  writeFileSync(join(root, 'docs', 'benchmarks.json'), JSON.stringify({ date: stamp, results }, null, 2) + '\n');
  process.stderr.write('[bench] wrote docs/BENCHMARKS.md and docs/benchmarks.json\n');
} else process.stdout.write(md + '\n');
const failed = results.filter((r) => r.figures.some((f) => f.pass === false) || r.notes.some((n) => n.startsWith('FAILED')));
if (failed.length) process.stderr.write(`[bench] targets missed in: ${failed.map((r) => r.name).join(', ')} (see docs/BENCHMARKS.md, "**no**")\n`);
process.exitCode = failed.length ? 1 : 0;
