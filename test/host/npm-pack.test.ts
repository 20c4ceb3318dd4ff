/**
 * Installing as Node users install tools (issue 40): `npm pack` of this checkout, then
 * `npm install -g ./active-brain-*.tgz` into a fresh HOME and prefix — the package holds the
 * built dist/, both bins, the plugin's hook files and the offline-model script, and bundles
 * @xenova/transformers with its dependencies as installed here (so sharp is 0.33.5, whose
 * install downloads nothing, not the ^0.32 a fresh resolution gives, whose install downloads
 * libvips from GitHub) — then, in a new login shell with only that prefix on PATH,
 * `active-brain setup` and `active-brain doctor` pass (two commands from the tarball to a
 * passing doctor). scripts/pack-lock.mjs refuses to pack a tree it cannot bundle (tested here
 * without the opt-in, with its control).
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
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { createServer, request as httpRequest, type Server } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { AddressInfo } from 'node:net';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join, relative } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { pastFixSession } from '../indexer/transcript-fixture.js';

const npmOk = spawnSync('npm', ['--version'], { encoding: 'utf8' }).status === 0;
if (!npmOk && process.env.CI === 'true') throw new Error('npm-pack host test cannot run in CI: npm is not on PATH');
/** Opt in: it packs (≈ 75 MB, the bundle) and installs for minutes — see docs/SETUP.md "npm". */
const wanted = process.env.ACTIVE_BRAIN_PACK_TEST === '1';

const tmp = mkdtempSync(join(tmpdir(), 'ab-npm-pack-'));
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(tmp, { recursive: true, force: true });
});

/** The sharp this checkout installs (package.json "overrides"): the one the package must carry. */
const sharpOverride = (JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')) as { overrides: Record<string, string> }).overrides.sharp;

const npmConfig = (key: string) => spawnSync('npm', ['config', 'get', key], { encoding: 'utf8' }).stdout.trim();

/** The package, as `npm publish` would upload it (packed once for both installs). */
type Packed = { tgz: string; files: string[]; bundled: string[] };
let packed: Packed | undefined;
function pack(): Packed {
  if (packed) return packed;
  const packDir = join(tmp, 'pack');
  mkdirSync(packDir, { recursive: true });
  const r = spawnSync('npm', ['pack', '--pack-destination', packDir, '--json'], { cwd: repoRoot, encoding: 'utf8', timeout: 300_000 });
  expect(r.status, r.stderr).toBe(0);
  const [info] = JSON.parse(r.stdout.slice(r.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }>; bundled: string[] }>;
  packed = { tgz: join(packDir, info.filename), files: info.files.map((f) => f.path), bundled: info.bundled };
  return packed;
}

/** What stands in for the internet (see the header), made once. */
type StandIns = { cache: string; prebuilds: string; nodedir: string[]; basePath: string; bin: string };
let standIns: StandIns | undefined;
function internet(): StandIns {
  if (standIns) return standIns;
  const cache = join(tmp, 'npm-cache');
  cpSync(npmConfig('cache'), cache, { recursive: true });
  const prebuilds = join(tmp, 'prebuilds');
  mkdirSync(join(prebuilds, 'build', 'Release'), { recursive: true });
  cpSync(join(repoRoot, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node'), join(prebuilds, 'build', 'Release', 'better_sqlite3.node'));
  const sqliteVersion = (JSON.parse(readFileSync(join(repoRoot, 'node_modules', 'better-sqlite3', 'package.json'), 'utf8')) as { version: string }).version;
  execFileSync('tar', ['czf', join(prebuilds, `better-sqlite3-v${sqliteVersion}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`), '-C', prebuilds, 'build']);
  const nodedir = npmConfig('nodedir');
  const bin = join(tmp, 'stub-bin');
  mkdirSync(bin, { recursive: true });
  writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n', { mode: 0o755 });
  const basePath = (process.env.PATH ?? '').split(delimiter).filter((d) => !d.includes('node_modules')).join(delimiter);
  standIns = { cache, prebuilds, nodedir: nodedir && nodedir !== 'undefined' ? [`--nodedir=${nodedir}`] : [], basePath, bin };
  return standIns;
}

/** `npm install -g ARGS` into a fresh HOME and prefix (no ~/.npmrc; the machine's CA and proxy settings kept). */
async function installGlobal(name: string, args: string[]): Promise<{ home: string; prefix: string; pkg: string; status: number | null; output: string }> {
  const { cache, prebuilds, nodedir, basePath } = internet();
  const home = join(tmp, name, 'home');
  const prefix = join(tmp, name, 'prefix');
  mkdirSync(home, { recursive: true });
  const child = spawn('npm', ['install', '-g', '--prefix', prefix, '--cache', cache, '--prefer-offline', '--no-audit', '--no-fund', ...nodedir, ...args], {
    env: { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.toLowerCase().startsWith('npm_'))), PATH: basePath, HOME: home, npm_config_better_sqlite3_local_prebuilds: prebuilds },
    cwd: home, stdio: ['ignore', 'pipe', 'pipe'], timeout: 300_000,
  });
  let output = '';
  child.stdout.on('data', (d: Buffer) => { output += d.toString(); });
  child.stderr.on('data', (d: Buffer) => { output += d.toString(); });
  const [status] = (await once(child, 'close')) as [number | null];
  return { home, prefix, pkg: join(prefix, 'lib', 'node_modules', 'active-brain'), status, output };
}

/** Name → version of every package installed under `dir`/node_modules (nested ones by location). */
function installedVersions(dir: string): Map<string, string> {
  const found = new Map<string, string>();
  const walk = (modules: string) => {
    if (!existsSync(modules)) return;
    for (const entry of readdirSync(modules)) {
      if (entry.startsWith('.')) continue;
      const names = entry.startsWith('@') ? readdirSync(join(modules, entry)).map((n) => `${entry}/${n}`) : [entry];
      for (const n of names) {
        const file = join(modules, n, 'package.json');
        if (!existsSync(file)) continue;
        found.set(relative(dir, join(modules, n)), (JSON.parse(readFileSync(file, 'utf8')) as { version: string }).version);
        walk(join(modules, n, 'node_modules'));
      }
    }
  };
  walk(join(dir, 'node_modules'));
  return found;
}

/**
 * The registry after `npm publish`, on 127.0.0.1: it serves the packed tarball as the package,
 * with `_hasShrinkwrap` as the registry sets it (the tarball holds npm-shrinkwrap.json), and
 * passes every other request on to the registry this user has configured.
 */
async function publishedRegistry(p: Packed): Promise<{ url: string; server: Server }> {
  const upstream = new URL(npmConfig('registry'));
  const pkg = JSON.parse(execFileSync('tar', ['xzOf', p.tgz, 'package/package.json'], { encoding: 'utf8' })) as { name: string; version: string };
  const data = readFileSync(p.tgz);
  const tarballPath = `/${pkg.name}/-/${pkg.name}-${pkg.version}.tgz`;
  let url = '';
  const server = createServer((req, res) => {
    if (req.url === `/${pkg.name}`) {
      const dist = { tarball: `${url}${tarballPath}`, integrity: `sha512-${createHash('sha512').update(data).digest('base64')}` };
      const version = { ...pkg, _id: `${pkg.name}@${pkg.version}`, _hasShrinkwrap: p.files.includes('npm-shrinkwrap.json'), dist };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ name: pkg.name, 'dist-tags': { latest: pkg.version }, versions: { [pkg.version]: version } }));
      return;
    }
    if (req.url === tarballPath) {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      res.end(data);
      return;
    }
    const target = new URL(`${upstream.pathname.replace(/\/$/, '')}${req.url ?? '/'}`, upstream);
    const request = target.protocol === 'https:' ? httpsRequest : httpRequest;
    const up = request(target, { headers: { accept: req.headers.accept ?? '*/*' } }, (r) => {
      res.writeHead(r.statusCode ?? 502, { 'content-type': r.headers['content-type'] ?? 'application/octet-stream' });
      r.pipe(res);
    });
    up.on('error', (e) => { res.writeHead(502); res.end(String(e)); });
    up.end();
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, server };
}

describe.skipIf(!npmOk || !wanted)('npm pack → npm install -g on a fresh HOME', () => {
  it('from the tarball: installs both bins and the built package; setup then doctor pass', async () => {
    // 1. the package, as `npm publish` would upload it
    const { tgz, files, bundled } = pack();
    for (const f of ['bin/active-brain.js', 'bin/active-brain-hook.js', 'bin/active-brain-hook.cjs', 'dist/cli/main.js', 'dist/hook.bundle.cjs', 'hooks/hooks.json', 'scripts/build-offline-model.mjs', 'npm-shrinkwrap.json', '.claude-plugin/plugin.json', 'node_modules/@xenova/transformers/package.json', 'node_modules/sharp/package.json']) expect(files, f).toContain(f);
    for (const b of ['@xenova/transformers', 'sharp', 'onnxruntime-node', '@huggingface/jinja']) expect(bundled, b).toContain(b);
    const own = files.filter((f) => !f.startsWith('node_modules/'));
    expect(own.some((f) => f.startsWith('test/') || f.endsWith('.ts') && !f.endsWith('.d.ts'))).toBe(false);
    expect(existsSync(join(repoRoot, 'npm-shrinkwrap.json'))).toBe(false); // postpack removed it

    // 2. `npm install -g ./active-brain-*.tgz`, in a fresh HOME (npm reads no shrinkwrap from a local tarball)
    const { home, prefix, pkg, status, output } = await installGlobal('from-tarball', [tgz]);
    expect(status, output).toBe(0);
    for (const f of ['dist/cli/main.js', 'scripts/build-offline-model.mjs', 'hooks/hook.bundle.cjs']) expect(existsSync(join(pkg, f)), f).toBe(true);
    expect(readdirSync(join(prefix, 'bin')).sort()).toEqual(['active-brain', 'active-brain-hook']);
    expect(installedVersions(pkg).get('node_modules/sharp')).toBe(sharpOverride); // the bundled tree, not a fresh resolution (^0.32)

    // 3. a new login shell: the prefix's bin on PATH; a user with Claude Code history
    const { bin, basePath } = internet();
    const projects = join(home, '.claude', 'projects', '-home-dev-api');
    mkdirSync(projects, { recursive: true });
    for (const b of [pastFixSession(), pastFixSession()]) writeFileSync(join(projects, `${b.sessionId}.jsonl`), b.text());
    const shellEnv = { PATH: [bin, join(prefix, 'bin'), basePath].join(delimiter), HOME: home, LANG: 'C.UTF-8' };
    const run = (args: string[], extra: Record<string, string> = {}) => spawnSync('active-brain', args, { env: { ...shellEnv, ...extra }, cwd: home, encoding: 'utf8', timeout: 120_000 });
    const setup = run(['setup'], { ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() });
    expect(setup.status, setup.stdout + setup.stderr).toBe(0);
    expect(setup.stdout).toContain('set up.');
    const daemon = JSON.parse(run(['status', '--json']).stdout) as { running: boolean; pid: number };
    if (daemon.pid) pids.push(daemon.pid);
    expect(daemon.running).toBe(true);
    const doctor = run(['doctor', '--json']);
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; pass: boolean }>; pass: boolean };
    expect(report.checks.filter((c) => !c.pass), doctor.stdout).toEqual([]);
    expect(doctor.status).toBe(0);
    // the hook registered is the installed package's own
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toContain(join(pkg, 'bin', 'active-brain-hook'));
    run(['stop']);
  }, 600_000);

  it('from the registry (`npm install -g active-brain`): the shrinkwrap\'s versions, the bundle, no development packages', async () => {
    const packedNow = pack();
    const { url, server } = await publishedRegistry(packedNow);
    try {
      const { pkg, status, output } = await installGlobal('from-registry', ['--registry', url, 'active-brain']);
      expect(status, output).toBe(0);
      const installed = installedVersions(pkg);
      expect(installed.get('node_modules/sharp')).toBe(sharpOverride);
      // every package installed is at the lockfile's version, and every one it needs (not optional) is there …
      const lock = JSON.parse(readFileSync(join(repoRoot, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string; dev?: boolean; optional?: boolean }> };
      const differ = [...installed].filter(([loc, version]) => lock.packages[loc] && lock.packages[loc].version !== version);
      expect(differ).toEqual([]);
      const missing = Object.entries(lock.packages).filter(([loc, e]) => loc && !e.dev && !e.optional && !installed.has(loc));
      expect(missing.map(([loc]) => loc)).toEqual([]);
      // … and no package only development needs (vitest, esbuild, typescript)
      const devOnly = [...installed.keys()].filter((loc) => lock.packages[loc]?.dev);
      expect(devOnly).toEqual([]);
    } finally {
      server.close();
    }
  }, 600_000);
});

describe('scripts/pack-lock.mjs (prepack) packs only a tree it can bundle', () => {
  // A package laid out like this one: the script, a package.json that bundles `a` and
  // overrides `b`, a lockfile; each case gives it another node_modules.
  const lockfile = {
    name: 'p', lockfileVersion: 3, requires: true,
    packages: {
      '': { name: 'p', version: '1.0.0', bundleDependencies: ['a'], dependencies: { a: '1.0.0' }, devDependencies: { d: '3.0.0' } },
      'node_modules/a': { version: '1.0.0', inBundle: true, dependencies: { b: '^1.0.0' } },
      'node_modules/b': { version: '2.0.0', inBundle: true },
      'node_modules/d': { version: '3.0.0', dev: true },
    },
  };
  const lay = (name: string, modules: Record<string, string> | 'link' | null) => {
    const dir = join(tmp, 'gate', name);
    mkdirSync(join(dir, 'scripts'), { recursive: true });
    cpSync(join(repoRoot, 'scripts', 'pack-lock.mjs'), join(dir, 'scripts', 'pack-lock.mjs'));
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'p', version: '1.0.0', bundleDependencies: ['a'], overrides: { b: '2.0.0' } }));
    writeFileSync(join(dir, 'package-lock.json'), JSON.stringify(lockfile));
    if (modules === 'link') {
      const real = lay(`${name}-target`, { a: '1.0.0', b: '2.0.0' });
      symlinkSync(join(real, 'node_modules'), join(dir, 'node_modules'));
    } else if (modules) {
      for (const [dep, version] of Object.entries(modules)) {
        mkdirSync(join(dir, 'node_modules', dep), { recursive: true });
        writeFileSync(join(dir, 'node_modules', dep, 'package.json'), JSON.stringify({ name: dep, version }));
      }
    }
    return dir;
  };
  const prepack = (dir: string) => spawnSync(process.execPath, [join(dir, 'scripts', 'pack-lock.mjs')], { encoding: 'utf8' });

  it('the installed tree with the override: packs, shipping the lockfile less its dev-only entries as npm-shrinkwrap.json; postpack removes it', () => {
    const dir = lay('good', { a: '1.0.0', b: '2.0.0' });
    const r = prepack(dir);
    expect(r.status, r.stderr).toBe(0);
    const { devDependencies: _dev, ...rootEntry } = lockfile.packages[''];
    const { 'node_modules/d': _d, ...kept } = lockfile.packages;
    expect(JSON.parse(readFileSync(join(dir, 'npm-shrinkwrap.json'), 'utf8'))).toEqual({ ...lockfile, packages: { ...kept, '': rootEntry } });
    expect(spawnSync(process.execPath, [join(dir, 'scripts', 'pack-lock.mjs'), '--remove']).status).toBe(0);
    expect(existsSync(join(dir, 'npm-shrinkwrap.json'))).toBe(false);
  });

  it.each([
    ['no node_modules', null, 'node_modules is missing'],
    ['node_modules a link', 'link', 'node_modules is a link'],
    ['the bundled package missing', { b: '2.0.0' }, 'node_modules/a is missing'],
    ['the overridden package at another version', { a: '1.0.0', b: '1.9.0' }, 'node_modules/b is 1.9.0, the override says 2.0.0'],
  ] as const)('%s: refuses, says what to run, ships no lockfile', (name, modules, says) => {
    const dir = lay(name.replace(/\W+/g, '-'), modules as Record<string, string> | 'link' | null);
    const r = prepack(dir);
    expect(r.status).toBe(1);
    expect(r.stderr).toContain(says);
    expect(r.stderr).toContain('npm ci');
    expect(existsSync(join(dir, 'npm-shrinkwrap.json'))).toBe(false);
  });
});
