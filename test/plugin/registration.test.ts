/**
 * The doubled registration: the active-brain plugin enabled AND a settings-file hook — every
 * offer would fire twice. Pure: which of our plugin ids load for a directory, from the settings
 * files' enabledPlugins (local > project > user, key by key) and installed_plugins.json (v1 and
 * v2 shapes; project/local installs only in their project), as a property against a reference
 * model. Real CLI: `install` (and `setup`'s hooks step) warns (and lists the plugin in --json) when the plugin is enabled,
 * not when it is absent or disabled (controls); `doctor` passes a plugin-only set-up, fails the
 * doubled one with a fix naming the plugin, and reads the plugin's own hooks.json for its events.
 */
import { describe, it, expect, afterEach } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { BIN, tempEnv, type Env } from '../daemon/helpers.js';
import { activeRegistrations, oursInstalled, installApplies, pluginsRoot, type Install } from '../../ops/plugin-registration.js';
import { CLAUDE_EVENTS } from '../../ops/hook-install.js';

const ID = 'active-brain@active-brain';
const PROJ = '/work/proj';

describe('plugin registration (pure)', () => {
  it('enabledPlugins: the highest scope that mentions the id wins; an install no file mentions counts; other plugins never do', () => {
    const files = (u?: boolean, p?: boolean, l?: boolean) => [u, p, l].map((v, i) => ({ file: `f${i}`, json: v === undefined ? {} : { enabledPlugins: { [ID]: v, 'other@x': true } } }));
    const inst: Install[] = [{ id: ID, scope: 'user', installPath: '/p', projectPath: null }];
    expect(activeRegistrations(files(true, undefined, false), [], PROJ)).toEqual([]);
    expect(activeRegistrations(files(false, true), [], PROJ)).toEqual([{ id: ID, why: 'enabled in f1', installPath: null }]);
    expect(activeRegistrations(files(), inst, PROJ)).toEqual([{ id: ID, why: 'installed at user scope', installPath: '/p' }]);
    expect(activeRegistrations(files(false), inst, PROJ)).toEqual([]); // installed but disabled
    expect(activeRegistrations([{ file: 'f', json: { enabledPlugins: { 'other@x': true, 'active-brain-extra@y': true } } }], [], PROJ)).toEqual([]);
  });

  it('property: the result is the reference model (highest defined scope, else a reaching install)', () => {
    const tri = fc.constantFrom<boolean | undefined>(true, false, undefined);
    fc.assert(fc.property(tri, tri, tri, fc.boolean(), fc.constantFrom('user', 'project', 'local'), fc.boolean(), (u, p, l, installed, scope, here) => {
      const settings = [u, p, l].map((v, i) => ({ file: `f${i}`, json: v === undefined ? { enabledPlugins: {} } : { enabledPlugins: { [ID]: v } } }));
      const installs: Install[] = installed ? [{ id: ID, scope, installPath: '/p', projectPath: here ? PROJ : '/elsewhere' }] : [];
      const got = activeRegistrations(settings, installs, `${PROJ}/sub`).length === 1;
      const explicit = l ?? p ?? u;
      const reaches = installed && (scope === 'user' || here);
      return got === (explicit !== undefined ? explicit : reaches);
    }));
  });

  it('installed_plugins.json: v2 arrays and v1 objects; project and local installs reach only their project', () => {
    const v2 = { version: 2, plugins: { [ID]: [{ scope: 'project', installPath: '/c/1', projectPath: PROJ }, { scope: 'user', installPath: '/c/2' }], 'x@y': [{ scope: 'user' }] } };
    expect(oursInstalled(v2)).toEqual([
      { id: ID, scope: 'project', installPath: '/c/1', projectPath: PROJ },
      { id: ID, scope: 'user', installPath: '/c/2', projectPath: null },
    ]);
    expect(oursInstalled({ version: 1, plugins: { [ID]: { version: '0.1.0', installPath: '/c/0' } } })).toEqual([{ id: ID, scope: 'user', installPath: '/c/0', projectPath: null }]);
    for (const bad of [null, [], 'x', { plugins: [] }, { plugins: { [ID]: [1, null] } }]) expect(oursInstalled(bad)).toEqual([]);
    const proj: Install = { id: ID, scope: 'local', installPath: null, projectPath: PROJ };
    expect(installApplies(proj, PROJ)).toBe(true);
    expect(installApplies(proj, `${PROJ}/a/b`)).toBe(true);
    expect(installApplies(proj, '/work/proj-other')).toBe(false);
    expect(pluginsRoot({ CLAUDE_CONFIG_DIR: '/cfg' })).toBe('/cfg/plugins');
    expect(pluginsRoot({ CLAUDE_CONFIG_DIR: '/cfg', CLAUDE_CODE_PLUGIN_CACHE_DIR: '/cache' })).toBe('/cache');
  });
});

let e: Env;
afterEach(() => e?.cleanup());

interface Setup { env: Env; cfg: string; proj: string }

/** A temp Claude config dir (CLAUDE_CONFIG_DIR) and a project dir. */
function setup(): Setup {
  const env = tempEnv('ab-plugin-reg-');
  const cfg = join(env.home, '..', 'claude');
  const proj = join(env.home, '..', 'proj');
  mkdirSync(join(cfg, 'plugins'), { recursive: true });
  mkdirSync(proj, { recursive: true });
  env.env.CLAUDE_CONFIG_DIR = cfg;
  e = env;
  return { env, cfg, proj };
}

/** What `claude plugin install active-brain@active-brain` records: the install and enabledPlugins. */
function installPlugin(s: Setup, enabled: boolean, installPath = repoRoot): void {
  writeFileSync(join(s.cfg, 'plugins', 'installed_plugins.json'), JSON.stringify({ version: 2, plugins: { [ID]: [{ scope: 'user', installPath, version: '0.1.0', installedAt: '2026-12-01T00:00:00.000Z', lastUpdated: '2026-12-01T00:00:00.000Z' }] } }));
  writeFileSync(join(s.cfg, 'settings.json'), JSON.stringify({ enabledPlugins: { [ID]: enabled } }, null, 2));
}

const run = (s: Setup, args: string[]) => {
  const r = spawnSync(process.execPath, [BIN, ...args], { cwd: s.proj, env: s.env.env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
};

type Check = { name: string; pass: boolean; detail: string; fix: string };
const hookChecks = (s: Setup) => {
  const r = run(s, ['doctor', '--json']);
  return (JSON.parse(r.stdout) as { checks: Check[] }).checks.filter((c) => c.name.startsWith('hook:'));
};

describe('install and doctor with the plugin', () => {
  it('install warns when the plugin is enabled (and lists it in --json); controls: no warning without the plugin, or with it disabled', () => {
    const s = setup();
    const clean = run(s, ['install', '--json']);
    expect(clean.code).toBe(0);
    expect(clean.stderr).not.toMatch(/Claude Code plugin/);
    expect(JSON.parse(clean.stdout).plugins).toEqual([]);
    installPlugin(s, false);
    const off = run(s, ['install']);
    expect(off.code).toBe(0);
    expect(off.stderr).not.toMatch(/Claude Code plugin/);
    installPlugin(s, true);
    const twice = run(s, ['install', '--json']);
    expect(twice.code).toBe(0);
    expect(JSON.parse(twice.stdout).plugins).toEqual([ID]);
    expect(twice.stderr).toContain(`warning: the active-brain Claude Code plugin ${ID} (enabled in ${join(s.cfg, 'settings.json')})`);
    expect(twice.stderr).toContain('every offer would show twice');
    expect(twice.stderr).toContain(`claude plugin uninstall ${ID}`);
  });

  it('doctor: the plugin alone passes every hook:<event>; plugin + settings hook fails "fire twice" naming the plugin; control: the settings hook alone passes', () => {
    const s = setup();
    installPlugin(s, true);
    for (const c of hookChecks(s)) expect(c, c.name).toMatchObject({ pass: true, detail: expect.stringContaining(`by the plugin ${ID}`) });
    expect(hookChecks(s).map((c) => c.name)).toEqual(CLAUDE_EVENTS.map((ev) => `hook:${ev}`));
    expect(run(s, ['install']).code).toBe(0); // settings.json keeps enabledPlugins, gains the hooks
    for (const c of hookChecks(s)) {
      expect(c, c.name).toMatchObject({ pass: false, detail: expect.stringContaining('fire twice') });
      expect(c.detail).toContain(`plugin ${ID}`);
      expect(c.fix).toContain(`claude plugin disable ${ID}`);
      expect(c.fix).toContain('active-brain uninstall');
    }
    installPlugin(s, false); // disabled: only the settings hook fires (rewrites settings.json without hooks: reinstall)
    expect(run(s, ['install']).code).toBe(0);
    for (const c of hookChecks(s)) expect(c, c.name).toMatchObject({ pass: true, detail: expect.stringContaining(join(s.cfg, 'settings.json')) });
  });

  it('doctor reads the installed plugin\'s own hooks.json: an older copy registering only UserPromptSubmit doubles only that event', () => {
    const s = setup();
    const old = join(s.env.home, '..', 'old-plugin');
    cpSync(join(repoRoot, 'hooks'), join(old, 'hooks'), { recursive: true });
    const h = JSON.parse(readFileSync(join(repoRoot, 'hooks', 'hooks.json'), 'utf8')) as { hooks: Record<string, unknown> };
    h.hooks = { UserPromptSubmit: h.hooks.UserPromptSubmit };
    writeFileSync(join(old, 'hooks', 'hooks.json'), JSON.stringify(h));
    installPlugin(s, true, old);
    expect(run(s, ['install']).code).toBe(0);
    const byName = Object.fromEntries(hookChecks(s).map((c) => [c.name, c.pass]));
    expect(byName).toEqual({ 'hook:UserPromptSubmit': false, 'hook:PostToolUseFailure': true });
  });

  it('setup (dry run) warns in its hooks step when the plugin is enabled; control: disabled, no warning', () => {
    const s = setup();
    s.env.env.HOME = join(s.env.home, '..');
    const hooksStep = () => {
      const r = run(s, ['setup', '--no-manage', '--dry-run', '--json']);
      return (JSON.parse(r.stdout) as { steps: Array<{ name: string; detail: string }> }).steps.find((x) => x.name === 'hooks')!.detail;
    };
    installPlugin(s, false);
    expect(hooksStep()).not.toContain('Claude Code plugin');
    installPlugin(s, true);
    expect(hooksStep()).toContain(`warning: the Claude Code plugin ${ID} is enabled too`);
  });
});
