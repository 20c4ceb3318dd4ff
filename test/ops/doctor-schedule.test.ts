/**
 * doctor's `schedule` check (ops/doctor.ts checkSchedule): it passes when the service
 * manager's timer is active or the running daemon runs the scheduled index itself, and fails
 * with the fix otherwise — so "every check passed" no longer hides a set-up in which new
 * sessions never reach the store. The decision with stand-ins, then the real CLI with a
 * `systemctl` on PATH that answers as a user manager does (active timer) or as a container
 * without a user bus does.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkSchedule } from '../../ops/doctor.js';
import { ConfigSchema } from '../../config/schema.js';
import { cli, tempEnv, type Env } from '../daemon/helpers.js';

const config = (schedule: 'service' | 'daemon') => ConfigSchema.parse({ indexer: { schedule } });
const own = { intervalMinutes: 15, lastRunAt: 1, nextRunAt: Date.now() + 5 * 60_000, runningPid: null, lastExit: 0 };
const inactive = () => ({ active: false, detail: 'active-brain-index.timer: Failed to connect to bus: No medium found' });

describe('doctor schedule check (decision)', () => {
  it('passes with the daemon running its own schedule, or with an active timer', () => {
    expect(checkSchedule(config('daemon'), { running: true, index_schedule: own }, inactive)).toMatchObject({ pass: true, detail: expect.stringContaining('the daemon runs `active-brain index` every 15 min') });
    expect(checkSchedule(config('service'), { running: false, index_schedule: null }, () => ({ active: true, detail: 'active-brain-index.timer: active' }))).toMatchObject({ pass: true });
  });

  it('fails, naming the fix, when neither runs it', () => {
    const svc = checkSchedule(config('service'), { running: true, index_schedule: null }, inactive);
    expect(svc).toMatchObject({ pass: false, detail: expect.stringContaining('Failed to connect to bus') });
    expect(svc.fix).toMatch(/active-brain setup.*service install/);
    const dmn = checkSchedule(config('daemon'), { running: false, index_schedule: own }, inactive);
    expect(dmn).toMatchObject({ pass: false, detail: expect.stringContaining('the daemon is not running') });
    expect(dmn.fix).toContain('active-brain start --detach');
    expect(checkSchedule(config('service'), { running: false, index_schedule: null }, () => null)).toMatchObject({ pass: false, detail: expect.stringContaining('no user service manager') });
  });
});

describe.skipIf(process.platform !== 'linux')('doctor schedule check (CLI, fake systemctl)', () => {
  let e: Env;
  afterEach(() => e?.cleanup());
  function withSystemctl(script: string): Env {
    e = tempEnv('ab-doc-sched-');
    const bin = join(e.home, '..', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh\n${script}\n`);
    chmodSync(join(bin, 'systemctl'), 0o755);
    e.env.PATH = `${bin}:${process.env.PATH}`;
    return e;
  }
  const schedule = (env: Env) => (JSON.parse(cli(env, ['doctor', '--json']).stdout).checks as Array<{ name: string; pass: boolean; detail: string; fix: string }>).find((c) => c.name === 'schedule')!;

  it('an active timer passes; a machine without a user bus fails with the fix', () => {
    withSystemctl('[ "$2" = is-active ] && [ "$3" = active-brain-index.timer ] && { echo active; exit 0; }; exit 3');
    expect(schedule(e)).toMatchObject({ pass: true, detail: expect.stringContaining('active-brain-index.timer: active') });
    e.cleanup();
    withSystemctl('echo "Failed to connect to bus: No medium found" >&2; exit 1');
    const c = schedule(e);
    expect(c).toMatchObject({ pass: false, detail: expect.stringContaining('Failed to connect to bus') });
    expect(c.fix).toContain('active-brain setup');
  });
});
