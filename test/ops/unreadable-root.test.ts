/**
 * A transcripts root the user may not read (mode 000; as root the commands run as `nobody`,
 * since root reads everything): doctor, backtest and the daemon's start each call it
 * unreadable and say what to do — not "holds no sessions", not "in the last all", not a silent
 * watch. Control: the same folder made readable (and empty) is reported as empty, not unreadable.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

const isRoot = process.getuid?.() === 0;
const asUser = isRoot ? ['/usr/sbin/runuser', '-u', 'nobody', '--'] : [];
const canRun = !isRoot || existsSync('/usr/sbin/runuser');
const cli = join(repoRoot, 'bin', 'active-brain.js');

const tmp = mkdtempSync(join(tmpdir(), 'ab-unreadable-'));
chmodSync(tmp, 0o777); // nobody works in it
afterAll(() => {
  try { chmodSync(join(tmp, 'projects'), 0o755); } catch { /* gone */ }
  rmSync(tmp, { recursive: true, force: true });
});
const root = join(tmp, 'projects');
mkdirSync(root);
chmodSync(root, 0o000);
const env = { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: tmp, ACTIVE_BRAIN_HOME: join(tmp, 'ab'), ACTIVE_BRAIN_TRANSCRIPTS: root, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };

function run(args: string[]) {
  const [cmd, ...rest] = [...asUser, process.execPath, cli, ...args];
  return spawnSync(cmd, rest, { env, encoding: 'utf8', timeout: 60_000, cwd: tmp });
}

describe.skipIf(!canRun)('an unreadable transcripts root', () => {
  it('doctor says it cannot be read (EACCES) and how to let it; control: readable and empty is "holds no transcripts"', () => {
    const r = run(['doctor', '--json']);
    const check = (JSON.parse(r.stdout) as { checks: Array<{ name: string; pass: boolean; detail: string; fix: string }> }).checks.find((c) => c.name === 'transcripts-root')!;
    expect(check.pass).toBe(false);
    expect(check.detail).toBe(`cannot read the transcripts root ${root} (EACCES: permission denied)`);
    expect(check.fix).toMatch(new RegExp(`^give your user read access to it \\(chmod u\\+rx ${root}\\), or point ACTIVE_BRAIN_TRANSCRIPTS`));
    expect(check.detail).not.toMatch(/holds no/);
    chmodSync(root, 0o755);
    try {
      const c = (JSON.parse(run(['doctor', '--json']).stdout) as { checks: Array<{ name: string; detail: string }> }).checks.find((x) => x.name === 'transcripts-root')!;
      expect(c.detail).toMatch(/exists but holds no <project>\/<session>\.jsonl transcripts/);
    } finally {
      chmodSync(root, 0o000);
    }
  });

  it('backtest --since all says it cannot be read (exit 3), not "written in the last all"', () => {
    const r = run(['backtest', '--since', 'all']);
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`cannot read the transcripts root ${root} (EACCES: permission denied)`);
    expect(r.stderr).not.toMatch(/in the last all/);
  });

  it('backtest --since all on a readable empty root: "no transcripts under", no advice to try --since all', () => {
    const empty = join(tmp, 'empty-projects');
    mkdirSync(empty, { recursive: true });
    chmodSync(empty, 0o755);
    const [cmd, ...rest] = [...asUser, process.execPath, cli, 'backtest', '--since', 'all'];
    const r = spawnSync(cmd, rest, { env: { ...env, ACTIVE_BRAIN_TRANSCRIPTS: empty }, encoding: 'utf8', timeout: 60_000, cwd: tmp });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`no transcripts (<project>/<session>.jsonl) under ${empty}`);
    expect(r.stderr).not.toMatch(/try --since all|in the last all/);
  });

  it('start says so once it runs', async () => {
    const [cmd, ...rest] = [...asUser, process.execPath, cli, 'start'];
    const child = spawn(cmd, rest, { env, cwd: tmp, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (b) => (out += String(b)));
    child.stderr.on('data', (b) => (out += String(b)));
    try {
      const t0 = Date.now();
      while (!/warning: cannot read/.test(out) && Date.now() - t0 < 40_000 && child.exitCode === null) await new Promise((r) => setTimeout(r, 200));
      expect(out).toContain(`warning: cannot read the transcripts root ${root} (EACCES: permission denied)`);
      expect(out).toMatch(/until then the daemon sees no session/);
    } finally {
      try { process.kill(-child.pid!, 'SIGTERM'); } catch { /* gone */ }
      await new Promise((r) => (child.exitCode !== null ? r(null) : child.once('exit', r)));
    }
  }, 60_000);
});
