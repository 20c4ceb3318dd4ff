import { describe, it, expect } from 'vitest';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { launchdPlist, systemdUnit } from '../../ops/service-files.js';
import { launchdIndexPlist, onCalendarFor, systemdIndexService, systemdIndexTimer } from '../../ops/index-schedule-files.js';
import { isScheduleInterval, MINUTES_PER_DAY, SCHEDULE_HOURS, SCHEDULE_MINUTES } from '../../shared/schedule.js';
import { ConfigSchema } from '../../config/schema.js';
import { installCommands, uninstallCommands, type PlannedFile } from '../../ops/service.js';
import { offlineModelPath } from '../helpers/model.js';
import { loadSchema, validate } from '../helpers/json-schema.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
function run(env: Record<string, string>, ...args: string[]) {
  return spawnSync(process.execPath, [cli, ...args], { env: { ...process.env, ...env }, encoding: 'utf8' });
}
const spec = { node: '/usr/bin/node', cli: '/opt/a b/bin/active-brain.js', home: '/home/u/.active-brain', env: { ACTIVE_BRAIN_TRANSCRIPTS: '/t/p%x' }, logFile: '/home/u/.active-brain/logs/daemon.out' };

describe('service files', () => {
  it('systemd unit: quoted ExecStart, restart on failure only, state dir pinned', () => {
    const u = systemdUnit(spec);
    expect(u).toContain('ExecStart="/usr/bin/node" "--max-semi-space-size=2" "--expose-gc" "/opt/a b/bin/active-brain.js" start');
    expect(u).toContain('Restart=on-failure');
    // The daemon's malloc environment (shared/daemon-node-flags.ts), the caller's pinned values after it.
    expect(u).toContain('Environment="MALLOC_MMAP_THRESHOLD_=131072"');
    expect(u).toContain('Environment="MALLOC_TRIM_THRESHOLD_=131072"');
    expect(u).toContain('Environment="MALLOC_ARENA_MAX=1"');
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

const hasSystemdAnalyze = spawnSync('sh', ['-c', 'command -v systemd-analyze'], { encoding: 'utf8' }).status === 0;
const indexSpec = { ...spec, logFile: '/home/u/.active-brain/logs/index.out', intervalMinutes: 15 };

/** Every opened XML tag is closed in order (and xmllint agrees, where installed). */
function expectWellFormedPlist(p: string) {
  const stack: string[] = [];
  for (const m of p.replace(/<\?xml[^>]*\?>|<!DOCTYPE[^>]*>/g, '').matchAll(/<(\/?)([a-zA-Z]+)[^>]*?(\/?)>/g)) {
    if (m[3]) continue;
    if (m[1]) expect(stack.pop()).toBe(m[2]);
    else stack.push(m[2]);
  }
  expect(stack).toEqual([]);
  if (spawnSync('sh', ['-c', 'command -v xmllint']).status === 0) {
    const dir = mkdtempSync(join(tmpdir(), 'ab-plist-'));
    writeFileSync(join(dir, 'a.plist'), p);
    expect(spawnSync('xmllint', ['--noout', join(dir, 'a.plist')]).status).toBe(0);
  }
}

describe('scheduled index files', () => {
  it('systemd: a oneshot `index` at nice 19 and idle I/O, started by a persistent clock timer', () => {
    const svc = systemdIndexService(indexSpec);
    expect(svc).toContain('Type=oneshot');
    expect(svc).toContain('ExecStart="/usr/bin/node" "/opt/a b/bin/active-brain.js" index\n');
    expect(svc).toContain('Nice=19');
    expect(svc).toContain('IOSchedulingClass=idle');
    expect(svc).toContain('Environment="ACTIVE_BRAIN_HOME=/home/u/.active-brain"');
    expect(svc).toContain('Environment="ACTIVE_BRAIN_TRANSCRIPTS=/t/p%%x"');
    expect(svc).not.toContain('[Install]'); // started by the timer only
    const timer = systemdIndexTimer(indexSpec);
    expect(timer).toContain('OnCalendar=*-*-* *:00/15:00');
    expect(timer).toContain('Persistent=true');
    expect(timer).toContain('Unit=active-brain-index.service');
    expect(timer).toContain('WantedBy=timers.target');
  });

  it('the config accepts exactly the intervals a clock timer spreads evenly (15 by default)', () => {
    expect(ConfigSchema.parse({}).indexer.intervalMinutes).toBe(15);
    for (let m = 0; m <= MINUTES_PER_DAY + 1; m++) {
      const even = m >= 1 && m <= MINUTES_PER_DAY && (m < 60 ? 60 % m === 0 : m % 60 === 0 && MINUTES_PER_DAY % m === 0);
      expect(isScheduleInterval(m), `${m}`).toBe(even);
      expect(ConfigSchema.safeParse({ indexer: { intervalMinutes: m } }).success, `${m}`).toBe(even);
      if (even) expect(() => onCalendarFor(m)).not.toThrow();
      else expect(() => onCalendarFor(m)).toThrow(/cannot be scheduled/);
    }
  });

  it.runIf(hasSystemdAnalyze)('systemd-analyze: every allowed interval elapses exactly that many minutes apart', () => {
    for (const m of [...SCHEDULE_MINUTES, ...SCHEDULE_HOURS.map((h) => h * 60)]) {
      const r = spawnSync('systemd-analyze', ['calendar', '--iterations', '3', onCalendarFor(m)], { encoding: 'utf8', env: { ...process.env, TZ: 'UTC' } });
      expect(r.status, r.stderr).toBe(0);
      const times = [...r.stdout.matchAll(/(?:Next elapse|Iter\. #\d): \w+ (\S+ \S+) UTC/g)].map((x) => Date.parse(`${x[1].replace(' ', 'T')}Z`));
      expect(times.length).toBe(3);
      expect(times[1] - times[0]).toBe(m * 60_000);
      expect(times[2] - times[1]).toBe(m * 60_000);
    }
  });

  it.runIf(hasSystemdAnalyze)('systemd-analyze verify accepts the service + timer and rejects broken ones', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-timer-'));
    const svcFile = join(dir, 'active-brain-index.service');
    const timerFile = join(dir, 'active-brain-index.timer');
    const s = { ...indexSpec, node: process.execPath, cli, logFile: join(dir, 'index.out') };
    const verify = (svc: string, timer: string) => {
      writeFileSync(svcFile, svc);
      writeFileSync(timerFile, timer);
      const r = spawnSync('systemd-analyze', ['verify', svcFile, timerFile], { encoding: 'utf8' });
      return { status: r.status, lines: (r.stderr + r.stdout).split('\n').filter((l) => l.includes(dir) || l.includes('active-brain-index')) };
    };
    const svc = systemdIndexService(s);
    const timer = systemdIndexTimer(s);
    expect(verify(svc, timer)).toEqual({ status: 0, lines: [] });
    // controls: a calendar systemd cannot parse, a service type that does not exist
    expect(verify(svc, timer.replace(onCalendarFor(15), '*-*-* *:00/75x:00')).lines.length).toBeGreaterThan(0);
    expect(verify(svc.replace('Type=oneshot', 'Type=sometimes'), timer).lines.length).toBeGreaterThan(0);
  });

  it('launchd: StartInterval from the config, background priority, well-formed', () => {
    const p = launchdIndexPlist({ ...indexSpec, intervalMinutes: 30, home: '/Users/a&b' });
    expect(p).toContain('<key>StartInterval</key><integer>1800</integer>');
    expect(p).toContain('<key>ProcessType</key><string>Background</string>');
    expect(p).toContain('<key>LowPriorityIO</key><true/>');
    expect(p).toContain('<string>index</string>');
    expect(p).toContain('<string>/Users/a&amp;b</string>');
    expect(p).not.toContain('KeepAlive');
    expectWellFormedPlist(p);
    expectWellFormedPlist(launchdPlist(spec));
  });
});

describe('service-manager calls (pure)', () => {
  const f = (role: PlannedFile['role'], changed: boolean, existed: boolean) => ({ role, path: `/u/${role}`, content: '', changed, existed });
  const argv = (cs: { argv: string[] }[]) => cs.map((c) => c.argv.slice(1).join(' '));

  it('systemd: reload, enable --now both; restart the daemon only when its existing unit changed', () => {
    const unchanged = [f('daemon', false, true), f('index-service', false, true), f('index-timer', false, true)];
    expect(argv(installCommands('linux', unchanged))).toEqual(['--user daemon-reload', '--user enable --now active-brain.service', '--user enable --now active-brain-index.timer']);
    const fresh = [f('daemon', true, false), f('index-service', true, false), f('index-timer', true, false)];
    expect(argv(installCommands('linux', fresh))).not.toContain('--user restart active-brain.service');
    const updated = [f('daemon', true, true), f('index-service', false, true), f('index-timer', true, true)];
    expect(argv(installCommands('linux', updated))).toContain('--user restart active-brain.service');
    const un = uninstallCommands('linux');
    expect(argv(un.before)).toEqual(['--user disable --now active-brain-index.timer', '--user stop active-brain-index.service', '--user disable --now active-brain.service']);
    expect(argv(un.after)).toEqual(['--user daemon-reload']);
  });

  it('launchd: a changed agent is unloaded before it is loaded again; an unchanged one is loaded (may already be)', () => {
    const cs = installCommands('darwin', [f('daemon', true, true), f('index-agent', false, true)]);
    expect(cs.map((c) => `${c.argv[1]}${c.mayFail ? '?' : ''}`)).toEqual(['bootout?', 'bootstrap', 'bootstrap?']);
    expect(installCommands('darwin', [f('daemon', true, false)]).map((c) => c.argv[1])).toEqual(['bootstrap']);
  });
});

describe('active-brain service (CLI, files only)', () => {
  const setupEnv = () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-svc-home-'));
    const xdg = mkdtempSync(join(tmpdir(), 'ab-svc-xdg-'));
    const dir = join(xdg, 'systemd', 'user');
    return {
      env: { ACTIVE_BRAIN_HOME: home, XDG_CONFIG_HOME: xdg, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() },
      home,
      files: ['active-brain.service', 'active-brain-index.service', 'active-brain-index.timer'].map((n) => join(dir, n)),
    };
  };

  it('install writes the daemon unit and the index service + timer, idempotently; uninstall removes all of them', () => {
    const { env, home, files } = setupEnv();
    const dry = run(env, 'service', 'install', '--platform', 'linux', '--dry-run');
    expect(dry.status).toBe(0);
    for (const f of files) expect(dry.stdout).toContain(`# would write ${f}`);
    expect(dry.stdout).toContain('Type=oneshot');
    expect(dry.stdout).toContain('OnCalendar=*-*-* *:00/15:00');
    for (const f of files) expect(existsSync(f)).toBe(false);
    // on Linux the dry run also lists what a managed install would run
    if (process.platform === 'linux') {
      expect(dry.stdout).toContain('# would run: systemctl --user enable --now active-brain.service');
      expect(dry.stdout).toContain('# would run: systemctl --user enable --now active-brain-index.timer');
    }
    expect(run(env, 'service', 'install', '--platform', 'linux', '--dry-run', '--no-manage').stdout).not.toContain('# would run');
    expect(run(env, 'service', 'status', '--platform', 'linux', '--no-manage').status).toBe(1);
    const first = JSON.parse(run(env, 'service', 'install', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(first.changed).toBe(true);
    expect(first.files.map((f: { file: string }) => f.file)).toEqual(files);
    expect(readFileSync(files[0], 'utf8')).toContain(`ACTIVE_BRAIN_HOME=${home}`);
    expect(readFileSync(files[1], 'utf8')).toContain(`ACTIVE_BRAIN_HOME=${home}`);
    expect(readFileSync(files[1], 'utf8')).toContain(`Environment="ACTIVE_BRAIN_MODEL_PATH=${offlineModelPath()}"`);
    const second = JSON.parse(run(env, 'service', 'install', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(second.changed).toBe(false);
    const st = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(st).toMatchObject({ installed: true, up_to_date: true });
    expect(st.files).toHaveLength(3);
    // a new interval makes the timer outdated until installed again
    const other = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json', '--set', 'indexer.intervalMinutes=30').stdout);
    expect(other.up_to_date).toBe(false);
    expect(other.files.filter((f: { up_to_date: boolean }) => !f.up_to_date).map((f: { role: string }) => f.role)).toEqual(['index-timer']);
    const dryUn = run(env, 'service', 'uninstall', '--platform', 'linux', '--no-manage', '--dry-run');
    for (const f of files) expect(dryUn.stdout).toContain(`would remove: ${f}`);
    for (const f of files) expect(existsSync(f)).toBe(true);
    const un = JSON.parse(run(env, 'service', 'uninstall', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(un.removed).toBe(true);
    for (const f of files) expect(existsSync(f)).toBe(false);
    expect(JSON.parse(run(env, 'service', 'uninstall', '--platform', 'linux', '--no-manage', '--json').stdout).removed).toBe(false);
  });

  it('launchd (dry run on any platform): both agents and the commands that load them', () => {
    const { env } = setupEnv();
    const r = run(env, 'service', 'install', '--platform', 'darwin', '--dry-run', '--json');
    expect(r.status).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.files.map((f: { role: string }) => f.role)).toEqual(['daemon', 'index-agent']);
    expect(j.files[1].content).toContain('<key>StartInterval</key><integer>900</integer>');
  });

  it('an interval a clock timer cannot spread evenly is a config error (exit 2) naming the allowed ones', () => {
    const { env, files } = setupEnv();
    const r = run(env, 'service', 'install', '--platform', 'linux', '--no-manage', '--set', 'indexer.intervalMinutes=45');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/intervalMinutes/);
    expect(r.stderr).toMatch(/15, 20, 30/);
    for (const f of files) expect(existsSync(f)).toBe(false);
  });

  it('status shows the last index run: its result, age, counts and exit code', () => {
    const { env, home } = setupEnv();
    run(env, 'service', 'install', '--platform', 'linux', '--no-manage');
    const none = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json').stdout);
    expect(none.last_index_run).toEqual({ last: null, pending: null });
    expect(run(env, 'service', 'status', '--platform', 'linux', '--no-manage').stdout).toContain('last index:   none recorded yet');
    // a run with nothing to index fails (exit 1) and says so
    expect(run(env, 'index').status).toBe(1);
    const failed = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json').stdout).last_index_run.last;
    expect(failed).toMatchObject({ result: 'error', exit: 1, message: expect.stringContaining('no sources yet') });
    const { age_s: _age, ...record } = failed;
    expect(validate(loadSchema('index-run'), record)).toEqual([]);
    // control: a real run is shown as ok with its counts
    const notes = mkdtempSync(join(tmpdir(), 'ab-svc-notes-'));
    writeFileSync(join(notes, 'a.md'), '# Pool\n\nRaise the idle timeout of the postgres pool to 30 s when ECONNRESET shows up.\n');
    expect(run(env, 'index', 'add', notes, '--region', 'notes').status).toBe(0);
    const st = JSON.parse(run(env, 'service', 'status', '--platform', 'linux', '--no-manage', '--json').stdout).last_index_run.last;
    expect(st).toMatchObject({ result: 'ok', exit: 0, indexed: 1, removed: 0, store: join(home, 'store.sqlite') });
    expect(st.age_s).toBeGreaterThanOrEqual(0);
    expect(st.age_s).toBeLessThan(60);
    const text = run(env, 'service', 'status', '--platform', 'linux', '--no-manage').stdout;
    expect(text).toMatch(/last index: {3}ok \d+ s ago, exit 0 \(indexed 1, unchanged 0, removed 0; [\d.]+ s\)/);
  });

  it('rejects an unknown action with a usage exit code', () => {
    const r = run({ ACTIVE_BRAIN_HOME: mkdtempSync(join(tmpdir(), 'ab-svc-')) }, 'service', 'restart');
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/install, uninstall or status/);
  });
});
void execFileSync;
