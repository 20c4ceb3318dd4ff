/**
 * `doctor` and `status` say which sessions are workers and why (ops/workers-check.ts): the
 * rule in plain words, and whether the hook reads the same rule as the daemon. Real CLI, temp
 * home: a config whose worker rule the hook-settings file does not hold fails doctor (the hook
 * and the daemon would disagree) until the settings are rewritten (the control); a Codex
 * entrypoint in the list fails too (the hook cannot see it).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
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

  it('the logs: worker sessions per path; a session the daemon calls a worker that the hook offered to fails (control: an observed one passes)', () => {
    e = tempEnv('ab-workers-logs-');
    const config = ConfigSchema.parse({});
    writeHookSettings(config, e.env);
    const now = Date.now();
    const logs = join(e.home, 'logs');
    mkdirSync(logs, { recursive: true });
    const decision = (sessionId: string, worker: string | null, ts = now - 1000) => JSON.stringify({ type: 'decision', ts, sessionId, turn: 1, worker: worker !== null, silence: worker ? `worker-${worker}` : 'no-trigger' });
    const hookRec = (session: string, outcome: string, reason: string, ts = now - 500) => JSON.stringify({ ts, session, outcome, reason, exit: 0 });
    writeFileSync(join(logs, 'daemon.jsonl'), [
      decision('p-1', 'entrypoint'), decision('p-1', 'entrypoint'), decision('sub-1', 'sidechain'), decision('i-1', null),
      decision('old-1', 'entrypoint', now - 30 * 86_400_000), // outside the window
    ].join('\n') + '\n');
    writeFileSync(join(logs, 'hook.jsonl'), [
      hookRec('p-1', 'silent', 'worker-entrypoint'), hookRec('sub-1', 'silent', 'worker-sidechain'), hookRec('i-1', 'print', 'printed'), '{torn',
    ].join('\n') + '\n');
    const ok = checkWorkers(config, e.env, now);
    expect(ok.pass).toBe(true);
    expect(ok.detail).toContain('last 7 days, worker sessions: daemon 2 (entrypoint 1, sidechain 1), hook 2 (entrypoint 1, sidechain 1)');
    // The bug this rule prevents: the daemon logged the session as a worker, the hook printed to it.
    writeFileSync(join(logs, 'hook.jsonl'), hookRec('p-1', 'print', 'printed') + '\n', { flag: 'a' });
    const bad = checkWorkers(config, e.env, now);
    expect(bad.pass).toBe(false);
    expect(bad.detail).toContain('the hook offered to 1 session(s) the daemon treats as workers (p-1)');
    expect(cli(e, ['status']).stdout).toContain('the hook OFFERED to 1 of them');
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
