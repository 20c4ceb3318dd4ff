/**
 * The launcher's V8 code cache (bin/active-brain-hook.cjs, docs/HOOK.md "Code cache"), through
 * real processes in a temp package root (bin/ + dist/ with the hook's bundle and the tool
 * channel's beside it): the first tool run writes a cache for each bundle, a second run uses
 * them (not rewritten) and prints the same line; a prompt run compiles and caches the hook's
 * bundle only (it never loads the tool bundle); a cache V8 refuses or of another
 * bundle is replaced; ACTIVE_BRAIN_HOOK_CODE_CACHE=off writes none; a cache path that cannot be
 * written leaves the run as it was (exit 0, nothing on stderr); a cache someone else could
 * have written (another owner, group- or world-writable) is neither loaded nor touched — a
 * forged one runs its code when trusted (the control) and not otherwise; Node options get a
 * file of their own; a package folder the user cannot write gets none; a bundle path that
 * cannot be read is silence. And the warm-ups (hook/warm.ts, hook/warm-tool.ts) take every
 * sample all the way, so each cache holds its bundle's whole path.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, chownSync, copyFileSync, existsSync, linkSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeCtx, toolSettingsFor, writeSettings, writeFixFile, fixFileFor, toolPayloadFor, offer, printedLine, copyHookBundles, writeCache, cacheFor, tempDir, cleanupTemp, lastRecord, type Ctx } from './helpers.js';
import { errorSignature } from '../../shared/error-signature.js';
import { warmUp } from '../../hook/warm.js';
import { warmUp as warmUpTool } from '../../hook/warm-tool.js';
import { TOOL_BUNDLE_FILE } from '../../hook/tool-bundle.js';

const ROOT = join(import.meta.dirname, '..', '..');
const ERROR = 'Exit code 128\nfatal: The current branch feature/x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/x\n';
const SIG = errorSignature(ERROR)!.sig;
const CACHE = `hook.bundle.cjs.${process.version}-${process.arch}.codecache`;
const TOOL_CACHE = `${TOOL_BUNDLE_FILE}.${process.version}-${process.arch}.codecache`;

let pkg: string;

/** A package root as installed: bin/active-brain-hook.cjs, dist/hook.bundle.cjs and the tool
 *  channel's bundle beside it. */
async function packageRoot(): Promise<string> {
  const root = tempDir('ab-codecache-');
  mkdirSync(join(root, 'bin'));
  mkdirSync(join(root, 'dist'));
  copyFileSync(join(ROOT, 'bin', 'active-brain-hook.cjs'), join(root, 'bin', 'active-brain-hook.cjs'));
  await copyHookBundles(join(root, 'dist'));
  return root;
}

function eligible(): Ctx {
  const ctx = makeCtx();
  writeSettings(ctx, toolSettingsFor(ctx));
  writeFixFile(ctx, SIG, fixFileFor(SIG, [{
    offer: offer({ id: `fix-${SIG}-7`, chunkId: 7, handle: 'sessions/258c7280#ep-3', confidence: 0.86, channel: 'tool', reason: 'fixed by git push --set-upstream origin <branch>' }),
    sourceSession: '258c7280-ae70-4798-800f-63464d01a85d', scope: 'global',
  }]));
  return ctx;
}

function spawnHook(root: string, ctx: Ctx, env: NodeJS.ProcessEnv = {}, as: string[] = []) {
  const args = [join(root, 'bin', 'active-brain-hook.cjs')];
  const [cmd, argv] = as.length ? [as[0], [...as.slice(1), process.execPath, ...args]] : [process.execPath, args];
  const r = spawnSync(cmd, argv, { input: JSON.stringify(toolPayloadFor(ctx, ERROR)), env: { ...ctx.env, ...env }, cwd: ctx.cwd, encoding: 'utf8' });
  expect(r.status).toBe(0);
  expect(r.stderr).toBe('');
  return r.stdout;
}

function run(root: string, ctx: Ctx, env: NodeJS.ProcessEnv = {}, as: string[] = []) {
  return printedLine(spawnHook(root, ctx, env, as), 'PostToolUseFailure');
}

/** A code cache of other code of the bundle's exact length, headed as this bundle's: what a
 *  forger who can write beside the bundle but not the bundle itself would leave there. Made in
 *  a process with the launcher's V8 flag, so that V8 accepts it. */
function forgeCache(root: string, file = 'hook.bundle.cjs'): Buffer {
  const bundle = join(root, 'dist', file);
  const len = readFileSync(bundle, 'utf8').length;
  const code = 'process.stdout.write("FORGED\\n");process.exit(0);';
  const fake = (code + '/*').padEnd(len - 2, ' ') + '*/';
  const maker = join(root, 'forge.cjs');
  writeFileSync(maker, `
process.noDeprecation = true; process.binding('v8').setFlagsFromString('--no-regexp-tier-up');
const { Script } = require('node:vm');
const s = new Script('(function (exports, require, module, __filename, __dirname) { ' + ${JSON.stringify(fake)} + '\\n})', { filename: ${JSON.stringify(bundle)} });
process.stdout.write(s.createCachedData().toString('base64'));`);
  const r = spawnSync(process.execPath, [maker], { encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  const st = statSync(bundle);
  const stamp = `active-brain hook code cache v1 ${st.size} ${st.mtimeMs} ${st.ctimeMs} ${st.ino}\n`;
  return Buffer.concat([Buffer.from(stamp, 'latin1'), Buffer.from(r.stdout, 'base64')]);
}

const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const NOBODY = 65534;

const cacheFile = (root: string) => join(root, 'dist', CACHE);
const toolCacheFile = (root: string) => join(root, 'dist', TOOL_CACHE);
const caches = (root: string) => readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.codecache')).sort();
const BOTH = [TOOL_CACHE, CACHE].sort();
const promptPayload = (ctx: Ctx) => JSON.stringify({ session_id: ctx.sessionId, transcript_path: ctx.transcript, cwd: ctx.cwd, hook_event_name: 'UserPromptSubmit', prompt: 'hello' });

beforeAll(async () => {
  pkg = await packageRoot();
});
afterAll(cleanupTemp);

describe('the hook launcher keeps a V8 code cache beside the bundle', () => {
  it('the first run writes one for each bundle it ran (headed by that bundle\'s stamp); the next run uses them as they are and prints the same line', () => {
    const root = pkg;
    const first = run(root, eligible());
    expect(first).toContain('[active-brain · Past fix · 0.86]');
    expect(caches(root)).toEqual(BOTH);
    for (const f of [cacheFile(root), toolCacheFile(root)]) expect(readFileSync(f).toString('latin1', 0, 40)).toMatch(/^active-brain hook code cache v1 \d+ /);
    expect(readFileSync(cacheFile(root), 'latin1').split('\n')[0]).not.toBe(readFileSync(toolCacheFile(root), 'latin1').split('\n')[0]);
    const before = [statSync(cacheFile(root)), statSync(toolCacheFile(root))];
    const second = run(root, eligible());
    expect(second).toBe(first);
    const after = [statSync(cacheFile(root)), statSync(toolCacheFile(root))];
    expect(after.map((st) => [st.ino, st.mtimeMs])).toEqual(before.map((st) => [st.ino, st.mtimeMs])); // accepted: not written again
    expect(readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a prompt run compiles and caches the hook\'s bundle only: the tool bundle is never loaded (control: a tool run loads it and caches it)', async () => {
    const root = await packageRoot();
    // A tool bundle that leaves a mark when it is loaded, then fails as a broken one would.
    const mark = join(root, 'loaded');
    writeFileSync(join(root, 'dist', TOOL_BUNDLE_FILE), `require('node:fs').writeFileSync(${JSON.stringify(mark)}, 'x'); throw new Error('broken');`);
    const ctx = eligible();
    writeCache(ctx, cacheFor(ctx));
    const r = spawnSync(process.execPath, [join(root, 'bin', 'active-brain-hook.cjs')], { input: promptPayload(ctx), env: ctx.env, cwd: ctx.cwd, encoding: 'utf8' });
    expect([r.status, r.stderr]).toEqual([0, '']);
    expect(printedLine(r.stdout)).toContain('[active-brain · Past fix · 0.81]');
    expect(existsSync(mark)).toBe(false);
    expect(caches(root)).toEqual([CACHE]);
    // The control: a tool event loads it (here broken: silence, exit 0, logged as an error).
    const tctx = eligible();
    expect(spawnHook(root, tctx)).toBe('');
    expect(existsSync(mark)).toBe(true);
    expect(lastRecord(tctx)).toMatchObject({ channel: 'tool', outcome: 'silent', reason: 'error' });
  });

  it('a cache V8 refuses (same header, other bytes) is replaced; the run prints as before', async () => {
    const root = await packageRoot();
    const good = run(root, eligible());
    const bytes = readFileSync(cacheFile(root));
    const head = bytes.indexOf(0x0a) + 1;
    const broken = Buffer.concat([bytes.subarray(0, head), Buffer.alloc(bytes.length - head, 0x5a)]);
    writeFileSync(cacheFile(root), broken);
    expect(run(root, eligible())).toBe(good);
    const rewritten = readFileSync(cacheFile(root));
    expect(rewritten.subarray(head).equals(broken.subarray(head))).toBe(false);
    expect(rewritten.subarray(0, head).equals(bytes.subarray(0, head))).toBe(true);
  });

  it('a cache of another bundle (the bundle rewritten since) is not used but replaced with this one\'s', async () => {
    const root = await packageRoot();
    const good = run(root, eligible());
    const oldHead = readFileSync(cacheFile(root), 'latin1').split('\n')[0];
    const bundle = join(root, 'dist', 'hook.bundle.cjs');
    writeFileSync(bundle, readFileSync(bundle)); // same bytes, a new write: another stamp
    utimesSync(bundle, new Date(Date.now() + 5_000), new Date(Date.now() + 5_000));
    expect(run(root, eligible())).toBe(good);
    const newHead = readFileSync(cacheFile(root), 'latin1').split('\n')[0];
    expect(newHead).not.toBe(oldHead);
    expect(newHead.startsWith('active-brain hook code cache v1 ')).toBe(true);
  });

  it('ACTIVE_BRAIN_HOOK_CODE_CACHE=off reads and writes none (control: without it, the same run writes one)', async () => {
    const root = await packageRoot();
    const line = run(root, eligible(), { ACTIVE_BRAIN_HOOK_CODE_CACHE: 'off' });
    expect(line).toContain('Past fix');
    expect(caches(root)).toEqual([]);
    expect(run(root, eligible())).toBe(line);
    expect(caches(root)).toEqual(BOTH);
  });

  it('a cache path that cannot be written (a folder in its place) changes nothing: exit 0, no stderr, the same line, no temp file left', async () => {
    const root = await packageRoot();
    mkdirSync(cacheFile(root));
    const ctx = eligible();
    expect(run(root, ctx)).toContain('Past fix');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'print', reason: 'printed' });
    expect(statSync(cacheFile(root)).isDirectory()).toBe(true);
    expect(readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    rmSync(cacheFile(root), { recursive: true });
  });

  it('a cache another user owns, one anyone may write, or one with a second name is not loaded and not touched; the same forged file of this user\'s runs (the control)', async () => {
    const root = await packageRoot();
    const forged = forgeCache(root);
    writeFileSync(cacheFile(root), forged);
    chmodSync(cacheFile(root), 0o666);
    expect(run(root, eligible())).toContain('Past fix');
    expect(readFileSync(cacheFile(root)).equals(forged)).toBe(true);
    expect(statSync(cacheFile(root)).mode & 0o777).toBe(0o666);
    chmodSync(cacheFile(root), 0o664);
    expect(run(root, eligible())).toContain('Past fix');
    if (isRoot) {
      chmodSync(cacheFile(root), 0o644);
      chownSync(cacheFile(root), NOBODY, NOBODY);
      expect(run(root, eligible())).toContain('Past fix');
      expect(readFileSync(cacheFile(root)).equals(forged)).toBe(true);
      chownSync(cacheFile(root), 0, 0);
    }
    chmodSync(cacheFile(root), 0o644);
    linkSync(cacheFile(root), `${cacheFile(root)}.link`); // a second name: not a file the launcher made
    expect(run(root, eligible())).toContain('Past fix');
    rmSync(`${cacheFile(root)}.link`);
    expect(spawnHook(root, eligible())).toBe('FORGED\n'); // trusted, it runs: what the checks stop
  });

  it('the tool bundle\'s cache is held to the same: one anyone may write is not loaded nor touched; the same forged file of this user\'s runs (the control)', async () => {
    const root = await packageRoot();
    const forged = forgeCache(root, TOOL_BUNDLE_FILE);
    writeFileSync(toolCacheFile(root), forged);
    chmodSync(toolCacheFile(root), 0o666);
    expect(run(root, eligible())).toContain('Past fix');
    expect(readFileSync(toolCacheFile(root)).equals(forged)).toBe(true);
    chmodSync(toolCacheFile(root), 0o644);
    expect(spawnHook(root, eligible())).toBe('FORGED\n');
  });

  it('Node options get a cache of their own: runs with and without them keep theirs (no rewrite on each switch)', async () => {
    const root = await packageRoot();
    const line = run(root, eligible());
    const plain = statSync(cacheFile(root));
    expect(run(root, eligible(), { NODE_OPTIONS: '--max-old-space-size=200' })).toBe(line);
    expect(caches(root)).toHaveLength(4); // each bundle's, with and without the options
    const other = caches(root).find((f) => f.startsWith('hook.bundle.cjs.') && f !== CACHE)!;
    const otherSt = statSync(join(root, 'dist', other));
    expect(run(root, eligible())).toBe(line);
    expect(run(root, eligible(), { NODE_OPTIONS: '--max-old-space-size=200' })).toBe(line);
    expect(statSync(cacheFile(root)).ino).toBe(plain.ino);
    expect(statSync(join(root, 'dist', other)).ino).toBe(otherSt.ino);
  });

  it('a bundle path that cannot be read (dist/ a file) falls to the committed copy, else silence: exit 0, nothing on stderr', async () => {
    const root = await packageRoot();
    rmSync(join(root, 'dist'), { recursive: true });
    writeFileSync(join(root, 'dist'), 'not a folder');
    const ctx = eligible();
    expect(spawnHook(root, ctx)).toBe('');
    mkdirSync(join(root, 'hooks'));
    await copyHookBundles(join(root, 'hooks'));
    expect(run(root, eligible())).toContain('Past fix');
  });

  it.skipIf(!isRoot || !existsSync('/usr/sbin/runuser'))('a package folder the hook\'s user cannot write gets no cache, and the run prints as before (run as nobody)', async () => {
    const root = await packageRoot();
    const ctx = eligible();
    // The session's files are the hook's user's own (the hook trusts no other: hook/trust.ts):
    // hand the test's temp folder to nobody, and let it read (not write) the package root. Only
    // folders this test made; the system's temp dir is untouched.
    spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, join(ctx.home, '..')]);
    chmodSync(root, 0o755);
    expect(run(root, ctx, {}, ['/usr/sbin/runuser', '-u', 'nobody', '--'])).toContain('Past fix');
    expect(caches(root)).toEqual([]);
    expect(readdirSync(join(root, 'dist')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('the tool bundle\'s load counts as start-up (boot_ms), not against the deadline of the hook\'s own time: a load slower than the deadline still prints', async () => {
    const root = await packageRoot();
    const LOAD_MS = 1200;
    // The real tool bundle behind one that takes LOAD_MS to load.
    const dist = join(root, 'dist');
    copyFileSync(join(dist, TOOL_BUNDLE_FILE), join(dist, 'real-tool.cjs'));
    writeFileSync(join(dist, TOOL_BUNDLE_FILE), `const t = Date.now(); while (Date.now() - t < ${LOAD_MS}); module.exports = require(${JSON.stringify(join(dist, 'real-tool.cjs'))});`);
    const ctx = eligible();
    writeSettings(ctx, toolSettingsFor(ctx, {}, { deadlineMs: 1000 }));
    expect(run(root, ctx)).toContain('Past fix');
    const rec = lastRecord(ctx) as { reason: string; boot_ms: number; latency_ms: number };
    expect(rec.reason).toBe('printed');
    expect(rec.boot_ms).toBeGreaterThanOrEqual(LOAD_MS);
    expect(rec.latency_ms).toBeLessThan(1000);
  });

  it('the hook bundle\'s cache a prompt run writes is as large as the one a tool run writes, and a later tool run adds the tool bundle\'s: the warm-ups compiled each bundle\'s path', async () => {
    const promptRoot = await packageRoot();
    const ctx = eligible();
    const r = spawnSync(process.execPath, [join(promptRoot, 'bin', 'active-brain-hook.cjs')], { input: promptPayload(ctx), env: ctx.env, cwd: ctx.cwd, encoding: 'utf8' });
    expect(r.status).toBe(0);
    expect(caches(promptRoot)).toEqual([CACHE]);
    const promptWritten = statSync(cacheFile(promptRoot));
    const toolRoot = await packageRoot();
    run(toolRoot, eligible());
    expect(promptWritten.size / statSync(cacheFile(toolRoot)).size).toBeGreaterThan(0.9);
    // The first tool run after a prompt run: the tool bundle's cache, as large as the one a first
    // tool run writes; the hook bundle's as the prompt run left it.
    run(promptRoot, eligible());
    expect(caches(promptRoot)).toEqual(BOTH);
    expect(statSync(toolCacheFile(promptRoot)).size / statSync(toolCacheFile(toolRoot)).size).toBeGreaterThan(0.9);
    expect(statSync(cacheFile(promptRoot)).ino).toBe(promptWritten.ino);
  });
});

describe('warm-ups (hook/warm.ts, hook/warm-tool.ts)', () => {
  it('take the prompt sample to a printed offer and the tool failure through the prelude (the hook\'s bundle), and both tool samples to a printed offer (the tool bundle)', () => {
    const now = Date.parse('2026-12-03T10:00:00Z');
    expect(warmUp(now)).toEqual(['printed', 'tool']);
    expect(warmUpTool(now)).toEqual(['printed', 'printed']);
  });
});
