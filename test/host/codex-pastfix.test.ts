/**
 * Past fix against the real Codex CLI (the pinned `codex`, test/host/versions.json), offline:
 * the scripted model server stands in for the Responses API (`-c model_providers.standin`).
 *   1. a first `codex exec` meets `git push` without an upstream and fixes it; the real rollout
 *      under $CODEX_HOME/sessions is indexed;
 *   2. `active-brain install --host codex` writes $CODEX_HOME/hooks.json; the daemon tails the
 *      rollouts and precomputes the fix;
 *   3. a new session's push fails the same way, live on the tool channel: Codex runs our hook
 *      at PostToolUse (it has no failure event), but 0.171.0 gives the hook only the command's
 *      output — no exit code — so the hook cannot tell the failure (docs/CODEX.md "Driven by
 *      the real Codex"). The test asserts exactly that, so a Codex that adds the exit code
 *      shows up here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, startDaemon, waitCanary, waitFor, allFiles, events } from '../daemon/helpers.js';
import { hookRecords } from '../daemon/hook-process.js';
import { codexEnv, codexThreadId, requireHost, runCodex } from './hosts.js';
import { receivedText, sinceLastAnswer, startModelServer, type ModelServer, type Step } from '../../bench/host-model-server.js';
import { gitRepoWithoutUpstream, hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('codex');
let w: HostWorld;
const codexHome = () => join(w.userHome, '.codex');

async function codex(script: Step[], cwd: string, prompt: string): Promise<{ run: Awaited<ReturnType<typeof runCodex>>; model: ModelServer; thread: string | null }> {
  const model = await startModelServer(script, 'responses');
  try {
    const run = await runCodex(host.bin!, prompt, { cwd, env: codexEnv(w.userHome, codexHome()), modelUrl: model.url, bypassHookTrust: true });
    return { run, model, thread: codexThreadId(run.stdout) };
  } finally {
    await model.close();
  }
}

const sh = (cmd: string): Step => ({ text: '', tool: 'exec_command', input: { cmd } });

describe.skipIf(!!host.skip)('Past fix with the real Codex CLI', () => {
  beforeAll(() => {
    w = hostWorld(null, 'ab-host-codex-');
    mkdirSync(codexHome(), { recursive: true });
  });
  afterAll(() => w?.cleanup());

  it('a past session is indexed from the rollout the real Codex wrote', async () => {
    const repo = gitRepoWithoutUpstream(w, 'parser', 'feature-parser');
    const { run, model, thread } = await codex([sh('git push 2>&1'), sh('git push --set-upstream origin feature-parser 2>&1'), { text: 'Pushed.' }], repo, 'push the branch');
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    expect(thread).not.toBeNull();
    const agent = model.agentRequests();
    expect(agent).toHaveLength(3);
    expect(sinceLastAnswer(agent[1])).toContain('has no upstream branch');
    expect(sinceLastAnswer(agent[2])).toContain("set up to track 'origin/feature-parser'");
    const rollouts = allFiles(join(codexHome(), 'sessions')).filter((f) => f.endsWith('.jsonl'));
    expect(rollouts).toHaveLength(1);
    const dayAgo = new Date(Date.now() - 86_400_000);
    utimesSync(rollouts[0], dayAgo, dayAgo);
    const idx = cli(w, ['index', 'add', join(codexHome(), 'sessions'), '--region', 'codex', '--kind', 'transcripts', '--json']);
    expect(idx.code, idx.stderr + idx.stdout).toBe(0);
    expect(JSON.stringify(JSON.parse(idx.stdout))).toContain('"episodes_added":1');
  });

  it('install --host codex; the daemon tails the rollouts and precomputes the fix', async () => {
    const ins = cli(w, ['install', '--host', 'codex']);
    expect(ins.code, ins.stderr + ins.stdout).toBe(0);
    expect(readFileSync(join(codexHome(), 'hooks.json'), 'utf8')).toContain('active-brain-hook');
    const d = startDaemon(w);
    await waitCanary(w, d.pid);
    await waitFor(() => existsSync(join(w.home, 'fixes')) && readdirSync(join(w.home, 'fixes')).some((n) => n.endsWith('.json')), 30_000, 'a fixes file');
    expect(cli(w, ['enable', 'default', '--channel', 'tool', '--force']).code).toBe(0);
  });

  it('a failing git push: the hook runs at PostToolUse but cannot see the failure (what stops the Past fix with Codex 0.171)', async () => {
    // A recording hook beside ours saves the PostToolUse payload Codex sends.
    const saved = join(w.base, 'post-payload.json');
    const hooksPath = join(codexHome(), 'hooks.json');
    const hooks = JSON.parse(readFileSync(hooksPath, 'utf8')) as { hooks: Record<string, unknown[]> };
    hooks.hooks.PostToolUse.push({ hooks: [{ type: 'command', command: `cat > '${saved}'`, timeout: 5 }] });
    writeFileSync(hooksPath, JSON.stringify(hooks, null, 2));
    const before = hookRecords(w).length;
    const repo = gitRepoWithoutUpstream(w, 'cart', 'feature-cart');
    const { run, model, thread } = await codex([sh('git push 2>&1'), { text: 'Noted.' }], repo, 'push the branch');
    expect(run.code, run.stderr.slice(-2000)).toBe(0);
    const next = sinceLastAnswer(model.agentRequests()[1]);
    // The model is told the exit code…
    expect(next).toContain('Process exited with code 128');
    expect(next).toContain('has no upstream branch');
    // …but the hook's payload carries only the command's output: no exit code, no error flag.
    const payload = JSON.parse(readFileSync(saved, 'utf8')) as Record<string, unknown>;
    expect(payload).toMatchObject({ hook_event_name: 'PostToolUse', tool_name: 'Bash', tool_input: { command: 'git push 2>&1' } });
    expect(typeof payload.tool_response).toBe('string');
    expect(String(payload.tool_response)).toMatch(/^fatal: The current branch feature-cart has no upstream branch\./);
    expect(String(payload.tool_response)).not.toMatch(/exit(ed)? (with )?code/i);
    // So our hook, which ran, finds no error to sign and stays silent: nothing of ours arrives.
    const recs = hookRecords(w).slice(before);
    expect(recs.filter((r) => r.event === 'PostToolUse')).toEqual([expect.objectContaining({ outcome: 'silent', reason: 'no-error', mode_state: 'live' })]);
    expect(model.requests.map(receivedText).some((t) => t.includes('active-brain'))).toBe(false);
    // The daemon tails the live rollout (it holds the exit code: function_call_output).
    await waitFor(() => events(w, 'session-new').find((r) => String(r.path ?? '').includes(String(thread))), 20_000, 'the rollout tailed');
  });
});
