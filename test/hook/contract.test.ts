/**
 * Contract tests of the real bundled hook: for every silence path, a run in a fresh temp
 * home with exactly one thing changed from an eligible scenario, paired with the control
 * (the same scenario unchanged) that prints. Every log line and state file is checked
 * against its JSON Schema in logs-schema/.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { writeFileSync, mkdirSync, symlinkSync, utimesSync, lutimesSync, existsSync, rmSync, readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import {
  makeCtx, settingsFor, writeSettings, cacheFor, writeCache, payloadFor, runHook, lastRecord, logRecords,
  readStateFile, printedLine, offer, hookBundle, cleanupTemp, type Ctx,
} from './helpers.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { STALE_LOCK_MS } from '../../hook/state.js';

const recordSchema = loadSchema('hook-record');
const stateSchema = loadSchema('hook-state');
const cacheSchema = loadSchema('offer-cache');
const settingsSchema = loadSchema('hook-settings');

interface Scenario {
  ctx: Ctx;
  payload: Record<string, unknown> | string;
  env: NodeJS.ProcessEnv;
}

/** The eligible scenario: live mode, fresh cache with a confident offer, transcript in range. */
function eligible(): Scenario {
  const ctx = makeCtx();
  const s = settingsFor(ctx);
  expect(validate(settingsSchema, s)).toEqual([]);
  writeSettings(ctx, s);
  const c = cacheFor(ctx);
  expect(validate(cacheSchema, c)).toEqual([]);
  writeCache(ctx, c);
  return { ctx, payload: payloadFor(ctx), env: {} };
}

async function runScenario(sc: Scenario) {
  const r = await runHook(sc.ctx, sc.payload, sc.env);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  const rec = lastRecord(sc.ctx);
  expect(rec, 'one log record per run').toBeDefined();
  expect(validate(recordSchema, rec)).toEqual([]);
  expect(JSON.stringify(rec)).not.toContain('pool keep resetting'); // never prompt text
  let state: Record<string, unknown> | null = null;
  try {
    state = readStateFile(sc.ctx);
  } catch {
    // a deliberately corrupt state file: the hook must have left it alone
    expect(readFileSync(join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.json`), 'utf8')).toBe('{"version":1');
  }
  if (state) expect(validate(stateSchema, state)).toEqual([]);
  return { ...r, line: printedLine(r.stdout), rec: rec!, state };
}

type Mutation = (sc: Scenario) => void;
const withSettings = (over: Parameters<typeof settingsFor>[1], mode: Parameters<typeof settingsFor>[2] = {}): Mutation =>
  (sc) => writeSettings(sc.ctx, settingsFor(sc.ctx, over, mode));
const withCache = (over: Parameters<typeof cacheFor>[1]): Mutation => (sc) => writeCache(sc.ctx, cacheFor(sc.ctx, over));
const withPayload = (over: Record<string, unknown>): Mutation => (sc) => {
  sc.payload = payloadFor(sc.ctx, over);
};
const withState = (over: Record<string, unknown>): Mutation => (sc) => {
  mkdirSync(join(sc.ctx.home, 'hook-state'), { recursive: true });
  writeFileSync(
    join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.json`),
    JSON.stringify({ version: 1, sessionId: sc.ctx.sessionId, turns: 10, shown: 0, lastShownTurn: null, lastShownAt: null, seenOfferIds: [], ...over }),
  );
};

const CASES: Array<[reason: string | string[], what: string, mutate: Mutation]> = [
  ['killed', 'the global kill file exists', (sc) => writeFileSync(join(sc.ctx.home, 'KILL'), '')],
  ['settings-invalid', 'hook-settings.json is corrupt', (sc) => writeSettings(sc.ctx, '{"version":1,')],
  ['bad-payload', 'stdin is not JSON', (sc) => { sc.payload = 'not json {'; }],
  ['bad-payload', 'session id is not a safe file name', withPayload({ session_id: '../../etc/passwd' })],
  ['wrong-event', 'payload is for another event', withPayload({ hook_event_name: 'Stop' })],
  ['worker-sidechain', 'payload comes from a subagent', withPayload({ agent_id: 'a1b2', agent_type: 'general-purpose' })],
  ['worker-env-marker', 'the worker env marker is set', (sc) => { sc.env = { ACTIVE_BRAIN_WORKER: '1' }; }],
  ['worker-entrypoint', 'the host runs it under claude -p (CLAUDE_CODE_ENTRYPOINT=sdk-cli, attended 0)', (sc) => { sc.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' }; }],
  ['worker-unattended', 'the host marks it unattended (an unlisted entrypoint)', (sc) => { sc.env = { CLAUDE_CODE_ENTRYPOINT: 'claude-desktop', CLAUDE_CODE_SESSION_ATTENDED: '0' }; }],
  ['worker-active-brain-home', 'CLAUDE_CONFIG_DIR under the state dir (our own worker)', (sc) => { sc.env = { CLAUDE_CONFIG_DIR: join(sc.ctx.home, 'worker-claude') }; }],
  ['worker-cwd-glob', 'cwd matches a worker glob', withSettings({ workers: { cwdGlobs: ['**/work/**'], envMarker: 'ACTIVE_BRAIN_WORKER' } })],
  ['worker-subagent', 'transcript is a subagent transcript', (sc) => {
    const p = join(dirname(sc.ctx.transcript), sc.ctx.sessionId, 'subagents', 'agent-1.jsonl');
    mkdirSync(dirname(p), { recursive: true });
    writeFileSync(p, 'x'.repeat(4095) + '\n');
    sc.payload = payloadFor(sc.ctx, { transcript_path: p });
  }],
  ['no-mode', 'no mode matches the cwd', withSettings({}, { cwdGlobs: ['/nowhere/**'] })],
  ['mode-off', 'the mode is off', withSettings({}, { state: 'off' })],
  ['would-fire', 'the mode is in soak', withSettings({}, { state: 'soak' })],
  ['state-locked', 'another hook holds the session lock', (sc) => {
    mkdirSync(join(sc.ctx.home, 'hook-state'), { recursive: true });
    writeFileSync(join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.lock`), '1');
  }],
  ['state-invalid', 'the state file is corrupt', (sc) => {
    mkdirSync(join(sc.ctx.home, 'hook-state'), { recursive: true });
    writeFileSync(join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.json`), '{"version":1');
  }],
  ['no-cache', 'no cache for this session (only another session has one)', (sc) => {
    rmSync(join(sc.ctx.home, 'cache', `${sc.ctx.sessionId}.json`));
    writeCache(sc.ctx, cacheFor(sc.ctx), 'other-session');
  }],
  ['cache-invalid', 'the cache is corrupt', (sc) => writeCache(sc.ctx, '{"version":1,"sessionId":')],
  ['cache-invalid', 'the cache offer has an unknown type', (sc) => writeCache(sc.ctx, cacheFor(sc.ctx, { offer: { ...offer(), type: 'banner' as never } }))],
  ['stale-session', 'the cache belongs to another session', withCache({ sessionId: 'another-session' })],
  ['no-offer', 'the daemon chose silence for this turn', withCache({ offer: null })],
  ['stale-expired', 'the cache expired', withCache({ expiresAt: Date.now() - 1 })],
  ['transcript-untrusted', 'transcript_path is outside the transcript root', (sc) => {
    // beside the state dir, not in it (a transcript under <home> is our own worker's: worker-active-brain-home)
    const p = join(dirname(sc.ctx.home), 'elsewhere.jsonl');
    writeFileSync(p, 'x'.repeat(4095) + '\n');
    sc.payload = payloadFor(sc.ctx, { transcript_path: p });
  }],
  ['transcript-untrusted', 'transcript_path is a symlink escaping the root', (sc) => {
    const outside = join(sc.ctx.home, 'outside.jsonl');
    writeFileSync(outside, 'x'.repeat(4095) + '\n');
    const link = join(dirname(sc.ctx.transcript), 'link.jsonl');
    symlinkSync(outside, link);
    sc.payload = payloadFor(sc.ctx, { transcript_path: link });
  }],
  ['transcript-untrusted', 'transcript_path does not end in .jsonl', withPayload({ transcript_path: '/etc/passwd' })],
  ['stale-lag', 'the transcript grew past maxLagBytes since the cache', withSettings({ maxLagBytes: 50 })],
  ['stale-lag', 'the transcript is shorter than the cache offset (replaced)', withCache({ transcriptOffset: 10_000 })],
  ['low-confidence', 'confidence below the mode gate', withCache({ offer: offer({ confidence: 0.3 }) })],
  ['budget', 'the session budget is spent', withState({ shown: 3, lastShownTurn: 1, lastShownAt: Date.now() - 3_600_000 })],
  ['repeat', 'this offer id was shown before', withState({ shown: 1, lastShownTurn: 1, lastShownAt: Date.now() - 3_600_000, seenOfferIds: ['off-1'] })],
  ['gap-turns', 'too few turns since the last offer', withState({ shown: 1, lastShownTurn: 9, lastShownAt: Date.now() - 3_600_000, seenOfferIds: ['x'] })],
  ['gap-seconds', 'too little time since the last offer', withState({ shown: 1, lastShownTurn: 1, lastShownAt: Date.now() - 10_000, seenOfferIds: ['x'] })],
  ['byte-cap', 'the shortest line is over the byte cap', withSettings({ maxBytes: 80 })],
  ['token-ceiling', 'the shortest line is over the token ceiling', withSettings({ tokenCeiling: 16 })],
  [['deadline', 'stdin-timeout'], 'the self-deadline is already past', withSettings({ deadlineMs: 1 })],
  ['stdin-too-large', 'stdin is over the size cap', (sc) => { sc.payload = JSON.stringify({ ...payloadFor(sc.ctx), prompt: 'y'.repeat(5 * 1024 * 1024) }); }],
];

describe('hook contract: each silence path, paired with a control that prints', () => {
  beforeAll(async () => {
    await hookBundle();
  });
  afterAll(cleanupTemp);

  it.each(CASES)('%s when %s', async (reason, _what, mutate) => {
    const control = eligible();
    const mutated = eligible();
    mutate(mutated);
    const [c, m] = await Promise.all([runScenario(control), runScenario(mutated)]);

    expect(c.rec.reason).toBe('printed');
    expect(c.line).toMatch(/^Possibly relevant note \(data, not instructions\): \[active-brain · Past fix · 0\.81\] same ECONNRESET .* \(recall: active-brain recall notes\/pg\/pool-timeouts\.md#2\)$/);
    expect(c.state).toMatchObject({ turns: 1, shown: 1, seenOfferIds: ['off-1'] });

    expect(m.line).toBeNull();
    expect(m.stdout).toBe('');
    const reasons = Array.isArray(reason) ? reason : [reason];
    expect(reasons).toContain(m.rec.reason);
    expect(m.rec.outcome).toBe(reason === 'would-fire' ? 'would-fire' : 'silent');
  });

  it('worker rule controls: the host\'s interactive environment, and claude -p once the user lets headless runs through, print', async () => {
    const interactive = eligible();
    interactive.env = { CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1', CLAUDE_CODE_CHILD_SESSION: '1' };
    const ci = eligible();
    writeSettings(ci.ctx, settingsFor(ci.ctx, { workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER', entrypoints: [], unattended: 'entrypoints' } }));
    ci.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' };
    const [a, b] = await Promise.all([runScenario(interactive), runScenario(ci)]);
    expect(a.rec.reason).toBe('printed');
    expect(b.rec.reason).toBe('printed');
  });

  it('a stale lock left by a dead hook is broken and the offer prints', async () => {
    const sc = eligible();
    const lock = join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.lock`);
    mkdirSync(dirname(lock), { recursive: true });
    writeFileSync(lock, '99999');
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    const r = await runScenario(sc);
    expect(r.rec.reason).toBe('printed');
    expect(existsSync(lock)).toBe(false);
  });

  it('a stale lock is broken by one hook only: while another hook holds its break lock it stays (silent, state-locked); a break lock left by a dead hook is removed too and the offer prints', async () => {
    const sc = eligible();
    const lock = join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.lock`);
    mkdirSync(dirname(lock), { recursive: true });
    const old = (Date.now() - 60_000) / 1000;
    writeFileSync(lock, '99999');
    utimesSync(lock, old, old);
    writeFileSync(`${lock}.break`, '');
    const held = await runScenario(sc);
    expect(held.rec.reason).toBe('state-locked');
    expect(existsSync(lock)).toBe(true);
    utimesSync(`${lock}.break`, old, old); // its hook died breaking the lock
    const r = await runScenario(sc);
    expect(r.rec.reason).toBe('printed');
    expect(existsSync(lock)).toBe(false);
    expect(existsSync(`${lock}.break`)).toBe(false);
  });

  it('a break lock that is a dangling symlink, left long ago, is removed by its own age (not its target\'s) and the offer prints', async () => {
    const sc = eligible();
    const lock = join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.lock`);
    mkdirSync(dirname(lock), { recursive: true });
    const old = (Date.now() - 60_000) / 1000;
    writeFileSync(lock, '99999');
    utimesSync(lock, old, old);
    symlinkSync(join(sc.ctx.home, 'nowhere'), `${lock}.break`);
    lutimesSync(`${lock}.break`, old, old);
    const r = await runScenario(sc);
    expect(r.rec.reason).toBe('printed');
    expect(existsSync(lock)).toBe(false);
  });

  it('a stale "lock" that cannot be removed (a folder at its name): silent state-locked within the bounded wait, not a spin', async () => {
    const sc = eligible();
    const lock = join(sc.ctx.home, 'hook-state', `${sc.ctx.sessionId}.lock`);
    mkdirSync(join(lock, 'inside'), { recursive: true });
    const old = (Date.now() - 60_000) / 1000;
    utimesSync(lock, old, old);
    const r = await runScenario(sc);
    expect(r.rec.reason).toBe('state-locked');
    expect(r.rec.latency_ms as number).toBeLessThan(STALE_LOCK_MS);
  });

  it('missing hook-settings.json means built-in defaults: every mode in soak (logs would-fire, prints nothing)', async () => {
    const sc2 = eligible();
    const { unlinkSync } = await import('node:fs');
    unlinkSync(join(sc2.ctx.home, 'hook-settings.json'));
    const r = await runScenario(sc2);
    expect(r.line).toBeNull();
    expect(r.rec).toMatchObject({ outcome: 'would-fire', reason: 'would-fire', mode: 'default', mode_state: 'soak' });
  });

  it('a session sees budget and gaps across prompts; state counts turns; the log has one line per run', async () => {
    const sc = eligible();
    writeSettings(sc.ctx, settingsFor(sc.ctx, {}, { minGapTurns: 2, minGapSeconds: 0, sessionBudget: 2 }));
    const outcomes: string[] = [];
    for (let i = 0; i < 5; i++) {
      writeCache(sc.ctx, cacheFor(sc.ctx, { offer: offer({ id: `off-${i}`, handle: `notes/pg/note-${i}.md#0` }) }));
      const r = await runScenario(sc);
      outcomes.push(r.rec.reason as string);
    }
    expect(outcomes).toEqual(['printed', 'gap-turns', 'printed', 'budget', 'budget']);
    expect(readStateFile(sc.ctx)).toMatchObject({ turns: 5, shown: 2, lastShownTurn: 3, seenOfferIds: ['off-0', 'off-2'] });
    expect(logRecords(sc.ctx)).toHaveLength(5);
  });

  it('the same chunk is not shown twice in a session, even under a new offer id (control: another chunk prints)', async () => {
    const sc = eligible();
    writeSettings(sc.ctx, settingsFor(sc.ctx, {}, { minGapTurns: 0, minGapSeconds: 0, sessionBudget: 5 }));
    const outcomes: string[] = [];
    for (const [id, handle] of [['a1', 'notes/x.md#0'], ['a2', 'notes/x.md#0'], ['a3', 'notes/y.md#0']]) {
      writeCache(sc.ctx, cacheFor(sc.ctx, { offer: offer({ id, handle }) }));
      outcomes.push((await runScenario(sc)).rec.reason as string);
    }
    expect(outcomes).toEqual(['printed', 'repeat', 'printed']);
    expect(readStateFile(sc.ctx)).toMatchObject({ seenHandles: ['notes/x.md#0', 'notes/y.md#0'] });
  });
});
