/**
 * Test scaffolding for the hook: bundle hook/main.ts and its tool channel exactly as
 * scripts/build.mjs does (into a temp folder, so a concurrent `npm run build` cannot pull it away mid-test), make a temp
 * state dir + transcript root, write real settings/cache/transcript files, and run the real
 * bundled hook as a child process with a payload on stdin.
 */
import { spawn } from 'node:child_process';
import { copyFileSync, mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FixFile, HookSettings, OfferCache, Offer, ToolCache, ToolChannelSettings } from '../../shared/types.js';
import { TOOL_BUNDLE_FILE } from '../../hook/tool-bundle.js';

export const ROOT = fileURLToPath(new URL('../..', import.meta.url));

let bundled: Promise<string> | null = null;
const temps: string[] = [];

/** A temp dir removed by cleanupTemp() (call it from afterAll). */
export function tempDir(prefix = 'ab-hook-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  temps.push(d);
  return d;
}

export function cleanupTemp(): void {
  for (const d of temps.splice(0)) rmSync(d, { recursive: true, force: true });
}

/** Bundle hook/main.ts as scripts/build.mjs does (scripts/bundles.mjs), with the tool channel's
 *  bundle it requires at a tool event beside it (hook/tool-channel.ts); returns the hook
 *  bundle's path. */
export function hookBundle(): Promise<string> {
  bundled ??= (async () => {
    const dir = tempDir('ab-hook-bundle-');
    const { BUNDLES, bundle } = (await import(join(ROOT, 'scripts', 'bundles.mjs'))) as {
      BUNDLES: Record<'hook' | 'hookTool', { dist: string }>;
      bundle: (root: string, name: string, outfile: string) => Promise<void>;
    };
    await bundle(ROOT, 'hookTool', join(dir, BUNDLES.hookTool.dist));
    const out = join(dir, BUNDLES.hook.dist);
    await bundle(ROOT, 'hook', out);
    return out;
  })();
  return bundled;
}

/** The tool channel's bundle written beside hookBundle()'s. */
export async function hookToolBundle(): Promise<string> {
  return join(dirname(await hookBundle()), TOOL_BUNDLE_FILE);
}

/** Copy the hook's bundles (hookBundle() and the tool bundle beside it) into `dir`, as a build
 *  or a plugin copy lays them out. */
export async function copyHookBundles(dir: string): Promise<void> {
  copyFileSync(await hookBundle(), join(dir, 'hook.bundle.cjs'));
  copyFileSync(await hookToolBundle(), join(dir, TOOL_BUNDLE_FILE));
}

export interface Ctx {
  home: string;
  root: string;
  cwd: string;
  sessionId: string;
  transcript: string;
  env: NodeJS.ProcessEnv;
}

export const SESSION = '3f0c2a51-7d7e-4c1e-9a3b-1b2c3d4e5f60';

/** A temp state dir and transcript root with one project transcript of `size` bytes. */
export function makeCtx(sessionId = SESSION, size = 4096): Ctx {
  const base = tempDir();
  const home = join(base, 'home');
  const root = join(base, 'projects');
  const cwd = join(base, 'work', 'proj');
  mkdirSync(home, { recursive: true });
  mkdirSync(cwd, { recursive: true });
  const projDir = join(root, cwd.replace(/[/.]/g, '-'));
  mkdirSync(projDir, { recursive: true });
  const transcript = join(projDir, `${sessionId}.jsonl`);
  writeFileSync(transcript, 'x'.repeat(size - 1) + '\n');
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: base, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: root };
  return { home, root, cwd, sessionId, transcript, env };
}

export function settingsFor(ctx: Ctx, over: Partial<HookSettings> = {}, mode: Partial<HookSettings['modes'][number]> = {}): HookSettings {
  return {
    version: 1,
    transcriptsRoot: ctx.root,
    deadlineMs: 2000, // generous: the test machine is shared and loaded
    maxBytes: 400,
    tokenCeiling: 90,
    maxLagBytes: 256 * 1024,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' },
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300, ...mode }],
    ...over,
  };
}

export function writeSettings(ctx: Ctx, s: HookSettings | string): void {
  writeFileSync(join(ctx.home, 'hook-settings.json'), typeof s === 'string' ? s : JSON.stringify(s));
}

export function offer(over: Partial<Offer> = {}): Offer {
  return {
    id: 'off-1',
    chunkId: 42,
    handle: 'notes/pg/pool-timeouts.md#2',
    type: 'past-fix',
    confidence: 0.81,
    reason: 'same ECONNRESET as 2026-10-12; fixed by raising the idle timeout',
    region: 'notes',
    wildcard: false,
    trigger: 'error',
    reasoned: false,
    ...over,
  };
}

export function cacheFor(ctx: Ctx, over: Partial<OfferCache> = {}, now = Date.now()): OfferCache {
  return {
    version: 1,
    sessionId: ctx.sessionId,
    mode: 'default',
    turn: 7,
    transcriptOffset: 4000,
    transcriptPath: ctx.transcript,
    exchangeUuid: 'u-7',
    createdAt: now - 1000,
    expiresAt: now + 900_000,
    offer: offer(),
    ...over,
  };
}

export function writeCache(ctx: Ctx, c: OfferCache | string, sessionId = ctx.sessionId): void {
  mkdirSync(join(ctx.home, 'cache'), { recursive: true });
  writeFileSync(join(ctx.home, 'cache', `${sessionId}.json`), typeof c === 'string' ? c : JSON.stringify(c));
}

/** A live tool channel with no gaps in the way (tests set what they check). */
export function toolChannel(over: Partial<ToolChannelSettings> = {}): ToolChannelSettings {
  return { state: 'live', minConfidence: 0.7, sessionBudget: 5, minGapSteps: 3, minGapSeconds: 30, ...over };
}

/** Settings with the prompt channel as settingsFor() and a tool channel (live by default). */
export function toolSettingsFor(ctx: Ctx, tool: Partial<ToolChannelSettings> = {}, over: Partial<HookSettings> = {}, mode: Partial<HookSettings['modes'][number]> = {}): HookSettings {
  return settingsFor(ctx, { toolCacheTtlMs: 120_000, ...over }, { tool: toolChannel(tool), ...mode });
}

/** <home>/fixes/<sig>.json (a string is written as it is: corrupt and half-written files). */
export function writeFixFile(ctx: Ctx, sig: string, f: FixFile | string): void {
  mkdirSync(join(ctx.home, 'fixes'), { recursive: true });
  writeFileSync(join(ctx.home, 'fixes', `${sig}.json`), typeof f === 'string' ? f : JSON.stringify(f));
}

export function fixFileFor(sig: string, fixes: FixFile['fixes'], now = Date.now()): FixFile {
  return { version: 1, sig, storeStamp: 'stamp-1', createdAt: now - 86_400_000, fixes };
}

/** <home>/cache/<session>.tool.json */
export function writeToolCache(ctx: Ctx, c: ToolCache | string, sessionId = ctx.sessionId): void {
  mkdirSync(join(ctx.home, 'cache'), { recursive: true });
  writeFileSync(join(ctx.home, 'cache', `${sessionId}.tool.json`), typeof c === 'string' ? c : JSON.stringify(c));
}

/** A PostToolUseFailure payload as Claude Code sends it (`over` may switch the event). */
export function toolPayloadFor(ctx: Ctx, error: unknown, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: ctx.sessionId,
    transcript_path: ctx.transcript,
    cwd: ctx.cwd,
    permission_mode: 'default',
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command: 'git push', description: 'Push the branch' },
    tool_use_id: 'toolu_01AbCdEf',
    error,
    is_interrupt: false,
    ...over,
  };
}

export function payloadFor(ctx: Ctx, over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: ctx.sessionId,
    transcript_path: ctx.transcript,
    cwd: ctx.cwd,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt: 'why does the pool keep resetting connections?',
    ...over,
  };
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run the bundled hook with `input` on stdin (objects are JSON-encoded). */
export async function runHook(ctx: Ctx, input: unknown, envOver: NodeJS.ProcessEnv = {}): Promise<RunResult> {
  const bundle = await hookBundle();
  const text = typeof input === 'string' || Buffer.isBuffer(input) ? input : JSON.stringify(input);
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [bundle], { env: { ...ctx.env, ...envOver }, cwd: ctx.cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.stdin.on('error', () => undefined); // the hook may stop reading (too large) and exit
    child.on('close', (code) => done({ code, stdout, stderr, ms: performance.now() - t0 }));
    child.stdin.end(text);
  });
}

export function logRecords(ctx: Ctx): Record<string, unknown>[] {
  const p = join(ctx.home, 'logs', 'hook.jsonl');
  if (!existsSync(p)) return [];
  return readFileSync(p, 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
}

export function lastRecord(ctx: Ctx): Record<string, unknown> | undefined {
  const r = logRecords(ctx);
  return r[r.length - 1];
}

export function readStateFile(ctx: Ctx, sessionId = ctx.sessionId): Record<string, unknown> | null {
  const p = join(ctx.home, 'hook-state', `${sessionId}.json`);
  return existsSync(p) ? (JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>) : null;
}

/** The additionalContext line of a hook's stdout, or null when it printed nothing; throws on
 *  anything else (also on another hookEventName than `event`). */
export function printedLine(stdout: string, event = 'UserPromptSubmit'): string | null {
  if (stdout === '') return null;
  if (!stdout.endsWith('\n') || stdout.indexOf('\n') !== stdout.length - 1) throw new Error(`hook printed more than one line: ${JSON.stringify(stdout)}`);
  const v = JSON.parse(stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: unknown } };
  const keys = Object.keys(v);
  if (keys.length !== 1 || keys[0] !== 'hookSpecificOutput') throw new Error(`unexpected output keys ${keys.join(',')}`);
  const h = v.hookSpecificOutput!;
  if (h.hookEventName !== event || typeof h.additionalContext !== 'string') throw new Error(`malformed hookSpecificOutput (${String(h.hookEventName)})`);
  if (Object.keys(h).length !== 2) throw new Error('extra hookSpecificOutput keys');
  return h.additionalContext;
}
