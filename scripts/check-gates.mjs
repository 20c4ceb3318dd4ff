#!/usr/bin/env node
// Gate mutation check for the hook: proves that every safety gate in hook/gates.ts (the
// prelude and the prompt channel), hook/tool-gates.ts (the tool channel) and shared/fix-choice.ts
// (which Past fix of a fixes file, for the hook and the daemon) is guarded by a
// test. Each gate is one line ending in `// gate:<name>` (names unique across both files):
//
//     if (input.killed) return { done: silent('killed') }; // gate:kill
//
// For each such line this script copies the sources into a temp dir (node_modules is
// linked, the checkout is never modified), rewrites that one condition to `false && (…)`
// (the gate can no longer fire), runs the hook's gate tests there and requires them to FAIL.
// The tests run for a gate are those of its file (GATE_FILES): the prelude in hook/gates.ts
// serves both channels, so its mutations run both test files. The unmutated copy must pass
// first. A gate whose removal no test notices is reported and the script exits 1.
//
//   node scripts/check-gates.mjs                 # in-process gate tests, ~10–15 min on a shared 2-core machine
//   node scripts/check-gates.mjs --contract      # also the spawned-process contract tests (slower)
//   node scripts/check-gates.mjs --only kill,budget
import { spawn } from 'node:child_process';
import { cpus } from 'node:os';
import { cpSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const withContract = args.includes('--contract');
const onlyArg = args.find((a, i) => args[i - 1] === '--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const CONTRACT = withContract ? ['test/hook/contract.test.ts'] : [];
/** Each file with gates, and the tests that must notice one of its gates gone. */
const GATE_FILES = [
  { file: join('hook', 'gates.ts'), tests: ['test/hook/gates.test.ts', 'test/hook/tool-gates.test.ts', ...CONTRACT] },
  { file: join('hook', 'tool-gates.ts'), tests: ['test/hook/tool-gates.test.ts'] },
  { file: join('shared', 'fix-choice.ts'), tests: ['test/hook/tool-gates.test.ts', 'test/shared/fix-choice.test.ts'] },
];
const ALL_TESTS = [...new Set(GATE_FILES.flatMap((f) => f.tests))];
const COPY = ['hook', 'shared', 'config', 'logs-schema', 'test/hook', 'test/shared/fix-choice.test.ts', 'test/helpers/json-schema.ts', 'package.json', 'tsconfig.json'];
const GATE_LINE = /^(\s*)if \((.*)\) return (.*\/\/ gate:([\w-]+))\s*$/;

const sources = GATE_FILES.map((f) => ({ ...f, source: readFileSync(join(root, f.file), 'utf8') }));
const gates = [];
for (const f of sources) {
  const lines = f.source.split('\n');
  const found = lines.flatMap((l, i) => {
    const m = GATE_LINE.exec(l);
    return m ? [{ name: m[4], line: i, m, file: f.file, lines, tests: f.tests, source: f.source }] : [];
  });
  const marked = lines.filter((l) => /\/\/ gate:[\w-]+\s*$/.test(l) && !/^\s*(\*|\/\/)/.test(l)).length;
  if (found.length !== marked) {
    console.error(`check-gates: ${marked - found.length} "// gate:" line(s) in ${f.file} do not have the one-line "if (…) return …;" form`);
    process.exit(2);
  }
  gates.push(...found.filter((g) => !only || only.has(g.name)));
}
const names = gates.map((g) => g.name);
const dup = names.filter((n, i) => names.indexOf(n) !== i);
if (dup.length) {
  console.error(`check-gates: gate names used twice: ${[...new Set(dup)].join(', ')}`);
  process.exit(2);
}

// One copy of the sources per worker: mutations run side by side, one per core (at most
// WORKERS), each in its own copy, so no run sees another's mutated line.
const WORKERS = Math.max(1, Math.min(cpus().length, Number(process.env.CHECK_GATES_WORKERS) || 2));
function makeWork() {
  const work = mkdtempSync(join(tmpdir(), 'ab-check-gates-'));
  for (const p of COPY) if (existsSync(join(root, p))) cpSync(join(root, p), join(work, p), { recursive: true });
  symlinkSync(join(root, 'node_modules'), join(work, 'node_modules'), 'dir');
  writeFileSync(
    join(work, 'vitest.config.mjs'),
    "export default { test: { include: ['test/**/*.test.ts'], testTimeout: 60000, pool: 'forks', maxWorkers: 1 } };\n",
  );
  return work;
}
const works = Array.from({ length: WORKERS }, makeWork);

function runTests(work, tests) {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.config.mjs', ...tests],
      { cwd: work, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    child.on('close', (code) => {
      // The tests line ("Tests  3 failed | 60 passed"), not the test files line above it.
      const failed = /Tests\s+(\d+) failed/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
      done({ ok: code === 0, failed: failed ? Number(failed[1]) : 0, out });
    });
  });
}

const t0 = Date.now();
const base = await runTests(works[0], ALL_TESTS);
if (!base.ok) {
  console.error('check-gates: the tests fail on the unmutated sources; fix them first.\n' + base.out.slice(-3000));
  for (const w of works) rmSync(w, { recursive: true, force: true });
  process.exit(2);
}
console.log(`check-gates: ${gates.length} gates in ${GATE_FILES.map((f) => f.file).join(', ')}; tests: ${ALL_TESTS.join(' ')}; ${WORKERS} at a time`);
const survivors = [];
let next = 0;
await Promise.all(works.map(async (work) => {
  while (next < gates.length) {
    const g = gates[next++];
    const mutated = [...g.lines];
    mutated[g.line] = `${g.m[1]}if (false && (${g.m[2]})) return ${g.m[3]}`;
    writeFileSync(join(work, g.file), mutated.join('\n'));
    const r = await runTests(work, g.tests);
    writeFileSync(join(work, g.file), g.source);
    console.log(`  ${r.ok ? 'SURVIVED' : 'killed  '}  gate:${g.name}${r.ok ? '' : `  (${r.failed} test(s) failed)`}`);
    if (r.ok) survivors.push(g.name);
  }
}));
for (const w of works) rmSync(w, { recursive: true, force: true });
console.log(`check-gates: ${gates.length - survivors.length}/${gates.length} gates caught by tests in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (survivors.length) {
  console.error(`check-gates: no test notices removing: ${survivors.join(', ')}`);
  process.exit(1);
}
