/**
 * daemon/idle-gc.ts: one full collection once the daemon has been quiet for QUIET_MS after a
 * cycle that used more than BUSY_CPU_MS of CPU (start-up counts as work), none while work goes
 * on or when nothing happened since the last one, and the collection's own CPU is not work;
 * and a daemon started with DAEMON_NODE_FLAGS has `gc` to call; daemonEnv adds the malloc
 * settings where the caller set none.
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { BUSY_CPU_MS, QUIET_MS, IdleCollector, idleGcDue } from '../../daemon/idle-gc.js';
import { DAEMON_ENV, DAEMON_NODE_FLAGS, daemonEnv } from '../../shared/daemon-node-flags.js';

describe('idle GC', () => {
  it('idleGcDue: work marks dirty; a quiet stretch of QUIET_MS after it collects once', () => {
    let s = { dirty: false, lastBusyAt: 0 };
    expect(idleGcDue(s, 0, 10_000).collect).toBe(false); // nothing happened
    s = idleGcDue(s, BUSY_CPU_MS + 1, 1_000).state;
    expect(s).toEqual({ dirty: true, lastBusyAt: 1_000 });
    expect(idleGcDue(s, BUSY_CPU_MS, 1_000 + QUIET_MS - 1).collect).toBe(false); // not quiet long enough
    const due = idleGcDue(s, 0, 1_000 + QUIET_MS);
    expect(due.collect).toBe(true);
    expect(idleGcDue(due.state, 0, 1_000 + 10 * QUIET_MS).collect).toBe(false); // once
    expect(idleGcDue(s, BUSY_CPU_MS + 1, 1_000 + QUIET_MS).collect).toBe(false); // still busy
  });

  it('IdleCollector: collects after start-up once quiet, again only after more work; its own CPU is not work', () => {
    let cpu = 0;
    let calls = 0;
    const gcCost = BUSY_CPU_MS * 10;
    const c = new IdleCollector(() => {
      calls++;
      cpu += gcCost;
    }, () => cpu, 0);
    c.tick(1_000);
    expect(calls).toBe(0);
    c.tick(QUIET_MS);
    expect(calls).toBe(1);
    for (let t = 2 * QUIET_MS; t < 10 * QUIET_MS; t += 1_000) c.tick(t);
    expect(calls).toBe(1);
    cpu += BUSY_CPU_MS * 3; // an exchange, an index refresh
    c.tick(10 * QUIET_MS);
    c.tick(11 * QUIET_MS - 1);
    expect(calls).toBe(1);
    c.tick(11 * QUIET_MS);
    expect(calls).toBe(2);
    expect(c.collections).toBe(2);
    // Without gc exposed: nothing to call, nothing thrown.
    const none = new IdleCollector(undefined, () => 0, 0);
    none.tick(QUIET_MS);
    expect(none.collections).toBe(0);
  });

  it('the daemon node flags expose gc', () => {
    const r = spawnSync(process.execPath, [...DAEMON_NODE_FLAGS, '-e', 'process.stdout.write(typeof gc)'], { encoding: 'utf8' });
    expect(r.stdout).toBe('function');
  });

  it('daemonEnv: the malloc settings added, a value the caller set kept', () => {
    const env = daemonEnv({ PATH: '/bin', MALLOC_TRIM_THRESHOLD_: '0' });
    expect(env).toEqual({ ...DAEMON_ENV, PATH: '/bin', MALLOC_TRIM_THRESHOLD_: '0' });
    expect(Object.keys(DAEMON_ENV).length).toBeGreaterThan(0);
  });
});
