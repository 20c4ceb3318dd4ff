/**
 * scripts/check-imports.mjs on fixture trees (real files, the real script in a child process):
 * a clean layered tree passes; a cycle, an upward import and a folder missing from the order
 * each fail with a message naming the files; type-only imports make no cycle. And this
 * checkout passes (what CI runs).
 */
import { describe, it, expect, afterEach } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '../..');
const SCRIPT = join(ROOT, 'scripts/check-imports.mjs');
const dirs: string[] = [];

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'ab-imports-'));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

function check(root?: string): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [SCRIPT, ...(root ? ['--root', root] : [])], { encoding: 'utf8', cwd: ROOT });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

/** A small tree whose arrows all point down: cli → store → shared, and a test/ importing cli. */
const CLEAN = {
  'cli/main.ts': `import { open } from '../store/open.js';\nexport const main = () => open();\n`,
  'store/open.ts': `import { clamp } from '../shared/math.js';\nimport type { Row } from './types.js';\nexport const open = (): Row => ({ n: clamp(1) });\n`,
  'store/types.ts': `export interface Row { n: number }\n`,
  'shared/math.ts': `export const clamp = (x: number) => Math.max(0, x);\n`,
  'test/cli.test.ts': `import { main } from '../cli/main.js';\nmain();\n`,
};

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

describe('check-imports', () => {
  it('passes a clean layered tree', () => {
    const r = check(tree(CLEAN));
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
    expect(r.out).toMatch(/no cycle, every import points down/);
  });

  it('fails on a cycle and names every file in it', () => {
    const r = check(tree({
      ...CLEAN,
      'store/reader.ts': `import { pg } from './pg-reader.js';\nexport const sqlite = () => pg;\n`,
      'store/pg-reader.ts': `import { sqlite } from './reader.js';\nexport const pg = () => sqlite;\n`,
    }));
    expect(r.status).toBe(1);
    expect(r.err).toContain('import cycle: store/pg-reader.ts → store/reader.ts → store/pg-reader.ts');
  });

  it('finds a cycle through a re-export and a dynamic import', () => {
    const r = check(tree({
      ...CLEAN,
      'store/a.ts': `export { b } from './b.js';\n`,
      'store/b.ts': `export const b = () => import('./c.js');\n`,
      'store/c.ts': `import './a.js';\n`,
    }));
    expect(r.status).toBe(1);
    expect(r.err).toContain('import cycle: store/a.ts → store/b.ts → store/c.ts → store/a.ts');
  });

  it('type-only imports make no cycle', () => {
    const r = check(tree({
      ...CLEAN,
      'store/reader.ts': `import type { Pg } from './pg-reader.js';\nexport interface Sqlite { pg?: Pg }\n`,
      'store/pg-reader.ts': `import { type Sqlite } from './reader.js';\nexport interface Pg { s?: Sqlite }\nexport const x = 1;\n`,
    }));
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
  });

  it('fails on an import that points up (eval → cli, daemon → ops), naming both files', () => {
    const r = check(tree({
      ...CLEAN,
      'eval/run.ts': `import { main } from '../cli/main.js';\nexport const run = main;\n`,
      'ops/soak.ts': `export const soak = 1;\n`,
      'daemon/main.ts': `import type { X } from '../ops/types.js';\nimport { soak } from '../ops/soak.js';\nexport const d: X | number = soak;\n`,
      'ops/types.ts': `export type X = string;\n`,
    }));
    expect(r.status).toBe(1);
    expect(r.err).toContain('wrong-way import: eval/run.ts imports cli/main.ts');
    expect(r.err).toContain('wrong-way import: daemon/main.ts imports ops/soak.ts');
    // Type-only imports count for the folder order.
    expect(r.err).toContain('wrong-way import: daemon/main.ts imports ops/types.ts');
    expect(r.err).toMatch(/folder order, top first: cli > eval > ops > daemon/);
  });

  it('fails on a folder missing from the declared order', () => {
    const r = check(tree({ ...CLEAN, 'widgets/w.ts': `export const w = 1;\n` }));
    expect(r.status).toBe(1);
    expect(r.err).toContain('folder widgets/ is not in the declared order');
  });

  it('passes on this checkout (what CI runs)', () => {
    const r = check();
    expect(r.err).toBe('');
    expect(r.status).toBe(0);
  });
});
