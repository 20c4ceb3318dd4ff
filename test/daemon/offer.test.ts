/**
 * End to end through the real daemon process with a real store: a session warms up on one
 * topic, then a tool fails with an error the store has a past fix for → the daemon writes a
 * would-fire offer (soak) into the session's cache and logs it; the same session as a
 * `claude -p` worker (entrypoint sdk-cli) gets no offer and no cache.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { repoRoot } from '../helpers/model.js';
import { join } from 'node:path';
import { buildStore, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER } from '../retrieval/fixture.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { PG_WARMUP, appendPgErrorExchange } from './pg-error-session.js';
import { writeConfig } from '../helpers/faults.js';
import {
  STEADY_CONFIG,
  appendExchange,
  assistantLine,
  cli,
  decisions,
  newSession,
  readJson,
  startDaemon,
  statusRunning,
  tempEnv,
  turnEndLine,
  userLine,
  waitCanary,
  waitFor,
  type Env,
  type Session,
} from './helpers.js';

let store: TestStore;
beforeAll(async () => {
  store = await buildStore([...FIXTURE, ...FILLER]);
});
afterAll(() => store?.cleanup());



function appendWarmup(s: Session, entrypoint?: string): void {
  for (const [u, a] of PG_WARMUP) {
    if (!entrypoint) appendExchange(s, u, a);
    else appendFileSync(s.path, [userLine(s, u), assistantLine(s, a), turnEndLine(s)].map((l) => JSON.stringify({ ...JSON.parse(l), entrypoint })).join('\n') + '\n');
  }
}

describe('daemon offers (real process, real store)', () => {
  let e: Env;
  afterAll(() => e?.cleanup());

  it('a new tool error with a past fix in the store → would-fire offer in the cache; a worker session gets none', async () => {
    e = tempEnv();
    e.env.ACTIVE_BRAIN_STORE = store.path;
    writeConfig(e, STEADY_CONFIG); // the offer made and the hook's would-fire are what is checked
    const d = startDaemon(e, ['session.cooldownSeconds=0']);
    await waitCanary(e, d.pid);

    const s = newSession(e);
    appendWarmup(s);
    appendPgErrorExchange(s);
    const cachePath = join(e.home, 'cache', `${s.id}.json`);
    const cache = await waitFor(() => {
      const c = readJson<{ turn: number; offer: Record<string, unknown> | null }>(cachePath);
      return c && c.turn === 4 ? c : null;
    }, 20_000, 'cache for the error turn');
    expect(validate(loadSchema('offer-cache'), cache)).toEqual([]);
    expect(cache.offer).toMatchObject({ type: 'past-fix', trigger: 'error', region: 'past-sessions' });
    const dec = await waitFor(() => decisions(e).find((r) => r.sessionId === s.id && r.turn === 4), 5000, 'decision for the error turn');
    expect(dec).toMatchObject({ would_fire: true, silence: null, trigger: 'error', mode_state: 'soak' });
    expect((dec.offer as { handle: string }).handle).toBe((cache.offer as { handle: string }).handle);

    // status reads the same store read-only: size and model.
    const st = await statusRunning<{ store: { chunks: number } }>(e);
    expect(st).toMatchObject({ running: true, store: { present: true, model: 'offline-glove-sif' }, model: { store: 'offline-glove-sif' } });
    expect(st.store.chunks).toBeGreaterThan(5);

    // The same conversation from a `claude -p` worker: observed, never offered, no cache.
    const w = newSession(e);
    appendWarmup(w, 'sdk-cli');
    appendPgErrorExchange(w, 'sdk-cli');
    await waitFor(() => decisions(e).some((r) => r.sessionId === w.id && r.turn === 4), 20_000, 'worker decision');
    const wd = decisions(e).find((r) => r.sessionId === w.id && r.turn === 4)!;
    expect(wd).toMatchObject({ worker: true, would_fire: false, silence: 'worker-entrypoint' });
    expect(existsSync(join(e.home, 'cache', `${w.id}.json`))).toBe(false);

    // Rollout on top of the real would-fire offer: the hook (soak) logs it without printing,
    // a person labels it, recalls its handle, and the soak report counts both.
    const hook = spawnSync(process.execPath, [join(repoRoot, 'bin', 'active-brain-hook.js')], {
      env: e.env,
      input: JSON.stringify({ session_id: s.id, transcript_path: s.path, cwd: s.cwd, hook_event_name: 'UserPromptSubmit', prompt: 'what now?' }),
      encoding: 'utf8',
    });
    expect(hook.status).toBe(0);
    expect(hook.stdout).toBe('');
    const hookLog = readFileSync(join(e.home, 'logs', 'hook.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(hookLog.at(-1)).toMatchObject({ outcome: 'would-fire', offer_id: (cache.offer as { id: string }).id });
    const offerId = (dec.offer as { id: string }).id;
    expect(cli(e, ['label', '--offer', 'no-such-offer', '--verdict', 'useful']).code).toBe(1);
    expect(cli(e, ['label', '--offer', offerId, '--verdict', 'maybe']).code).toBe(2);
    expect(cli(e, ['label', '--offer', offerId, '--verdict', 'useful']).code).toBe(0);
    const stats = JSON.parse(cli(e, ['label', '--stats', '--json']).stdout);
    expect(stats).toMatchObject({ labels: 1, useful: 1, pass: false, channels: { prompt: { labels: 1, gate: { name: 'prompt.usefulness', pass: false } } } });
    expect(cli(e, ['label']).code).toBe(2); // not a terminal: says how to label from a script
    expect(cli(e, ['recall', (dec.offer as { handle: string }).handle]).code).toBe(0);
    const rep = JSON.parse(cli(e, ['soak', 'report', '--json']).stdout);
    expect(rep.figures.by_type['past-fix']).toBe(1);
    expect(rep.figures.recalled_after_offer['past-fix']).toEqual({ offered: 1, recalled: 1 });
    expect(rep.figures.labels).toEqual({ n: 1, useful: 1 });

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // A stopped daemon leaves no offer behind for the hook to print turns later.
    expect(existsSync(cachePath)).toBe(false);
  });
});
