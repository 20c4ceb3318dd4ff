/**
 * The real daemon process on temp dirs: singleton, canary, decisions and caches for appended
 * transcript lines (validated against logs-schema/), SIGTERM, stale lock after SIGKILL,
 * `stop`, `status --json` truth (running / stopped / frozen), kill file, idle exit, detach.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { DAEMON_ENV } from '../../shared/daemon-node-flags.js';
import {
  appendExchange,
  cli,
  decisions,
  events,
  logRecords,
  newSession,
  readJson,
  sleep,
  startDaemon,
  statusRunning,
  tempEnv,
  waitCanary,
  waitFor,
  type Env,
} from './helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

const schemas = {
  decision: loadSchema('daemon-decision'),
  event: loadSchema('daemon-event'),
  canary: loadSchema('canary'),
  cache: loadSchema('offer-cache'),
};

function expectValidLogs(env: Env): void {
  const recs = logRecords(env);
  expect(recs.length).toBeGreaterThan(0);
  for (const r of recs) {
    const errs = validate(r.type === 'decision' ? schemas.decision : schemas.event, r);
    expect(errs, JSON.stringify(r)).toEqual([]);
  }
}

describe('daemon lifecycle (real process)', () => {
  it('runs as a singleton, writes canary, decisions and caches, stops cleanly on SIGTERM', async () => {
    e = tempEnv();
    const d = startDaemon(e);
    const canary = await waitCanary(e, d.pid);
    expect(validate(schemas.canary, canary)).toEqual([]);

    // A second start: the running pid and exit 1.
    const second = cli(e, ['start', '--set', 'daemon.cycleMs=200']);
    expect(second.code).toBe(1);
    expect(second.stderr).toContain(`active-brain daemon already running (pid ${d.pid})`);

    // status --json: running (exit 0), with the canary's figures.
    const s = await statusRunning(e);
    expect(s).toMatchObject({ running: true, pid: d.pid, killed: false, mode: 'soak' });
    expect(s.canary_age_s).toBeLessThanOrEqual(0.6);
    expect(s.store).toMatchObject({ present: false });
    for (const k of ['sessions', 'model', 'uptime_s', 'last_error', 'modes']) expect(s).toHaveProperty(k);

    // Transcript lines appended live → a decision per exchange and a cache stamped for it.
    const sess = newSession(e);
    appendExchange(sess, 'How do I configure the postgres connection pool for the api?', 'Set max connections and the idle timeout in the pool options.');
    const cachePath = join(e.home, 'cache', `${sess.id}.json`);
    const cache = await waitFor(() => readJson<Record<string, number>>(cachePath), 15_000, 'cache file');
    expect(validate(schemas.cache, cache)).toEqual([]);
    expect(cache).toMatchObject({ version: 1, sessionId: sess.id, turn: 0, mode: 'default', offer: null });
    expect(cache.transcriptOffset).toBeGreaterThan(0);
    await waitFor(() => decisions(e).length >= 1, 5000, 'decision record');
    const dec = decisions(e)[0];
    expect(dec).toMatchObject({ sessionId: sess.id, turn: 0, would_fire: false, silence: expect.any(String) });
    expect(events(e, 'session-new').length).toBe(1);

    appendExchange(sess, 'Now the pool throws ECONNRESET after a while, why?', 'Idle connections get reset by the server; enable keepAlive.');
    await waitFor(() => (readJson(cachePath) as { turn?: number } | null)?.turn === 1, 15_000, 'cache for turn 1');

    // A frozen daemon (SIGSTOP): the pid is alive and the lock fresh, but the canary goes stale.
    process.kill(d.pid, 'SIGSTOP');
    try {
      await sleep(900); // > 3 cycles of 200 ms
      const frozen = JSON.parse(cli(e, ['status', '--json']).stdout);
      expect(frozen).toMatchObject({ running: false, pid: d.pid, problem: 'stale-canary' });
      expect(frozen.canary_age_s).toBeGreaterThan(0.6);
    } finally {
      process.kill(d.pid, 'SIGCONT');
    }
    await waitFor(() => JSON.parse(cli(e, ['status', '--json']).stdout).running === true, 5000, 'running again');

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(existsSync(join(e.home, 'daemon.lock'))).toBe(false);
    expect(existsSync(join(e.home, 'daemon.pid'))).toBe(false);
    expect(events(e, 'stop').at(-1)).toMatchObject({ reason: 'sigterm' });
    expectValidLogs(e);

    const after = cli(e, ['status', '--json']);
    expect(after.code).toBe(1);
    expect(JSON.parse(after.stdout)).toMatchObject({ running: false, pid: null });
  });

  it('recovers the lock after SIGKILL; stop sends SIGTERM and waits; stop with nothing running fails', async () => {
    e = tempEnv();
    const d1 = startDaemon(e);
    await waitCanary(e, d1.pid);
    d1.child.kill('SIGKILL');
    await d1.exited;
    expect(existsSync(join(e.home, 'daemon.lock'))).toBe(true); // left behind

    const st = JSON.parse(cli(e, ['status', '--json']).stdout);
    expect(st).toMatchObject({ running: false, problem: 'dead-pid' });

    const d2 = startDaemon(e);
    await waitCanary(e, d2.pid);
    expect(events(e, 'start').at(-1)).toMatchObject({ pid: d2.pid, reason: 'recovered-dead-pid' });

    const stop = cli(e, ['stop']);
    expect(stop.code).toBe(0);
    expect(stop.stdout).toContain(`stopped (pid ${d2.pid}`);
    expect(await d2.exited).toBe(0);

    const again = cli(e, ['stop']);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/no daemon is running/);
  });

  it('KILL file: clears caches, logs it, exits 0; status reports killed', async () => {
    e = tempEnv();
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const sess = newSession(e);
    appendExchange(sess, 'Set up the deploy pipeline for staging', 'Added a staging job to the CI config.');
    const cachePath = join(e.home, 'cache', `${sess.id}.json`);
    await waitFor(() => existsSync(cachePath), 15_000, 'cache');
    writeFileSync(join(e.home, 'KILL'), '');
    expect(await d.exited).toBe(0);
    expect(readdirSync(join(e.home, 'cache'))).toEqual([]);
    expect(events(e, 'kill').length).toBe(1);
    expect(readJson(join(e.home, 'canary.json'))).toMatchObject({ killed: true });
    const s = JSON.parse(cli(e, ['status', '--json']).stdout);
    expect(s).toMatchObject({ running: false, killed: true });
    // Control: without the KILL file the same daemon keeps running (see the first test).
  });

  it('idle exit after the configured quiet period (control: the default 0 = never keeps the first test\'s daemon up)', async () => {
    e = tempEnv();
    const t0 = Date.now();
    const d = startDaemon(e, ['daemon.idleExitMinutes=0.02']); // 1.2 s
    expect(await d.exited).toBe(0);
    expect(Date.now() - t0).toBeGreaterThan(1200);
    expect(events(e, 'idle-exit').length).toBe(1);
    expect(events(e, 'stop').at(-1)).toMatchObject({ reason: 'idle' });
    expect(events(e, 'root-missing')).toEqual([]); // control for the next test: the root exists
    expect(d.stderr()).not.toContain('does not exist yet');
  });

  it('start --json in the foreground prints one object when the daemon stops', () => {
    e = tempEnv();
    const r = cli(e, ['start', '--json', '--set', 'daemon.idleExitMinutes=0.02', '--set', 'daemon.cycleMs=200']);
    expect(r.code).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ started: true, pid: expect.any(Number), root: e.root, home: e.home, exit: 0 });
  });

  it('a transcripts root that does not exist is watched but warned about, on stderr and in the log', async () => {
    e = tempEnv();
    const missing = join(e.home, 'no-such-projects');
    e.env.ACTIVE_BRAIN_TRANSCRIPTS = missing;
    const d = startDaemon(e, ['daemon.idleExitMinutes=0.02']);
    expect(await d.exited).toBe(0);
    expect(d.stderr()).toContain(`the transcripts root ${missing} does not exist yet`);
    expect(d.stderr()).toContain('ACTIVE_BRAIN_TRANSCRIPTS');
    expect(events(e, 'root-missing')).toMatchObject([{ path: missing }]);
    expectValidLogs(e);
  });

  it('a model that cannot load: exit 3 with what to do, lock released; a bad config value: exit 2', async () => {
    e = tempEnv();
    e.env.ACTIVE_BRAIN_MODEL_PATH = join(e.home, 'no-such-model');
    const r = cli(e, ['start']);
    expect(r.code).toBe(3);
    expect(r.stderr).toMatch(/no-such-model/);
    expect(r.stderr).toMatch(/ACTIVE_BRAIN_MODEL_PATH|model:offline/);
    expect(existsSync(join(e.home, 'daemon.lock'))).toBe(false);
    expect(events(e, 'error').at(-1)).toMatchObject({ reason: 'embedder' });
    const bad = cli(e, ['start', '--set', 'daemon.cycleMs=5']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/daemon\.cycleMs/);
  });

  it('start --detach returns with the pid of a running daemon, again with exit 0 when it runs already; stop stops it', async () => {
    e = tempEnv();
    const r = cli(e, ['start', '--detach', '--json', '--set', 'daemon.cycleMs=200']);
    expect(r.code, r.stderr).toBe(0);
    const { pid } = JSON.parse(r.stdout) as { pid: number };
    e.track(pid);
    expect(await statusRunning(e)).toMatchObject({ running: true, pid });
    expect(existsSync(join(e.home, 'logs', 'daemon.out'))).toBe(true);
    // It runs with the daemon's malloc environment (shared/daemon-node-flags.ts DAEMON_ENV).
    if (process.platform === 'linux') {
      const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
      for (const [k, v] of Object.entries(DAEMON_ENV)) expect(environ).toContain(`${k}=${v}`);
    }
    // idempotent: the running daemon is what was asked for (exit 0, its pid; nothing started)
    const again = cli(e, ['start', '--detach']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`active-brain daemon already running, pid ${pid}\n`);
    expect(JSON.parse(cli(e, ['start', '--detach', '--json']).stdout)).toEqual({ started: false, already_running: true, pid, out: join(e.home, 'logs', 'daemon.out') });
    expect(cli(e, ['stop']).code).toBe(0);
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).running).toBe(false);
    // With the kill switch on, a detached start does not claim success: exit 1, says unkill.
    writeFileSync(join(e.home, 'KILL'), '');
    const killed = cli(e, ['start', '--detach']);
    expect(killed.code).toBe(1);
    expect(killed.stderr).toMatch(/kill switch is on.*active-brain unkill/);
    expect(killed.stdout).toBe('');
    // The same in the foreground (one rule for a person, whichever way they start it), and --json says so.
    const fg = cli(e, ['start']);
    expect(fg.code).toBe(1);
    expect(fg.stderr).toMatch(/kill switch is on.*active-brain unkill/);
    const fgJson = cli(e, ['start', '--json']);
    expect(fgJson.code).toBe(1);
    expect(JSON.parse(fgJson.stdout)).toMatchObject({ started: false, reason: 'kill-switch' });
    // Under the service manager (its unit sets ACTIVE_BRAIN_SERVICE) the clean exit 0 stands: no restart loop.
    const svc = cli({ ...e, env: { ...e.env, ACTIVE_BRAIN_SERVICE: '1' } }, ['start']);
    expect(svc.code).toBe(0);
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).running).toBe(false);
  });
});

describe('stop while starting', () => {
  it('SIGTERM during the model load: clean exit 0 with a stop event, lock released', async () => {
    e = tempEnv();
    const d = startDaemon(e);
    // The pid file appears when the lock is taken, before the model loads.
    await waitFor(() => existsSync(join(e.home, 'daemon.pid')), 20_000, 'pid file');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(events(e, 'stop').at(-1)).toMatchObject({ reason: 'sigterm' });
    const again = startDaemon(e);
    await waitCanary(e, again.pid);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  });
});
