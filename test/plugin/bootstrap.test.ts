/**
 * The plugin's own set-up, run as Claude Code runs SessionStart (`sh -c` the hooks.json command,
 * CLAUDE_PLUGIN_ROOT = a copy without dist/ and node_modules/, as `claude plugin install` makes
 * it; a temp state dir), with everything real but npm: an `npm` on PATH that stands in for
 * `npm ci` (a real process that records its call and writes what npm ci + prepare leave — a
 * dist/cli/main.js that records how it was started, a better-sqlite3 that loads), optionally
 * held on a gate file or failing. Proves:
 *  - the first session says in one line that it is setting itself up, returns at once, and the
 *    set-up runs detached (lock, npm ci with nodedir, check, the root's own CLI's `setup
 *    --plugin`, the daemon from that CLI);
 *  - a second session while it runs: "still setting itself up", no second npm (the lock); a
 *    second set-up by hand exits 2; control: a stale lock (dead pid) does not stop a set-up;
 *  - a later session finds the root's CLI and starts the daemon, silently;
 *  - npm fails: the next session's one line names the step and what to run by hand, and nothing
 *    retries on its own; control: that command, once npm works, sets up, clears the failure and
 *    starts the daemon, and the session after it is silent;
 *  - a daemon already running with an unbuilt root (a plugin update's new copy): set up all the
 *    same, no second daemon; control: the kill switch stops both;
 *  - `setup --plugin` exits 3: a failure at setup, no daemon; control: exit 1 goes on;
 *  - ACTIVE_BRAIN_PLUGIN_BOOTSTRAP=0: no set-up, the line says what to install (control above);
 * and the pure parts: the decision (properties) and npm's environment.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { cleanupTemp, tempDir } from '../hook/helpers.js';
import { sleep, waitFor } from '../daemon/helpers.js';
import { commandOf, runAsClaudeCode } from './helpers.js';
import { BOOTSTRAP_ENV, BOOTSTRAP_TIMEOUT_MS, bootstrapFailedPath, bootstrapLockPath, bootstrapLogPath } from '../../ops/plugin-bootstrap-state.js';
import { npmEnv } from '../../ops/plugin-bootstrap.js';
import { decidePluginStart, type PluginStartInputs } from '../../ops/plugin-session-start.js';
import type { StartDecision } from '../../ops/plugin-daemon-start.js';

/** Gate files to open after the tests whatever happened: a failed test must not leave a gated
 *  stand-in npm waiting forever. */
const gates: string[] = [];
afterAll(() => {
  for (const g of gates) {
    try { writeFileSync(g, ''); } catch { /* its folder is gone */ }
  }
  cleanupTemp();
});

const HOST_TIMEOUT_MS = 5000; // hooks.json's SessionStart timeout
const PAYLOAD = { session_id: 'c0ffee00-0000-4000-8000-000000000002', hook_event_name: 'SessionStart', source: 'startup', cwd: '/work/app' };

/** The stand-in for npm: appends its call to $FAKE_NPM_CALLS; fails when $FAKE_NPM_MODE=fail;
 *  waits for $FAKE_NPM_GATE when set (at most about a minute); then writes what npm ci + prepare
 *  leave behind. */
const FAKE_NPM = `#!/bin/sh
echo "$* nodedir=$npm_config_nodedir" >> "$FAKE_NPM_CALLS"
if [ "$FAKE_NPM_MODE" = fail ]; then echo "npm error code E404 (stand-in)" >&2; exit 1; fi
n=0; while [ -n "$FAKE_NPM_GATE" ] && [ ! -e "$FAKE_NPM_GATE" ] && [ $n -lt 1200 ]; do sleep 0.05; n=$((n+1)); done
mkdir -p dist/cli node_modules/better-sqlite3
cat > dist/cli/main.js <<'JS'
import { appendFileSync } from 'node:fs';
appendFileSync(process.env.FAKE_DAEMON_STARTS, JSON.stringify({ argv: process.argv.slice(2), cwd: process.cwd() }) + '\\n');
if (process.argv[2] === 'setup') process.exit(Number(process.env.FAKE_SETUP_EXIT ?? 0));
JS
echo 'module.exports = class { close() {} };' > node_modules/better-sqlite3/index.js
`;

interface World { root: string; home: string; env: NodeJS.ProcessEnv; calls: string; starts: string; gate: string }

function world(over: NodeJS.ProcessEnv = {}): World {
  const base = tempDir('ab-plugin-boot-');
  const root = join(base, 'plugin', 'active-brain');
  for (const rel of ['.claude-plugin', 'bin', 'hooks', 'package.json']) cpSync(join(repoRoot, rel), join(root, rel), { recursive: true });
  const npmDir = join(base, 'npm-bin');
  mkdirSync(npmDir, { recursive: true });
  writeFileSync(join(npmDir, 'npm'), FAKE_NPM, { mode: 0o755 });
  const home = join(base, 'state');
  const w = { root, home, calls: join(base, 'npm-calls'), starts: join(base, 'daemon-starts'), gate: join(base, 'gate') };
  const env: NodeJS.ProcessEnv = {
    HOME: join(base, 'home'), ACTIVE_BRAIN_HOME: home, CLAUDE_PLUGIN_ROOT: root,
    PATH: `${join(root, 'bin')}:${npmDir}:${dirname(process.execPath)}:/usr/bin:/bin`,
    FAKE_NPM_CALLS: w.calls, FAKE_DAEMON_STARTS: w.starts, ...over,
  };
  return { ...w, env };
}

const read = (p: string) => (existsSync(p) ? readFileSync(p, 'utf8') : '');
const lines = (p: string) => read(p).split('\n').filter(Boolean);
/** How the root's CLI was run: `setup --plugin` by the set-up, `start` to start the daemon. */
const runs = (w: World) => lines(w.starts).map((l) => (JSON.parse(l) as { argv: string[] }).argv.join(' '));
const starts = (w: World) => runs(w).filter((a) => a === 'start').length;

async function session(w: World, over: NodeJS.ProcessEnv = {}): Promise<string | null> {
  const r = await runAsClaudeCode(commandOf('SessionStart'), { ...w.env, ...over }, PAYLOAD);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  expect(r.ms).toBeLessThan(HOST_TIMEOUT_MS);
  if (r.stdout === '') return null;
  expect(r.stdout.endsWith('\n') && r.stdout.trim().split('\n')).toHaveLength(1);
  const { systemMessage } = JSON.parse(r.stdout) as { systemMessage: string };
  return systemMessage;
}

/** The set-up by hand, as the failure line says to run it. */
const byHand = (w: World, over: NodeJS.ProcessEnv = {}) => spawnSync(process.execPath, [join(w.root, 'hooks', 'plugin-bootstrap.cjs')], { env: { ...w.env, ...over }, encoding: 'utf8', timeout: 30_000 });

describe('plugin set-up: a copy without node_modules/ sets itself up in the background', () => {
  it('first session: one line, a detached set-up (lock held, a second session does not start another), then the daemon from the root\'s CLI; later sessions just start it', async () => {
    const w = world();
    w.env.FAKE_NPM_GATE = w.gate;
    gates.push(w.gate);
    const first = await session(w);
    expect(first).toMatch(/^active-brain plugin: setting itself up in the background \(npm ci in the plugin folder.*Nothing to run/);
    expect(first).toContain(bootstrapLogPath(w.env));
    // Detached: the hook has returned while npm still waits at the gate, holding the lock.
    await waitFor(() => lines(w.calls).length === 1, 10_000, 'npm ci started');
    const lock = JSON.parse(read(bootstrapLockPath(w.env))) as { pid: number; root: string };
    expect(lock.root).toBe(w.root);
    expect(() => process.kill(lock.pid, 0)).not.toThrow();
    expect(lines(w.calls)[0]).toBe(`ci --no-audit --no-fund nodedir=${dirname(dirname(process.execPath))}`);
    // A second session meanwhile: says it is still running, starts neither npm nor a daemon.
    expect(await session(w)).toMatch(/^active-brain plugin: still setting itself up in the background/);
    const busy = byHand(w);
    expect(busy.status).toBe(2);
    expect(busy.stdout).toContain(`another set-up is running (pid ${lock.pid})`);
    await sleep(300);
    expect(lines(w.calls)).toHaveLength(1);
    expect(read(w.starts)).toBe('');
    // Open the gate: the set-up finishes and starts the daemon from the root's own CLI.
    writeFileSync(w.gate, '');
    await waitFor(() => starts(w) === 1, 15_000, 'the daemon started by the set-up');
    expect(runs(w)).toEqual(['setup --plugin', 'start']);
    expect(JSON.parse(lines(w.starts)[1])).toEqual({ argv: ['start'], cwd: w.home });
    await waitFor(() => !existsSync(bootstrapLockPath(w.env)), 5000, 'the lock released');
    const log = read(bootstrapLogPath(w.env));
    expect(log).toMatch(/ready after [\d.]+ s/);
    expect(log).toMatch(/daemon started \(pid \d+/);
    // A later session: the root is built, so it starts the daemon itself, silently; no npm.
    expect(await session(w)).toBeNull();
    await waitFor(() => starts(w) === 2, 10_000, 'the daemon started by a later session');
    expect(runs(w)).toEqual(['setup --plugin', 'start', 'start']);
    expect(lines(w.calls)).toHaveLength(1);
    expect(existsSync(bootstrapFailedPath(w.env))).toBe(false);
  }, 60_000);

  it('a stale lock (its set-up died) does not stop a set-up; control: a live one does', async () => {
    const w = world();
    mkdirSync(w.home, { recursive: true });
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    writeFileSync(bootstrapLockPath(w.env), JSON.stringify({ pid: Number(dead.stdout), root: w.root, startedAt: Date.now() }));
    expect(await session(w)).toMatch(/setting itself up in the background/);
    await waitFor(() => starts(w) === 1, 15_000, 'the daemon after taking over a stale lock');
    expect(lines(w.calls)).toHaveLength(1);
    // Control: a lock held by a live process (this test's) keeps the by-hand set-up out.
    const v = world();
    mkdirSync(v.home, { recursive: true });
    writeFileSync(bootstrapLockPath(v.env), JSON.stringify({ pid: process.pid, root: v.root, startedAt: Date.now() }));
    expect(await session(v)).toMatch(/still setting itself up/);
    expect(byHand(v).status).toBe(2);
    expect(lines(v.calls)).toHaveLength(0);
  }, 60_000);

  it('npm fails: the next session names the step and the command to run by hand, and retries nothing; control: that command, once npm works, sets up and starts the daemon', async () => {
    const w = world({ FAKE_NPM_MODE: 'fail' });
    expect(await session(w)).toMatch(/setting itself up in the background/);
    await waitFor(() => existsSync(bootstrapFailedPath(w.env)) && !existsSync(bootstrapLockPath(w.env)), 15_000, 'the recorded failure');
    expect(read(bootstrapLogPath(w.env))).toContain('npm error code E404 (stand-in)');
    const line = await session(w);
    expect(line).toBe(`active-brain plugin: setting itself up failed at npm ci (exit 1; log: ${bootstrapLogPath(w.env)}). To retry and see why, run in a terminal: node "${join(w.root, 'hooks', 'plugin-bootstrap.cjs')}" — or install the CLI instead: npm install -g active-brain && active-brain setup`);
    expect(await session(w)).toBe(line); // says it again, and still retries nothing on its own
    await sleep(300);
    expect(lines(w.calls)).toHaveLength(1);
    expect(read(w.starts)).toBe('');
    // Control: by hand, with npm working now.
    const r = byHand(w, { FAKE_NPM_MODE: 'ok' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/ready after/);
    expect(existsSync(bootstrapFailedPath(w.env))).toBe(false);
    await waitFor(() => starts(w) === 1, 10_000, 'the daemon started by the set-up run by hand');
    expect(await session(w)).toBeNull();
    await waitFor(() => starts(w) === 2, 10_000, 'the daemon started by the next session');
  }, 60_000);

  it('a failure recorded for another copy (a plugin update) does not stop this copy\'s set-up', async () => {
    const w = world();
    mkdirSync(w.home, { recursive: true });
    writeFileSync(bootstrapFailedPath(w.env), JSON.stringify({ root: join(w.root, '..', '0.0.9'), step: 'npm ci', detail: 'exit 1', at: Date.now() }));
    expect(await session(w)).toMatch(/setting itself up in the background/);
    await waitFor(() => starts(w) === 1, 15_000, 'the daemon');
  }, 60_000);

  it('the CLI\'s `setup --plugin` exits 3 (nothing usable, e.g. no model): a failure at setup, no daemon; control: exit 1 (a step failed, usable) goes on to the daemon', async () => {
    const w = world({ FAKE_SETUP_EXIT: '3' });
    expect(await session(w)).toMatch(/setting itself up in the background/);
    await waitFor(() => existsSync(bootstrapFailedPath(w.env)) && !existsSync(bootstrapLockPath(w.env)), 15_000, 'the recorded failure');
    expect(await session(w)).toMatch(/^active-brain plugin: setting itself up failed at setup \(active-brain exit 3; log: /);
    expect(runs(w)).toEqual(['setup --plugin']);
    const v = world({ FAKE_SETUP_EXIT: '1' });
    expect(await session(v)).toMatch(/setting itself up in the background/);
    await waitFor(() => starts(v) === 1, 15_000, 'the daemon after a setup that exited 1');
    expect(read(bootstrapLogPath(v.env))).toContain('setup is not complete (exit 1; see above): going on');
    expect(existsSync(bootstrapFailedPath(v.env))).toBe(false);
  }, 60_000);

  it('a daemon already running (a plugin update\'s new, unbuilt copy): the copy is set up all the same, and no second daemon is started; control: the kill switch stops both', async () => {
    const w = world();
    // A running daemon as SessionStart sees one: a fresh lock and a live pid (this process).
    mkdirSync(join(w.home, 'daemon.lock'), { recursive: true });
    writeFileSync(join(w.home, 'daemon.pid'), String(process.pid));
    expect(await session(w)).toMatch(/setting itself up in the background/);
    await waitFor(() => existsSync(join(w.root, 'dist', 'cli', 'main.js')) && !existsSync(bootstrapLockPath(w.env)), 15_000, 'the set-up done');
    expect(runs(w)).toEqual(['setup --plugin']);
    expect(read(bootstrapLogPath(w.env))).toContain('the daemon runs');
    expect(await session(w)).toBeNull(); // built now, the daemon runs: nothing to do, nothing said
    await sleep(300);
    expect(runs(w)).toEqual(['setup --plugin']);
    const k = world();
    mkdirSync(k.home, { recursive: true });
    writeFileSync(join(k.home, 'KILL'), '');
    expect(await session(k)).toBeNull();
    await sleep(300);
    expect(lines(k.calls)).toHaveLength(0);
  }, 60_000);

  it('ACTIVE_BRAIN_PLUGIN_BOOTSTRAP=0: no set-up, the one line says what to install; a CLI on PATH is used before any set-up', async () => {
    const w = world();
    const line = await session(w, { [BOOTSTRAP_ENV]: '0' });
    expect(line).toContain('the active-brain CLI is not installed (not on PATH). Run once in a terminal: npm install -g active-brain && active-brain setup');
    await sleep(500);
    expect(lines(w.calls)).toHaveLength(0);
    expect(existsSync(bootstrapLockPath(w.env))).toBe(false);
    // An installed CLI on PATH (a stand-in recording its start): no set-up either.
    const cliDir = join(w.home, '..', 'cli-bin');
    mkdirSync(cliDir, { recursive: true });
    writeFileSync(join(cliDir, 'active-brain'), `#!/bin/sh\necho "$@" >> '${w.starts}'\n`, { mode: 0o755 });
    expect(await session(w, { PATH: `${cliDir}:${w.env.PATH}` })).toBeNull();
    await waitFor(() => lines(w.starts)[0] === 'start', 10_000, 'the CLI on PATH started');
    expect(lines(w.calls)).toHaveLength(0);
  }, 60_000);
});

describe('plugin set-up: the pure parts', () => {
  const inputs = fc.record({
    daemon: fc.constantFrom<StartDecision>('start', 'running', 'killed', 'opted-out'),
    bootstrapRunning: fc.boolean(), rootBuilt: fc.boolean(), failedHere: fc.boolean(), pathCli: fc.boolean(), canBootstrap: fc.boolean(),
  });
  it('decidePluginStart: the kill switch and the opt-out win; a running set-up starts nothing; a running daemon is left alone (its root set up only when nothing could run it); a failed set-up never restarts itself; the CLI is used before any set-up', () => {
    fc.assert(fc.property(inputs, (s: PluginStartInputs) => {
      const a = decidePluginStart(s);
      if (s.daemon === 'killed' || s.daemon === 'opted-out') return a === s.daemon;
      if (s.bootstrapRunning) return a === 'bootstrapping';
      if (s.daemon === 'running') return a === 'running' || (a === 'bootstrap' && s.canBootstrap && !s.failedHere && !s.pathCli && !s.rootBuilt);
      if (a === 'bootstrap') return s.canBootstrap && !s.failedHere && !s.pathCli && !s.rootBuilt;
      if (a === 'start-root') return s.rootBuilt && !s.failedHere;
      if (a === 'start-path') return s.pathCli && !(s.rootBuilt && !s.failedHere);
      if (a === 'bootstrap-failed') return s.failedHere && !s.pathCli;
      if (a === 'no-cli') return !s.canBootstrap && !s.failedHere && !s.pathCli && !s.rootBuilt;
      return false;
    }));
    // Controls: each action is reachable.
    const base: PluginStartInputs = { daemon: 'start', bootstrapRunning: false, rootBuilt: false, failedHere: false, pathCli: false, canBootstrap: true };
    expect(decidePluginStart(base)).toBe('bootstrap');
    expect(decidePluginStart({ ...base, rootBuilt: true })).toBe('start-root');
    expect(decidePluginStart({ ...base, rootBuilt: true, failedHere: true })).toBe('bootstrap-failed');
    expect(decidePluginStart({ ...base, rootBuilt: true, failedHere: true, pathCli: true })).toBe('start-path');
    expect(decidePluginStart({ ...base, canBootstrap: false })).toBe('no-cli');
    expect(decidePluginStart({ ...base, daemon: 'running' })).toBe('bootstrap');
    expect(decidePluginStart({ ...base, daemon: 'running', rootBuilt: true })).toBe('running');
    expect(decidePluginStart({ ...base, daemon: 'killed' })).toBe('killed');
  });

  it('npmEnv: this Node first on PATH; nodedir set to its prefix only when its headers are there and none is set', () => {
    const env = npmEnv({ PATH: '/a:/b' }, '/opt/node/bin/node', (p) => p === '/opt/node');
    expect(env.PATH).toBe('/opt/node/bin:/a:/b');
    expect(env.npm_config_nodedir).toBe('/opt/node');
    expect(npmEnv({ PATH: '/a' }, '/opt/node/bin/node', () => false).npm_config_nodedir).toBeUndefined();
    expect(npmEnv({ PATH: '/a', NPM_CONFIG_NODEDIR: '/mine' }, '/opt/node/bin/node', () => true).npm_config_nodedir).toBeUndefined();
    expect(npmEnv({ PATH: '/a', npm_config_nodedir: '/mine' }, '/opt/node/bin/node', () => true).npm_config_nodedir).toBe('/mine');
  });
});

describe('the set-up lock under a race (real processes)', () => {
  const mod = () => join(repoRoot, 'dist', 'ops', 'plugin-bootstrap-state.js');
  /** Time for the processes to start before they contend. */
  const START_SPREAD_MS = 1000;
  /** Each process tries once, reports on stdout, and holds what it took until the test closes its
   *  stdin (after every process has reported): a winner's pid is live while the others look. */
  const contender = (home: string, at: number) => `import(${JSON.stringify(mod())}).then((m) => { const env = { ...process.env, ACTIVE_BRAIN_HOME: ${JSON.stringify(home)} }; const w = new Int32Array(new SharedArrayBuffer(4)); if (${at} - Date.now() > 5) Atomics.wait(w, 0, 0, ${at} - Date.now() - 5); while (Date.now() < ${at}); const got = m.acquireLock(env, '/root-x'); process.stdout.write(got ? 'won' : 'lost'); process.stdin.resume(); process.stdin.on('end', () => { if (got) m.releaseLock(env); process.exit(0); }); });`;
  async function race(home: string, n: number): Promise<string[]> {
    const { spawn } = await import('node:child_process');
    // All of them call acquireLock at one moment (each spins until it), well after they started.
    const at = Date.now() + START_SPREAD_MS;
    const children = Array.from({ length: n }, () => spawn(process.execPath, ['--input-type=module', '-e', contender(home, at)], { stdio: ['pipe', 'pipe', 'ignore'] }));
    const reported = children.map((c) => new Promise<string>((resolve) => {
      let out = '';
      c.stdout!.setEncoding('utf8');
      c.stdout!.on('data', (d) => { out += d; if (out === 'won' || out === 'lost') resolve(out); });
      c.on('close', () => resolve(out));
    }));
    const results = await Promise.all(reported);
    const closed = children.map((c) => new Promise<void>((resolve) => c.on('close', () => resolve())));
    for (const c of children) c.stdin!.end();
    await Promise.all(closed);
    return results;
  }

  it('eight set-ups started at once: exactly one takes the lock, and no lock ever reads empty; control: after it is released, the next one takes it', async () => {
    const home = tempDir('ab-lock-race-');
    const results = await race(home, 8);
    expect(results.filter((r) => r === 'won')).toHaveLength(1);
    expect(results.filter((r) => r === 'lost')).toHaveLength(7);
    expect(existsSync(join(home, 'plugin-bootstrap.lock'))).toBe(false);
    expect(await race(home, 1)).toEqual(['won']);
  }, 60_000);

  it('eight set-ups find the same stale lock (its set-up died): exactly one takes it over, round after round', async () => {
    const home = tempDir('ab-lock-stale-race-');
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' });
    for (let round = 0; round < 3; round++) {
      // Stale twice over: its pid is dead, and it is older than the set-up's timeout (a reused pid cannot make it live).
      writeFileSync(join(home, 'plugin-bootstrap.lock'), JSON.stringify({ pid: Number(dead.stdout), root: '/root-old', startedAt: Date.now() - BOOTSTRAP_TIMEOUT_MS - 60_000 }) + '\n');
      const results = await race(home, 8);
      expect(results.filter((r) => r === 'won'), `round ${round}`).toHaveLength(1);
      expect(existsSync(join(home, 'plugin-bootstrap.lock'))).toBe(false);
    }
  }, 120_000);
});
