#!/usr/bin/env node
// Mutation check for redaction (issue 22), like scripts/check-gates.mjs for the hook's gates:
// every call that redacts on the way into the store is one line ending in `// redact:<name>`
// (indexer/transcript-file.ts: each transcript record; indexer/indexer.ts: each note's text,
// and each chunk's derived fields as the store keeps them; store/push.ts: each chunk pushed to
// the team store). For each such line this script copies
// the sources into a temp dir (node_modules and .models linked, the checkout never
// modified), replaces the redaction call on that line with its argument (the secret passes
// through), runs the redaction tests there and requires them to FAIL. The unmutated copy must
// pass first. A call whose removal no test notices is reported and the script exits 1.
//
//   node scripts/check-redaction.mjs            # ~1–2 min
//   node scripts/check-redaction.mjs --only note,push
import { spawn } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const onlyArg = args.find((a, i) => args[i - 1] === '--only');
const only = onlyArg ? new Set(onlyArg.split(',')) : null;
const FILES = ['indexer/transcript-file.ts', 'indexer/indexer.ts', 'store/push.ts'];
const TESTS = ['test/indexer/redaction-index.test.ts'];
const LINKED = new Set(['node_modules', '.models', '.git', 'dist']);
const MARK = /\/\/ redact:([\w-]+)\s*$/;
/** The redaction call on a marked line → its argument (the text or record passes unredacted). */
const MUTATIONS = [
  [/(?:this\.)?redactor\.redact(?:Value)?\(([^()]*(?:\([^()]*\))?[^()]*)\)/, '$1'],
  [/redactChunk\((?:this\.)?redactor, (\w+)\)/, '$1'],
  [/\breader\.view\((\w+)\)/, '$1'],
];

const sites = [];
for (const file of FILES) {
  const source = readFileSync(join(root, file), 'utf8');
  const lines = source.split('\n');
  lines.forEach((l, i) => {
    const m = MARK.exec(l);
    if (!m || (only && !only.has(m[1]))) return;
    let mutated = l;
    for (const [re, to] of MUTATIONS) mutated = mutated.replace(re, to);
    if (mutated === l) {
      console.error(`check-redaction: ${file}:${i + 1} is marked redact:${m[1]} but holds no redaction call this script can remove`);
      process.exit(2);
    }
    sites.push({ name: m[1], file, line: i, lines, source, mutated });
  });
}
if (sites.length === 0) {
  console.error('check-redaction: no `// redact:<name>` line found');
  process.exit(2);
}

const work = mkdtempSync(join(tmpdir(), 'ab-check-redaction-'));
for (const name of readdirSync(root)) {
  if (LINKED.has(name)) {
    if (existsSync(join(root, name)) && name !== '.git' && name !== 'dist') symlinkSync(join(root, name), join(work, name), 'dir');
    continue;
  }
  cpSync(join(root, name), join(work, name), { recursive: true });
}
writeFileSync(join(work, 'vitest.config.mjs'), "export default { test: { include: ['test/**/*.test.ts'], testTimeout: 120000, pool: 'forks', maxWorkers: 1 } };\n");

function runTests() {
  return new Promise((done) => {
    const child = spawn(process.execPath, [join(root, 'node_modules', 'vitest', 'vitest.mjs'), 'run', '--config', 'vitest.config.mjs', ...TESTS],
      { cwd: work, env: { ...process.env, CI: 'true' }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += b));
    child.stderr.on('data', (b) => (out += b));
    child.on('close', (code) => {
      const failed = /Tests\s+(\d+) failed/.exec(out.replace(/\x1b\[[0-9;]*m/g, ''));
      done({ ok: code === 0, failed: failed ? Number(failed[1]) : 0, out });
    });
  });
}

const t0 = Date.now();
const base = await runTests();
if (!base.ok) {
  console.error('check-redaction: the tests fail on the unmutated sources; fix them first.\n' + base.out.slice(-3000));
  rmSync(work, { recursive: true, force: true });
  process.exit(2);
}
console.log(`check-redaction: ${sites.length} redaction call(s); tests: ${TESTS.join(' ')}`);
const survivors = [];
for (const s of sites) {
  const lines = [...s.lines];
  lines[s.line] = s.mutated;
  writeFileSync(join(work, s.file), lines.join('\n'));
  const r = await runTests();
  writeFileSync(join(work, s.file), s.source);
  console.log(`  ${r.ok ? 'SURVIVED' : 'killed  '}  redact:${s.name}  (${s.file}:${s.line + 1})${r.ok ? '' : `  (${r.failed} test(s) failed)`}`);
  if (r.ok) survivors.push(s.name);
}
rmSync(work, { recursive: true, force: true });
console.log(`check-redaction: ${sites.length - survivors.length}/${sites.length} redaction calls caught by tests in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
if (survivors.length) {
  console.error(`check-redaction: no test notices removing: ${survivors.join(', ')}`);
  process.exit(1);
}
