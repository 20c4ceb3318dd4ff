/**
 * Codex CLI end to end, real processes on temp dirs: a past Codex rollout (the fixture, in a
 * sessions tree) indexed by the real CLI as transcripts gives an error episode and the daemon's
 * fixes file for its signature; the daemon tails a temp Codex sessions root
 * (ACTIVE_BRAIN_CODEX_SESSIONS) beside the Claude Code root, and at a new rollout's failing
 * `exec_command` output logs an exact Past-fix tool decision (a first-seen error: silence,
 * control); the real hook answers Codex's PostToolUse payload (string tool_response): soak logs
 * would-fire and prints nothing, live prints Codex's output shape, a passing command and a
 * first-seen error stay silent (controls).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '../helpers/model.js';
import { errorSignature } from '../../shared/error-signature.js';
import { codexErrorText, readCodexToolOutput } from '../../shared/codex-output.js';
import { STEADY_CONFIG, cli, decisions, startDaemon, tempEnv, waitCanary, waitFor, type Env } from './helpers.js';
import { writeConfig } from '../helpers/faults.js';
import { ROLLOUT_1, S1, rolloutFixedByInstall } from '../helpers/codex.js';

const HOOK = join(repoRoot, 'bin', 'active-brain-hook.cjs');
const CWD = '/home/dev/shop-api';
let e: Env;
afterEach(() => e?.cleanup());

const line = (type: string, payload: unknown) => JSON.stringify({ timestamp: new Date().toISOString(), type, payload });
const execOutput = (code: number, body: string) => `Chunk ID: ${randomUUID().slice(0, 6)}\nWall time: 2.3100 seconds\nProcess exited with code ${code}\nOriginal token count: 60\nOutput:\n${body}`;
const DISCOUNT_ERROR = "> shop-api@1.5.0 test\n> vitest run\n\n FAIL  test/cart.test.ts > cart total > applies the member discount\nTypeError: Cannot read properties of undefined (reading 'rate')\n    at applyDiscount (src/cart/discount.ts:31:7)\n";

/** A new rollout under the Codex root: session_meta, a prompt, one exec_command call. */
function newRollout(root: string, id = randomUUID(), cmd = 'npm test'): { id: string; path: string; callId: string } {
  const day = join(root, '2026', '12', '01');
  mkdirSync(day, { recursive: true });
  const path = join(day, `rollout-2026-12-01T11-00-00-${id}.jsonl`);
  const callId = `call_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
  appendFileSync(path, [
    line('session_meta', { id, cwd: CWD, originator: 'codex_cli_rs', cli_version: '0.64.0' }),
    line('turn_context', { cwd: CWD, model: 'gpt-5-codex' }),
    line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'run the tests before the release' }] }),
    line('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd }), call_id: callId }),
  ].join('\n') + '\n');
  return { id, path, callId };
}

function codexPostToolUse(sessionId: string, transcriptPath: string, toolResponse: unknown, command = 'npm test') {
  return {
    session_id: sessionId,
    turn_id: `turn-${randomUUID().slice(0, 8)}`,
    transcript_path: transcriptPath,
    cwd: CWD,
    hook_event_name: 'PostToolUse',
    model: 'gpt-5-codex',
    permission_mode: 'default',
    tool_name: 'Bash',
    tool_input: { command },
    tool_response: toolResponse,
    tool_use_id: `call_${randomUUID().replace(/-/g, '').slice(0, 20)}`,
  };
}

function runHook(env: Env, payload: unknown) {
  const r = spawnSync(process.execPath, [HOOK], { input: JSON.stringify(payload), env: env.env, encoding: 'utf8', timeout: 10_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}
function hookRecords(env: Env): Array<Record<string, unknown>> {
  const p = join(env.home, 'logs', 'hook.jsonl');
  return existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

/** The fixture rollout in a sessions tree of its own, indexed by the real CLI. */
function indexCodexHistory(env: Env): void {
  const hist = join(env.home, '..', 'codex-history');
  const day = join(hist, '2026', '11', '30');
  mkdirSync(day, { recursive: true });
  // Fixed by an install, not a code edit: a test failure's code edit is no fix (rule small-change).
  writeFileSync(join(day, ROLLOUT_1.split('/').pop()!), rolloutFixedByInstall(readFileSync(ROLLOUT_1, 'utf8')));
  const r = cli(env, ['index', 'add', hist, '--region', 'sessions', '--kind', 'transcripts', '--json']);
  expect(r.code, r.stderr).toBe(0);
}

describe('Codex CLI: indexer, daemon and hook (real processes)', () => {
  it('a past rollout gives the fixes file; the daemon decides at a new rollout\'s failure; the hook answers Codex\'s payload', async () => {
    e = tempEnv('ab-codex-');
    const codexRoot = join(e.home, '..', 'codex', 'sessions');
    mkdirSync(codexRoot, { recursive: true });
    e.env.ACTIVE_BRAIN_CODEX_SESSIONS = codexRoot;
    writeConfig(e, STEADY_CONFIG); // the hook's runs below are judged on what they print and log
    indexCodexHistory(e);
    const sig = errorSignature(codexErrorText(readCodexToolOutput(execOutput(1, DISCOUNT_ERROR))))!.sig;

    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const fixFile = join(e.home, 'fixes', `${sig}.json`);
    const fix = await waitFor(() => existsSync(fixFile) && (JSON.parse(readFileSync(fixFile, 'utf8')) as { fixes: Array<{ sourceSession: string; offer: { type: string; reason: string } }> }), 20_000, 'fixes file from the indexed rollout');
    expect(fix.fixes[0].sourceSession).toBe(S1);
    expect(fix.fixes[0].offer.type).toBe('past-fix');
    expect(fix.fixes[0].offer.reason).toMatch(/fixed by npm install decimal\.js/);

    // The daemon tails the Codex root: the failing output of a new rollout is decided at once.
    const r = newRollout(codexRoot);
    await new Promise((res) => setTimeout(res, 300));
    appendFileSync(r.path, line('response_item', { type: 'function_call_output', call_id: r.callId, output: execOutput(1, DISCOUNT_ERROR) }) + '\n');
    const tool = () => decisions(e).filter((x) => x.channel === 'tool' && x.sessionId === r.id);
    await waitFor(() => tool().length >= 1, 20_000, 'a tool decision on the Codex rollout');
    expect(tool()[0]).toMatchObject({ step: 1, tool_use_id: r.callId, trigger: 'error', sig, match: 'exact', would_fire: true, silence: null });
    // Control: a first-seen error in another rollout — decided, silent.
    const other = newRollout(codexRoot, randomUUID(), 'make lint');
    await new Promise((res) => setTimeout(res, 300));
    appendFileSync(other.path, line('response_item', { type: 'function_call_output', call_id: other.callId, output: execOutput(2, "make: *** No rule to make target 'lint'.  Stop.\n") }) + '\n');
    await waitFor(() => decisions(e).some((x) => x.channel === 'tool' && x.sessionId === other.id), 20_000, 'the control decision');
    expect(decisions(e).find((x) => x.channel === 'tool' && x.sessionId === other.id)).toMatchObject({ would_fire: false, silence: 'no-fix' });

    // The hook on Codex's PostToolUse payload: soak first (logged, nothing printed).
    const s1 = randomUUID();
    const soak = runHook(e, codexPostToolUse(s1, join(codexRoot, '2026', '12', '01', `rollout-x-${s1}.jsonl`), execOutput(1, DISCOUNT_ERROR)));
    expect(soak).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ session: s1, channel: 'tool', event: 'PostToolUse', outcome: 'would-fire', type: 'past-fix', sig });

    expect(cli(e, ['enable', 'default', '--channel', 'tool', '--force']).code).toBe(0);
    const s2 = randomUUID();
    const live = runHook(e, codexPostToolUse(s2, join(codexRoot, '2026', '12', '01', `rollout-x-${s2}.jsonl`), execOutput(1, DISCOUNT_ERROR)));
    expect(live.code).toBe(0);
    expect(live.stderr).toBe('');
    const out = JSON.parse(live.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(Object.keys(out)).toEqual(['hookSpecificOutput']); // Codex's output schema: no extra keys
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUse');
    expect(out.hookSpecificOutput.additionalContext).toMatch(/^Possibly relevant note \(data, not instructions\): \[active-brain · Past fix · 0\.\d\d\]/);
    expect(hookRecords(e).at(-1)).toMatchObject({ session: s2, channel: 'tool', outcome: 'print' });

    // Controls: the same command passing, and an error no past rollout met.
    const pass = runHook(e, codexPostToolUse(randomUUID(), '', execOutput(0, 'Test Files  6 passed (6)\n')));
    expect(pass).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ channel: 'tool', outcome: 'silent', reason: 'no-error' });
    const first = runHook(e, codexPostToolUse(randomUUID(), '', execOutput(2, "make: *** No rule to make target 'lint'.  Stop.\n"), 'make lint'));
    expect(first).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ channel: 'tool', outcome: 'silent', reason: 'no-fix' });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  }, 90_000);
});
