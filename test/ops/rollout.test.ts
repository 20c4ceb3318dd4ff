/**
 * The rollout path end to end, on what the real processes write: index → daemon (soak) →
 * transcript appended → real hook runs → `soak report` computed from those logs → the
 * store-write gate accepts the indexer's runs and catches a write that is not the indexer's
 * (for good) → `enable` refuses, `--force` is logged → `disable`. Uses the daemon test helpers (real processes, temp dirs).
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { repoRoot } from '../helpers/model.js';
import { appendExchange, cli, newSession, startDaemon, tempEnv, waitCanary, waitFor, decisions, logRecords as logRecordsOf, type Env } from '../daemon/helpers.js';

const hookBin = join(repoRoot, 'bin', 'active-brain-hook.js');
const envs: Env[] = [];
afterAll(() => envs.forEach((e) => e.cleanup()));

function runHook(e: Env, payload: object): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [hookBin], { env: e.env, input: JSON.stringify(payload), encoding: 'utf8', timeout: 30_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

type Report = { gates: Array<{ name: string; pass: boolean; figure: string }>; pass: boolean; figures: { hook: { runs: number } }; channels: Record<string, { hook: { runs: number } }> };
const gate = (r: Report, name: string) => r.gates.find((g) => g.name === name || g.name.startsWith(name + ':'));

describe('rollout: soak report from real logs, store-write detection, enable/disable', () => {
  it('reports what really happened and gates enable on it', async () => {
    const e = tempEnv('ab-rollout-');
    envs.push(e);
    const notes = join(e.home, '..', 'notes');
    mkdirSync(notes, { recursive: true });
    writeFileSync(join(notes, 'pool.md'), '# Pool timeouts\n\nECONNRESET from the postgres pool under load: raise the idle timeout to 30 s.\n');
    expect(cli(e, ['index', 'add', notes, '--region', 'notes']).code).toBe(0);

    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    for (let i = 0; i < 4; i++) appendExchange(s, `step ${i}: refactor the parser module and add tests`, `Done with step ${i}; the parser tests pass.`);
    await waitFor(() => decisions(e).length >= 4, 30_000, 'four decisions');

    const payload = { session_id: s.id, transcript_path: s.path, cwd: s.cwd, hook_event_name: 'UserPromptSubmit', permission_mode: 'default', prompt: 'next' };
    for (let i = 0; i < 3; i++) {
      const h = runHook(e, payload);
      expect(h.code).toBe(0);
      expect(h.stdout).toBe(''); // soak: never prints
    }

    const r1 = cli(e, ['soak', 'report', '--json']);
    expect(r1.code).toBe(1); // not every gate can pass on day one (no labels)
    const rep = JSON.parse(r1.stdout) as Report;
    expect(rep.figures.hook.runs).toBe(3);
    expect(gate(rep, 'prompt.hook-clean-exit')!.pass).toBe(true);
    expect(gate(rep, 'zero-store-writes')!.pass).toBe(true);
    expect(gate(rep, 'liveness')!.pass).toBe(true);
    expect(gate(rep, 'honest-process-state')!.pass).toBe(true);
    expect(gate(rep, 'transcript-availability')!.pass).toBe(true);
    expect(gate(rep, 'prompt.usefulness')!.pass).toBe(false);
    expect(rep.channels.prompt.hook.runs).toBe(3);

    // The indexer's own writes are accounted for (the control) …
    writeFileSync(join(notes, 'more.md'), '# More\n\nA second note about connection pools and retries.\n');
    expect(cli(e, ['index']).code).toBe(0);
    const r2 = JSON.parse(cli(e, ['soak', 'report', '--json']).stdout) as Report;
    expect(gate(r2, 'zero-store-writes')).toMatchObject({ pass: true, figure: expect.stringContaining('indexer') });
    // … a write that is not the indexer's is caught …
    const db = new Database(e.env.ACTIVE_BRAIN_STORE!);
    db.exec("CREATE TABLE IF NOT EXISTS intruder (x); INSERT INTO intruder VALUES (1);");
    db.close();
    const r3 = JSON.parse(cli(e, ['soak', 'report', '--json']).stdout) as Report;
    expect(gate(r3, 'zero-store-writes')!.pass).toBe(false);
    // … and stays caught: an indexer run that follows does not explain it away.
    writeFileSync(join(notes, 'third.md'), '# Third\n\nA third note about pool sizes.\n');
    expect(cli(e, ['index']).code).toBe(0);
    const r3b = JSON.parse(cli(e, ['soak', 'report', '--json']).stdout) as Report;
    expect(gate(r3b, 'zero-store-writes')).toMatchObject({ pass: false, figure: expect.stringContaining('outside an index run') });

    // enable refuses while gates fail and changes nothing; --force switches and is audited.
    const en = cli(e, ['enable', 'default']);
    expect(en.code).toBe(1);
    expect(en.stdout).toMatch(/usefulness/);
    expect(existsSync(join(e.home, 'config.json'))).toBe(false);
    expect(cli(e, ['enable', 'default', '--force']).code).toBe(0);
    expect(JSON.parse(readFileSync(join(e.home, 'config.json'), 'utf8')).modes.default.state).toBe('live');
    const hs = JSON.parse(readFileSync(join(e.home, 'hook-settings.json'), 'utf8'));
    expect(hs.modes.find((m: { name: string }) => m.name === 'default').state).toBe('live');
    const audit = readFileSync(join(e.home, 'logs', 'ops.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(audit.at(-1)).toMatchObject({ event: 'mode-state', mode: 'default', to: 'live', forced: true });
    expect(cli(e, ['disable', 'default']).code).toBe(0);
    expect(JSON.parse(readFileSync(join(e.home, 'config.json'), 'utf8')).modes.default.state).toBe('soak');

    // Stopping the daemon makes liveness fail: the report tells the truth about process state.
    expect(cli(e, ['stop']).code).toBe(0);
    await d.exited;
    const r4 = JSON.parse(cli(e, ['soak', 'report', '--json']).stdout) as Report;
    expect(gate(r4, 'liveness')!.pass).toBe(false);
  }, 180_000);
});

describe('the daemon follows enable/disable without a restart', () => {
  it('disable --off stops would-fire decisions for that mode within a cycle (control: soak before)', async () => {
    const e = tempEnv('ab-reload-');
    envs.push(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    appendExchange(s, 'first: set up the parser', 'Parser set up.');
    await waitFor(() => decisions(e).some((r) => r.sessionId === s.id && r.turn === 0), 30_000, 'first decision');
    expect(decisions(e).find((r) => r.turn === 0)).toMatchObject({ mode: 'default', mode_state: 'soak' });
    expect(cli(e, ['disable', 'default', '--off']).code).toBe(0);
    await waitFor(() => logRecordsOf(e).some((r) => r.event === 'config-reloaded'), 10_000, 'config reload');
    appendExchange(s, 'second: add tests for it', 'Tests added.');
    const second = await waitFor(() => decisions(e).find((r) => r.sessionId === s.id && r.turn === 1), 30_000, 'second decision');
    expect(second).toMatchObject({ mode_state: 'off', silence: 'mode-off', would_fire: false });
    expect(cli(e, ['stop']).code).toBe(0);
    await d.exited;
  }, 120_000);
});
