/**
 * The committed plugin bundles (hooks/hook.bundle.cjs, the tool channel's
 * hooks/hook-tool.bundle.cjs, hooks/session-start.bundle.cjs) are what
 * a plugin copy installed by Claude Code runs (a copy of the git tree: no dist/, no
 * node_modules/). They must equal a fresh build of the current source, byte for byte
 * (scripts/bundles.mjs, the options dist/ uses); when this fails, run `npm run build:plugin` and
 * commit hooks/*.bundle.cjs. They must need nothing outside Node: loaded from a folder with no
 * node_modules anywhere above it.
 */
import { describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { TOOL_BUNDLE_FILE } from '../../hook/tool-bundle.js';

interface BundleSpec { entry: string; dist: string; committed: string }
const { BUNDLES, bundle } = (await import(join(repoRoot, 'scripts', 'bundles.mjs'))) as {
  BUNDLES: Record<string, BundleSpec>;
  bundle: (root: string, name: string, outfile: string) => Promise<void>;
};

describe('committed plugin bundles', () => {
  it('equal a fresh build of the source, byte for byte (else: npm run build:plugin, and commit)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-bundles-'));
    try {
      for (const [name, spec] of Object.entries(BUNDLES)) {
        const fresh = join(dir, spec.dist);
        await bundle(repoRoot, name, fresh);
        const committed = readFileSync(join(repoRoot, spec.committed));
        expect(committed.equals(readFileSync(fresh)), `${spec.committed} differs from a fresh build of ${spec.entry}: run npm run build:plugin and commit it`).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the tool channel\'s bundle is written beside the hook\'s under the name the hook requires it by (hook/tool-bundle.ts)', () => {
    expect(BUNDLES.hookTool.dist).toBe(TOOL_BUNDLE_FILE);
    expect(BUNDLES.hookTool.committed).toBe(join('hooks', TOOL_BUNDLE_FILE));
    expect(BUNDLES.hook.committed).toBe(join('hooks', BUNDLES.hook.dist));
  });

  it('load with nothing but Node (no node_modules above them); control: a bundle that requires a package fails there', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-bundles-alone-'));
    try {
      for (const spec of Object.values(BUNDLES)) {
        const p = join(dir, spec.dist);
        copyFileSync(join(repoRoot, spec.committed), p);
        const r = spawnSync(process.execPath, ['-e', `const m = require(${JSON.stringify(p)}); process.stdout.write(typeof m)`], { cwd: dir, encoding: 'utf8', input: '' , env: { PATH: process.env.PATH, HOME: dir, ACTIVE_BRAIN_HOME: join(dir, 'home'), ACTIVE_BRAIN_AUTOSTART: '0' } });
        expect(r.stderr, spec.committed).toBe('');
        expect(r.status, spec.committed).toBe(0);
      }
      const bad = spawnSync(process.execPath, ['-e', `require('proper-lockfile')`], { cwd: dir, encoding: 'utf8' });
      expect(bad.status).not.toBe(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
