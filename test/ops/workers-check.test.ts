/**
 * `doctor` and `status` say which sessions are workers and why (ops/workers-check.ts): the
 * rule in plain words, and whether the hook reads the same rule as the daemon. Real CLI, temp
 * home: a config whose worker rule the hook-settings file does not hold fails doctor (the hook
 * and the daemon would disagree) until the settings are rewritten (the control); a Codex
 * entrypoint in the list fails too (the hook cannot see it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { writeHookSettings } from '../../config/hook-settings.js';
import { checkWorkers, workersSummary } from '../../ops/workers-check.js';
import { cli, tempEnv, type Env } from '../daemon/helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

const workersCheck = (stdout: string) => (JSON.parse(stdout) as { checks: Array<{ name: string; pass: boolean; detail: string; fix: string }> }).checks.find((c) => c.name === 'workers');

describe('doctor and status: which sessions are workers, and why', () => {
  it('doctor passes when the hook reads the same rule; fails (with the fix) when hook-settings.json holds another one', () => {
    e = tempEnv('ab-workers-');
    const config = ConfigSchema.parse({});
    writeHookSettings(config, e.env);
    const ok = workersCheck(cli(e, ['doctor', '--json']).stdout)!;
    expect(ok.pass).toBe(true);
    for (const w of ['sdk-cli, sdk-ts, sdk-py', 'CLAUDE_CODE_SESSION_ATTENDED=0', 'ACTIVE_BRAIN_WORKER', e.home]) expect(ok.detail).toContain(w);
    // The user lets their own headless runs through in config.json, but the hook still holds
    // the old rule: the two paths would disagree.
    writeFileSync(join(e.home, 'config.json'), JSON.stringify({ workers: { entrypoints: [], unattended: 'entrypoints' } }));
    const bad = workersCheck(cli(e, ['doctor', '--json']).stdout)!;
    expect(bad.pass).toBe(false);
    expect(bad.detail).toContain('hook-settings.json holds another worker rule');
    expect(bad.fix).toContain('active-brain install');
    // Control: the settings rewritten from the same config → the check passes again.
    writeHookSettings(ConfigSchema.parse({ workers: { entrypoints: [], unattended: 'entrypoints' } }), e.env);
    const again = workersCheck(cli(e, ['doctor', '--json']).stdout)!;
    expect(again.pass).toBe(true);
    expect(again.detail).toContain('only when their entrypoint is listed');
  });

  it('a Codex entrypoint in the list fails: only the daemon would see it (control: a cwd glob passes)', () => {
    e = tempEnv('ab-workers-codex-');
    const codex = ConfigSchema.parse({ workers: { entrypoints: ['sdk-cli', 'codex_exec'] } });
    writeHookSettings(codex, e.env);
    const c = checkWorkers(codex, e.env);
    expect(c).toMatchObject({ pass: false });
    expect(c.fix).toContain('workers.cwdGlobs');
    const glob = ConfigSchema.parse({ workers: { cwdGlobs: ['/srv/ci/**'] } });
    writeHookSettings(glob, e.env);
    expect(checkWorkers(glob, e.env)).toMatchObject({ pass: true });
  });

  it('status --json carries the rule and the hook\'s copy; the human form has a workers line', () => {
    e = tempEnv('ab-workers-status-');
    expect(workersSummary(ConfigSchema.parse({}), e.env).hook).toBe('missing');
    writeHookSettings(ConfigSchema.parse({}), e.env);
    const j = JSON.parse(cli(e, ['status', '--json']).stdout) as { workers: Record<string, unknown> };
    expect(j.workers).toMatchObject({ entrypoints: ['sdk-cli', 'sdk-ts', 'sdk-py'], unattended: 'worker', hook: 'same', envMarker: 'ACTIVE_BRAIN_WORKER' });
    expect(cli(e, ['status']).stdout).toMatch(/^workers: {2}never offered to: subagents and sidechains/m);
  });
});
