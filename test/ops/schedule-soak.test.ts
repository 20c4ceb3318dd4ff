/**
 * The scheduled index against the soak's zero-store-writes gate, on real processes: a real
 * daemon on a temp home, the timer's exact command line and environment taken from the
 * generated unit's ExecStart= / Environment= lines, `soak report` computed from what they
 * wrote. The scheduled runs keep the gate green — through new sessions, a transcript written
 * during the run, a deleted session, a locked store (busy) and a SIGTERM — and the daemon's
 * canary keeps moving throughout (never blocked). Controls: a write to the store outside an
 * index run turns it red and a later run does not turn it back; a run killed with SIGKILL
 * mid-way turns it red.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { appendFileSync, readFileSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { acquireIndexLock } from '../../indexer/lock.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { runScheduled, scheduledCommand } from './scheduled-run.js';
import {
  appendExchange, assistantLine, cli, newSession, readJson, sleep, startDaemon, tempEnv, userLine, waitCanary, waitFor, type Env,
} from '../daemon/helpers.js';

const envs: Env[] = [];
afterAll(() => envs.forEach((e) => e.cleanup()));

type Gate = { name: string; pass: boolean; figure: string };
function gates(e: Env): Record<string, Gate> {
  const r = cli(e, ['soak', 'report', '--json']);
  const rep = JSON.parse(r.stdout) as { gates: Gate[] };
  return Object.fromEntries(rep.gates.map((g) => [g.name, g]));
}
const storeGate = (e: Env) => gates(e)['zero-store-writes'];
const indexLog = (e: Env) => readFileSync(join(e.home, 'logs', 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
const lastRun = (e: Env) => indexLog(e).filter((r) => r.event === 'index-run').at(-1)!;
const cycles = (e: Env) => (readJson<{ cycles: number }>(join(e.home, 'canary.json'))?.cycles ?? 0);

function sessions(e: Env, n: number, tag: string) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = newSession(e);
    appendExchange(s, `${tag} ${i}: the postgres pool throws ECONNRESET under load`, `Raised the idle timeout to 30 s; ${tag} ${i} is fixed.`);
    out.push(s);
  }
  return out;
}

describe('scheduled index vs the zero-store-writes gate (real daemon, the unit\'s exact command)', () => {
  it('scheduled runs keep the gate green, the daemon is never blocked; a foreign write turns it red for good', async () => {
    const e = tempEnv('ab-sched-');
    envs.push(e);
    const [first] = sessions(e, 3, 'seed');
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
    const cmd = scheduledCommand(e);
    expect(cmd.argv.slice(-1)).toEqual(['index']);
    expect(cmd.env.ACTIVE_BRAIN_HOME).toBe(e.home);

    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    expect(storeGate(e)).toMatchObject({ pass: true, figure: 'store unchanged since the soak began' });

    // 1. new sessions: the scheduled run indexes them
    sessions(e, 2, 'new');
    let c0 = cycles(e);
    const r1 = await runScheduled(cmd, e);
    expect(r1.code, r1.stderr).toBe(0);
    expect(lastRun(e)).toMatchObject({ result: 'ok', exit: 0, indexed: 2, unchanged: 3 });
    expect(storeGate(e)).toMatchObject({ pass: true, figure: expect.stringContaining('only by the indexer (1 runs') });

    // 2. a transcript written during the run: nothing lost, the next run catches up
    const growing = newSession(e);
    appendExchange(growing, 'a session being written right now', 'Still answering.');
    let writing = true;
    const writer = (async () => {
      for (let i = 0; writing; i++) {
        appendFileSync(growing.path, userLine(growing, `line ${i} about retries`) + '\n' + assistantLine(growing, `answer ${i}`) + '\n');
        await sleep(5);
      }
    })();
    const r2 = await runScheduled(cmd, e);
    writing = false;
    await writer;
    expect(r2.code, r2.stderr).toBe(0);
    const r2b = await runScheduled(cmd, e);
    expect(r2b.code, r2b.stderr).toBe(0);
    const db = new Database(e.env.ACTIVE_BRAIN_STORE!, { readonly: true });
    const stored = db.prepare('SELECT size FROM documents WHERE path = ?').get(growing.path) as { size: number };
    db.close();
    expect(stored.size).toBe(statSync(growing.path).size);

    // 3. a deleted session is removed
    rmSync(first.path);
    const r3 = await runScheduled(cmd, e);
    expect(r3.code, r3.stderr).toBe(0);
    expect(lastRun(e)).toMatchObject({ result: 'ok', removed: 1 });

    // 4. a locked store: another indexer holds the lock; the run waits, gives up, says why (exit 1)
    const lock = await acquireIndexLock(0, e.env);
    c0 = cycles(e);
    const r4 = await runScheduled(cmd, e);
    await lock.release();
    expect(r4.code).toBe(1);
    expect(r4.stderr).toMatch(/another indexer \(pid \d+\) is running/);
    expect(lastRun(e)).toMatchObject({ result: 'busy', exit: 1, message: expect.stringContaining('another indexer') });
    expect(cycles(e)).toBeGreaterThan(c0); // the daemon kept cycling while the indexer waited

    // 5. SIGTERM mid-run (the service manager stopping it): recorded as interrupted, the chain holds
    sessions(e, 40, 'bulk');
    const r5 = runScheduled(cmd, e);
    await waitFor(() => indexLog(e).some((r) => r.event === 'index-start' && r.pid === r5.pid), 30_000, 'the run to start');
    process.kill(r5.pid, 'SIGTERM');
    const done5 = await r5;
    expect(done5.code).toBe(143);
    expect(lastRun(e)).toMatchObject({ result: 'interrupted', exit: 143, pid: r5.pid });
    const r6 = await runScheduled(cmd, e);
    expect(r6.code, r6.stderr).toBe(0);
    expect(lastRun(e)).toMatchObject({ result: 'ok', exit: 0 });
    const green = gates(e);
    expect(green['zero-store-writes']).toMatchObject({ pass: true, figure: expect.stringContaining('only by the indexer') });
    expect(green.liveness.pass).toBe(true);
    expect(green['honest-process-state'].pass).toBe(true);

    // control: a write outside an index run turns the gate red …
    const w = new Database(e.env.ACTIVE_BRAIN_STORE!);
    w.exec('CREATE TABLE IF NOT EXISTS intruder (x); INSERT INTO intruder VALUES (1);');
    w.close();
    expect(storeGate(e)).toMatchObject({ pass: false, figure: expect.stringContaining('written by something other than the indexer') });
    // … and the next scheduled run does not explain it away
    sessions(e, 1, 'after');
    const r7 = await runScheduled(cmd, e);
    expect(r7.code, r7.stderr).toBe(0);
    expect(storeGate(e)).toMatchObject({ pass: false, figure: expect.stringContaining('store changed outside an index run') });

    // every record written along the way (start, ok, busy, interrupted) has the documented shape
    const schema = loadSchema('index-run');
    const log = indexLog(e);
    expect(new Set(log.map((r) => r.result ?? r.event))).toEqual(new Set(['index-start', 'ok', 'busy', 'interrupted']));
    for (const r of log) expect(validate(schema, r)).toEqual([]);

    expect(cli(e, ['stop']).code).toBe(0);
    await d.exited;
  }, 300_000);

  it('control: a run killed with SIGKILL mid-way leaves writes nobody can vouch for: red', async () => {
    const e = tempEnv('ab-sched-kill-');
    envs.push(e);
    sessions(e, 2, 'seed');
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
    expect(storeGate(e).pass).toBe(true); // the first report takes the baseline
    const cmd = scheduledCommand(e);
    sessions(e, 40, 'bulk');
    const r = runScheduled(cmd, e);
    await waitFor(() => indexLog(e).some((x) => x.event === 'index-start' && x.pid === r.pid), 30_000, 'the run to start');
    process.kill(r.pid, 'SIGKILL');
    expect((await r).code).toBe(137);
    expect(storeGate(e)).toMatchObject({ pass: false, figure: expect.stringContaining('never finished') });
  }, 120_000);
});
