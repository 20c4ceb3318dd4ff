/**
 * Installing as Node users install tools (issue 40): `npm pack` of this checkout, then
 * `npm install -g ./active-brain-*.tgz` into a fresh HOME and prefix — the package holds the
 * built dist/, both bins, the plugin's hook files and the offline-model script, and ships the
 * lockfile as npm-shrinkwrap.json (so the tree is the tested one: sharp 0.33.5, no GitHub
 * download) — then, in a new login shell with only that prefix on PATH, `active-brain setup`
 * and `active-brain doctor` pass (two commands from the tarball to a passing doctor).
 *
 * A host test (slow, it runs the real npm): run with ACTIVE_BRAIN_PACK_TEST=1 (see `wanted`);
 * under CI=true a missing npm fails. What the machine cannot give is stood in for, nothing else: no internet but
 * the npm registry — the registry tarballs come from a copy of this user's npm cache
 * (--prefer-offline), better-sqlite3's prebuilt binary from the one already built here (what
 * prebuild-install would download from GitHub), the Node headers from this user's nodedir (a
 * fresh HOME loses ~/.npmrc); no network for the model (the offline model, by
 * ACTIVE_BRAIN_MODEL_PATH); no systemd user bus (a systemctl that says so).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { pastFixSession } from '../indexer/transcript-fixture.js';

const npmOk = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
if (!npmOk && process.env.CI === 'true') throw new Error('npm-pack host test cannot run in CI: npm is not on PATH');
/** Opt in: on a machine whose only network is the npm registry the install stops at sharp 0.32
 *  (a dependency of @xenova/transformers: "overrides" do not reach an installed package's
 *  tree, and its install script downloads libvips from GitHub) — see docs/SETUP.md "npm". */
const wanted = process.env.ACTIVE_BRAIN_PACK_TEST === '1';

const tmp = mkdtempSync(join(tmpdir(), 'ab-npm-pack-'));
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(tmp, { recursive: true, force: true });
});

const npmConfig = (key: string) => spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout.trim();

describe.skipIf(!npmOk || !wanted)('npm pack → npm install -g on a fresh HOME', () => {
  it('installs both bins and the built package; setup then doctor pass', () => {
    // 1. the package, as `npm publish` would upload it
    const packDir = join(tmp, 'pack');
    mkdirSync(packDir);
    const pack = spawnSync('npm', ['pack', '--pack-destination', packDir, '--json'], { cwd: repoRoot, encoding: 'utf8', timeout: 120_000 });
    expect(pack.status, pack.stderr).toBe(0);
    const [info] = JSON.parse(pack.stdout.slice(pack.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info.files.map((f) => f.path);
    for (const f of ['bin/active-brain.js', 'bin/active-brain-hook.js', 'bin/active-brain-hook.cjs', 'dist/cli/main.js', 'dist/hook.bundle.cjs', 'hooks/hooks.json', 'scripts/build-offline-model.mjs', 'npm-shrinkwrap.json', '.claude-plugin/plugin.json']) expect(files, f).toContain(f);
    expect(files.some((f) => f.startsWith('test/') || f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
    expect(existsSync(join(repoRoot, 'npm-shrinkwrap.json'))).toBe(false); // postpack removed it
    const tgz = join(packDir, info.filename);

    // 2. what stands in for the internet (see the header)
    const cache = join(tmp, 'npm-cache');
    cpSync(npmConfig('cache'), cache, { recursive: true });
    const prebuilds = join(tmp, 'prebuilds');
    mkdirSync(join(prebuilds, 'build', 'Release'), { recursive: true });
    cpSync(join(repoRoot, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(prebuilds, 'build', 'Release', 'better_sqlite3.node'));
    const sqliteVersion = (JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
    execFileSync('tar', ['czf', join(prebuilds, `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`), '-C', prebuilds, 'build']);
    const nodedir = npmConfig('nodedir');
    const home = join(tmp, 'home');
    const prefix = join(tmp, 'prefix');
    mkdirSync(home);
    const bin = join(tmp, 'stub-bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n', { mode: 0o755 });
    const basePath = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules')).join(delimiter);

    // 3. `npm install -g ./active-brain-*.tgz`, in a fresh HOME
    const install = spawnSync('npm', ['install', '-g', '--prefix', prefix, '--cache', cache, '--prefer-offline', '--no-audit', '--no-fund', ...(nodedir && nodedir !== 'undefined' ? [`--nodedir=${nodedir}`] : []), tgz], {
      // A fresh HOME (no ~/.npmrc); the machine's own CA and proxy settings kept.
      env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_'))), PATH: basePath, HOME: home, npm_config_better_sqlite3_local_prebuilds: prebuilds },
      cwd: home, encoding: 'utf8', timeout: 240_000,
    });
    expect(install.status, install.stdout + install.stderr).toBe(0);
    const pkg = join(prefix, 'lib', 'node_modules', 'active-brain');
    for (const f of ['dist/cli/main.js', 'scripts/build-offline-model.mjs', 'hooks/hook.bundle.cjs']) expect(existsSync(join(pkg, f)), f).toBe(true);
    expect(readdirSync(join(prefix, 'bin')).sort()).toEqual(['active-brain', 'active-brain-hook']);
    const sharp = JSON.parse(readFileSync(join(pkg, 'node_modules', 'sharp', 'package.json'), 'utf8')) as { version: string };
    expect(sharp.version).toBe('0.33.5'); // the shrinkwrap's tree, not a fresh resolution

    // 4. a new login shell: the prefix's bin on PATH; a user with Claude Code history
    const projects = join(home, '.claude', 'projects', '-home-dev-api');
    mkdirSync(projects, { recursive: true });
    for (const b of [pastFixSession(), pastFixSession()]) writeFileSync(join(projects, `${b.sessionId}.jsonl`), b.text());
    const shellEnv = { PATH: [bin, join(prefix, 'bin'), basePath].join(delimiter), HOME: home, LANG: 'C.UTF-8' };
    const run = (args: string[], extra: Record<string, string> = {}) => spawnSync('active-brain', args, { env: { ...shellEnv, ...extra }, cwd: home, encoding: 'utf8', timeout: 120_000 });
    const setup = run(['setup'], { ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() });
    expect(setup.status, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain('set up.');
    const status = JSON.parse(run(['status', '--json']).stdout) as { running: boolean; pid: number };
    if (status.pid) pids.push(status.pid);
    expect(status.running).toBe(true);
    const doctor = run(['doctor', '--json']);
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; pass: boolean }>; pass: boolean };
    expect(report.checks.filter((c) => !c.pass), doctor.stdout).toEqual([]);
    expect(doctor.status).toBe(0);
    // the hook registered is the installed package's own
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toContain(join(pkg, 'bin', 'active-brain-hook'));
    run(['stop']);
  }, 420_000);
});
