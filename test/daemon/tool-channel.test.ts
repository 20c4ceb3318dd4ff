/**
 * The daemon's tool channel, real process on temp dirs: a store indexed (by the real CLI)
 * from a real-format past session in which `git push` failed for want of an upstream branch
 * and was fixed; the daemon precomputes the hook's fixes file for that error's signature,
 * decides at the failure of a new session (an exact Past fix, logged as a tool decision and
 * written to the session's tool cache), and stays silent on a first-seen error (control).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { errorSignature } from '../../shared/error-signature.js';
import {
  NO_UPSTREAM, appendFixedPushSession, cli, decisions, newSession, readJson, startDaemon, tempEnv, toolResultLine, toolUseLine, userLine,
  waitCanary, waitFor, type Env,
} from './helpers.js';

let e: Env;
afterEach(() => e?.cleanup());
const toolSchema = loadSchema('daemon-tool-decision');
const toolCacheSchema = loadSchema('tool-cache');

/** A past session under a separate history folder, indexed as transcripts (region sessions). */
function indexPastSession(env: Env): string {
  const hist = join(env.home, '..', 'history', '-work-app');
  mkdirSync(hist, { recursive: true });
  const past = { ...newSession(env), path: '' };
  past.path = join(hist, `${past.id}.jsonl`);
  appendFixedPushSession(past, 'feature-parser');
  const r = cli(env, ['index', 'add', join(env.home, '..', 'history'), '--region', 'sessions', '--kind', 'transcripts']);
  expect(r.code, r.stderr).toBe(0);
  return past.id;
}

describe('daemon: tool channel (real process)', () => {
  it('precomputes the fixes file, and decides an exact Past fix at a recurring failure; a first-seen error stays silent', async () => {
    e = tempEnv('ab-tool-');
    const pastId = indexPastSession(e);
    const sig = errorSignature(NO_UPSTREAM('feature-cart'))!.sig;
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const fixFile = join(e.home, 'fixes', `${sig}.json`);
    const fix = await waitFor(() => readJson<{ sig: string; fixes: Array<{ sourceSession: string; offer: { reason: string; confidence: number; type: string } }> }>(fixFile), 20_000, 'fixes file');
    expect(fix.sig).toBe(sig);
    expect(fix.fixes[0].sourceSession).toBe(pastId);
    expect(fix.fixes[0].offer).toMatchObject({ type: 'past-fix' });
    expect(fix.fixes[0].offer.reason).toMatch(/^fixed by git push --set-upstream origin \S+ — same ".*no upstream.*" error in session /);
    expect(fix.fixes[0].offer.confidence).toBeGreaterThanOrEqual(0.8);

    // A new session meets the same error (another branch) and a first-seen one.
    const s = newSession(e);
    appendFileSync(s.path, [
      userLine(s, 'ship the cart feature'),
      toolUseLine(s, 'toolu_n1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(s, 'toolu_n1', NO_UPSTREAM('feature-cart'), true),
      toolUseLine(s, 'toolu_n2', 'Bash', { command: 'make lint' }),
      toolResultLine(s, 'toolu_n2', 'Exit code 2\nmake: *** No rule to make target \'lint\'.  Stop.', true),
    ].join('\n') + '\n');
    const tool = () => decisions(e).filter((r) => r.channel === 'tool' && r.sessionId === s.id);
    await waitFor(() => tool().length >= 2, 20_000, 'two tool decisions');
    const [first, second] = tool();
    for (const r of tool()) expect(validate(toolSchema, r), JSON.stringify(r)).toEqual([]);
    expect(first).toMatchObject({ step: 1, tool_use_id: 'toolu_n1', trigger: 'error', sig, match: 'exact', would_fire: true, silence: null });
    expect((first.offer as { type: string }).type).toBe('past-fix');
    expect(second).toMatchObject({ step: 2, trigger: 'error', would_fire: false, silence: 'no-fix' });
    // The session's tool cache holds the last error's decision (silence replaces the offer).
    const cache = readJson<{ step: number; sig: string; offer: unknown }>(join(e.home, 'cache', `${s.id}.tool.json`));
    expect(cache).toMatchObject({ step: 2, offer: null });
    expect(validate(toolCacheSchema, cache)).toEqual([]);
    // Stopping keeps the fixes: they follow the store (the indexer wrote them too), and the
    // Past fix at a failure needs no daemon.
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(readdirSync(join(e.home, 'fixes'))).toContain(`${sig}.json`);
  });
});
