/**
 * The prompt channel with the real Claude Code in a multi-turn session (`claude -p`, then
 * `--resume` per turn, one transcript): four warm-up turns about the api's postgres pool, a turn
 * whose Bash call fails with the ECONNRESET the store's past session fixed, then more prompts.
 * The real daemon (store: the retrieval fixture) decides from the transcript the host writes and
 * caches the offer; the real hook prints it at a later UserPromptSubmit, where the model receives
 * `UserPromptSubmit hook additional context: …`. The tool channel is off, so only the prompt
 * channel can speak.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { cli, decisions, startDaemon, waitCanary, waitFor } from '../daemon/helpers.js';
import { hookRecords } from '../daemon/hook-process.js';
import { buildStore, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER, PG_ERROR_TURN } from '../retrieval/fixture.js';
import { PG_WARMUP } from '../daemon/pg-error-session.js';
import { requireHost } from './hosts.js';
import { sinceLastAnswer, type Step } from '../../bench/host-model-server.js';
import { hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
let w: HostWorld;
let store: TestStore;
const PROMPT_CONTEXT = 'UserPromptSubmit hook additional context: ';

describe.skipIf(!!host.skip)('prompt channel with the real Claude Code (multi-turn, --resume)', () => {
  beforeAll(async () => {
    store = await buildStore([...FIXTURE, ...FILLER]);
    w = hostWorld(host.bin, 'ab-host-prompt-');
    w.env.ACTIVE_BRAIN_STORE = store.path;
  });
  afterAll(() => {
    w?.cleanup();
    store?.cleanup();
  });

  it('an offer decided from the real transcript reaches the model at a later prompt', async () => {
    expect(cli(w, ['install']).code).toBe(0);
    expect(cli(w, ['enable', 'default', '--channel', 'prompt', '--force']).code).toBe(0);
    expect(cli(w, ['disable', 'default', '--channel', 'tool', '--off']).code).toBe(0);
    const d = startDaemon(w, ['session.cooldownSeconds=0']);
    await waitCanary(w, d.pid);
    const cwd = join(w.base, 'api');
    let sid = '';
    const turn = async (prompt: string, script: Step[]) => {
      const { run, model } = await w.claude(script, { cwd, prompt, extra: sid ? ['--resume', sid] : [] });
      expect(run.code, run.stderr).toBe(0);
      sid = String(run.json?.session_id ?? sid);
      return model;
    };
    for (const [u, a] of PG_WARMUP) await turn(u, [{ text: a }]);
    const err = PG_ERROR_TURN.toolErrors[0];
    const errTurn = await turn(PG_ERROR_TURN.user, [
      { tool: 'Bash', input: { command: `printf '%s\\n' ${JSON.stringify(err).replace(/\\n/g, "'\\n'")} >&2; exit 1`, description: 'Load test' } },
      { text: PG_ERROR_TURN.assistant },
    ]);
    expect(sinceLastAnswer(errTurn.agentRequests()[1])).toContain('Error: read ECONNRESET');
    // The daemon decides the error turn (turn index 4) with an offer and caches it. A silent
    // decision of that turn is final until the next prompt: the failure names it.
    const errorTurn = () => decisions(w).filter((r) => r.sessionId === sid && r.turn === 4);
    await waitFor(() => errorTurn().find((r) => r.would_fire === true), 30_000, 'the error turn decided with an offer').catch((e: Error) => {
      const seen = errorTurn().map((r) => ({ silence: r.silence, provisional: r.provisional, trigger_values: r.trigger_values }));
      throw new Error(`${e.message}; the turn's decisions: ${JSON.stringify(seen)}`);
    });
    // A race the product has with `claude -p` (no turn-end record): the next prompt's record
    // closes the error turn, the daemon decides it again ~0.1 s later — now in its own cooldown,
    // with no offer — and that replaces the cached offer, so the prompt's hook prints only when
    // it reads the cache first. The daemon is paused (SIGSTOP) for the next prompt so this
    // scenario does not depend on that race (reported; core/publish.ts is where it lives).
    const seen: string[] = [];
    process.kill(d.pid, 'SIGSTOP');
    try {
      const model = await turn('What should we change in the pool settings?', [{ text: 'Looking at the pool settings.' }]);
      seen.push(sinceLastAnswer(model.agentRequests()[0]));
    } finally {
      process.kill(d.pid, 'SIGCONT');
    }
    const hit = seen.find((t) => t.includes(PROMPT_CONTEXT));
    const recs = hookRecords(w).filter((r) => r.event === 'UserPromptSubmit').map((r) => `${String(r.outcome)}:${String(r.reason)}`);
    expect(hit, `hook: ${recs.join(' ')}`).toBeDefined();
    expect(hit!.slice(hit!.indexOf(PROMPT_CONTEXT))).toMatch(/\[active-brain · Past fix · 0\.\d\d\][^\n]*\(recall: active-brain recall past-sessions\//);
    // The failure itself went to the tool channel, which is off: silent there.
    expect(hookRecords(w).filter((r) => r.event === 'PostToolUseFailure')).toEqual([expect.objectContaining({ outcome: 'silent', reason: 'mode-off' })]);
    // Once, not wallpaper: the next prompt carries nothing of ours.
    const after = await turn('And the timeout values?', [{ text: 'Checking.' }]);
    expect(sinceLastAnswer(after.agentRequests()[0])).not.toContain(PROMPT_CONTEXT);
    expect(hookRecords(w).at(-1)).toMatchObject({ event: 'UserPromptSubmit', outcome: 'silent' });
  }, 180_000); // real CLI runs and a 30 s wait for the offer: past the 60 s default on a loaded machine (CI: ~20 s)
});
