/**
 * `install --host codex` / `uninstall --host codex`, the real CLI on a temp CODEX_HOME:
 * hooks.json gets our entry under UserPromptSubmit and PostToolUse only (Codex has no failure
 * event), other hooks and keys are kept, a second install changes nothing, --dry-run writes
 * nothing, uninstall removes only ours and round-trips to the original bytes' content, invalid
 * JSON is refused untouched (exit 1), --host with an unknown value is a usage error (exit 2),
 * config.toml is never touched. The registered command, run by sh as Codex runs it, answers a
 * Codex payload (silently here: no cache) with exit 0 and logs it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, cleanupTemp, tempDir, logRecords, makeCtx } from './helpers.js';

afterAll(() => cleanupTemp());
const BIN = join(ROOT, 'bin', 'active-brain.js');

function cli(args: string[], env: NodeJS.ProcessEnv) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

const THEIRS = {
  hooks: {
    Stop: [{ hooks: [{ type: 'command', command: 'notify-send done', timeout: 5 }] }],
    PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'audit-log', timeout: 3 }] }],
  },
};

describe('install/uninstall --host codex (real CLI, temp CODEX_HOME)', () => {
  it('writes hooks.json (two events), is idempotent, keeps the rest, dry-runs, and round-trips', () => {
    const d = tempDir('ab-codex-install-');
    const codexHome = join(d, 'codex');
    mkdirSync(codexHome, { recursive: true });
    const toml = 'model = "gpt-5-codex"\n[features]\nhooks = true\n';
    writeFileSync(join(codexHome, 'config.toml'), toml);
    const original = JSON.stringify(THEIRS, null, 2) + '\n';
    writeFileSync(join(codexHome, 'hooks.json'), original);
    const env = { HOME: d, CODEX_HOME: codexHome, ACTIVE_BRAIN_HOME: join(d, 'home') };

    const dry = cli(['install', '--host', 'codex', '--dry-run'], env);
    expect(dry.code, dry.stderr).toBe(0);
    expect(dry.stdout).toContain(`would change ${join(codexHome, 'hooks.json')}`);
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toBe(original);

    const a = cli(['install', '--host', 'codex', '--json'], env);
    expect(a.code, a.stderr).toBe(0);
    const report = JSON.parse(a.stdout);
    expect(report).toMatchObject({ host: 'codex', action: 'added', changed: true, events: { UserPromptSubmit: 'added', PostToolUse: 'added' } });
    expect(Object.keys(report.events)).toEqual(['UserPromptSubmit', 'PostToolUse']);
    const after = JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'));
    expect(Object.keys(after.hooks).sort()).toEqual(['PostToolUse', 'Stop', 'UserPromptSubmit']);
    expect(after.hooks.Stop).toEqual(THEIRS.hooks.Stop);
    expect(after.hooks.PostToolUse[0]).toEqual(THEIRS.hooks.PostToolUse[0]);
    expect(after.hooks.PostToolUse[1]).toMatchObject({ matcher: '^(Bash|apply_patch|mcp__.+)$', hooks: [{ type: 'command', timeout: 5 }] });
    expect(after.hooks.UserPromptSubmit[0].matcher).toBeUndefined();
    expect(existsSync(join(codexHome, 'hooks.json.active-brain.bak'))).toBe(true);
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(toml);
    expect(existsSync(join(d, 'home', 'hook-settings.json'))).toBe(true);

    const again = cli(['install', '--host', 'codex', '--json'], env);
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'unchanged', changed: false });

    // The registered command, run by sh as Codex runs it, on a Codex payload: exit 0, logged.
    const ctx = makeCtx();
    const entry = after.hooks.UserPromptSubmit[0].hooks[0] as { command: string };
    const payload = { session_id: ctx.sessionId, turn_id: 't1', transcript_path: null, cwd: ctx.cwd, hook_event_name: 'UserPromptSubmit', model: 'gpt-5-codex', permission_mode: 'default', prompt: 'hi' };
    const run = spawnSync('/bin/sh', ['-c', entry.command], { input: JSON.stringify(payload), env: { PATH: process.env.PATH, HOME: d }, encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(run.stdout).toBe('');
    expect(logRecords({ ...ctx, home: join(d, 'home') }).at(-1)).toMatchObject({ session: ctx.sessionId, channel: 'prompt', event: 'UserPromptSubmit' });

    const u = cli(['uninstall', '--host', 'codex', '--json'], env);
    expect(u.code, u.stderr).toBe(0);
    expect(JSON.parse(u.stdout)).toMatchObject({ action: 'removed', changed: true });
    expect(JSON.parse(readFileSync(join(codexHome, 'hooks.json'), 'utf8'))).toEqual(THEIRS);
    const u2 = cli(['uninstall', '--host', 'codex'], env);
    expect(u2.stdout).toContain('no active-brain hook');
    expect(readFileSync(join(codexHome, 'config.toml'), 'utf8')).toBe(toml);
  });

  it('a missing hooks.json is created (and its folder); uninstall removes the file install created (no {} left behind)', () => {
    const d = tempDir('ab-codex-install-');
    const env = { HOME: d, CODEX_HOME: join(d, 'nested', 'codex'), ACTIVE_BRAIN_HOME: join(d, 'home') };
    expect(cli(['install', '--host', 'codex'], env).code).toBe(0);
    const j = JSON.parse(readFileSync(join(d, 'nested', 'codex', 'hooks.json'), 'utf8'));
    expect(Object.keys(j.hooks)).toEqual(['UserPromptSubmit', 'PostToolUse']);
    const u = cli(['uninstall', '--host', 'codex'], env);
    expect(u.code).toBe(0);
    expect(u.stdout).toContain('deleted (install had created it)');
    expect(existsSync(join(d, 'nested', 'codex', 'hooks.json'))).toBe(false);
    expect(readdirSync(join(d, 'nested', 'codex'))).toEqual([]); // no backup, no record left
  });

  it('invalid JSON is refused untouched (exit 1); a bad --host or --project with codex is a usage error (exit 2)', () => {
    const d = tempDir('ab-codex-install-');
    const codexHome = join(d, 'codex');
    mkdirSync(codexHome, { recursive: true });
    writeFileSync(join(codexHome, 'hooks.json'), '{ "hooks": ');
    const env = { HOME: d, CODEX_HOME: codexHome, ACTIVE_BRAIN_HOME: join(d, 'home') };
    const bad = cli(['install', '--host', 'codex'], env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/not valid JSON.*nothing was changed/);
    expect(readFileSync(join(codexHome, 'hooks.json'), 'utf8')).toBe('{ "hooks": ');
    expect(cli(['install', '--host', 'cursor'], env).code).toBe(2);
    expect(cli(['install', '--host', 'codex', '--project'], env).code).toBe(2);
    expect(cli(['uninstall', '--host', 'nope'], env).code).toBe(2);
  });
});
