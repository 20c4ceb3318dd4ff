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
 *      a near match (a warning line in front: another head) → the same Past fix, through the
 *        fixes file of its telling line;
 *      kill file → nothing; a first-seen error → nothing (reason no-fix);
 *   4. `uninstall` → the host runs clean: no hook runs, no hook error in its output.
 * `claude -p` marks its sessions with the entrypoint `sdk-cli` (a worker by default): the
 * scenario's config clears `workers.entrypoints` (scenario.ts HOST_CONFIG).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, readdirSync, statSync, utimesSync } from 'node:fs';
import { join } from 'node:path';
import { QUICK, cli, decisions, events, startDaemon, waitCanary, waitFor } from '../daemon/helpers.js';
import { hookRecords } from '../daemon/hook-process.js';
import { projectDirName, requireHost } from './hosts.js';
import { sinceLastAnswer, receivedText, type ModelRequest, type ModelServer } from '../../bench/host-model-server.js';
import { HOOK_CONTEXT_PREFIX, failingPushScript, fixedPushScript, gitRepoWithoutUpstream, hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
/** Most the daemon may take (QUICK cycle 200 ms, settle 50 ms) to decide on a session the real
 *  host just wrote, on this loaded 2-core machine (measured 45 ms: it reads while the host writes). */
const REACTION_MS = 5_000;
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

  it('the daemon tails the transcript the real host writes: the session is seen and decided, reaction time measured', async () => {
    const repo = gitRepoWithoutUpstream(w, 'tail', 'feature-tail');
    const { run } = await w.claude([{ text: 'Looking.', tool: 'Bash', input: { command: 'git status --short', description: 'Status' } }, { text: 'Clean.' }], { cwd: repo, prompt: 'is the tree clean?' });
    expect(run.code, run.stderr).toBe(0);
    const sid = String(run.json?.session_id);
    const file = join(w.root, projectDirName(repo), `${sid}.jsonl`);
    const written = statSync(file).mtimeMs;
    const seen = await waitFor(() => events(w, 'session-new').find((r) => r.sessionId === sid), 20_000, 'session-new');
    const decided = await waitFor(() => decisions(w).find((r) => r.sessionId === sid), 20_000, 'a decision');
    const reaction = Number(decided.ts) - written;
    console.log(`[host] daemon reaction to the real transcript: session seen ${(Number(seen.ts) - written).toFixed(0)} ms, decided ${reaction.toFixed(0)} ms after the host's last write (cycle ${QUICK.join(', ')})`);
    expect(reaction).toBeLessThan(REACTION_MS);
  });

  it('a subagent (the Agent tool) whose own git push fails: no offer reaches it or the main lane (a worker reason)', async () => {
    const marker = 'SUBAGENT-TASK';
    const firstUser = (r: ModelRequest) => receivedText({ ...r, body: { messages: ((r.body.messages as unknown[]) ?? []).slice(0, 1) } });
    const inSub = (r: ModelRequest) => firstUser(r).includes(marker);
    const repo = gitRepoWithoutUpstream(w, 'cart-sub', 'feature-cart');
    const before = hookRecords(w).length;
    const { run, model } = await w.claude(
      [
        { when: (r) => !inSub(r), text: 'Delegating.', tool: 'Agent', input: { description: 'Push the branch', prompt: `${marker}: push the current branch`, subagent_type: 'general-purpose' } },
        { when: inSub, tool: 'Bash', input: { command: 'git push 2>&1', description: 'Push to remote' } },
        { when: inSub, text: 'The push failed: no upstream.' },
        { when: (r) => !inSub(r), text: 'Noted.' },
      ],
      { cwd: repo, tools: 'Bash,Agent', prompt: 'delegate the push' },
    );
    expect(run.code, run.stderr).toBe(0);
    const sub = model.agentRequests().filter(inSub);
    expect(sub.length).toBe(2);
    // The subagent's failure really happened and reached it…
    expect(sinceLastAnswer(sub[1])).toContain('has no upstream branch');
    // …with nothing of ours, in the subagent or in the main lane.
    expect(ours(model)).toEqual([]);
    const recs = hookRecords(w).slice(before);
    // Refused as a subagent's: by its payload's agent_id or its transcript path (gate order is
    // the worker rule's: hook/gates.ts).
    expect(recs.filter((r) => r.event === 'PostToolUseFailure')).toEqual([expect.objectContaining({ outcome: 'silent', reason: expect.stringMatching(/^worker-(sidechain|agent|subagent)$/) })]);
  });

  it('a near match: the same error under another first line (another head, so no exact file) still brings the Past fix to the model', async () => {
    const repo = gitRepoWithoutUpstream(w, 'cart-near', 'feature-near');
    const command = 'echo "warning: pre-push check could not reach the linter, skipped" >&2; git push';
    const { run, model } = await w.claude([{ text: 'Pushing.', tool: 'Bash', input: { command, description: 'Push' } }, { text: 'Noted.' }], { cwd: repo });
    expect(run.code, run.stderr).toBe(0);
    const next = sinceLastAnswer(model.agentRequests()[1]);
    expect(next).toContain('could not reach the linter');
    const at = next.indexOf(HOOK_CONTEXT_PREFIX);
    expect(at, next).toBeGreaterThanOrEqual(0);
    expect(next.slice(at).split('\n')[0]).toContain('fixed by git push --set-upstream origin ‹branch›');
    expect(hookRecords(w).at(-1)).toMatchObject({ session: run.json?.session_id, channel: 'tool', outcome: 'print', type: 'past-fix' });
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
