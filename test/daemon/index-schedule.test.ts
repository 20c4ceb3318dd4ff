/**
 * The daemon's own index schedule (indexer.schedule = "daemon", daemon/index-schedule.ts):
 * the decision with a fake clock and a counted start (due, one run at a time, off when the
 * timer runs it), then the real daemon on a temp home starting the real `active-brain index`:
 * a run is recorded in logs/index.jsonl and the canary says so; with the indexer lock held by
 * someone else (as a timer's run would hold it) the daemon's run waits and is recorded busy:
 * the same lock, one index run at a time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DaemonIndexSchedule, dueAt, type IndexChild } from '../../daemon/index-schedule.js';
import { acquireIndexLock } from '../../indexer/lock.js';
import { appendExchange, cli, newSession, readJson, startDaemon, tempEnv, waitFor, type Env } from './helpers.js';

const MIN = 60_000;

function fakeStarts() {
  const children: Array<IndexChild & { end: (code: number) => void }> = [];
  const start = () => {
    let cb: (c: number | null) => void = () => {};
    const c = { pid: 1000 + children.length, onExit: (f: (c: number | null) => void) => { cb = f; }, end: (code: number) => cb(code) };
    children.push(c);
    return c;
  };
  const events = { started: () => {}, ended: () => {}, failed: () => {} };
  return { children, start, events };
}

describe('the daemon index schedule (decision)', () => {
  it('runs when due, never two at a time, then an interval after the last start', () => {
    const f = fakeStarts();
    const s = new DaemonIndexSchedule(f.start, f.events);
    const on = { enabled: true, intervalMinutes: 15 };
    s.tick(on, 0);
    expect(f.children).toHaveLength(1); // no run known: due now
    s.tick(on, 20 * MIN);
    expect(f.children).toHaveLength(1); // the first still runs: no second one
    expect(s.snapshot(20 * MIN)).toMatchObject({ runningPid: 1000, nextRunAt: null });
    f.children[0].end(0);
    s.tick(on, 20 * MIN + 1);
    expect(f.children).toHaveLength(2); // overdue (started at 0): at once
    f.children[1].end(0);
    s.tick(on, 30 * MIN);
    expect(f.children).toHaveLength(2);
    s.tick(on, 35 * MIN + 1);
    expect(f.children).toHaveLength(3);
  });

  it('off while the service manager runs the schedule; a recorded run defers the first one', () => {
    const f = fakeStarts();
    const s = new DaemonIndexSchedule(f.start, f.events, { startedAt: 100 * MIN, endedAt: 101 * MIN });
    s.tick({ enabled: false, intervalMinutes: 15 }, 200 * MIN);
    expect(f.children).toHaveLength(0);
    expect(s.snapshot()).toBeNull();
    s.tick({ enabled: true, intervalMinutes: 15 }, 110 * MIN);
    expect(f.children).toHaveLength(0); // setup's run 10 min ago: not yet
    expect(s.snapshot(110 * MIN)).toMatchObject({ nextRunAt: 115 * MIN, intervalMinutes: 15 });
    s.tick({ enabled: true, intervalMinutes: 15 }, 115 * MIN);
    expect(f.children).toHaveLength(1);
    expect(dueAt({ startedAt: null, endedAt: null }, 15, 42)).toBe(42);
  });
});

describe('the daemon index schedule (a start that fails)', () => {
  it('is said once and retried an interval later, not every cycle', () => {
    const failed: string[] = [];
    let tries = 0;
    const s = new DaemonIndexSchedule(() => { tries++; throw new Error('EAGAIN'); }, { started: () => {}, ended: () => {}, failed: (m) => failed.push(m) });
    const on = { enabled: true, intervalMinutes: 15 };
    s.tick(on, 0);
    s.tick(on, 2_000);
    expect([tries, failed]).toEqual([1, ['EAGAIN']]);
    s.tick(on, 15 * MIN);
    expect(tries).toBe(2);
    const nulls: string[] = [];
    const n = new DaemonIndexSchedule(() => null, { started: () => {}, ended: () => {}, failed: (m) => nulls.push(m) });
    n.tick(on, 0);
    n.tick(on, 1);
    expect(nulls).toEqual(['could not start `active-brain index`']);
  });
});

describe('the daemon index schedule (real daemon, real index runs)', () => {
  let e: Env;
  afterEach(() => e?.cleanup());
  const runs = (env: Env) => {
    const r = cli(env, ['service', 'status', '--platform', 'linux', '--no-manage', '--json']);
    return JSON.parse(r.stdout).last_index_run as { last: { result: string; exit: number; pid: number } | null };
  };
  /** Until a run has ended (its `index-run` record), by reading the log: a CLI process every
   *  40 ms would take the CPU the daemon and its index run need on a loaded machine. Then what
   *  `service status` says of it. */
  const ended = async (env: Env, what: string) => {
    const log = join(env.home, 'logs', 'index.jsonl');
    await waitFor(() => existsSync(log) && readFileSync(log, 'utf8').includes('"event":"index-run"'), 90_000, what);
    return runs(env).last!;
  };

  it('starts `active-brain index` itself; under a lock someone else holds its run is busy (the same lock)', async () => {
    e = tempEnv('ab-idx-sched-');
    const s = newSession(e);
    appendExchange(s, 'why does the pool throw ECONNRESET', 'Raised the idle timeout; fixed.');
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
    const log = join(e.home, 'logs', 'index.jsonl');
    rmSync(log); // no run history: the daemon's first run is due at once
    const sets = ['indexer.schedule=daemon'];

    // control: nothing holds the lock → the daemon's run is an ordinary ok run
    const d1 = startDaemon(e, sets);
    const ok = await ended(e, 'scheduled run');
    expect(ok).toMatchObject({ result: 'ok', exit: 0 });
    expect(ok.pid).not.toBe(d1.pid); // a separate process: the daemon stays read-only
    const canary = await waitFor(() => readJson<{ indexSchedule?: { lastExit: number | null } }>(join(e.home, 'canary.json'))?.indexSchedule?.lastExit === 0 && readJson<{ indexSchedule: unknown }>(join(e.home, 'canary.json')));
    expect(canary.indexSchedule).toMatchObject({ intervalMinutes: 15, runningPid: null });
    const status = JSON.parse(cli(e, ['status', '--json']).stdout);
    expect(status.index_schedule).toMatchObject({ intervalMinutes: 15, lastExit: 0 });
    d1.child.kill('SIGTERM');
    await d1.exited;

    // the lock held (as a timer's run or a user's `index` would hold it): the run is refused
    rmSync(log);
    const lock = await acquireIndexLock(0, e.env);
    try {
      const d2 = startDaemon(e, sets);
      const busy = await ended(e, 'busy run');
      expect(busy).toMatchObject({ result: 'busy', exit: 1 });
      d2.child.kill('SIGTERM');
      await d2.exited;
    } finally {
      await lock.release();
    }
  }, 240_000);

  it('a running daemon takes the schedule over when config.json switches it (as the setup fallback does), and gives it back', async () => {
    e = tempEnv('ab-idx-sched-');
    const d = startDaemon(e);
    const canary = join(e.home, 'canary.json');
    type C = { indexSchedule?: { intervalMinutes: number } };
    await waitFor(() => readJson<C>(canary), 30_000, 'canary');
    expect(readJson<C>(canary)!.indexSchedule).toBeUndefined(); // control: the timer's (default)
    writeFileSync(join(e.home, 'config.json'), JSON.stringify({ indexer: { schedule: 'daemon', intervalMinutes: 30 } }));
    await waitFor(() => readJson<C>(canary)?.indexSchedule?.intervalMinutes === 30, 20_000, 'schedule taken over');
    writeFileSync(join(e.home, 'config.json'), JSON.stringify({ indexer: { schedule: 'service' } }));
    await waitFor(() => readJson<C>(canary) && !readJson<C>(canary)!.indexSchedule, 20_000, 'schedule given back');
    d.child.kill('SIGTERM');
    await d.exited;
  }, 60_000);
});
