/**
 * `service install|uninstall|status` on a machine whose user service manager cannot be
 * reached (no systemd user bus: containers, WSL, SSH without lingering). A `systemctl` on
 * PATH behaves as the real one does there (checked on this machine): `disable --now` removes
 * the enablement link, prints `Removed "…"`, then fails to reach the bus (exit 1);
 * `disable` alone works on the files (exit 0); anything needing the bus fails.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { outcomeDetail, uninstallCommands } from '../../ops/service.js';
import { cli, tempEnv, type Env } from '../daemon/helpers.js';

const NO_BUS = `
case "$2 $3" in
  "disable --now") echo "Removed \\"$HOME/.config/systemd/user/default.target.wants/$4\\"." >&2; echo "Failed to connect to bus: No medium found" >&2; exit 1 ;;
  "disable "*) echo "Removed \\"$HOME/.config/systemd/user/default.target.wants/$3\\"." >&2; exit 0 ;;
  *) echo "Failed to connect to bus: No medium found" >&2; exit 1 ;;
esac`;

describe('manager outcomes, said right', () => {
  it('a failure is reported by its last line (the error), a success by its first', () => {
    const out = 'Removed "/h/.config/systemd/user/default.target.wants/active-brain.service".\nFailed to connect to bus: No medium found';
    expect(outcomeDetail(false, out)).toBe('Failed to connect to bus: No medium found');
    expect(outcomeDetail(true, out)).toMatch(/^Removed/);
  });
  it('without a reachable manager, uninstall only disables (on the files), and reloads nothing', () => {
    const { before, after } = uninstallCommands('linux', false);
    expect(before.map((c) => c.argv.join(' '))).toEqual(['systemctl --user disable active-brain-index.timer', 'systemctl --user disable active-brain.service']);
    expect(after).toEqual([]);
    expect(uninstallCommands('linux').before.some((c) => c.argv.includes('--now'))).toBe(true); // control: with one, stop them too
  });
});

describe.skipIf(process.platform !== 'linux')('service CLI without a user bus', () => {
  let e: Env;
  afterEach(() => e?.cleanup());

  it('install writes the files and says nothing runs them (exit 3); uninstall removes them, exit 0, no success labelled skip', () => {
    e = tempEnv('ab-svc-nobus-');
    const bin = join(e.home, '..', 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'systemctl'), `#!/bin/sh${NO_BUS}\n`);
    chmodSync(join(bin, 'systemctl'), 0o755);
    const xdg = join(e.home, '..', 'xdg');
    e.env = { ...e.env, PATH: `${bin}:${process.env.PATH}`, XDG_CONFIG_HOME: xdg, HOME: join(e.home, '..') };
    const unit = join(xdg, 'systemd', 'user', 'active-brain.service');

    const inst = cli(e, ['service', 'install']);
    expect(inst.code).toBe(3);
    expect(inst.stdout).toContain('no user service manager reachable');
    expect(inst.stdout).toContain('Failed to connect to bus');
    expect(existsSync(unit)).toBe(true);
    const st = cli(e, ['service', 'status']);
    expect(st.stdout).toMatch(/manager: +systemd --user: unreachable/);

    const un = cli(e, ['service', 'uninstall']);
    expect(un.code, un.stdout + un.stderr).toBe(0);
    expect(un.stdout).not.toMatch(/^skip .*Removed/m);
    expect(un.stdout).toMatch(/^ok +systemctl --user disable active-brain.service$/m);
    expect(un.stdout).toContain(`removed: ${unit}`);
    expect(existsSync(unit)).toBe(false);
    // where setup fell back, status says who runs the schedule instead of "run service install"
    const fell = cli(e, ['service', 'status', '--set', 'indexer.schedule=daemon']);
    expect(fell.stdout).toContain('the daemon runs the scheduled index itself');
    expect(cli(e, ['service', 'status']).stdout).toContain('run `active-brain service install`'); // control
  });
});
