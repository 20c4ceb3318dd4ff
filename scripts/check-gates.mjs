#!/usr/bin/env node
// Gate mutation check for the hook: proves that every safety gate in hook/gates.ts is
// guarded by a test. Each gate is one line ending in `// gate:<name>`:
//
//     if (input.killed) return { done: silent('killed') }; // gate:kill
//
// For each such line this script copies the sources into a temp dir (node_modules is
// linked, the checkout is never modified), rewrites that one condition to `false && (…)`
// (the gate can no longer fire), runs the hook's gate tests there and requires them to FAIL.
// The unmutated copy must pass first. A gate whose removal no test notices is reported and
// the script exits 1.
//
//   node scripts/check-gates.mjs                 # in-process gate tests (test/hook/gates.test.ts), ~2–3 min
//   node scripts/check-gates.mjs --contract      # also the spawned-process contract tests (slower)
//   node scripts/check-gates.mjs --only kill,budget
import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const withContract = args.includes('--contract');
const onlyArg = args.find((a, i) => args[i - 1] === '--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const GATES_FILE = join('hook', 'gates.ts');
const TESTS = ['test/hook/gates.test.ts', ...(withContract ? ['test/hook/contract.test.ts'] : [])];
const COPY = ['hook', 'shared', 'config', 'logs-schema', 'test/hook', 'test/helpers/json-schema.ts', 'package.json', 'tsconfig.json'];
const GATE_LINE = /^(\s*)if \((.*)\) return (.*\/\/ gate:([\w-]+))\s*$/;

const source = readFileSync(join(root, GATES_FILE), 'utf8');
const lines = source.split('\n');
const gates = lines.flatMap((l, i) => {
  const m = GATE_LINE.exec(l);
  return m && (!only || only.has(m[4])) ? [{ name: m[4], line: i, m }] : [];
});
const marked = lines.filter((l) => /\/\/ gate:[\w-]+\s*$/.test(l) && !/^\s*(\*|\/\/)/.test(l)).length;
if (!only && gates.length !== marked) {
  console.error(`check-gates: ${marked - gates.length} "// gate:" line(s) do not have the one-line "if (…) return …;" form`);
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'ab-check-gates-'));
for (const p of COPY) if (existsSync(join(root, p))) cpSync(join(root, p), join(work, p), { recursive: true });
symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
writeFileSync(
  join(work, 'vitest.config.mjs'),
  "export default { test: { include: ['test/**/*.test.ts'], testTimeout: 60000, pool: 'forks', maxWorkers: 1 } };\n",
);

function runTests() {
  const r = spawnSync(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.config.mjs', ...TESTS],
    { cwd: work, encoding: 'utf8', env: { ...process.env, CI: 'true' } });
  const failed = /(\d+) failed/.exec(r.stdout + r.stderr);
  return { ok: r.status === 0, failed: failed ? Number(failed[1]) : 0, out: r.stdout + r.stderr };
}

const t0 = Date.now();
const base = runTests();
if (!base.ok) {
  console.error('check-gates: the tests fail on the unmutated sources; fix them first.\n' + base.out.slice(-3000));
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}
console.log(`check-gates: ${gates.length} gates, tests: ${TESTS.join(' ')}`);
const survivors = [];
for (const g of gates) {
  const mutated = [...lines];
  mutated[g.line] = `${g.m[1]}if (false && (${g.m[2]})) return ${g.m[3]}`;
  writeFileSync(join(work, GATES_FILE), mutated.join('\n'));
  const r = runTests();
  console.log(`  ${r.ok ? 'SURVIVED' : 'killed  '}  gate:${g.name}${r.ok ? '' : `  (${r.failed} test(s) failed)`}`);
  if (r.ok) survivors.push(g.name);
}
writeFileSync(join(work, GATES_FILE), source);
rmSync(work, { recursive: true, force: true });
console.log(`check-gates: ${gates.length - survivors.length}/${gates.length} gates caught by tests in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (survivors.length) {
  console.error(`check-gates: no test notices removing: ${survivors.join(', ')}`);
  process.exit(1);
}
