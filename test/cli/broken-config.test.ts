/**
 * A config.json that does not parse, while the daemon runs (it started with a good one): status
 * and doctor still run — they say the file is broken and still show that the daemon is up —
 * instead of refusing (exit 2) and hiding it. A bad --set is still a usage error (control),
 * and every other command still refuses (control). Real CLI and daemon, temp home.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, startDaemon, tempEnv, waitCanary, type Env } from '../daemon/helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

describe('a broken config.json', () => {
  it('status and doctor say so and still show the daemon running; other commands refuse', async () => {
    e = tempEnv('ab-broken-config-');
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const file = join(e.home, 'config.json');
    writeFileSync(file, '{ "daemon": { "cycleMs": 500, }\n');

    const st = cli(e, ['status']);
    expect(st.code, st.stderr).toBe(0);
    expect(st.stdout).toMatch(new RegExp(`^config: +BROKEN — ${file.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON`, 'm'));
    expect(st.stdout).toMatch(new RegExp(`^daemon: +running \\(pid ${d.pid}`, 'm'));
    const sj = JSON.parse(cli(e, ['status', '--json']).stdout) as { config_problem: string | null; running: boolean; pid: number };
    expect(sj).toMatchObject({ running: true, pid: d.pid });
    expect(sj.config_problem).toContain('is not valid JSON');

    const doc = cli(e, ['doctor', '--json']);
    expect(doc.code).toBe(1);
    const checks = (JSON.parse(doc.stdout) as { checks: Array<{ name: string; pass: boolean; detail: string; fix: string }> }).checks;
    expect(checks[0]).toMatchObject({ name: 'config', pass: false, detail: expect.stringContaining('is not valid JSON') });
    expect(checks[0].fix).toContain(`fix ${file}`);
    expect(checks.find((c) => c.name === 'daemon')).toMatchObject({ pass: true });

    // Controls: a bad --set is still the person's usage error; another command still refuses.
    expect(cli(e, ['status', '--set', 'nonsense']).code).toBe(2);
    const other = cli(e, ['config']);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('is not valid JSON');
    // And once it reads again: no problem, the config check passes.
    writeFileSync(file, '{ "daemon": { "cycleMs": 500 } }\n');
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).config_problem).toBeNull();
    const ok = (JSON.parse(cli(e, ['doctor', '--json']).stdout) as { checks: Array<{ name: string; pass: boolean; detail: string }> }).checks[0];
    expect(ok).toMatchObject({ name: 'config', pass: true, detail: `${file} reads and checks` });
  }, 90_000);
});
