import { describe, it, expect } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { launchdPlist, systemdUnit } from '../../ops/service-files.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
function run(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
}
const spec = { node: '/usr/bin/node', cli: '/opt/a b/bin/active-brain.js', home: '/home/u/.active-brain', env: { ACTIVE_BRAIN_TRANSCRIPTS: '/t/p%x' }, logFile: '/home/u/.active-brain/logs/daemon.out' };

describe('service files', () => {
  it('systemd unit: quoted ExecStart, restart on failure only, state dir pinned', () => {
    const u = systemdUnit(spec);
    expect(u).toContain('ExecStart="/usr/bin/node" "/opt/a b/bin/active-brain.js" start');
    expect(u).toContain('Restart=on-failure');
    expect(u).toContain('Environment="ACTIVE_BRAIN_HOME=/home/u/.active-brain"');
    expect(u).toContain('Environment="ACTIVE_BRAIN_TRANSCRIPTS=/t/p%%x"');
  });

  it('systemd-analyze verify accepts the generated unit and rejects a broken one (where available)', () => {
    const which = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' });
    if (which.status !== 0) return;
    const dir = mkdtempSync(join(tmpdir(), 'ab-unit-'));
    const file = join(dir, 'active-brain.service');
    const verify = (content: string) => {
      writeFileSync(file, content);
      // System-mode verify: --user needs a user manager, which CI does not have.
      const r = spawnSync('systemd-analyze', ['verify', file], { encoding: 'utf8' });
      return (r.stderr + r.stdout).split('\n').filter((l) => l.includes(file));
    };
    const unit = systemdUnit({ ...spec, node: process.execPath, cli, logFile: join(dir, 'daemon.out') });
    expect(verify(unit)).toEqual([]);
    expect(verify(unit.replace('Restart=on-failure', 'Restart=sometimes')).length).toBeGreaterThan(0);
  });

  it('launchd plist is well-formed XML with escaped values and KeepAlive on failure', () => {
    const p = launchdPlist({ ...spec, home: '/Users/a&b/<x>' });
    expect(p).toContain('<string>/Users/a&amp;b/&lt;x&gt;</string>');
    expect(p).toContain('<key>SuccessfulExit</key><false/>');
    // Structural check: every opened tag is closed in order.
    const stack: string[] = [];
    for (const m of p.replace(/<\?xml[^>]*\?>|<!DOCTYPE[^>]*>/g, '').matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
      if (m[3]) continue;
      if (m[1]) expect(stack.pop()).toBe(m[2]);
      else stack.push(m[2]);
    }
    expect(stack).toEqual([]);
    const xmllint = spawnSync('sh', ['-c', 'command -v xmllint'], { encoding: 'utf8' });
    if (xmllint.status === 0) {
      const dir = mkdtempSync(join(tmpdir(), 'ab-plist-'));
      writeFileSync(join(dir, 'a.plist'), p);
      expect(spawnSync('xmllint', ['--noout', join(dir, 'a.plist')]).status).toBe(0);
    }
  });
});

describe('active-brain service (CLI, files only)', () => {
  it('install is idempotent, status tells the truth, uninstall removes it', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-svc-home-'));
    const xdg = mkdtempSync(join(tmpdir(), 'ab-svc-xdg-'));
    const env = { ACTIVE_BRAIN_HOME: home, XDG_CONFIG_HOME: xdg };
    const unit = join(xdg, 'systemd', 'user', 'active-brain.service');
    const dry = run(env, 'service', 'install', '--platform', 'linux', '--dry-run');
    expect(dry.status).toBe(0);
    expect(dry.stdout).toContain('[Service]');
    expect(existsSync(unit)).toBe(false);
    // on Linux the dry run also lists what a managed install would run
    if (process.platform === 'linux') expect(dry.stdout).toContain('# would run: systemctl --user enable --now active-brain.service');
    expect(run(env, 'service', 'install', '--platform', 'linux', '--dry-run', '--no-manage').stdout).not.toContain('# would run');
    expect(run(env, 'service', 'status', '--platform', 'linux', '--no-manage').status).toBe(1);
    const first = JSON.parse(run(env, 'service', 'install', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(first.changed).toBe(true);
    expect(readFileSync(unit, 'utf8')).toContain(`ACTIVE_BRAIN_HOME=${home}`);
    const second = JSON.parse(run(env, 'service', 'install', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(second.changed).toBe(false);
    const st = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(st).toMatchObject({ installed: true, up_to_date: true });
    const un = JSON.parse(run(env, 'service', 'uninstall', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(un.removed).toBe(true);
    expect(existsSync(unit)).toBe(false);
    expect(JSON.parse(run(env, 'service', 'uninstall', '--platform', 'linux', '--no-manage', '--json').stdout).removed).toBe(false);
  });

  it('rejects an unknown action with a usage exit code', () => {
    const r = run({ ACTIVE_BRAIN_HOME: mkdtempSync(join(tmpdir(), 'ab-svc-')) }, 'service', 'restart');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/install, uninstall or status/);
  });
});
void execFileSync;
