/**
 * The first hour, as a new user meets it (issue 23 "done when"): a fresh HOME with real-format
 * Claude Code transcripts in ~/.claude/projects and a settings.json of the user's own, on a
 * machine without a systemd user bus (a `systemctl` on PATH that fails as it does in a
 * container). The README's five-minute block is pasted into a new shell as written — only
 * what a test cannot do is stood in for: the clone is this checkout, `npm install`/`npm link`
 * are done already (`active-brain` runs bin/active-brain.js, as the link would), there is no
 * network (`curl` fails), and `npm run -s model:offline` runs the script it names (npm itself
 * is not run in a fresh HOME: it would lose root's npm config). Then: a daemon runs, the hooks
 * are installed, the history is indexed and scheduled (by the daemon: no service manager); a
 * second new shell, without ACTIVE_BRAIN_MODEL_PATH, passes every doctor check; the README's
 * uninstall block leaves ~/.claude/settings.json byte for byte as it was and nothing running.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { pastFixSession, TranscriptBuilder } from '../indexer/transcript-fixture.js';

const tmp = mkdtempSync(join(tmpdir(), 'ab-first-hour-'));
const pids: number[] = [];
afterAll(() => {
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
  }
  rmSync(tmp, { recursive: true, force: true });
});

/** The process runs (a zombie does not: the detached daemon's parent is gone, and a
 *  container's init may be slow to reap it). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

/** The first ```sh block after a README heading. */
function readmeBlock(heading: string): string {
  const text = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`README has no "${heading}"`);
  const open = text.indexOf('```sh\n', at);
  return text.slice(open + '```sh\n'.length, text.indexOf('\n```', open));
}

/** A user's settings.json in a formatting of their own (tabs, a compact array, no final newline). */
const USER_SETTINGS = '{\n\t"model": "opus",\n\t"permissions": {"allow": ["Bash(ls:*)", "Read"]},\n\t"hooks": {\n\t\t"PostToolUse": [{"matcher": "Edit", "hooks": [{"type": "command", "command": "prettier --write"}]}]\n\t}\n}';

/** What stands in for what a test cannot do (see the header), then the block as written. */
function shellScript(block: string, clone: string): string {
  const stand = [
    'set -e',
    `active-brain() { node ${JSON.stringify(join(repoRoot, 'bin', 'active-brain.js'))} "$@"; }`,
    `npm() { case "$*" in "run -s model:offline") node ${JSON.stringify(join(repoRoot, 'scripts', 'build-offline-model.mjs'))} ;; install|link|"unlink -g active-brain") : ;; *) echo "npm $* not expected" >&2; return 1 ;; esac; }`,
    'curl() { return 6; }',
  ];
  const lines = block.split('\n').map((l) => (l.startsWith('git clone ') ? `cd ${JSON.stringify(clone)}` : l));
  return [...stand, ...lines].join('\n') + '\n';
}

describe('the README a new user reads', () => {
  const text = readFileSync(join(repoRoot, 'README.md'), 'utf8');
  it('its first screen says what it is and gives the two commands: install+run, and test', () => {
    const first = text.split('\n').slice(0, 30).join('\n');
    expect(first).toMatch(/companion for Claude Code/);
    expect(first).toMatch(/npm install && npm link && active-brain setup/);
    expect(first).toContain('`npm test`');
  });
  it('the five-minute block needs nothing from outside the clone, and builds the offline model inside it', () => {
    const five = readmeBlock('## See it work in five minutes');
    const lines = five.split('\n');
    const clone = lines.findIndex((l) => l.startsWith('git clone '));
    expect(clone).toBe(0);
    expect(lines[0]).toMatch(/&& cd active-brain$/); // every later line runs inside the clone
    expect(five).toMatch(/npm link/); // before the first bare `active-brain`
    expect(lines.findIndex((l) => /npm link/.test(l))).toBeLessThan(lines.findIndex((l) => l.startsWith('active-brain ')));
    expect(five).toContain('npm run -s model:offline');
  });
  it('names no path a cloning user lacks, and documents a full uninstall', () => {
    expect(text).not.toMatch(/\.\.\/shared\//);
    const un = readmeBlock('## Uninstall');
    for (const s of ['active-brain stop', 'active-brain service uninstall', 'active-brain uninstall', 'rm -rf ~/.active-brain', 'npm unlink -g active-brain', 'rm -rf .models']) expect(un).toContain(s);
  });
});

describe.skipIf(process.platform !== 'linux')('the first hour on a machine without a user service manager', () => {
  it('the five-minute block gives a running daemon, hooks, an indexed and scheduled history; a new shell\'s doctor passes; uninstall restores settings.json', () => {
    offlineModelPath(); // built once by the tests (the block's model:offline then finds it cached)
    const home = join(tmp, 'home');
    const clone = join(tmp, 'clone');
    const projects = join(home, '.claude', 'projects', '-home-dev-api');
    mkdirSync(projects, { recursive: true });
    mkdirSync(clone);
    for (const b of [pastFixSession(), pastFixSession(), new TranscriptBuilder().prompt('summarise the changelog').reply('Three fixes and one feature.').endTurn()]) {
      writeFileSync(join(projects, `${b.sessionId}.jsonl`), b.text());
    }
    writeFileSync(join(home, '.claude', 'settings.json'), USER_SETTINGS);
    const bin = join(tmp, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'systemctl'), '#!/bin/sh\necho "Failed to connect to bus: No medium found" >&2\nexit 1\n');
    chmodSync(join(bin, 'systemctl'), 0o755);
    // A new login shell: its own PATH and HOME, nothing of this process's ACTIVE_BRAIN_* or CLAUDE_CONFIG_DIR.
    const shellEnv = { PATH: `${bin}:${process.env.PATH}`, HOME: home, LANG: 'C.UTF-8' };
    const sh = (script: string, cwd = home) => spawnSync('bash', ['-c', script], { env: shellEnv, cwd, encoding: 'utf8', timeout: 240_000 });
    const cli = (...args: string[]) => spawnSync(process.execPath, [join(repoRoot, 'bin', 'active-brain.js'), ...args], { env: shellEnv, cwd: home, encoding: 'utf8', timeout: 120_000 });

    // 1. the five-minute block, pasted
    const five = sh(shellScript(readmeBlock('## See it work in five minutes'), clone));
    const said = `${five.stdout}\n${five.stderr}`;
    expect(five.status, said).toBe(0);
    expect(five.stdout).toMatch(/^changed service +fallback: no user service manager \(systemctl --user show-environment: Failed to connect to bus/m);
    expect(five.stdout).toContain('set up.');
    expect(five.stdout).toContain('every check passed.'); // the block's own doctor
    const status = JSON.parse(cli('status', '--json').stdout);
    pids.push(status.pid);
    expect(status).toMatchObject({ running: true, index_schedule: { intervalMinutes: 15 } });
    expect(status.store.chunks).toBeGreaterThan(0);
    const settings = JSON.parse(readFileSync(join(home, '.claude', 'settings.json'), 'utf8'));
    expect(JSON.stringify(settings.hooks.UserPromptSubmit)).toContain('active-brain-hook');
    expect(settings.hooks.PostToolUse[0]).toEqual({ matcher: 'Edit', hooks: [{ type: 'command', command: 'prettier --write' }] });
    const config = JSON.parse(readFileSync(join(home, '.active-brain', 'config.json'), 'utf8'));
    expect(config).toMatchObject({ embedding: { localModelPath: offlineModelPath() }, indexer: { schedule: 'daemon' } });
    expect(existsSync(join(home, '.config', 'systemd'))).toBe(false); // no units nothing would run
    // start is idempotent: the running daemon is the answer
    const again = cli('start', '--detach');
    expect(again.status).toBe(0);
    expect(again.stdout).toContain(`already running, pid ${status.pid}`);

    // 2. a second new shell: no ACTIVE_BRAIN_MODEL_PATH; every check passes
    const doctor = cli('doctor', '--json');
    const report = JSON.parse(doctor.stdout) as { checks: Array<{ name: string; pass: boolean; detail: string }>; pass: boolean };
    expect(report.checks.filter((c) => !c.pass), doctor.stdout).toEqual([]);
    expect(doctor.status).toBe(0);
    expect(report.checks.find((c) => c.name === 'schedule')!.detail).toContain('the daemon runs `active-brain index` every 15 min');
    expect(report.checks.find((c) => c.name === 'model')!.detail).toContain('matches the store');

    // 3. the README's uninstall block: settings.json exactly as it was, nothing left running
    const un = sh(shellScript(readmeBlock('## Uninstall'), clone), clone);
    expect(un.status, `${un.stdout}\n${un.stderr}`).toBe(0);
    expect(readFileSync(join(home, '.claude', 'settings.json'), 'utf8')).toBe(USER_SETTINGS);
    expect(readdirSync(join(home, '.claude')).sort()).toEqual(['projects', 'settings.json']);
    expect(existsSync(join(home, '.active-brain'))).toBe(false);
    expect(running(status.pid)).toBe(false);
  }, 300_000);
});
