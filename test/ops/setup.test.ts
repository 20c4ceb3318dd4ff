/**
 * `active-brain setup` on a temp HOME (everything at its default place under it: the state
 * dir, ~/.claude/settings.json, ~/.claude/projects, ~/.config/systemd/user) with the offline
 * model: a dry run writes no file; the first run does every step, the second finds every
 * step done; a new session is picked up by the next run; a model that cannot load is exit 3
 * with the fix; a settings file that is not JSON fails the hooks step and is left as it was.
 * The service manager is not called (--no-manage): the files are checked, not systemd.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { validate, loadSchema } from '../helpers/json-schema.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
const STEPS = ['model', 'config', 'sessions-source', 'index', 'hooks', 'codex-hooks', 'service', 'health'];

interface Home { home: string; projects: string; env: NodeJS.ProcessEnv }
function tempHome(model = offlineModelPath()): Home {
  const home = mkdtempSync(join(tmpdir(), 'ab-setup-'));
  const projects = join(home, '.claude', 'projects', '-work-app');
  mkdirSync(projects, { recursive: true });
  const env: NodeJS.ProcessEnv = { ...process.env, HOME: home, ACTIVE_BRAIN_MODEL_PATH: model };
  for (const k of ['ACTIVE_BRAIN_HOME', 'ACTIVE_BRAIN_TRANSCRIPTS', 'ACTIVE_BRAIN_STORE', 'ACTIVE_BRAIN_MODEL', 'CLAUDE_CONFIG_DIR', 'XDG_CONFIG_HOME', 'CODEX_HOME', 'ACTIVE_BRAIN_CODEX_SESSIONS']) delete env[k];
  return { home, projects, env };
}

function session(h: Home, text: string): string {
  const id = randomUUID();
  const path = join(h.projects, `${id}.jsonl`);
  const base = { isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: id, version: '2.1.39', gitBranch: 'main' };
  const u = randomUUID();
  const lines = [
    { ...base, parentUuid: null, type: 'user', uuid: u, timestamp: new Date().toISOString(), message: { role: 'user', content: `${text}: the pool throws ECONNRESET` } },
    { ...base, parentUuid: u, type: 'assistant', uuid: randomUUID(), timestamp: new Date().toISOString(), message: { role: 'assistant', id: `msg_${u}`, type: 'message', content: [{ type: 'text', text: 'Raised the idle timeout to 30 s; fixed.' }] } },
  ];
  writeFileSync(path, lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
  return path;
}

function setup(h: Home, ...args: string[]) {
  const r = spawnSync(process.execPath, [cli, 'setup', '--no-manage', ...args], { env: h.env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}
type Step = { name: string; changed: boolean; detail: string; ok: boolean };
function setupJson(h: Home, ...args: string[]) {
  const r = setup(h, '--json', ...args);
  expect(r.stdout.trim().split('\n')).toHaveLength(1); // one JSON object, nothing else on stdout
  const j = JSON.parse(r.stdout) as { steps: Step[]; pass: boolean };
  return { code: r.code, stderr: r.stderr, ...j, step: (n: string) => j.steps.find((s) => s.name === n)! };
}

/** Every file under dir with its size and mtime: equal snapshots = nothing written. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const ent of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, ent.name);
      if (ent.isDirectory()) {
        out[p + '/'] = 'dir';
        walk(p);
      } else {
        const st = statSync(p);
        out[p] = `${st.size}:${st.mtimeMs}`;
      }
    }
  };
  walk(dir);
  return out;
}

const settingsFile = (h: Home) => join(h.home, '.claude', 'settings.json');
const unitDir = (h: Home) => join(h.home, '.config', 'systemd', 'user');

describe('active-brain setup', () => {
  it('--dry-run on a fresh HOME says what each step would do and writes no file', () => {
    const h = tempHome();
    session(h, 'one');
    const before = snapshot(h.home);
    const r = setupJson(h, '--dry-run');
    expect(r.code, r.stderr).toBe(0);
    expect(r.pass).toBe(true);
    expect(r.steps.map((s) => s.name)).toEqual(STEPS);
    expect(r.step('sessions-source')).toMatchObject({ changed: true, detail: expect.stringContaining('would register') });
    expect(r.step('index')).toMatchObject({ changed: true, detail: expect.stringContaining('1 transcript file') });
    expect(r.step('hooks')).toMatchObject({ changed: true, detail: expect.stringContaining(`would register in ${settingsFile(h)}`) });
    if (process.platform === 'linux') expect(r.step('service').detail).toContain(`would write ${join(unitDir(h), 'active-brain.service')}`);
    expect(snapshot(h.home)).toEqual(before);
    // the human form too
    const t = setup(h, '--dry-run');
    expect(t.code).toBe(0);
    expect(t.stdout).toMatch(/^changed sessions-source +would register/m);
    expect(t.stdout).toContain('dry run: nothing was changed.');
    expect(snapshot(h.home)).toEqual(before);
  });

  it('the first run does every step; the second finds each one done; a new session is indexed by the next', () => {
    const h = tempHome();
    session(h, 'one');
    session(h, 'two');
    const first = setupJson(h);
    expect(first.code, JSON.stringify(first.steps)).toBe(0);
    expect(first.pass).toBe(true);
    expect(Object.fromEntries(first.steps.map((s) => [s.name, s.changed]))).toMatchObject({
      model: false, config: true, 'sessions-source': true, index: true, hooks: true, ...(process.platform === 'linux' ? { service: true } : {}), health: false,
    });
    expect(first.step('index').detail).toMatch(/indexed 2 session file\(s\)/);
    const settings = JSON.parse(readFileSync(settingsFile(h), 'utf8'));
    expect(JSON.stringify(settings.hooks)).toContain('active-brain-hook');
    expect(existsSync(join(h.home, '.active-brain', 'hook-settings.json'))).toBe(true);
    if (process.platform === 'linux') {
      for (const f of ['active-brain.service', 'active-brain-index.service', 'active-brain-index.timer']) expect(existsSync(join(unitDir(h), f))).toBe(true);
    }
    expect(first.step('health').detail, first.step('health').detail).toMatch(/store \d+ KiB, \d+ chunks, 2 documents; 2 hook entries/);
    // the setup's index run is recorded like any other, in the documented shape
    const log = readFileSync(join(h.home, '.active-brain', 'logs', 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(log.map((r) => r.event)).toEqual(['index-start', 'index-run']);
    for (const rec of log) expect(validate(loadSchema('index-run'), rec)).toEqual([]);

    const settled = snapshot(h.home);
    const second = setupJson(h);
    expect(second.code).toBe(0);
    expect(second.steps.filter((s) => s.changed).map((s) => s.name)).toEqual([]);
    expect(second.step('sessions-source').detail).toContain('already registered');
    expect(second.step('index').detail).toContain('already up to date: 2 session file(s) unchanged');
    expect(second.step('hooks').detail).toContain('already registered');
    // the settings file and the unit files were not rewritten
    const again = snapshot(h.home);
    for (const f of [settingsFile(h), ...readdirSync(unitDir(h)).map((n) => join(unitDir(h), n))]) expect(again[f]).toBe(settled[f]);
    // a dry run now has nothing to do, and writes nothing: only the store's -shm (SQLite's
    // shared-memory index, mapped by every reader, never content) may be touched by reading
    const beforeDry = snapshot(h.home);
    const dry = setupJson(h, '--dry-run');
    expect(dry.steps.filter((s) => s.changed).map((s) => s.name)).toEqual([]);
    const noShm = (snap: Record<string, string>) => Object.fromEntries(Object.entries(snap).filter(([p]) => !p.endsWith('-shm')));
    expect(noShm(snapshot(h.home))).toEqual(noShm(beforeDry));

    session(h, 'three');
    const third = setupJson(h);
    expect(third.code).toBe(0);
    expect(third.steps.filter((s) => s.changed).map((s) => s.name)).toEqual(['index']);
    expect(third.step('index').detail).toMatch(/indexed 1 session file\(s\).*2 unchanged/);
  });

  it('Codex CLI present (~/.codex): its hooks file is registered too, once (control: without it the step is skipped)', () => {
    const h = tempHome();
    session(h, 'one');
    const without = setupJson(h);
    expect(without.step('codex-hooks')).toMatchObject({ ok: true, changed: false, detail: expect.stringContaining('Codex CLI not found') });
    mkdirSync(join(h.home, '.codex'));
    const first = setupJson(h);
    expect(first.code).toBe(0);
    expect(first.step('codex-hooks')).toMatchObject({ ok: true, changed: true, detail: `registered in ${join(h.home, '.codex', 'hooks.json')}` });
    const hooks = JSON.parse(readFileSync(join(h.home, '.codex', 'hooks.json'), 'utf8')) as { hooks: Record<string, unknown> };
    expect(Object.keys(hooks.hooks).sort()).toEqual(['PostToolUse', 'UserPromptSubmit']);
    expect(JSON.stringify(hooks.hooks)).toContain('active-brain-hook');
    const second = setupJson(h);
    expect(second.step('codex-hooks')).toMatchObject({ changed: false, detail: expect.stringContaining('already registered') });
  });

  it('a model that cannot load: exit 3, says how to get one, writes nothing', () => {
    const h = tempHome(mkdtempSync(join(tmpdir(), 'ab-no-model-')));
    session(h, 'one');
    const before = snapshot(h.home);
    const r = setupJson(h);
    expect(r.code).toBe(3);
    expect(r.pass).toBe(false);
    expect(r.steps).toHaveLength(1);
    expect(r.step('model')).toMatchObject({ ok: false, detail: expect.stringMatching(/^(?=.*npm run model:offline)(?=.*ACTIVE_BRAIN_MODEL_PATH)/) });
    expect(snapshot(h.home)).toEqual(before);
    const t = setup(h);
    expect(t.code).toBe(3);
    expect(t.stdout).toMatch(/^FAIL +model/m);
    expect(t.stdout).toContain('setup is not complete');
  });

  it('a settings.json that is not JSON: the hooks step fails (exit 1) and leaves it as it was; the rest is done', () => {
    const h = tempHome();
    session(h, 'one');
    mkdirSync(join(h.home, '.claude'), { recursive: true });
    writeFileSync(settingsFile(h), '{ "hooks": ');
    const r = setupJson(h);
    expect(r.code).toBe(1);
    expect(r.step('hooks')).toMatchObject({ ok: false, detail: expect.stringContaining('not valid JSON') });
    expect(readFileSync(settingsFile(h), 'utf8')).toBe('{ "hooks": ');
    expect(r.step('index')).toMatchObject({ ok: true, changed: true });
    if (process.platform === 'linux') expect(r.step('service')).toMatchObject({ ok: true, changed: true });
  });

  it('what setup chose is saved in config.json: a new shell without ACTIVE_BRAIN_MODEL_PATH, the units and status agree', () => {
    const h = tempHome();
    session(h, 'one');
    const r = setupJson(h);
    expect(r.code, JSON.stringify(r.steps)).toBe(0);
    expect(r.step('config')).toMatchObject({ ok: true, changed: true, detail: expect.stringContaining('embedding.localModelPath') });
    const file = join(h.home, '.active-brain', 'config.json');
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved).toMatchObject({ embedding: { localModelPath: offlineModelPath() }, transcriptsRoot: join(h.home, '.claude', 'projects') });
    // a new shell: no ACTIVE_BRAIN_MODEL_PATH
    const fresh: Home = { ...h, env: { ...h.env } };
    delete fresh.env.ACTIVE_BRAIN_MODEL_PATH;
    const run = (...args: string[]) => spawnSync(process.execPath, [cli, ...args], { env: fresh.env, encoding: 'utf8', timeout: 60_000 });
    const cfg = JSON.parse(run('config', '--json').stdout);
    expect(cfg.config.embedding.localModelPath).toBe(offlineModelPath());
    expect(cfg.sources['embedding.localModelPath']).toBe('config.json');
    expect(JSON.parse(run('status', '--json').stdout).model).toMatchObject({ configured: offlineModelPath() });
    if (process.platform === 'linux') {
      // the units setup wrote are what this shell would write: not "OUTDATED"
      const st = JSON.parse(run('service', 'status', '--no-manage', '--json').stdout);
      expect(st).toMatchObject({ installed: true, up_to_date: true });
      expect(readFileSync(join(unitDir(h), 'active-brain-index.service'), 'utf8')).toContain(`Environment="ACTIVE_BRAIN_MODEL_PATH=${offlineModelPath()}"`);
    }
    // the second setup, in the new shell, has nothing to save
    const again = setupJson(fresh);
    expect(again.step('config')).toMatchObject({ changed: false, detail: expect.stringContaining('already saved') });
    expect(again.steps.filter((s) => s.changed).map((s) => s.name)).toEqual([]);
  });

  it('--dry-run does not claim a model it has not got: nothing cached and no local folder is "would download" or a failure, never "cached"', () => {
    const h = tempHome();
    delete h.env.ACTIVE_BRAIN_MODEL_PATH;
    session(h, 'one');
    const r = setupJson(h, '--dry-run');
    const m = r.step('model');
    expect(m.detail).not.toContain('(cached in');
    if (m.ok) {
      // the network is there: the real run would download it
      expect(m).toMatchObject({ changed: true, detail: expect.stringContaining('would download') });
    } else {
      expect(r.code).toBe(3);
      expect(m.detail).toMatch(/not cached .* cannot be downloaded .*npm run model:offline/);
    }
    // control: with the model cached (here: a local folder) the dry run says it loads
    const ok = setupJson(tempHome(), '--dry-run');
    expect(ok.step('model')).toMatchObject({ ok: true, changed: false, detail: expect.stringContaining('would load local folder') });
  });

  it.skipIf(process.platform !== 'linux')('no user service manager: the first setup starts the daemon; the second finds it running and changes nothing (dry run too)', () => {
    const h = tempHome();
    session(h, 'one');
    // A systemctl that answers as in a container: no user bus.
    const bin = join(h.home, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n', { mode: 0o755 });
    const env = { ...h.env, PATH: `${bin}:${process.env.PATH}` };
    const run = (...args: string[]) => {
      const r = spawnSync(process.execPath, [cli, 'setup', '--json', ...args], { env, encoding: 'utf8', timeout: 120_000 });
      const j = JSON.parse(r.stdout) as { steps: Step[] };
      return { code: r.status, steps: j.steps, step: (n: string) => j.steps.find((x) => x.name === n)! };
    };
    try {
      const first = run();
      expect(first.code, JSON.stringify(first.steps)).toBe(0);
      expect(first.step('service')).toMatchObject({ ok: true, changed: true, detail: expect.stringMatching(/fallback: no user service manager .*started the daemon detached .*set indexer\.schedule = "daemon"/) });
      const dry = run('--dry-run');
      expect(dry.step('service')).toMatchObject({ changed: false, detail: expect.stringContaining('the daemon runs already') });
      const second = run();
      expect(second.code).toBe(0);
      expect(second.step('service')).toMatchObject({ ok: true, changed: false, detail: expect.stringContaining('the daemon runs already') });
      expect(second.steps.filter((x) => x.changed).map((x) => x.name)).toEqual([]);
    } finally {
      spawnSync(process.execPath, [cli, 'stop'], { env, encoding: 'utf8', timeout: 60_000 });
    }
  });
  it('--plugin (the Claude Code plugin\'s set-up): no hooks, no codex-hooks, no user services (even with ~/.codex and a service manager that answers); the daemon started, running the schedule itself; control: without it, hooks are registered', () => {
    const h = tempHome();
    session(h, 'one');
    mkdirSync(join(h.home, '.codex'));
    // A systemctl that answers (and records that it was asked): --plugin must not use it.
    const bin = join(h.home, 'bin');
    mkdirSync(bin);
    const asked = join(h.home, 'systemctl-calls');
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\necho "$@" >> '${asked}'\nexit 0\n`, { mode: 0o755 });
    const env = { ...h.env, PATH: `${bin}:${process.env.PATH}` };
    try {
      const r = spawnSync(process.execPath, [cli, 'setup', '--plugin', '--json'], { env, encoding: 'utf8', timeout: 120_000 });
      const j = JSON.parse(r.stdout) as { steps: Step[]; pass: boolean };
      expect(r.status, r.stdout + r.stderr).toBe(0);
      expect(j.steps.map((x) => x.name)).toEqual(['model', 'config', 'sessions-source', 'index', 'service', 'health']);
      expect(j.steps.find((x) => x.name === 'service')).toMatchObject({ ok: true, changed: true, detail: expect.stringMatching(/the Claude Code plugin starts the daemon .*started the daemon detached .*set indexer\.schedule = "daemon"/) });
      expect(existsSync(join(h.home, '.claude', 'settings.json'))).toBe(false);
      expect(readdirSync(join(h.home, '.codex'))).toEqual([]);
      expect(existsSync(asked)).toBe(false);
      expect(existsSync(join(h.home, '.config', 'systemd'))).toBe(false);
      expect((JSON.parse(readFileSync(join(h.home, '.active-brain', 'config.json'), 'utf8')) as { indexer: { schedule: string } }).indexer.schedule).toBe('daemon');
      const status = JSON.parse(spawnSync(process.execPath, [cli, 'status', '--json'], { env, encoding: 'utf8', timeout: 60_000 }).stdout) as { pid: number | null };
      expect(status.pid).not.toBeNull();
      // Control: the same set-up without --plugin registers the hooks.
      const plain = setupJson(h);
      expect(plain.step('hooks')).toMatchObject({ ok: true, changed: true });
      expect(plain.step('codex-hooks')).toMatchObject({ ok: true, changed: true });
      expect(readFileSync(join(h.home, '.claude', 'settings.json'), 'utf8')).toContain('active-brain-hook');
    } finally {
      spawnSync(process.execPath, [cli, 'stop'], { env, encoding: 'utf8', timeout: 60_000 });
    }
  });
});
