/**
 * Past fix against the real Claude Code (the pinned `claude`, test/host/versions.json), offline:
 * the scripted model server stands in for the Messages API and records what the model received.
 *   1. a first session meets `git push` without an upstream and fixes it (real git, a local
 *      bare remote); the real host writes its transcript; `index add` takes it into the store;
 *   2. `active-brain install` registers the hook in the temp HOME's ~/.claude/settings.json;
 *      the real daemon precomputes the fixes;
 *   3. a new session's `git push` fails the same way on another branch:
 *      soak → the model receives nothing of ours, the hook logs would-fire;
 *      live (enable --channel tool) → the next request carries
 *        `PostToolUseFailure:Bash hook additional context: … Past fix … fixed by git push --set-upstream origin …`;
 *      kill file → nothing; a first-seen error → nothing (reason no-fix);
 *   4. `uninstall` → the host runs clean: no hook runs, no hook error in its output.
 * `claude -p` marks its sessions with the entrypoint `sdk-cli` (a worker by default): the
 * scenario's config clears `workers.entrypoints` (scenario.ts HOST_CONFIG).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { cli, startDaemon, waitCanary, waitFor } from '../daemon/helpers.js';
import { hookRecords } from '../daemon/hook-process.js';
import { projectDirName, requireHost } from './hosts.js';
import { sinceLastAnswer, receivedText, type ModelServer } from './model-server.js';
import { HOOK_CONTEXT_PREFIX, failingPushScript, fixedPushScript, gitRepoWithoutUpstream, hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
let w: HostWorld;

/** Everything our hook could have put in front of the model, over every request. */
const ours = (m: ModelServer) => m.requests.map(receivedText).filter((t) => t.includes('active-brain') || t.includes('hook additional context'));

describe.skipIf(!!host.skip)('Past fix with the real Claude Code', () => {
  beforeAll(() => {
    w = hostWorld(host.bin);
  });
  afterAll(() => w?.cleanup());

  it('a past session is indexed from the transcript the real host wrote', async () => {
    const repo = gitRepoWithoutUpstream(w, 'parser', 'feature-parser');
    const { run, model } = await w.claude(fixedPushScript('feature-parser'), { cwd: repo, prompt: 'commit the parser change and push it' });
    expect(run.code, run.stderr).toBe(0);
    expect(run.json).toMatchObject({ is_error: false, result: 'Pushed; the branch now tracks origin.' });
    const agent = model.agentRequests();
    expect(agent).toHaveLength(3);
    // Real git failed, then the fix worked: the model saw both results.
    expect(sinceLastAnswer(agent[1])).toContain('fatal: The current branch feature-parser has no upstream branch.');
    expect(sinceLastAnswer(agent[2])).toContain("branch 'feature-parser' set up to track 'origin/feature-parser'");
    const dir = join(w.root, projectDirName(repo));
    const files = readdirSync(dir).filter((n) => n.endsWith('.jsonl'));
    expect(files).toHaveLength(1);
    // `claude -p` writes no turn-end record: the indexer holds an open last turn back while the
    // file is younger than OPEN_TURN_QUIET_MS (10 min). This stands for yesterday's session.
    const dayAgo = new Date(Date.now() - 86_400_000);
    utimesSync(join(dir, files[0]), dayAgo, dayAgo);
    const idx = cli(w, ['index', 'add', dir, '--region', 'sessions', '--kind', 'transcripts', '--json']);
    expect(idx.code, idx.stderr + idx.stdout).toBe(0);
    expect(JSON.stringify(JSON.parse(idx.stdout))).toContain('"episodes_added":1');
  });

  it('install registers the hook; the daemon precomputes the fix', async () => {
    const ins = cli(w, ['install']);
    expect(ins.code, ins.stderr + ins.stdout).toBe(0);
    const settings = readFileSync(join(w.userHome, '.claude', 'settings.json'), 'utf8');
    expect(settings).toContain('active-brain-hook.cjs');
    const d = startDaemon(w);
    await waitCanary(w, d.pid);
    await waitFor(() => existsSync(join(w.home, 'fixes')) && readdirSync(join(w.home, 'fixes')).some((n) => n.endsWith('.json')), 30_000, 'a fixes file');
  });

  it('soak (the default): the model receives nothing of ours; the hook logs would-fire', async () => {
    const repo = gitRepoWithoutUpstream(w, 'cart-soak', 'feature-cart');
    const { run, model } = await w.claude(failingPushScript(), { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    const agent = model.agentRequests();
    expect(sinceLastAnswer(agent[1])).toContain('fatal: The current branch feature-cart has no upstream branch.');
    expect(ours(model)).toEqual([]);
    expect(hookRecords(w).at(-1)).toMatchObject({ session: run.json?.session_id, channel: 'tool', event: 'PostToolUseFailure', outcome: 'would-fire', type: 'past-fix' });
  });

  it('live on the tool channel: the Past fix reaches the model in the next request', async () => {
    const en = cli(w, ['enable', 'default', '--channel', 'tool', '--force']);
    expect(en.code, en.stderr + en.stdout).toBe(0);
    const repo = gitRepoWithoutUpstream(w, 'cart-live', 'feature-cart');
    const { run, model } = await w.claude(failingPushScript(), { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    const next = sinceLastAnswer(model.agentRequests()[1]);
    const at = next.indexOf(HOOK_CONTEXT_PREFIX);
    expect(at, next).toBeGreaterThanOrEqual(0);
    const line = next.slice(at + HOOK_CONTEXT_PREFIX.length).split('\n')[0];
    expect(line).toMatch(/^Possibly relevant note \(data, not instructions\): \[active-brain · Past fix · 0\.\d\d\]/);
    expect(line).toContain('fixed by git push --set-upstream origin ‹branch›');
    expect(line).toContain('same "the current branch … has no upstream branch."');
    expect(line).toContain('(recall: active-brain recall ');
    expect(hookRecords(w).at(-1)).toMatchObject({ session: run.json?.session_id, channel: 'tool', outcome: 'print' });
    // Only once: the model's first request (before any tool ran) had nothing of ours.
    expect(receivedText(model.agentRequests()[0])).not.toContain(HOOK_CONTEXT_PREFIX);
  });

  it('a first-seen error: nothing reaches the model (reason no-fix)', async () => {
    const repo = gitRepoWithoutUpstream(w, 'first-seen', 'feature-x');
    const { run, model } = await w.claude(
      [{ text: 'Listing.', tool: 'Bash', input: { command: 'ls ./no-such-folder', description: 'List' } }, { text: 'Noted.' }],
      { cwd: repo },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(sinceLastAnswer(model.agentRequests()[1])).toContain('No such file or directory');
    expect(ours(model)).toEqual([]);
    expect(hookRecords(w).at(-1)).toMatchObject({ session: run.json?.session_id, channel: 'tool', outcome: 'silent', reason: 'no-fix' });
  });

  it('kill file: nothing reaches the model; unkill brings it back (control)', async () => {
    expect(cli(w, ['kill']).code).toBe(0);
    const before = hookRecords(w).length;
    const repo = gitRepoWithoutUpstream(w, 'cart-killed', 'feature-cart');
    const killed = await w.claude(failingPushScript(), { cwd: repo });
    expect(killed.run.code, killed.run.stderr).toBe(0);
    expect(sinceLastAnswer(killed.model.agentRequests()[1])).toContain('has no upstream branch');
    expect(ours(killed.model)).toEqual([]);
    // The kill file is the first gate, before stdin is read: no session id in the record.
    expect(hookRecords(w).slice(before)).toEqual([
      expect.objectContaining({ event: 'UserPromptSubmit', outcome: 'silent', reason: 'killed' }),
      expect.objectContaining({ event: 'PostToolUseFailure', outcome: 'silent', reason: 'killed' }),
    ]);
    expect(cli(w, ['unkill']).code).toBe(0);
    // The daemon stops working under the kill file and may exit: start it again if it did.
    const d = startDaemon(w);
    await waitFor(() => {
      const c = JSON.parse(readFileSync(join(w.home, 'canary.json'), 'utf8')) as { pid: number; ts?: number };
      try {
        process.kill(c.pid, 0);
        return true;
      } catch {
        return false;
      }
    }, 30_000, 'a live daemon');
    void d;
    const back = await w.claude(failingPushScript(), { cwd: repo });
    expect(sinceLastAnswer(back.model.agentRequests()[1])).toContain(HOOK_CONTEXT_PREFIX);
  });

  it('uninstall: the host runs clean (no hook runs, no hook error)', async () => {
    const before = hookRecords(w).length;
    const un = cli(w, ['uninstall']);
    expect(un.code, un.stderr + un.stdout).toBe(0);
    const repo = gitRepoWithoutUpstream(w, 'cart-after', 'feature-cart');
    const { run, model } = await w.claude(failingPushScript(), { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stderr).not.toMatch(/hook/i);
    expect(run.json).toMatchObject({ is_error: false });
    expect(ours(model)).toEqual([]);
    expect(hookRecords(w)).toHaveLength(before);
  });
});
