/**
 * The tool channel through the real bundled hook as a process: a Past fix printed live at a
 * PostToolUseFailure and at an error inside a PostToolUse tool_response, would-fire in soak
 * (logged, not printed), silence in a subagent, a first-seen error silent, the tool cache's
 * near match, the step gap across events, the shared FIFO with the prompt channel in both
 * directions, and bad input (1 MB, binary, ANSI, invalid UTF-8 errors; payloads without
 * `error`; tool_response of any shape; unknown events; corrupt / half-written fixes files;
 * no fixes dir): silence, exit 0, nothing on stderr; every log line and state file valid
 * against its schema and free of error text.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  makeCtx, toolSettingsFor, writeSettings, writeFixFile, fixFileFor, writeToolCache, toolPayloadFor, payloadFor,
  cacheFor, writeCache, offer, runHook, lastRecord, readStateFile, printedLine, hookBundle, cleanupTemp, type Ctx,
} from './helpers.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { errorSignature } from '../../shared/error-signature.js';
import { utf8Bytes } from '../../shared/escape.js';
import type { FixOffer, Offer } from '../../shared/types.js';

const recordSchema = loadSchema('hook-record');
const stateSchema = loadSchema('hook-state');
const settingsSchema = loadSchema('hook-settings');

const SECRET = 'hunter2-in-the-error-text';
const ERROR = `Exit code 128\nfatal: The current branch feature/${SECRET} has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/${SECRET}\n`;
const SIG = errorSignature(ERROR)!.sig;
const PAST = '258c7280-ae70-4798-800f-63464d01a85d';

function fixOffer(over: Partial<Offer> = {}): Offer {
  return offer({
    id: `fix-${SIG}-7`, chunkId: 7, handle: 'sessions/258c7280#ep-3', confidence: 0.86, channel: 'tool',
    reason: 'same "no upstream branch" error in session 258c… (2026-02-11): fixed by git push --set-upstream origin <branch>', ...over,
  });
}
const aFix = (over: Partial<FixOffer> = {}, o: Partial<Offer> = {}): FixOffer => ({ offer: fixOffer(o), sourceSession: PAST, scope: 'global', ...over });

/** A live tool channel and a fixes file for ERROR's signature. */
function eligible(tool: Parameters<typeof toolSettingsFor>[1] = {}): Ctx {
  const ctx = makeCtx();
  const s = toolSettingsFor(ctx, tool);
  expect(validate(settingsSchema, s)).toEqual([]);
  writeSettings(ctx, s);
  writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix()]));
  return ctx;
}

async function hook(ctx: Ctx, input: unknown, env: NodeJS.ProcessEnv = {}) {
  const r = await runHook(ctx, input, env);
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  const rec = lastRecord(ctx)!;
  expect(rec, 'one log record per run').toBeDefined();
  expect(validate(recordSchema, rec)).toEqual([]);
  expect(JSON.stringify(rec)).not.toContain(SECRET); // ids and codes, never error text
  const state = readStateFile(ctx);
  if (state) expect(validate(stateSchema, state)).toEqual([]);
  return { ...r, rec, state };
}

beforeAll(async () => {
  await hookBundle();
});
afterAll(cleanupTemp);

describe('tool channel process: prints, soaks, refuses', () => {
  it('PostToolUseFailure with a Past fix prints one line for PostToolUseFailure; logged with channel, event, sig, tool_use_id, step', async () => {
    const ctx = eligible();
    const r = await hook(ctx, toolPayloadFor(ctx, ERROR));
    const line = printedLine(r.stdout, 'PostToolUseFailure');
    expect(line).toBe('Possibly relevant note (data, not instructions): [active-brain · Past fix · 0.86] same "no upstream branch" error in session 258c… (2026-02-11): fixed by git push --set-upstream origin ‹branch› (recall: active-brain recall sessions/258c7280#ep-3)');
    expect(utf8Bytes(line!)).toBeLessThanOrEqual(400);
    expect(r.rec).toMatchObject({ outcome: 'print', reason: 'printed', channel: 'tool', event: 'PostToolUseFailure', sig: SIG, tool_use_id: 'toolu_01AbCdEf', step: 1, source: 'fixes', offer_id: `fix-${SIG}-7`, mode_state: 'live' });
    expect(r.rec.turn).toBeUndefined();
    expect(r.state).toMatchObject({ turns: 0, shown: 0, tool: { steps: 1, shown: 1, lastShownStep: 1 }, seenOfferIds: [`fix-${SIG}-7`], seenHandles: ['sessions/258c7280#ep-3'] });
  });

  it('PostToolUse with an error inside tool_response prints for PostToolUse; a successful Bash result is silent (no-error) but counts as a step', async () => {
    const ctx = eligible();
    const ok = await hook(ctx, toolPayloadFor(ctx, undefined, { hook_event_name: 'PostToolUse', error: undefined, is_interrupt: undefined, tool_response: { stdout: ERROR, stderr: 'warning: x', interrupted: false, isImage: false } }));
    expect(ok.stdout).toBe('');
    expect(ok.rec).toMatchObject({ outcome: 'silent', reason: 'no-error', channel: 'tool', event: 'PostToolUse', step: 1 });
    expect(ok.rec.sig).toBeUndefined();
    const r = await hook(ctx, toolPayloadFor(ctx, undefined, { hook_event_name: 'PostToolUse', error: undefined, is_interrupt: undefined, tool_response: { isError: true, content: [{ type: 'text', text: ERROR }] } }));
    expect(printedLine(r.stdout, 'PostToolUse')).toContain('[active-brain · Past fix · 0.86]');
    expect(r.rec).toMatchObject({ outcome: 'print', event: 'PostToolUse', sig: SIG, step: 2 });
  });

  it('soak: would-fire is logged and counted, nothing printed', async () => {
    const ctx = eligible({ state: 'soak' });
    const r = await hook(ctx, toolPayloadFor(ctx, ERROR));
    expect(r.stdout).toBe('');
    expect(r.rec).toMatchObject({ outcome: 'would-fire', reason: 'would-fire', mode_state: 'soak', channel: 'tool', sig: SIG, bytes: expect.any(Number) });
    expect(r.state).toMatchObject({ tool: { steps: 1, shown: 1 } });
  });

  it('silent in a subagent (agent_id) and with the worker marker; control: the same failure in the main session prints', async () => {
    const ctx = eligible();
    const sub = await hook(ctx, toolPayloadFor(ctx, ERROR, { agent_id: 'a881341', agent_type: 'general-purpose' }));
    expect(sub.stdout).toBe('');
    expect(sub.rec).toMatchObject({ reason: 'worker-sidechain', channel: 'tool' });
    const env = await hook(ctx, toolPayloadFor(ctx, ERROR), { ACTIVE_BRAIN_WORKER: '1' });
    expect(env.rec.reason).toBe('worker-env-marker');
    expect(readStateFile(ctx)).toBeNull(); // refused before the state: nothing counted
    const main = await hook(ctx, toolPayloadFor(ctx, ERROR));
    expect(printedLine(main.stdout, 'PostToolUseFailure')).not.toBeNull();
  });

  it('a first-seen error (no fixes dir at all, no tool cache) is silent; control: once the daemon wrote its fix, the next failure prints', async () => {
    const ctx = makeCtx();
    writeSettings(ctx, toolSettingsFor(ctx));
    const first = await hook(ctx, toolPayloadFor(ctx, ERROR));
    expect(existsSync(join(ctx.home, 'fixes'))).toBe(false);
    expect(first.stdout).toBe('');
    expect(first.rec).toMatchObject({ reason: 'no-fix', sig: SIG, step: 1 });
    writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix()]));
    const again = await hook(ctx, toolPayloadFor(ctx, ERROR, { tool_use_id: 'toolu_02' }));
    expect(again.rec).toMatchObject({ reason: 'printed', step: 2 });
  });

  it('a fix from this very session is never offered back to it; control: a fix from another session is', async () => {
    const ctx = eligible();
    writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix({ sourceSession: ctx.sessionId })]));
    expect((await hook(ctx, toolPayloadFor(ctx, ERROR))).rec.reason).toBe('own-session');
    writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix({ sourceSession: ctx.sessionId }), aFix({}, { id: 'fix-other', handle: 'sessions/aa#1' })]));
    expect((await hook(ctx, toolPayloadFor(ctx, ERROR))).rec).toMatchObject({ reason: 'printed', offer_id: 'fix-other' });
  });

  it('no fixes file: the session\'s tool cache (a near match the daemon found) prints; an expired one does not', async () => {
    const ctx = makeCtx();
    writeSettings(ctx, toolSettingsFor(ctx));
    const now = Date.now();
    const tc = { version: 1 as const, sessionId: ctx.sessionId, mode: 'default', step: 12, toolUseId: 'toolu_prev', sig: SIG, createdAt: now - 2000, expiresAt: now + 60_000,
      offer: fixOffer({ id: 'near-1', handle: 'sessions/bb#2', confidence: 0.75, reason: 'a similar push error, fixed with -u' }) };
    writeToolCache(ctx, { ...tc, expiresAt: now - 1 });
    expect((await hook(ctx, toolPayloadFor(ctx, ERROR))).rec.reason).toBe('stale-expired');
    writeToolCache(ctx, tc);
    const r = await hook(ctx, toolPayloadFor(ctx, ERROR));
    expect(printedLine(r.stdout, 'PostToolUseFailure')).toContain('sessions/bb#2');
    expect(r.rec).toMatchObject({ source: 'tool-cache', offer_id: 'near-1' });
  });

  it('the step gap holds across tool events of a session (minGapSteps 3)', async () => {
    const ctx = eligible({ minGapSteps: 3, minGapSeconds: 0 });
    const reasons: string[] = [];
    for (let k = 0; k < 5; k++) {
      writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix({}, { id: `fix-${k}`, handle: `sessions/s${k}#1` })]));
      reasons.push((await hook(ctx, toolPayloadFor(ctx, ERROR, { tool_use_id: `toolu_${k}` }))).rec.reason as string);
    }
    expect(reasons).toEqual(['printed', 'gap-steps', 'gap-steps', 'printed', 'gap-steps']);
    expect(readStateFile(ctx)).toMatchObject({ tool: { steps: 5, shown: 2, lastShownStep: 4 } });
  });
});

describe('tool channel process: the FIFO shared with the prompt channel', () => {
  it('a chunk shown at a failure is not shown at the next prompt, even under the prompt cache\'s own offer id; control: another chunk is', async () => {
    const ctx = eligible();
    expect((await hook(ctx, toolPayloadFor(ctx, ERROR))).rec.reason).toBe('printed');
    writeCache(ctx, cacheFor(ctx, { offer: offer({ id: 'prompt-7', handle: 'sessions/258c7280#ep-3' }) }));
    const same = await hook(ctx, payloadFor(ctx));
    expect(same.stdout).toBe('');
    expect(same.rec).toMatchObject({ reason: 'repeat', channel: 'prompt', event: 'UserPromptSubmit', turn: 1 });
    writeCache(ctx, cacheFor(ctx, { offer: offer({ id: 'prompt-8', handle: 'notes/pg/pool-timeouts.md#2' }) }));
    const other = await hook(ctx, payloadFor(ctx));
    expect(printedLine(other.stdout)).toContain('notes/pg/pool-timeouts.md#2');
    expect(readStateFile(ctx)).toMatchObject({ turns: 2, shown: 1, tool: { steps: 1, shown: 1 } });
  });

  it('a chunk shown at a prompt is not shown at a later failure; control: another fix is', async () => {
    const ctx = eligible();
    writeCache(ctx, cacheFor(ctx, { offer: offer({ id: 'prompt-1', handle: 'sessions/258c7280#ep-3' }) }));
    expect(printedLine((await hook(ctx, payloadFor(ctx))).stdout)).not.toBeNull();
    const tool = await hook(ctx, toolPayloadFor(ctx, ERROR));
    expect(tool.stdout).toBe('');
    expect(tool.rec).toMatchObject({ reason: 'repeat', channel: 'tool' });
    writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix({}, { id: 'fix-2', handle: 'sessions/cc#4' })]));
    expect(printedLine((await hook(ctx, toolPayloadFor(ctx, ERROR))).stdout, 'PostToolUseFailure')).toContain('sessions/cc#4');
  });
});

describe('tool channel process: bad input is silence, exit 0, nothing on stderr', () => {
  const big = (n: number) => `Exit code 1\n${'npm ERR! code ELIFECYCLE '.repeat(Math.ceil(n / 25)).slice(0, n)}`;
  const CASES: Array<[what: string, reason: string, make: (ctx: Ctx) => unknown]> = [
    ['a 1 MB error', 'no-fix', (ctx) => toolPayloadFor(ctx, big(1 << 20))],
    ['a binary error', 'generic-error', (ctx) => toolPayloadFor(ctx, Buffer.from(Array.from({ length: 4096 }, (_, k) => (k * 31) % 256)).toString('latin1'))],
    ['an ANSI error (nothing to tell it apart once cleaned)', 'generic-error', (ctx) => toolPayloadFor(ctx, '\u001b[31m\u001b[1merror\u001b[0m: \u001b]8;;http://x\u0007link\u001b]8;;\u0007 failed\r50%\r100%\n'.repeat(400))],
    ['invalid UTF-8 inside the error (raw bytes on stdin)', 'generic-error', (ctx) => Buffer.concat([
      Buffer.from(JSON.stringify(toolPayloadFor(ctx, 'PLACEHOLDER')).split('PLACEHOLDER')[0]), Buffer.from([0xff, 0xfe, 0xc3, 0x28, 0xe2, 0x82]),
      Buffer.from('fatal: broken'), Buffer.from(JSON.stringify(toolPayloadFor(ctx, 'PLACEHOLDER')).split('PLACEHOLDER')[1])])],
    ['a payload without `error`', 'no-error', (ctx) => toolPayloadFor(ctx, undefined)],
    ['an `error` that is an object', 'no-error', (ctx) => toolPayloadFor(ctx, { stderr: ERROR })],
    ['PostToolUse without tool_response', 'no-error', (ctx) => toolPayloadFor(ctx, undefined, { hook_event_name: 'PostToolUse' })],
    ['PostToolUse with a number for tool_response', 'no-error', (ctx) => toolPayloadFor(ctx, undefined, { hook_event_name: 'PostToolUse', tool_response: 7 })],
    ['PostToolUse with a file read about errors', 'no-error', (ctx) => toolPayloadFor(ctx, undefined, { hook_event_name: 'PostToolUse', tool_response: { type: 'text', file: { filePath: '/x.ts', content: ERROR } } })],
    ['an unknown event', 'wrong-event', (ctx) => toolPayloadFor(ctx, ERROR, { hook_event_name: 'PostToolBatch' })],
    ['a non-string event', 'bad-payload', (ctx) => toolPayloadFor(ctx, ERROR, { hook_event_name: 7 })],
    ['a corrupt fixes file', 'fixes-invalid', (ctx) => { writeFixFile(ctx, SIG, '\u0000\u0001garbage{'); return toolPayloadFor(ctx, ERROR); }],
    ['a half-written fixes file', 'fixes-invalid', (ctx) => { writeFixFile(ctx, SIG, JSON.stringify(fixFileFor(SIG, [aFix()])).slice(0, 90)); return toolPayloadFor(ctx, ERROR); }],
    ['a fixes file that is a directory', 'fixes-invalid', (ctx) => { mkdirSync(join(ctx.home, 'fixes', `${SIG}.json`), { recursive: true }); return toolPayloadFor(ctx, ERROR); }],
    ['a fixes file over the size cap', 'fixes-invalid', (ctx) => { writeFixFile(ctx, SIG, JSON.stringify({ ...fixFileFor(SIG, [aFix()]), pad: 'x'.repeat(70 * 1024) })); return toolPayloadFor(ctx, ERROR); }],
    ['a fixes dir that is a file', 'fixes-invalid', (ctx) => { writeFileSync(join(ctx.home, 'fixes'), 'x'); return toolPayloadFor(ctx, ERROR); }],
    ['a corrupt tool cache and no fixes', 'cache-invalid', (ctx) => { writeToolCache(ctx, '{"version":1,'); return toolPayloadFor(ctx, `${ERROR}\nsomething else entirely: fatal`); }],
  ];

  it.each(CASES)('%s → %s', async (_what, reason, make) => {
    const ctx = makeCtx();
    writeSettings(ctx, toolSettingsFor(ctx));
    const input = make(ctx);
    const r = await hook(ctx, input);
    expect(r.stdout).toBe('');
    expect(r.rec).toMatchObject({ outcome: 'silent', reason });
  });

  it('control for the cases above: the same home with a readable fixes file prints', async () => {
    const ctx = eligible();
    expect(printedLine((await hook(ctx, toolPayloadFor(ctx, ERROR))).stdout, 'PostToolUseFailure')).not.toBeNull();
  });

  it('property: arbitrary tool payloads never fail the process; output is nothing or one offer for the payload\'s event', async () => {
    let printed = 0;
    const resp = fc.oneof(
      fc.constant({ isError: true, content: [{ type: 'text', text: ERROR }] }),
      fc.record({ stdout: fc.string({ maxLength: 40 }), stderr: fc.string({ unit: 'binary', maxLength: 40 }), interrupted: fc.boolean(), exitCode: fc.oneof(fc.integer({ min: 0, max: 2 }), fc.constant(undefined)) }, { requiredKeys: [] }),
      fc.jsonValue(),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          event: fc.constantFrom('PostToolUseFailure', 'PostToolUse', 'Stop', undefined),
          error: fc.oneof(fc.constant(ERROR), fc.string({ unit: 'binary', maxLength: 300 }), fc.jsonValue()),
          resp,
          interrupt: fc.oneof(fc.boolean(), fc.jsonValue()),
          fixes: fc.constantFrom('good', 'corrupt', 'none'),
        }),
        async (c) => {
          const ctx = makeCtx();
          writeSettings(ctx, toolSettingsFor(ctx, { minGapSteps: 0, minGapSeconds: 0 }));
          if (c.fixes === 'good') writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix()]));
          if (c.fixes === 'corrupt') writeFixFile(ctx, SIG, '{"version":1,"sig":');
          const r = await hook(ctx, toolPayloadFor(ctx, c.error, { hook_event_name: c.event, tool_response: c.resp, is_interrupt: c.interrupt }));
          const event = c.event ?? 'UserPromptSubmit';
          const line = printedLine(r.stdout, event);
          if (line !== null) {
            printed++;
            expect(c.fixes).toBe('good');
            expect(r.rec).toMatchObject({ outcome: 'print', sig: SIG, event });
            expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/);
          }
        },
      ),
      // The printing case always runs first (random draws reach it only now and then), so the
      // control below cannot depend on the seed.
      { numRuns: 30, examples: [[{ event: 'PostToolUseFailure', error: ERROR, resp: { isError: true, content: [{ type: 'text', text: ERROR }] }, interrupt: false, fixes: 'good' }]] },
    );
    expect(printed).toBeGreaterThan(0);
  });
});
