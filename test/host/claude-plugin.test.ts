/**
 * The plugin as the real Claude Code installs it, from a plain git clone (no dist/, no
 * node_modules/): `claude plugin validate` passes without a warning; `claude plugin marketplace
 * add <clone>` + `claude plugin install active-brain@active-brain` make a copy of the git tree;
 * with the active-brain CLI installed once (on PATH, as `npm link` / `npm install -g` leaves
 * it), SessionStart starts the daemon when none runs (with none and the plugin's own set-up opted
 * out, the first session says in one line what to install), and the Past
 * fix reaches the model at a failing `git push` through the plugin's committed hook bundle (for a
 * local directory marketplace Claude Code runs the hooks from the clone itself, unbuilt as well:
 * test/host/claude-plugin-bootstrap.test.ts).
 * No `active-brain install`: the plugin's hooks are the only registration.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cli, waitFor } from '../daemon/helpers.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { hostEnv, projectDirName, requireHost, runCli } from './hosts.js';
import { sinceLastAnswer } from '../../bench/host-model-server.js';
import { plainClone, runningDaemon as daemonOf } from './plugin-clone.js';
import { BOOTSTRAP_ENV } from '../../ops/plugin-bootstrap-state.js';
import { HOOK_CONTEXT_PREFIX, HOST_CONFIG, failingPushScript, fixedPushScript, gitRepoWithoutUpstream, hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
let w: HostWorld;
let clone: string;
let cliBin: string;

/** The daemon the plugin started (test/host/plugin-clone.ts). */
const runningDaemon = () => daemonOf(w);

const claudeCmd = (args: string[]) => runCli(host.bin!, args, { cwd: w.base, env: hostEnv(w.userHome, 'http://127.0.0.1:9', { PATH: `${dirname(cliBin)}:${process.env.PATH}` }) });

describe.skipIf(!!host.skip)('the plugin installed by the real Claude Code', () => {
  beforeAll(() => {
    w = hostWorld(host.bin, 'ab-host-plugin-');
    // The daemon the plugin starts inherits Claude Code's environment (no ACTIVE_BRAIN_* there):
    // the offline model is named in config.json, as `setup` writes it.
    writeFileSync(join(w.home, 'config.json'), JSON.stringify({ ...HOST_CONFIG, embedding: { localModelPath: offlineModelPath() } }));
    clone = plainClone(join(w.base, 'src', 'active-brain'));
    // The CLI installed once (stands for `npm link` in a built clone).
    cliBin = join(w.base, 'cli-bin', 'active-brain');
    mkdirSync(dirname(cliBin), { recursive: true });
    writeFileSync(cliBin, `#!/bin/sh\nexec "${process.execPath}" "${join(repoRoot, 'bin', 'active-brain.js')}" "$@"\n`, { mode: 0o755 });
  });
  afterAll(() => {
    runningDaemon();
    w?.cleanup();
  });

  it('validate passes without a warning; marketplace add + install make a copy without dist/', async () => {
    const v = await claudeCmd(['plugin', 'validate', clone]);
    expect(v.code, v.stdout + v.stderr).toBe(0);
    expect(v.stdout).toContain('Validation passed');
    expect(v.stdout).not.toMatch(/⚠|warning|not declared|ICON_MISSING/i);
    const add = await claudeCmd(['plugin', 'marketplace', 'add', clone]);
    expect(add.code, add.stdout + add.stderr).toBe(0);
    const ins = await claudeCmd(['plugin', 'install', 'active-brain@active-brain']);
    expect(ins.code, ins.stdout + ins.stderr).toBe(0);
    const installed = JSON.parse(readFileSync(join(w.userHome, '.claude', 'plugins', 'installed_plugins.json'), 'utf8')) as { plugins: Record<string, Array<{ installPath: string }>> };
    const copy = installed.plugins['active-brain@active-brain'][0].installPath;
    expect(copy).not.toBe(clone);
    expect(existsSync(join(copy, 'hooks', 'hook.bundle.cjs'))).toBe(true);
    expect(existsSync(join(copy, 'dist'))).toBe(false); // (no node_modules either, seen with 2.1.332)
    // The copy's bin/active-brain (the MCP server's command, the recall hint on the Bash tool's
    // PATH) hands over to the installed CLI; control: without one on PATH it says what to do.
    const viaCopy = await runCli('/bin/sh', [join(copy, 'bin', 'active-brain'), 'status', '--json'], { cwd: w.base, env: { ...w.env, PATH: `${join(copy, 'bin')}:${dirname(cliBin)}:${process.env.PATH}` } });
    expect(viaCopy.stderr).toBe('');
    expect(JSON.parse(viaCopy.stdout)).toHaveProperty('running');
    const none = await runCli('/bin/sh', [join(copy, 'bin', 'active-brain'), 'status'], { cwd: w.base, env: { ...w.env, PATH: `${join(copy, 'bin')}:/usr/bin:/bin` } });
    expect(none.code).toBe(127);
    expect(none.stderr).toContain('no build and no other active-brain is on PATH');
  });

  it('no CLI installed yet and the plugin\'s own set-up opted out: the first session says in one line what to run, and starts nothing', async () => {
    // (The set-up itself, with the real claude: test/host/claude-plugin-bootstrap.test.ts.)
    expect(runningDaemon()).toBeNull();
    const repo = gitRepoWithoutUpstream(w, 'first', 'feature-first');
    const { run } = await w.claude(fixedPushScript('feature-first'), { cwd: repo, env: { PATH: '/usr/local/bin:/usr/bin:/bin', [BOOTSTRAP_ENV]: '0' } });
    expect(run.code, run.stderr).toBe(0);
    const line = 'Run once in a terminal: npm install -g active-brain && active-brain setup';
    // In the session: Claude Code records the hook's systemMessage in the session's transcript.
    const dir = join(w.root, projectDirName(repo));
    const transcript = readdirSync(dir).filter((n) => n.endsWith('.jsonl')).map((n) => readFileSync(join(dir, n), 'utf8')).join('\n');
    console.log(`[plugin] first session without the CLI: ${transcript.split('\n').filter((l) => l.includes('npm install -g')).join('\n').slice(0, 1500)}`);
    expect(transcript).toContain(line);
    expect(readFileSync(join(w.home, 'logs', 'daemon.out'), 'utf8')).toContain(line);
    expect(runningDaemon()).toBeNull();
  });

  it('SessionStart starts the daemon when none runs; the past session is indexed', async () => {
    expect(runningDaemon()).toBeNull();
    const repo = gitRepoWithoutUpstream(w, 'parser', 'feature-parser');
    const { run } = await w.claude(fixedPushScript('feature-parser'), { cwd: repo, env: { PATH: `${dirname(cliBin)}:${process.env.PATH}` } });
    expect(run.code, run.stderr).toBe(0);
    await waitFor(() => runningDaemon(), 30_000, 'the daemon SessionStart started');
    const dir = join(w.root, projectDirName(repo));
    const file = readdirSync(dir).find((n) => n.endsWith('.jsonl'))!;
    const dayAgo = new Date(Date.now() - 86_400_000); // yesterday's session (claude -p writes no turn end)
    utimesSync(join(dir, file), dayAgo, dayAgo);
    const idx = cli(w, ['index', 'add', dir, '--region', 'sessions', '--kind', 'transcripts', '--json']);
    expect(idx.code, idx.stderr + idx.stdout).toBe(0);
    expect(JSON.stringify(JSON.parse(idx.stdout))).toContain('"episodes_added":1');
    // The running daemon follows the store: the fix is precomputed for the hook.
    await waitFor(() => existsSync(join(w.home, 'fixes')) && readdirSync(join(w.home, 'fixes')).some((n) => n.endsWith('.json')), 30_000, 'a fixes file');
  });

  it('live on the tool channel: the Past fix reaches the model through the plugin\'s committed hook bundle', async () => {
    const en = cli(w, ['enable', 'default', '--channel', 'tool', '--force']);
    expect(en.code, en.stderr + en.stdout).toBe(0);
    const repo = gitRepoWithoutUpstream(w, 'cart', 'feature-cart');
    const { run, model } = await w.claude(failingPushScript(), { cwd: repo, env: { PATH: `${dirname(cliBin)}:${process.env.PATH}` } });
    expect(run.code, run.stderr).toBe(0);
    const next = sinceLastAnswer(model.agentRequests()[1]);
    expect(next).toContain('has no upstream branch');
    const at = next.indexOf(HOOK_CONTEXT_PREFIX);
    expect(at, next).toBeGreaterThanOrEqual(0);
    expect(next.slice(at)).toMatch(/\[active-brain · Past fix · 0\.\d\d\][^\n]*fixed by git push --set-upstream origin ‹branch›/);
  });
});
