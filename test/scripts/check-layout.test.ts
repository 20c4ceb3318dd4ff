/**
 * scripts/check-layout.mjs on fixture trees (real files, the real script in a child process):
 * a README whose layout table lists the folders in the enforced order with what each imports
 * passes; a wrong order, a stale imports column, or missing markers each fail naming what
 * differs; --write regenerates the table (keeping the prose) so the check passes again. And
 * this checkout passes (what CI runs).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/check-layout.mjs');
const LAYERS = 'cli,store,shared';
const dirs: string[] = [];

const CODE = {
  'cli/main.ts': `import { open } from '../store/open.js';\nimport { clamp } from '../shared/math.js';\nexport const main = () => open(clamp(1));\n`,
  'store/open.ts': `import type { N } from '../shared/math.js';\nexport const open = (n: N) => n;\n`,
  'shared/math.ts': `export type N = number;\nexport const clamp = (x: number) => Math.max(0, x);\n`,
};

const table = (rows: string[]) => `# x\n\n<!-- layout:start -->\n| folder | what it holds | imports (from the code) |\n| --- | --- | --- |\n${rows.join('\n')}\n<!-- layout:end -->\n\nmore text\n`;
const GOOD = table([
  '| `cli/` | commands | store, shared |',
  '| `store/` | the store | shared |',
  '| `shared/` | helpers | nothing |',
]);

function tree(readme: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'ab-layout-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries({ ...CODE, 'README.md': readme })) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function run(root: string | null, ...extra: string[]): { status: number | null; out: string; err: string } {
  const args = root ? ['--root', root, '--layers', LAYERS, ...extra] : extra;
  const r = spawnSync(process.execPath, [SCRIPT, ...args], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('check-layout', () => {
  it('passes a table in the enforced order whose imports match the code (type-only imports count)', () => {
    const r = run(tree(GOOD));
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/matches the code \(3 folders/);
  });

  it('fails when the folders are out of order, naming both orders', () => {
    const r = run(tree(table(['| `store/` | the store | shared |', '| `cli/` | commands | store, shared |', '| `shared/` | helpers | nothing |'])));
    expect(r.status).toBe(1);
    expect(r.err).toContain('the table lists store > cli > shared; the order enforced is cli > store > shared');
  });

  it('fails on a stale imports column, naming the folder and what the code imports; --write mends it and keeps the prose', () => {
    const dir = tree(GOOD.replace('| `store/` | the store | shared |', '| `store/` | the store | nothing |'));
    const r = run(dir);
    expect(r.status).toBe(1);
    expect(r.err).toContain('store/: the table says it imports "nothing"; the code imports shared');
    expect(run(dir, '--write').status).toBe(0);
    const text = readFileSync(join(dir, 'README.md'), 'utf8');
    expect(text).toContain('| `store/` | the store | shared |');
    expect(text).toContain('more text');
    expect(run(dir).status).toBe(0);
  });

  it('fails when a folder is missing from the table', () => {
    const r = run(tree(table(['| `cli/` | commands | store, shared |', '| `shared/` | helpers | nothing |'])));
    expect(r.status).toBe(1);
    expect(r.err).toContain('the table lists cli > shared');
  });

  it('fails when the README has no table markers', () => {
    const r = run(tree('# x\n\nno table\n'));
    expect(r.status).toBe(1);
    expect(r.err).toContain('no layout table');
  });

  it('passes on this checkout (what CI runs)', () => {
    const r = run(null);
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
  });
});
