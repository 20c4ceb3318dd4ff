/**
 * The command lines of hooks/hooks.json run as Claude Code runs them: `sh -c <command>` with
 * CLAUDE_PLUGIN_ROOT set to the plugin root (this repository, or a copy without dist/), a temp
 * ACTIVE_BRAIN_HOME, the event's payload on stdin. The real launcher and the real built hook:
 *  - UserPromptSubmit with no cache: silent, exit 0; control: with a live cache it prints;
 *  - PostToolUseFailure with a fixes file for the error's signature on a live tool channel:
 *    prints the JSON with additionalContext (no PostToolUse is registered);
 *  - NODE_OPTIONS that would break node is cleared (control: uncleared it breaks);
 *  - a copy without dist/ (as `claude plugin install` makes it): the hooks run the committed
 *    bundle (hooks/hook.bundle.cjs) and print; SessionStart starts `active-brain start` from
 *    PATH, or with the plugin's set-up opted out nothing (saying why in daemon.out); no node on PATH: every command exits 0 and
 *    prints nothing (control: with node it prints);
 *  - a read-only state dir (bind mount, root only): silence, and `active-brain start` (a
 *    command) fails with exit 3 naming it.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { cpSync, writeFileSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { canMount, sh, trySh } from '../helpers/faults.js';
import {
  makeCtx, settingsFor, writeSettings, cacheFor, writeCache, payloadFor, toolSettingsFor, writeFixFile, fixFileFor, toolPayloadFor,
  offer, printedLine, tempDir, cleanupTemp, type Ctx,
} from '../hook/helpers.js';
import { errorSignature } from '../../shared/error-signature.js';
import { CLAUDE_EVENTS } from '../../ops/hook-install.js';
import { commandOf, hooksJson, runAsClaudeCode, type Event, type Ran } from './helpers.js';
import { BOOTSTRAP_ENV } from '../../ops/plugin-bootstrap-state.js';

afterAll(cleanupTemp);

const pluginEnv = (ctx: Ctx, root = repoRoot, over: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({ ...ctx.env, CLAUDE_PLUGIN_ROOT: root, ...over });

const ERROR = 'Exit code 128\nfatal: The current branch feature/x has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/x\n';
const SIG = errorSignature(ERROR)!.sig;

/** A live tool channel with a fixes file for ERROR's signature, and a live prompt cache. */
function eligible(): Ctx {
  const ctx = makeCtx();
  writeSettings(ctx, toolSettingsFor(ctx));
  writeFixFile(ctx, SIG, fixFileFor(SIG, [{ offer: offer({ id: `fix-${SIG}-7`, handle: 'sessions/258c7280#ep-3', confidence: 0.86, channel: 'tool', reason: 'same "no upstream branch" error: fixed by git push --set-upstream origin <branch>' }), sourceSession: '258c7280-ae70-4798-800f-63464d01a85d', scope: 'global' }]));
  writeCache(ctx, cacheFor(ctx));
  return ctx;
}

/** The plugin's files without dist/ (what a marketplace copy holds before anything is built). */
function unbuiltCopy(): string {
  const root = join(tempDir('ab-plugin-nodist-'), 'active-brain');
  for (const rel of ['.claude-plugin', 'bin', 'hooks', 'package.json']) cpSync(join(repoRoot, rel), join(root, rel), { recursive: true });
  expect(existsSync(join(root, 'dist'))).toBe(false);
  return root;
}

async function waitForFile(p: string, ms = 5000): Promise<string> {
  const t0 = Date.now();
  while (!existsSync(p)) {
    if (Date.now() - t0 > ms) throw new Error(`no ${p} after ${ms} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return readFileSync(p, 'utf8');
}

const silent = (r: Ran) => {
  expect(r.code).toBe(0);
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe('');
};

describe('plugin hook commands through sh -c', () => {
  it('UserPromptSubmit with no cache: exit 0, nothing printed; control: with a live cache the same command prints one offer', async () => {
    const ctx = makeCtx();
    writeSettings(ctx, settingsFor(ctx));
    silent(await runAsClaudeCode(commandOf('UserPromptSubmit'), pluginEnv(ctx), payloadFor(ctx), ctx.cwd));
    writeCache(ctx, cacheFor(ctx));
    const r = await runAsClaudeCode(commandOf('UserPromptSubmit'), pluginEnv(ctx), payloadFor(ctx), ctx.cwd);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(printedLine(r.stdout, 'UserPromptSubmit')).toContain('notes/pg/pool-timeouts.md#2');
  });

  it('PostToolUseFailure with a fixes file for the error on a live tool channel prints the JSON with additionalContext; no PostToolUse is registered', async () => {
    const ctx = eligible();
    const r = await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx), toolPayloadFor(ctx, ERROR), ctx.cwd);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    const v = JSON.parse(r.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(v.hookSpecificOutput.hookEventName).toBe('PostToolUseFailure');
    expect(v.hookSpecificOutput.additionalContext).toContain('[active-brain · Past fix · 0.86] same "no upstream branch" error: fixed by git push --set-upstream origin ‹branch› (recall: active-brain recall sessions/258c7280#ep-3)');
    expect(hooksJson.hooks).not.toHaveProperty('PostToolUse');
  });

  it('clears NODE_OPTIONS: a --require that would break node leaves the hook working; control: uncleared, node fails on it', async () => {
    const ctx = eligible();
    const broken = { NODE_OPTIONS: `--require ${join(ctx.home, 'no-such-preload.cjs')}` };
    const r = await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx, repoRoot, broken), toolPayloadFor(ctx, ERROR), ctx.cwd);
    expect(r.stderr).toBe('');
    expect(printedLine(r.stdout, 'PostToolUseFailure')).not.toBeNull();
    const raw = await runAsClaudeCode(`node "$CLAUDE_PLUGIN_ROOT/bin/active-brain-hook.cjs"`, pluginEnv(ctx, repoRoot, broken), toolPayloadFor(ctx, ERROR, { tool_use_id: 'toolu_02' }), ctx.cwd);
    expect(raw.code).not.toBe(0);
    expect(raw.stderr).toContain('no-such-preload');
  });

  it('a copy without dist/ or node_modules (as `claude plugin install` makes it): the hooks run the committed bundle and print, fast', async () => {
    const root = unbuiltCopy();
    const ctx = eligible();
    const tool = await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx, root), toolPayloadFor(ctx, ERROR), ctx.cwd);
    expect(tool.code).toBe(0);
    expect(tool.stderr).toBe('');
    expect(printedLine(tool.stdout, 'PostToolUseFailure')).toContain('Past fix');
    expect(tool.ms).toBeLessThan(2000); // bare node alone takes 0.13–0.9 s on this loaded machine
    const prompt = await runAsClaudeCode(commandOf('UserPromptSubmit'), pluginEnv(ctx, root), payloadFor(ctx), ctx.cwd);
    expect(printedLine(prompt.stdout, 'UserPromptSubmit')).not.toBeNull();
    // Control: without the committed bundle either, the copy is silent (exit 0, nothing).
    rmSync(join(root, 'hooks', 'hook.bundle.cjs'));
    silent(await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx, root), toolPayloadFor(ctx, ERROR, { tool_use_id: 'toolu_04' }), ctx.cwd));
  });

  it('SessionStart in a copy without dist/: starts `active-brain start` from PATH (not the copy\'s own bin/); none on PATH: starts nothing and says in one line (a systemMessage, and daemon.out) what to run', async () => {
    const root = unbuiltCopy();
    const ctx = eligible();
    const payload = { session_id: ctx.sessionId, transcript_path: ctx.transcript, cwd: ctx.cwd, hook_event_name: 'SessionStart', source: 'startup' };
    const nodeDir = dirname(process.execPath);
    // Only the copy's own bin/ (Claude Code may put it on PATH): it cannot run unbuilt, so no.
    // With the plugin's own set-up opted out (it has its tests: test/plugin/bootstrap.test.ts).
    const none = await runAsClaudeCode(commandOf('SessionStart'), pluginEnv(ctx, root, { PATH: `${join(root, 'bin')}:${nodeDir}`, [BOOTSTRAP_ENV]: '0' }), payload, ctx.cwd);
    expect(none.code).toBe(0);
    expect(none.stderr).toBe('');
    const line = 'Run once in a terminal: npm install -g active-brain && active-brain setup';
    expect(none.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(none.stdout)).toEqual({ systemMessage: expect.stringContaining(line) });
    expect(readFileSync(join(ctx.home, 'logs', 'daemon.out'), 'utf8')).toContain(line);
    // An installed CLI on PATH (a stand-in recording its arguments): started with `start`.
    const cliDir = join(ctx.home, 'cli-bin');
    mkdirSync(cliDir, { recursive: true });
    const argsFile = join(ctx.home, 'cli-args.txt');
    writeFileSync(join(cliDir, 'active-brain'), `#!/bin/sh\necho "$@" > '${argsFile}'\n`, { mode: 0o755 });
    silent(await runAsClaudeCode(commandOf('SessionStart'), pluginEnv(ctx, root, { PATH: `${join(root, 'bin')}:${cliDir}:${nodeDir}` }), payload, ctx.cwd));
    expect((await waitForFile(argsFile)).trim()).toBe('start');
  });

  it('with no node on PATH: exit 0, nothing printed (not a shell error at every prompt); control: with node on PATH it prints', async () => {
    const ctx = eligible();
    const noNode = pluginEnv(ctx, repoRoot, { PATH: join(ctx.home, 'empty-bin') });
    for (const event of [...CLAUDE_EVENTS, 'SessionStart'] as Event[]) silent(await runAsClaudeCode(commandOf(event), noNode, toolPayloadFor(ctx, ERROR), ctx.cwd));
    const withNode = pluginEnv(ctx, repoRoot, { PATH: dirname(process.execPath) });
    const r = await runAsClaudeCode(commandOf('PostToolUseFailure'), withNode, toolPayloadFor(ctx, ERROR, { tool_use_id: 'toolu_04' }), ctx.cwd);
    expect(printedLine(r.stdout, 'PostToolUseFailure')).not.toBeNull();
  });
});

const mounts: string[] = [];
afterAll(() => {
  for (const m of mounts.splice(0).reverse()) trySh('umount', ['-l', m]);
});

describe.skipIf(!canMount)('plugin on a read-only state dir (read-only bind mount)', () => {
  it('the hook commands and SessionStart stay silent (exit 0, fast); `active-brain start` fails with exit 3 naming the state dir', async () => {
    const ctx = eligible();
    const ok = await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx), toolPayloadFor(ctx, ERROR), ctx.cwd);
    expect(printedLine(ok.stdout, 'PostToolUseFailure')).not.toBeNull(); // control: prints while writable
    sh('mount', ['--bind', ctx.home, ctx.home]);
    mounts.push(ctx.home);
    sh('mount', ['-o', 'remount,ro,bind', ctx.home]);
    expect(() => writeFileSync(join(ctx.home, 'probe'), 'x')).toThrow(/EROFS/);
    silent(await runAsClaudeCode(commandOf('PostToolUseFailure'), pluginEnv(ctx), toolPayloadFor(ctx, ERROR, { tool_use_id: 'toolu_05' }), ctx.cwd));
    silent(await runAsClaudeCode(commandOf('UserPromptSubmit'), pluginEnv(ctx), payloadFor(ctx), ctx.cwd));
    const s = await runAsClaudeCode(commandOf('SessionStart'), pluginEnv(ctx), { hook_event_name: 'SessionStart', source: 'startup' }, ctx.cwd);
    silent(s);
    expect(s.ms).toBeLessThan(2000);
    const start = spawnSync(process.execPath, [join(repoRoot, 'bin', 'active-brain.js'), 'start'], { env: ctx.env, encoding: 'utf8', timeout: 30_000 });
    expect(start.status).toBe(3);
    expect(start.stderr).toContain(ctx.home);
    sh('umount', [ctx.home]);
    mounts.pop();
  });
});
