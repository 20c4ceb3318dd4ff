/**
 * install / uninstall: pure merge properties over the three events (idempotent, round trip,
 * only ours touched, older installs upgraded in place, entries under another matcher moved),
 * the PostToolUse matcher against real tool names, round trips on real settings files in temp
 * dirs (empty file, other hooks, already present, older path of ours, older UserPromptSubmit-
 * only install, invalid JSON, symlinked file, CLAUDE_CONFIG_DIR, --dry-run, duplicate
 * registration at user + project scope under any event), and the real CLI end to end:
 * install into a temp Claude config, run the registered command with real prompt and tool
 * payloads, uninstall.
 */
import { describe, it, expect, afterAll } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync, readFileSync, existsSync, statSync, symlinkSync, lstatSync, chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  withHookInstalled, withHookRemoved, countOurs, oursByEvent, hookCommand, parseSettingsText, SettingsShapeError, lineDiff, shellQuote,
  POST_TOOL_USE_MATCHER, HOOK_TIMEOUT_SECONDS, CLAUDE_EVENTS, CLAUDE_EVENT_SET, postToolUseReaches,
} from '../../ops/hook-install.js';
import { HOOK_EVENTS } from '../../shared/vocabulary.js';
import { installHook, uninstallHook, settingsPathFor, BACKUP_SUFFIX } from '../../ops/hook-install-files.js';
import {
  ROOT, makeCtx, settingsFor, writeSettings, cacheFor, writeCache, payloadFor, printedLine, lastRecord, tempDir as helperTempDir, cleanupTemp,
  writeFixFile, fixFileFor, toolPayloadFor,
} from '../hook/helpers.js';
import { errorSignature } from '../../shared/error-signature.js';
import { loadSchema, validate } from '../helpers/json-schema.js';

const CMD = hookCommand('/usr/bin/node', '/opt/active-brain/bin/active-brain-hook.js');
const OTHER = {
  model: 'opus',
  env: { FOO: '1' },
  hooks: {
    PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'guard.sh' }] }],
    UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'other-tool --prompt', timeout: 10 }] }],
  },
};

const tempDir = () => helperTempDir('ab-install-');
afterAll(cleanupTemp);

const ENTRY = { type: 'command', command: CMD, timeout: HOOK_TIMEOUT_SECONDS };
/** What a fresh install adds: one group per event, no matcher (every tool fails there). */
const OURS = {
  UserPromptSubmit: [{ hooks: [ENTRY] }],
  PostToolUseFailure: [{ hooks: [ENTRY] }],
};
/** An install from before PostToolUse was dropped (it matched Bash and MCP tools). */
const OLD_POST_TOOL_USE = [{ matcher: '^(Bash|mcp__.+)$', hooks: [ENTRY] }];

describe('install: pure merge', () => {
  it('adds one entry per event (UserPromptSubmit, PostToolUseFailure; no PostToolUse), keeps everything else, is idempotent, and uninstall restores the original', () => {
    const { settings, action, events } = withHookInstalled(OTHER, CMD);
    expect(action).toBe('added');
    expect(events).toEqual({ UserPromptSubmit: 'added', PostToolUseFailure: 'added' });
    expect(oursByEvent(settings)).toEqual({ UserPromptSubmit: 1, PostToolUseFailure: 1, PostToolUse: 0 });
    expect(countOurs(settings)).toBe(2);
    expect(settings.model).toBe('opus');
    const hooks = settings.hooks as Record<string, unknown[]>;
    expect(hooks.UserPromptSubmit).toHaveLength(2);
    expect(hooks.PostToolUseFailure).toEqual(OURS.PostToolUseFailure); // every tool: no matcher
    expect(hooks.PostToolUse).toBeUndefined();
    expect(hooks.PreToolUse).toEqual(OTHER.hooks.PreToolUse);
    expect(withHookInstalled(settings, CMD)).toEqual({ settings, action: 'unchanged', events: { UserPromptSubmit: 'unchanged', PostToolUseFailure: 'unchanged' } });
    expect(withHookRemoved(settings)).toEqual({ settings: OTHER, removed: 2 });
    expect(OTHER.hooks.UserPromptSubmit).toHaveLength(1); // inputs are not mutated
  });

  it('a successful call of any tool starts no hook in Claude Code; the PostToolUse matcher (unregistered) would fit MCP tools only', () => {
    expect(CLAUDE_EVENTS).not.toContain('PostToolUse');
    for (const t of ['Bash', 'Read', 'Edit', 'mcp__github__create_issue']) expect(postToolUseReaches(CLAUDE_EVENT_SET, t), t).toBe(false);
    // Control: a set that registers PostToolUse with this matcher reaches exactly the MCP tools.
    const withPost = { ...CLAUDE_EVENT_SET, events: [...CLAUDE_EVENTS, 'PostToolUse' as const] };
    expect(postToolUseReaches(withPost, 'mcp__github__create_issue')).toBe(true);
    const re = new RegExp(POST_TOOL_USE_MATCHER);
    for (const t of ['mcp__github__create_issue', 'mcp__plugin_x_srv__tool']) expect(re.test(t), t).toBe(true);
    for (const t of ['Bash', 'BashOutput', 'Read', 'Edit', 'Write', 'Glob', 'Grep', 'Task', 'WebFetch', 'KillShell', 'xmcp__a', 'mcp__']) expect(re.test(t), t).toBe(false);
  });

  it('an older install\'s PostToolUse entry is removed (the other hooks under PostToolUse stay); then install is unchanged', () => {
    const fmt = { matcher: 'Edit', hooks: [{ type: 'command', command: 'fmt.sh' }] };
    const old = { hooks: { ...OURS, PostToolUse: [fmt, ...OLD_POST_TOOL_USE] } };
    const { settings, action, events } = withHookInstalled(old, CMD);
    expect(action).toBe('updated');
    expect(events).toEqual({ UserPromptSubmit: 'unchanged', PostToolUseFailure: 'unchanged', PostToolUse: 'updated' });
    expect(settings).toEqual({ hooks: { ...OURS, PostToolUse: [fmt] } });
    expect(withHookInstalled(settings, CMD).action).toBe('unchanged');
    // Only ours under PostToolUse: the event key goes.
    expect(withHookInstalled({ hooks: { ...OURS, PostToolUse: OLD_POST_TOOL_USE } }, CMD).settings).toEqual({ hooks: OURS });
  });

  it('an event install does not register keeps the user\'s value as it is, even an empty list, through install and uninstall', () => {
    const user = { hooks: { PostToolUse: [] as unknown[], Stop: [] as unknown[] } };
    const installed = withHookInstalled(user, CMD).settings;
    expect((installed.hooks as Record<string, unknown>).PostToolUse).toEqual([]);
    expect(withHookRemoved(installed).settings).toEqual(user);
  });

  it('upgrades an older install (UserPromptSubmit only) in place: the tool event is added, nothing else changes', () => {
    const old = { ...OTHER, hooks: { ...OTHER.hooks, UserPromptSubmit: [...OTHER.hooks.UserPromptSubmit, { hooks: [ENTRY] }] } };
    const { settings, action, events } = withHookInstalled(old, CMD);
    expect(action).toBe('updated');
    expect(events).toEqual({ UserPromptSubmit: 'unchanged', PostToolUseFailure: 'added' });
    expect((settings.hooks as Record<string, unknown>).UserPromptSubmit).toEqual(old.hooks.UserPromptSubmit);
    expect(withHookInstalled(settings, CMD).action).toBe('unchanged');
  });

  it('updates an older entry of ours in place and collapses duplicates of ours, per event', () => {
    const old = { hooks: {
      UserPromptSubmit: [{ hooks: [{ type: 'command', command: 'node /old/place/bin/active-brain-hook.js', timeout: 60 }] }, { hooks: [{ type: 'command', command: 'active-brain-hook' }] }],
      PostToolUseFailure: [{ hooks: [{ type: 'command', command: 'node /old/bin/active-brain-hook.cjs', timeout: 60 }, { type: 'command', command: 'notify.sh' }] }],
    } };
    const { settings, action, events } = withHookInstalled(old, CMD);
    expect(action).toBe('updated');
    expect(events).toEqual({ UserPromptSubmit: 'updated', PostToolUseFailure: 'updated' });
    expect(settings).toEqual({ hooks: { ...OURS, PostToolUseFailure: [{ hooks: [ENTRY, { type: 'command', command: 'notify.sh' }] }] } });
  });

  it('an entry of ours under another matcher moves to a group with ours; the other hooks of that group stay where they were', () => {
    const old = { hooks: { ...OURS, PostToolUseFailure: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'fmt.sh' }, ENTRY] }] } };
    const { settings, events } = withHookInstalled(old, CMD);
    expect(events).toEqual({ UserPromptSubmit: 'unchanged', PostToolUseFailure: 'updated' });
    expect(settings).toEqual({ hooks: { ...OURS, PostToolUseFailure: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'fmt.sh' }] }, ...OURS.PostToolUseFailure] } });
    expect(withHookInstalled(settings, CMD).action).toBe('unchanged');
    // an empty matcher is the same as none
    expect(withHookInstalled({ hooks: { ...OURS, PostToolUseFailure: [{ matcher: '', hooks: [ENTRY] }] } }, CMD).action).toBe('unchanged');
  });

  it('refuses shapes it must not touch, under the events it registers (and any on uninstall), before changing anything', () => {
    expect(() => parseSettingsText('{"a":', 'f')).toThrow(SettingsShapeError);
    expect(() => parseSettingsText('[1]', 'f')).toThrow(SettingsShapeError);
    expect(parseSettingsText('  \n', 'f')).toEqual({});
    expect(() => withHookInstalled({ hooks: [] }, CMD)).toThrow(SettingsShapeError);
    for (const e of CLAUDE_EVENTS) expect(() => withHookInstalled({ hooks: { [e]: {} } }, CMD)).toThrow(SettingsShapeError);
    for (const e of HOOK_EVENTS) expect(() => withHookRemoved({ hooks: { ...OURS, [e]: 'x' } })).toThrow(SettingsShapeError);
  });

  it('quotes paths for the shell', () => {
    expect(hookCommand('/usr/bin/node', '/a b/bin/active-brain-hook.js')).toBe("NODE_OPTIONS= NODE_EXTRA_CA_CERTS= /usr/bin/node '/a b/bin/active-brain-hook.js'");
    expect(shellQuote("it's")).toBe(`'it'\\''s'`);
  });

  it('property: install∘install = install; uninstall∘install = id (for settings without ours and without empty hook lists)', () => {
    const entry = fc.record({ type: fc.constant('command'), command: fc.string({ maxLength: 20 }).filter((s) => !s.includes('active-brain-hook')) });
    const group = fc.record({ matcher: fc.option(fc.string({ maxLength: 5 }), { nil: undefined }), hooks: fc.array(entry, { minLength: 1, maxLength: 3 }) }, { requiredKeys: ['hooks'] });
    const hooks = fc.dictionary(fc.constantFrom('UserPromptSubmit', 'PreToolUse', 'Stop', 'PostToolUse', 'PostToolUseFailure'), fc.array(group, { minLength: 1, maxLength: 3 }), { minKeys: 1 });
    const settings = fc.record({ hooks: fc.option(hooks, { nil: undefined }), other: fc.jsonValue() }, { requiredKeys: [] });
    fc.assert(
      fc.property(settings, (s0) => {
        const s = JSON.parse(JSON.stringify(s0)) as Record<string, unknown>;
        const once = withHookInstalled(s, CMD).settings;
        expect(oursByEvent(once)).toEqual({ UserPromptSubmit: 1, PostToolUseFailure: 1, PostToolUse: 0 });
        expect(withHookInstalled(once, CMD).action).toBe('unchanged');
        expect(withHookRemoved(once).settings).toEqual(s);
      }),
      { numRuns: 500 },
    );
  });

  it('lineDiff marks removed and added lines, with context only around changes', () => {
    expect(lineDiff('a\nb\nc', 'a\nx\nc')).toBe('  a\n- b\n+ x\n  c');
    const many = Array.from({ length: 20 }, (_, k) => `line${k}`);
    const changed = [...many.slice(0, 15), 'new', ...many.slice(15)];
    expect(lineDiff(many.join('\n'), changed.join('\n'))).toBe('…\n  line12\n  line13\n  line14\n+ new\n  line15\n  line16\n  line17\n…');
  });
});

describe('install: real settings files', () => {
  const opts = (env: NodeJS.ProcessEnv, cwd: string, over: Partial<Parameters<typeof installHook>[0]> = {}) =>
    ({ scope: 'user' as const, cwd, env, dryRun: false, command: CMD, ...over });

  it('honours CLAUDE_CONFIG_DIR; creates a missing file and its directory', () => {
    const d = tempDir();
    const env = { HOME: d, CLAUDE_CONFIG_DIR: join(d, 'cfg') };
    expect(settingsPathFor('user', d, env)).toBe(join(d, 'cfg', 'settings.json'));
    expect(settingsPathFor('user', d, { HOME: d })).toMatch(/\.claude\/settings\.json$/);
    const r = installHook(opts(env, d));
    expect(r).toMatchObject({ action: 'added', changed: true, backup: null });
    expect(countOurs(JSON.parse(readFileSync(join(d, 'cfg', 'settings.json'), 'utf8')))).toBe(2);
  });

  it('an empty file: entry added, the empty original backed up', () => {
    const d = tempDir();
    const env = { CLAUDE_CONFIG_DIR: d };
    writeFileSync(join(d, 'settings.json'), '');
    const r = installHook(opts(env, d));
    expect(r.action).toBe('added');
    expect(readFileSync(join(d, 'settings.json') + BACKUP_SUFFIX, 'utf8')).toBe('');
    expect(JSON.parse(readFileSync(join(d, 'settings.json'), 'utf8'))).toEqual({ hooks: OURS });
  });

  it('a file with other hooks: all kept; the indentation and mode kept; uninstall gives the same object back', () => {
    const d = tempDir();
    const env = { CLAUDE_CONFIG_DIR: d };
    const p = join(d, 'settings.json');
    const original = JSON.stringify(OTHER, null, 4) + '\n';
    writeFileSync(p, original);
    chmodSync(p, 0o640);
    installHook(opts(env, d));
    const text = readFileSync(p, 'utf8');
    expect(text).toContain('\n    "model"');
    expect(statSync(p).mode & 0o777).toBe(0o640);
    expect(readFileSync(p + BACKUP_SUFFIX, 'utf8')).toBe(original);
    const u = uninstallHook(opts(env, d));
    expect(u).toMatchObject({ action: 'removed', changed: true });
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual(OTHER);
    expect(uninstallHook(opts(env, d))).toMatchObject({ action: 'absent', changed: false });
  });

  it('already present: nothing written, no backup', () => {
    const d = tempDir();
    const env = { CLAUDE_CONFIG_DIR: d };
    const p = join(d, 'settings.json');
    const text = JSON.stringify(withHookInstalled(OTHER, CMD).settings);
    writeFileSync(p, text);
    const before = statSync(p).mtimeMs;
    const r = installHook(opts(env, d));
    expect(r).toMatchObject({ action: 'unchanged', changed: false, backup: null, diff: '' });
    expect(readFileSync(p, 'utf8')).toBe(text);
    expect(statSync(p).mtimeMs).toBe(before);
    expect(existsSync(p + BACKUP_SUFFIX)).toBe(false);
  });

  it('invalid JSON: refuses, changes nothing', () => {
    const d = tempDir();
    const p = join(d, 'settings.json');
    writeFileSync(p, '{"model": "opus",,}');
    expect(() => installHook(opts({ CLAUDE_CONFIG_DIR: d }, d))).toThrow(/not valid JSON.*nothing was changed/);
    expect(() => uninstallHook(opts({ CLAUDE_CONFIG_DIR: d }, d))).toThrow(SettingsShapeError);
    expect(readFileSync(p, 'utf8')).toBe('{"model": "opus",,}');
    expect(existsSync(p + BACKUP_SUFFIX)).toBe(false);
  });

  it('--dry-run changes nothing (missing file stays missing; existing file untouched) but shows the diff', () => {
    const d = tempDir();
    const env = { CLAUDE_CONFIG_DIR: join(d, 'cfg') };
    const r = installHook(opts(env, d, { dryRun: true }));
    expect(r.changed).toBe(true);
    expect(r.diff).toContain(`+ `);
    expect(r.diff).toContain('active-brain-hook.js'); // CMD above
    expect(existsSync(join(d, 'cfg'))).toBe(false);
    mkdirSync(join(d, 'cfg'));
    writeFileSync(join(d, 'cfg', 'settings.json'), JSON.stringify(OTHER));
    installHook(opts(env, d, { dryRun: true }));
    expect(readFileSync(join(d, 'cfg', 'settings.json'), 'utf8')).toBe(JSON.stringify(OTHER));
    expect(existsSync(join(d, 'cfg', 'settings.json') + BACKUP_SUFFIX)).toBe(false);
  });

  it('a symlinked settings.json is written through to its target', () => {
    const d = tempDir();
    mkdirSync(join(d, 'dotfiles'));
    mkdirSync(join(d, 'cfg'));
    writeFileSync(join(d, 'dotfiles', 'claude.json'), JSON.stringify(OTHER));
    symlinkSync(join(d, 'dotfiles', 'claude.json'), join(d, 'cfg', 'settings.json'));
    installHook(opts({ CLAUDE_CONFIG_DIR: join(d, 'cfg') }, d));
    expect(lstatSync(join(d, 'cfg', 'settings.json')).isSymbolicLink()).toBe(true);
    expect(countOurs(JSON.parse(readFileSync(join(d, 'dotfiles', 'claude.json'), 'utf8')))).toBe(2);
  });

  it('warns about a registration at both user and project scope', () => {
    const d = tempDir();
    const proj = join(d, 'proj');
    mkdirSync(proj);
    const env = { CLAUDE_CONFIG_DIR: join(d, 'cfg') };
    expect(installHook(opts(env, proj)).duplicates).toEqual([]);
    const r = installHook(opts(env, proj, { scope: 'project' }));
    expect(r.path).toBe(join(proj, '.claude', 'settings.json'));
    expect(r.duplicates).toEqual([join(d, 'cfg', 'settings.json')]);
    expect(installHook(opts(env, proj)).duplicates).toEqual([join(proj, '.claude', 'settings.json')]);
    uninstallHook(opts(env, proj, { scope: 'project' }));
    expect(installHook(opts(env, proj)).duplicates).toEqual([]);
  });

  it('the duplicate warning covers every event: a project file with only an older install\'s PostToolUse entry of ours counts', () => {
    const d = tempDir();
    const proj = join(d, 'proj');
    mkdirSync(join(proj, '.claude'), { recursive: true });
    const env = { CLAUDE_CONFIG_DIR: join(d, 'cfg') };
    writeFileSync(join(proj, '.claude', 'settings.local.json'), JSON.stringify({ hooks: { PostToolUse: OLD_POST_TOOL_USE } }));
    expect(installHook(opts(env, proj)).duplicates).toEqual([join(proj, '.claude', 'settings.local.json')]);
    writeFileSync(join(proj, '.claude', 'settings.local.json'), JSON.stringify({ hooks: { PostToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: 'fmt.sh' }] }] } }));
    expect(installHook(opts(env, proj)).duplicates).toEqual([]);
  });

  it('an older install file is upgraded in place (backup kept); --dry-run shows the new event first; uninstall removes both', () => {
    const d = tempDir();
    const env = { CLAUDE_CONFIG_DIR: d };
    const p = join(d, 'settings.json');
    const older = JSON.stringify({ ...OTHER, hooks: { ...OTHER.hooks, UserPromptSubmit: [...OTHER.hooks.UserPromptSubmit, { hooks: [ENTRY] }] } }, null, 2) + '\n';
    writeFileSync(p, older);
    const dry = installHook(opts(env, d, { dryRun: true }));
    expect(dry).toMatchObject({ action: 'updated', changed: true, events: { UserPromptSubmit: 'unchanged', PostToolUseFailure: 'added' } });
    expect(dry.diff).toMatch(/^\+ {5}"PostToolUseFailure": \[$/m);
    expect(dry.diff).not.toContain('"matcher"');
    expect(dry.diff).not.toMatch(/^- /m); // only additions
    expect(readFileSync(p, 'utf8')).toBe(older);
    installHook(opts(env, d));
    expect(readFileSync(p + BACKUP_SUFFIX, 'utf8')).toBe(older);
    expect(oursByEvent(JSON.parse(readFileSync(p, 'utf8')))).toEqual({ UserPromptSubmit: 1, PostToolUseFailure: 1, PostToolUse: 0 });
    expect(installHook(opts(env, d))).toMatchObject({ action: 'unchanged', changed: false });
    expect(uninstallHook(opts(env, d))).toMatchObject({ action: 'removed' });
    expect(JSON.parse(readFileSync(p, 'utf8'))).toEqual(OTHER);
  });
});

describe('install: the CLI end to end', () => {
  const cli = join(ROOT, 'bin', 'active-brain.js');
  const distReady = () => existsSync(join(ROOT, 'dist', 'cli', 'main.js')) && existsSync(join(ROOT, 'dist', 'hook.bundle.cjs'));
  const run = (args: string[], env: NodeJS.ProcessEnv, cwd: string) =>
    spawnSync(process.execPath, [cli, ...args], { env: { PATH: process.env.PATH, ...env }, cwd, encoding: 'utf8' });

  it('installs into a temp Claude config; the registered command prints exactly the eligible offer; uninstall removes it', () => {
    if (!distReady()) throw new Error('dist/ is not built: run npm run build (the global setup does)');
    const ctx = makeCtx();
    const cfg = join(ctx.home, '..', 'claude');
    const env = { ...ctx.env, CLAUDE_CONFIG_DIR: cfg };

    const dry = run(['install', '--dry-run', '--json'], env, ctx.cwd);
    expect(dry.status).toBe(0);
    expect(JSON.parse(dry.stdout)).toMatchObject({ dryRun: true, changed: true, hookSettings: null });
    expect(existsSync(join(cfg, 'settings.json'))).toBe(false);
    expect(existsSync(join(ctx.home, 'hook-settings.json'))).toBe(false);

    // The hook's own deadline wide (150 ms can pass on a loaded machine before the payload is
    // read: silent, no event); its runs below are judged on what they log.
    const inst = run(['install', '--set', `transcriptsRoot=${ctx.root}`, '--set', 'hook.deadlineMs=2000'], env, ctx.cwd);
    expect(inst.stderr).toBe('');
    expect(inst.status).toBe(0);
    type Groups = Array<{ matcher?: string; hooks: Array<{ command: string; timeout: number }> }>;
    const settings = JSON.parse(readFileSync(join(cfg, 'settings.json'), 'utf8')) as { hooks: Record<'UserPromptSubmit' | 'PostToolUseFailure' | 'PostToolUse', Groups> };
    const entry = settings.hooks.UserPromptSubmit[0].hooks[0];
    expect(settings.hooks.PostToolUseFailure).toEqual([{ hooks: [entry] }]);
    expect(settings.hooks.PostToolUse).toBeUndefined(); // a successful call starts no hook
    expect(entry.timeout).toBe(5);
    // The state dir is not the default one, so the command names it (Claude Code will not pass
    // ACTIVE_BRAIN_HOME through).
    expect(entry.command).toBe(`NODE_OPTIONS= NODE_EXTRA_CA_CERTS= ACTIVE_BRAIN_HOME=${shellQuote(ctx.home)} ${process.execPath} ${join(ROOT, 'bin', 'active-brain-hook.cjs')}`);
    const written = JSON.parse(readFileSync(join(ctx.home, 'hook-settings.json'), 'utf8')) as { toolCacheTtlMs: number; deadlineMs: number; modes: Array<{ tool: { state: string } }> };
    expect(validate(loadSchema('hook-settings'), written)).toEqual([]);
    expect(written.toolCacheTtlMs).toBe(120_000);
    expect(written.deadlineMs).toBe(2000);
    expect(written.modes[0].tool.state).toBe('soak'); // the tool channel starts in soak too

    // Claude Code runs the command through a shell with the payload on stdin.
    const hook = (payload: unknown) => spawnSync('/bin/sh', ['-c', entry.command], { input: JSON.stringify(payload), env, cwd: ctx.cwd, encoding: 'utf8' });
    writeCache(ctx, cacheFor(ctx));
    const soak = hook(payloadFor(ctx));
    expect(soak.status).toBe(0);
    expect(soak.stdout).toBe(''); // installed settings start in soak
    // soak counted that would-fire against budget and gaps, as live would have
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'would-fire', mode_state: 'soak' });
    // The same registered command answers a tool failure (soak: logged, not printed).
    const failure = 'Exit code 1\nfatal: not a git repository (or any of the parent directories): .git';
    const sig = errorSignature(failure)!.sig;
    writeFixFile(ctx, sig, fixFileFor(sig, [{ offer: { ...cacheFor(ctx).offer!, id: 'fix-1', handle: 'sessions/aa#1' }, sourceSession: 'another-session', scope: 'global' }]));
    const tool = hook(toolPayloadFor(ctx, failure));
    expect(tool.status).toBe(0);
    expect(tool.stderr).toBe('');
    expect(tool.stdout).toBe('');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'would-fire', channel: 'tool', event: 'PostToolUseFailure', sig, mode_state: 'soak' });
    writeSettings(ctx, settingsFor(ctx, {}, { minGapTurns: 0, minGapSeconds: 0 })); // as `enable` would: live
    // A different chunk (the one seen in soak is never shown again in this session).
    writeCache(ctx, cacheFor(ctx, { offer: { ...cacheFor(ctx).offer!, id: 'off-live', handle: 'notes/pg/pool-timeouts.md#3' } }));
    const live = hook(payloadFor(ctx));
    expect(live.status).toBe(0);
    expect(live.stderr).toBe('');
    expect(printedLine(live.stdout)).toContain('notes/pg/pool-timeouts.md#3');
    expect(hook(payloadFor(ctx, { agent_id: 'sub-1' })).stdout).toBe('');

    // The user's NODE_OPTIONS does not reach the hook: a broken preload breaks plain node…
    const broken = { ...env, NODE_OPTIONS: '--require /nonexistent/preload.js', NODE_EXTRA_CA_CERTS: '/nonexistent/ca.pem' };
    const plain = spawnSync('/bin/sh', ['-c', `${process.execPath} ${join(ROOT, 'bin', 'active-brain-hook.cjs')}`], { input: JSON.stringify(payloadFor(ctx)), env: broken, cwd: ctx.cwd, encoding: 'utf8' });
    expect(plain.status).not.toBe(0);
    // …but not the registered command, which still prints the next eligible offer
    writeCache(ctx, cacheFor(ctx, { offer: { ...cacheFor(ctx).offer!, id: 'off-env', handle: 'notes/pg/pool-timeouts.md#4' } }));
    const cleared = spawnSync('/bin/sh', ['-c', entry.command], { input: JSON.stringify(payloadFor(ctx)), env: broken, cwd: ctx.cwd, encoding: 'utf8' });
    expect(cleared.status).toBe(0);
    expect(cleared.stderr).toBe('');
    expect(printedLine(cleared.stdout)).toContain('notes/pg/pool-timeouts.md#4');

    // Run as Claude Code would, without ACTIVE_BRAIN_HOME in the environment: the registered
    // command still reads this home — so this home's kill switch silences it.
    const { ACTIVE_BRAIN_HOME: _h, ...bare } = env as NodeJS.ProcessEnv;
    writeSettings(ctx, settingsFor(ctx, {}, { minGapTurns: 0, minGapSeconds: 0, sessionBudget: 10 })); // room for more offers
    writeCache(ctx, cacheFor(ctx, { offer: { ...cacheFor(ctx).offer!, id: 'off-home', handle: 'notes/pg/pool-timeouts.md#5' } }));
    const viaHome = spawnSync('/bin/sh', ['-c', entry.command], { input: JSON.stringify(payloadFor(ctx)), env: bare, cwd: ctx.cwd, encoding: 'utf8' });
    expect(printedLine(viaHome.stdout)).toContain('notes/pg/pool-timeouts.md#5');
    writeFileSync(join(ctx.home, 'KILL'), '');
    writeCache(ctx, cacheFor(ctx, { offer: { ...cacheFor(ctx).offer!, id: 'off-killed', handle: 'notes/pg/pool-timeouts.md#6' } }));
    const killed = spawnSync('/bin/sh', ['-c', entry.command], { input: JSON.stringify(payloadFor(ctx)), env: bare, cwd: ctx.cwd, encoding: 'utf8' });
    expect(killed.status).toBe(0);
    expect(killed.stdout).toBe('');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'silent', reason: 'killed' });
    rmSync(join(ctx.home, 'KILL'));

    const again = run(['install', '--json'], env, ctx.cwd);
    expect(JSON.parse(again.stdout)).toMatchObject({ action: 'unchanged', changed: false });

    const un = run(['uninstall'], env, ctx.cwd);
    expect(un.status).toBe(0);
    // install created the file: uninstall removes it (not a `{}` left behind)
    expect(existsSync(join(cfg, 'settings.json'))).toBe(false);
    expect(un.stdout).toContain('deleted (install had created it)');
  });

  it('invalid JSON: exit 1, the reason on stderr, the file unchanged', () => {
    if (!distReady()) throw new Error('dist/ is not built: run npm run build (the global setup does)');
    const d = tempDir();
    writeFileSync(join(d, 'settings.json'), '{oops');
    const r = run(['install'], { HOME: d, CLAUDE_CONFIG_DIR: d, ACTIVE_BRAIN_HOME: join(d, 'home') }, d);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not valid JSON.*nothing was changed/);
    expect(readFileSync(join(d, 'settings.json'), 'utf8')).toBe('{oops');
    expect(existsSync(join(d, 'home', 'hook-settings.json'))).toBe(false);
  });
});
