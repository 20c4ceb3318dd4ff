/**
 * `active-brain doctor` as a new user runs it: the real CLI on a temp home, transcripts root
 * and Claude config dir. It catches a wrong root, a missing hook and a stopped daemon (each
 * with its fix), and passes those checks once they are right (the controls).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ROLLOUT_1 } from '../helpers/codex.js';
import { BIN, appendExchange, cli, newSession, startDaemon, tempEnv, waitCanary, type Env } from '../daemon/helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

type Check = { name: string; pass: boolean; detail: string; fix: string };
const doctor = (env: Env) => {
  const r = cli(env, ['doctor', '--json']);
  const j = JSON.parse(r.stdout) as { checks: Check[]; pass: boolean };
  return { code: r.code, j, by: (n: string) => j.checks.find((c) => c.name === n)! };
};

describe('active-brain doctor', () => {
  it('catches a wrong transcripts root, a missing hook and a stopped daemon, each with its fix', () => {
    e = tempEnv('ab-doctor-');
    e.env.CLAUDE_CONFIG_DIR = join(e.home, '..', 'claude');
    e.env.ACTIVE_BRAIN_TRANSCRIPTS = join(e.home, '..', 'no-such-root');
    const r = doctor(e);
    expect(r.code).toBe(1);
    expect(r.j.pass).toBe(false);
    expect(r.by('transcripts-root')).toMatchObject({ pass: false, detail: expect.stringContaining('does not exist') });
    expect(r.by('transcripts-root').fix).toContain('ACTIVE_BRAIN_TRANSCRIPTS');
    expect(r.by('hook:UserPromptSubmit')).toMatchObject({ pass: false, fix: expect.stringContaining('active-brain install') });
    expect(r.by('daemon')).toMatchObject({ pass: false, fix: expect.stringContaining('start --detach') });
    expect(r.by('store')).toMatchObject({ pass: false });
    for (const c of r.j.checks) if (!c.pass) expect(c.fix.length).toBeGreaterThan(0);
    // The human form says the same.
    const text = cli(e, ['doctor']);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/FAIL\s+transcripts-root/);
  });

  it('Codex CLI: "not used" without it; with rollouts and no hook it fails naming install --host codex; passes once installed', () => {
    e = tempEnv('ab-doctor-');
    e.env.CLAUDE_CONFIG_DIR = join(e.home, '..', 'claude');
    expect(doctor(e).by('codex')).toMatchObject({ pass: true, detail: expect.stringContaining('not used') });
    const day = join(e.env.CODEX_HOME!, 'sessions', '2026', '11', '30');
    mkdirSync(day, { recursive: true });
    copyFileSync(ROLLOUT_1, join(day, ROLLOUT_1.split('/').at(-1)!));
    const missing = doctor(e).by('codex');
    expect(missing).toMatchObject({ pass: false, detail: expect.stringContaining('1 rollout(s)') });
    expect(missing.detail).toContain('UserPromptSubmit, PostToolUse');
    expect(missing.fix).toContain('active-brain install --host codex');
    expect(cli(e, ['install', '--host', 'codex']).code).toBe(0);
    expect(doctor(e).by('codex')).toMatchObject({ pass: true, detail: expect.stringContaining('hook registered in') });
  });

  it('passes those checks once the root holds sessions, the hook is installed and the daemon runs', async () => {
    e = tempEnv('ab-doctor-');
    e.env.CLAUDE_CONFIG_DIR = join(e.home, '..', 'claude');
    mkdirSync(e.env.CLAUDE_CONFIG_DIR, { recursive: true });
    const s = newSession(e);
    appendExchange(s, 'how do I rotate the logs', 'Use the rotate option.');
    expect(cli(e, ['install']).code).toBe(0);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const r = doctor(e);
    expect(r.by('transcripts-root')).toMatchObject({ pass: true, detail: expect.stringContaining('1 session(s)') });
    expect(r.by('hook:UserPromptSubmit')).toMatchObject({ pass: true });
    expect(r.by('daemon')).toMatchObject({ pass: true });
    expect(r.by('model')).toMatchObject({ pass: true });
    expect(r.by('state-dir')).toMatchObject({ pass: true });
    expect(r.by('kill-switch')).toMatchObject({ pass: true });
    expect(r.by('modes').detail).toContain('default: prompt soak, tool soak');
    // Registered twice (user and project scope): every offer would fire twice — a failure.
    const proj = join(e.home, '..', 'proj');
    mkdirSync(join(proj, '.claude'), { recursive: true });
    const user = JSON.parse(readFileSync(join(e.env.CLAUDE_CONFIG_DIR, 'settings.json'), 'utf8'));
    writeFileSync(join(proj, '.claude', 'settings.json'), JSON.stringify(user));
    const twice = spawnSync(process.execPath, [BIN, 'doctor', '--json'], { cwd: proj, env: e.env, encoding: 'utf8' });
    const j = JSON.parse(twice.stdout) as { checks: Check[] };
    expect(j.checks.find((c) => c.name === 'hook:UserPromptSubmit')).toMatchObject({ pass: false, detail: expect.stringContaining('fire twice') });
  });
});
