/**
 * The hook against a hostile machine (issue 38, docs/RELIABILITY.md "Adversarial cases"): a
 * transcript that is a FIFO or a symlink out of the transcript root, stdin held open with no
 * data, a payload nested a million levels deep, and its own files (fixes, caches, state, log)
 * owned by another user, writable by others, in loose folders or reached through symlinks.
 * Each case runs the real bundled hook as a child process and has its control: the same path
 * prints (or reads) when the file is sound. Timing bounds are generous (a hang is ≥ 10 s here);
 * the precise figures are in docs/BENCHMARKS.md.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import fc from 'fast-check';
import { spawn, execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cleanupTemp, hookBundle, makeCtx, toolSettingsFor, settingsFor, writeSettings, writeFixFile, fixFileFor, toolPayloadFor, payloadFor,
  writeCache, cacheFor, lastRecord, printedLine, runHook, offer, tempDir, type Ctx,
} from './helpers.js';
import { errorSignature } from '../../shared/error-signature.js';
import { nestingWithin, MAX_PAYLOAD_DEPTH } from '../../hook/json-depth.js';
import type { FixOffer, Offer } from '../../shared/types.js';

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;
/** A hang ends when the writer gives up: the tests hold stdin / the FIFO this long. */
const HANG_MS = 10_000;
/** Generous: exit well before the hang would end, on a loaded 2-core machine. */
const BOUND_MS = 5_000;

const ERROR = 'Exit code 128\nfatal: The current branch feature/x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/x\n';
const SIG = errorSignature(ERROR)!.sig;
const PAST = '258c7280-ae70-4798-800f-63464d01a85d';
const fixOffer = (): Offer => offer({ id: `fix-${SIG}-7`, chunkId: 7, handle: 'sessions/258c7280#ep-3', confidence: 0.86, channel: 'tool', reason: 'same "no upstream branch" error: fixed by git push --set-upstream origin <branch>' });
const aFix = (): FixOffer => ({ offer: fixOffer(), sourceSession: PAST, scope: 'global' });

/** A live tool channel with a fix for ERROR. */
function eligible(): Ctx {
  const ctx = makeCtx();
  writeSettings(ctx, toolSettingsFor(ctx));
  writeFixFile(ctx, SIG, fixFileFor(SIG, [aFix()]));
  return ctx;
}

/** A live prompt channel with an offer cache for the session. */
function promptReady(): Ctx {
  const ctx = makeCtx();
  writeSettings(ctx, settingsFor(ctx));
  writeCache(ctx, cacheFor(ctx));
  return ctx;
}

/** Run the hook; `hold` keeps stdin open (no data) for HANG_MS; killed at HANG_MS + 5 s. */
async function runBounded(ctx: Ctx, input: string | null): Promise<{ code: number | null; ms: number; stdout: string; stderr: string }> {
  const bundle = await hookBundle();
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bundle], { env: ctx.env, cwd: ctx.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.stdin.on('error', () => undefined);
    const close = setTimeout(() => child.stdin.end(), HANG_MS);
    const kill = setTimeout(() => child.kill('SIGKILL'), HANG_MS + 5_000);
    child.on('error', fail);
    child.on('exit', (code) => {
      clearTimeout(close);
      clearTimeout(kill);
      child.stdin.destroy();
      done({ code, ms: performance.now() - t0, stdout, stderr });
    });
    if (input !== null) child.stdin.end(input);
  });
}

function mkfifo(path: string): void {
  execFileSync('mkfifo', [path]);
}

beforeAll(async () => {
  await hookBundle();
});
afterAll(cleanupTemp);

describe('the hook cannot block', () => {
  it('a transcript that is a FIFO: exit 0 well before the hang, the fix still printed; control: a regular transcript prints', async () => {
    const ctx = eligible();
    const control = await runBounded(ctx, JSON.stringify(toolPayloadFor(ctx, ERROR)));
    expect(printedLine(control.stdout, 'PostToolUseFailure')).toContain('Past fix');
    const fifoCtx = eligible();
    rmSync(fifoCtx.transcript);
    mkfifo(fifoCtx.transcript);
    const r = await runBounded(fifoCtx, JSON.stringify(toolPayloadFor(fifoCtx, ERROR)));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.ms).toBeLessThan(BOUND_MS);
    // The FIFO is not read (no lineage from it): the fix is decided on as without a transcript.
    expect(printedLine(r.stdout, 'PostToolUseFailure')).toContain('Past fix');
  });

  it('stdin held open with no data: stdin-timeout and exit 0 well before stdin closes; control: the same payload written and closed is decided', async () => {
    const ctx = promptReady();
    const r = await runBounded(ctx, null);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.ms).toBeLessThan(BOUND_MS);
    expect(lastRecord(ctx)).toMatchObject({ reason: 'stdin-timeout', outcome: 'silent' });
    const ok = await runBounded(ctx, JSON.stringify(payloadFor(ctx)));
    expect(ok.code).toBe(0);
    expect(printedLine(ok.stdout)).toContain('active-brain');
  });

  it('a 2 MB payload nested a million levels deep: bad-payload, exit 0, decided without parsing it; control: the same payload 10 deep is read', async () => {
    const ctx = eligible();
    const deep = (d: number) => JSON.stringify(toolPayloadFor(ctx, ERROR)).replace(/}$/, `,"x":${'['.repeat(d)}${']'.repeat(d)}}`);
    const r = await runBounded(ctx, deep(1_000_000));
    expect(r.code).toBe(0);
    expect(r.ms).toBeLessThan(BOUND_MS);
    const rec = lastRecord(ctx)!;
    expect(rec).toMatchObject({ reason: 'bad-payload', outcome: 'silent' });
    const ok = await runBounded(ctx, deep(10));
    expect(printedLine(ok.stdout, 'PostToolUseFailure')).toContain('Past fix');
  });

  it('nestingWithin agrees with the real depth of any JSON value (brackets in strings do not count)', () => {
    const depth = (v: unknown): number => (Array.isArray(v) ? 1 + Math.max(0, ...v.map(depth)) : v && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v).map(depth)) : 0);
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 8 }), fc.integer({ min: 0, max: 8 }), (v, max) => {
        expect(nestingWithin(JSON.stringify(v), max)).toBe(depth(v) <= max);
      }),
      { numRuns: 400 },
    );
    expect(nestingWithin(JSON.stringify({ s: '['.repeat(1000) }), 2)).toBe(true);
    expect(nestingWithin('['.repeat(MAX_PAYLOAD_DEPTH + 1) + ']'.repeat(MAX_PAYLOAD_DEPTH + 1))).toBe(false);
    expect(nestingWithin('['.repeat(MAX_PAYLOAD_DEPTH) + ']'.repeat(MAX_PAYLOAD_DEPTH))).toBe(true);
  });

  it('a transcript that is a symlink out of the root is not opened (its head would name this fix\'s session); control: the same text inside the root is read', async () => {
    const head = JSON.stringify({ type: 'user', sessionId: PAST, message: { role: 'user', content: 'hi' } }) + '\n';
    // Control: the transcript's head names PAST, so PAST's fix is this session's own lineage.
    const inside = eligible();
    writeFileSync(inside.transcript, head);
    await runBounded(inside, JSON.stringify(toolPayloadFor(inside, ERROR)));
    expect(lastRecord(inside)).toMatchObject({ reason: 'own-session' });
    // The same text outside the root, reached through a symlink in it: not read.
    const ctx = eligible();
    const outside = join(tempDir('ab-outside-'), 'secret.jsonl');
    writeFileSync(outside, head);
    rmSync(ctx.transcript);
    symlinkSync(outside, ctx.transcript);
    const r = await runBounded(ctx, JSON.stringify(toolPayloadFor(ctx, ERROR)));
    expect(r.code).toBe(0);
    expect(printedLine(r.stdout, 'PostToolUseFailure')).toContain('Past fix');
    // And a symlink out of the root to a FIFO does not block either.
    const fifo = join(tempDir('ab-outside-'), 'pipe.jsonl');
    mkfifo(fifo);
    const f = eligible();
    rmSync(f.transcript);
    symlinkSync(fifo, f.transcript);
    const rf = await runBounded(f, JSON.stringify(toolPayloadFor(f, ERROR)));
    expect(rf.ms).toBeLessThan(BOUND_MS);
    expect(rf.code).toBe(0);
  });
});

describe('the hook trusts only its own files', () => {
  const fixesFile = (ctx: Ctx) => join(ctx.home, 'fixes', `${SIG}.json`);

  it('a fixes file writable by everyone, or in a fixes/ folder writable by everyone, is not trusted; control: 0644 in 0755 prints', async () => {
    const ctx = eligible();
    expect(printedLine((await runHook(ctx, toolPayloadFor(ctx, ERROR))).stdout, 'PostToolUseFailure')).toContain('Past fix');
    const a = eligible();
    chmodSync(fixesFile(a), 0o666);
    expect((await runHook(a, toolPayloadFor(a, ERROR))).stdout).toBe('');
    expect(lastRecord(a)).toMatchObject({ reason: 'fixes-invalid' });
    const b = eligible();
    chmodSync(join(b.home, 'fixes'), 0o777);
    expect((await runHook(b, toolPayloadFor(b, ERROR))).stdout).toBe('');
    expect(lastRecord(b)).toMatchObject({ reason: 'fixes-invalid' });
  });

  it('fixes/ a symlink to a folder with a forged fix, and a fixes file that is a symlink: not trusted', async () => {
    const a = eligible();
    const elsewhere = tempDir('ab-forged-');
    renameSync(join(a.home, 'fixes'), join(elsewhere, 'fixes'));
    symlinkSync(join(elsewhere, 'fixes'), join(a.home, 'fixes'));
    expect((await runHook(a, toolPayloadFor(a, ERROR))).stdout).toBe('');
    expect(lastRecord(a)).toMatchObject({ reason: 'fixes-invalid' });
    const b = eligible();
    const forged = join(tempDir('ab-forged-'), 'fix.json');
    renameSync(fixesFile(b), forged);
    symlinkSync(forged, fixesFile(b));
    expect((await runHook(b, toolPayloadFor(b, ERROR))).stdout).toBe('');
    expect(lastRecord(b)).toMatchObject({ reason: 'fixes-invalid' });
  });

  it.skipIf(!isRoot)('a fixes file, an offer cache or a state file owned by another user is not trusted; control: the same files of this user print', async () => {
    const a = eligible();
    chownSync(fixesFile(a), NOBODY, NOBODY);
    expect((await runHook(a, toolPayloadFor(a, ERROR))).stdout).toBe('');
    expect(lastRecord(a)).toMatchObject({ reason: 'fixes-invalid' });
    chownSync(fixesFile(a), 0, 0);
    expect(printedLine((await runHook(a, toolPayloadFor(a, ERROR, { tool_use_id: 'toolu_02' }))).stdout, 'PostToolUseFailure')).toContain('Past fix');

    const p = promptReady();
    const cache = join(p.home, 'cache', `${p.sessionId}.json`);
    chownSync(cache, NOBODY, NOBODY);
    expect((await runHook(p, payloadFor(p))).stdout).toBe('');
    expect(lastRecord(p)).toMatchObject({ reason: 'cache-invalid' });
    chownSync(cache, 0, 0);
    expect(printedLine((await runHook(p, payloadFor(p))).stdout)).toContain('active-brain');

    const s = promptReady();
    await runHook(s, payloadFor(s)); // writes the session's state
    const state = join(s.home, 'hook-state', `${s.sessionId}.json`);
    expect(existsSync(state)).toBe(true);
    chownSync(state, NOBODY, NOBODY);
    await runHook(s, payloadFor(s));
    expect(lastRecord(s)).toMatchObject({ reason: 'state-invalid' });
    chownSync(state, 0, 0);
    await runHook(s, payloadFor(s));
    expect(lastRecord(s)!.reason).not.toBe('state-invalid');
  });

  it('logs/hook.jsonl a symlink: the hook does not append to its target; control: a regular log gets the line', async () => {
    const ctx = eligible();
    const target = join(tempDir('ab-logtarget-'), 'victim.txt');
    writeFileSync(target, 'untouched\n');
    mkdirSync(join(ctx.home, 'logs'), { recursive: true });
    symlinkSync(target, join(ctx.home, 'logs', 'hook.jsonl'));
    const r = await runHook(ctx, toolPayloadFor(ctx, ERROR));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(readFileSync(target, 'utf8')).toBe('untouched\n');
    const ok = eligible();
    await runHook(ok, toolPayloadFor(ok, ERROR));
    expect(lastRecord(ok)).toMatchObject({ reason: 'printed' });
    expect(statSync(join(ok.home, 'logs', 'hook.jsonl')).mode & 0o777).toBe(0o600);
  });
});
