/**
 * Installs, removes and inspects the user services: the daemon (systemd unit / launchd agent)
 * and, beside it, the scheduled incremental index (systemd oneshot service + timer / launchd
 * agent with StartInterval). File generation is pure (ops/service-files.ts,
 * ops/index-schedule-files.ts); this module does the IO: where the files go, atomic writes,
 * and the service-manager calls (skipped with --no-manage, only listed with --dry-run).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';
import { homeDir, logsDir } from '../shared/paths.js';
import { cliPath, indexOutFile } from '../daemon/index-job.js';
import type { Config } from '../config/schema.js';
import { LAUNCHD_LABEL, SYSTEMD_UNIT_NAME, launchdPlist, systemdUnit, type ServiceSpec } from './service-files.js';
import {
  INDEX_LAUNCHD_LABEL, INDEX_SERVICE_NAME, INDEX_TIMER_NAME, launchdIndexPlist, systemdIndexService, systemdIndexTimer,
} from './index-schedule-files.js';

export type Platform = 'linux' | 'darwin';

/** What each file is for (also its key in --json output). */
export const SERVICE_ROLES = ['daemon', 'index-service', 'index-timer', 'index-agent'] as const;
export type ServiceRole = (typeof SERVICE_ROLES)[number];

export interface PlannedFile {
  role: ServiceRole;
  path: string;
  content: string;
}

export interface ManagerCommand {
  argv: string[];
  /** A failure is expected in some states (e.g. unloading an agent that is not loaded). */
  mayFail?: boolean;
}

export interface ServicePlan {
  platform: Platform;
  files: PlannedFile[];
}

/** Config keys pinned into the services as environment when set (paths made absolute), so
 *  a unit says which model, root and store it runs with. Taken from the effective config —
 *  config.json, where `setup` and `service install` persist them (config/persist.ts) — so a
 *  new shell computes the same units and `service status` does not call them outdated. */
const PINNED_KEYS = [
  { name: 'ACTIVE_BRAIN_TRANSCRIPTS', value: (c: Config) => c.transcriptsRoot, path: true },
  { name: 'ACTIVE_BRAIN_MODEL_PATH', value: (c: Config) => c.embedding.localModelPath, path: true },
  { name: 'ACTIVE_BRAIN_MODEL', value: (c: Config) => c.embedding.model, path: false },
  { name: 'ACTIVE_BRAIN_STORE', value: (c: Config) => c.store.path, path: true },
] as const;
/** Environment that is no config key but decides where Claude Code's files are. */
const PINNED_ENV = ['CLAUDE_CONFIG_DIR'] as const;
/** How long one service-manager call may take. */
const MANAGER_TIMEOUT_MS = 15_000;


/** The environment a unit pins (pure): the set config keys of PINNED_KEYS, then PINNED_ENV. */
export function servicePins(config: Config, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const pinned: Record<string, string> = {};
  for (const k of PINNED_KEYS) {
    const v = k.value(config);
    if (v) pinned[k.name] = k.path ? resolve(v) : v;
  }
  for (const k of PINNED_ENV) if (env[k]) pinned[k] = resolve(env[k] as string);
  return pinned;
}

export function serviceSpec(config: Config, env: NodeJS.ProcessEnv = process.env): ServiceSpec {
  return { node: process.execPath, cli: cliPath(), home: homeDir(env), env: servicePins(config, env), logFile: join(logsDir(env), 'daemon.out') };
}

export { cliPath, indexOutFile };

/** What every service call needs from the config. */
export interface ServiceOptions {
  config: Config;
}

export function servicePlan(platform: Platform, opts: ServiceOptions, env: NodeJS.ProcessEnv = process.env): ServicePlan {
  const spec = serviceSpec(opts.config, env);
  const index = { ...spec, logFile: indexOutFile(env), intervalMinutes: opts.config.indexer.intervalMinutes };
  if (platform === 'linux') {
    const dir = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'systemd', 'user');
    return {
      platform,
      files: [
        { role: 'daemon', path: join(dir, SYSTEMD_UNIT_NAME), content: systemdUnit(spec) },
        { role: 'index-service', path: join(dir, INDEX_SERVICE_NAME), content: systemdIndexService(index) },
        { role: 'index-timer', path: join(dir, INDEX_TIMER_NAME), content: systemdIndexTimer(index) },
      ],
    };
  }
  const dir = join(homedir(), 'Library', 'LaunchAgents');
  return {
    platform,
    files: [
      { role: 'daemon', path: join(dir, `${LAUNCHD_LABEL}.plist`), content: launchdPlist(spec) },
      { role: 'index-agent', path: join(dir, `${INDEX_LAUNCHD_LABEL}.plist`), content: launchdIndexPlist(index) },
    ],
  };
}

const launchdDomain = () => `gui/${userInfo().uid}`;
const labelOf = (role: ServiceRole) => (role === 'daemon' ? LAUNCHD_LABEL : INDEX_LAUNCHD_LABEL);

/**
 * Manager calls for an install, given which files were new or changed (pure): systemd reloads,
 * enables and starts the daemon and the timer (a no-op when they run), restarting the daemon
 * when its unit changed;
 * launchd unloads a changed agent before loading it again.
 */
export function installCommands(platform: Platform, files: Array<PlannedFile & { changed: boolean; existed: boolean }>): ManagerCommand[] {
  const byRole = (r: ServiceRole) => files.find((f) => f.role === r);
  if (platform === 'linux') {
    const daemon = byRole('daemon');
    const cmds: ManagerCommand[] = [];
    // Always: a unit written by an earlier install whose manager call failed is loaded now.
    cmds.push({ argv: ['systemctl', '--user', 'daemon-reload'] });
    cmds.push({ argv: ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT_NAME] });
    if (daemon?.changed && daemon.existed) cmds.push({ argv: ['systemctl', '--user', 'restart', SYSTEMD_UNIT_NAME] });
    cmds.push({ argv: ['systemctl', '--user', 'enable', '--now', INDEX_TIMER_NAME] });
    return cmds;
  }
  const cmds: ManagerCommand[] = [];
  for (const f of files) {
    const target = `${launchdDomain()}/${labelOf(f.role)}`;
    if (!f.changed && f.existed) {
      // Loaded already (or not): loading it again fails harmlessly when it is.
      cmds.push({ argv: ['launchctl', 'bootstrap', launchdDomain(), f.path], mayFail: true });
      continue;
    }
    if (f.existed) cmds.push({ argv: ['launchctl', 'bootout', target], mayFail: true });
    cmds.push({ argv: ['launchctl', 'bootstrap', launchdDomain(), f.path] });
  }
  return cmds;
}

/**
 * Manager calls before the files are removed (stop and disable), then after (reload).
 * Without a reachable manager (no user bus): only `disable` of the enablement links, which
 * systemctl does on the files alone; nothing runs under a manager nobody can reach.
 */
export function uninstallCommands(platform: Platform, reachable = true): { before: ManagerCommand[]; after: ManagerCommand[] } {
  if (platform === 'linux' && !reachable) {
    return { before: [INDEX_TIMER_NAME, SYSTEMD_UNIT_NAME].map((u) => ({ argv: ['systemctl', '--user', 'disable', u], mayFail: true })), after: [] };
  }
  if (platform === 'linux') {
    return {
      before: [
        { argv: ['systemctl', '--user', 'disable', '--now', INDEX_TIMER_NAME], mayFail: true },
        // A run in progress is stopped with SIGTERM and recorded as interrupted.
        { argv: ['systemctl', '--user', 'stop', INDEX_SERVICE_NAME], mayFail: true },
        { argv: ['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT_NAME], mayFail: true },
      ],
      after: [{ argv: ['systemctl', '--user', 'daemon-reload'] }],
    };
  }
  return {
    before: [LAUNCHD_LABEL, INDEX_LAUNCHD_LABEL].map((l) => ({ argv: ['launchctl', 'bootout', `${launchdDomain()}/${l}`], mayFail: true })),
    after: [],
  };
}

export interface CommandOutcome {
  command: string;
  ok: boolean;
  /** A failure that does not count (see ManagerCommand.mayFail). */
  tolerated: boolean;
  detail: string;
}

/** What a manager call said: on a failure its last line (systemctl reports what it did, e.g.
 *  `Removed "…"`, before the error that failed it); on success its first. Pure. */
export function outcomeDetail(ok: boolean, output: string): string {
  const lines = output.trim().split('\n').map((l) => l.trim()).filter(Boolean);
  return (ok ? lines[0] : lines[lines.length - 1]) ?? '';
}

function runManager(cmd: ManagerCommand): CommandOutcome {
  const r = spawnSync(cmd.argv[0], cmd.argv.slice(1), { encoding: 'utf8', timeout: MANAGER_TIMEOUT_MS });
  const ok = !r.error && r.status === 0;
  const detail = r.error ? r.error.message : outcomeDetail(ok, `${r.stderr ?? ''}\n${r.stdout ?? ''}`);
  return { command: cmd.argv.join(' '), ok, tolerated: !ok && Boolean(cmd.mayFail), detail };
}

/** Whether the user service manager answers: systemd's user instance over its bus (absent in
 *  containers, WSL and SSH sessions without lingering), or launchd's GUI domain. */
export interface ManagerReach {
  reachable: boolean;
  /** The probe and what it said (on failure: why, e.g. `Failed to connect to bus`). */
  detail: string;
}

export function probeManager(platform: Platform): ManagerReach {
  const argv = platform === 'linux' ? ['systemctl', '--user', 'show-environment'] : ['launchctl', 'print', launchdDomain()];
  const r = runManager({ argv });
  return { reachable: r.ok, detail: r.ok ? `${r.command}: answers` : `${r.command}: ${r.detail || 'failed'}` };
}

/** Every manager call succeeded or was allowed to fail. */
export const commandsOk = (cs: CommandOutcome[]) => cs.every((c) => c.ok || c.tolerated);

export interface FileResult {
  role: ServiceRole;
  file: string;
  changed: boolean;
  content: string;
}

export interface InstallResult {
  platform: Platform;
  /** The daemon's unit / agent (kept for scripts that read one path). */
  file: string;
  files: FileResult[];
  /** Any file new or different. */
  changed: boolean;
  content: string;
  commands: CommandOutcome[];
  dryRun: boolean;
  /** Dry run: the service-manager commands a real install would run (when managing). */
  wouldRun?: string[];
  /** Managing, but the manager did not answer (ManagerReach.detail): the files are written,
   *  no command was run, nothing runs them. Absent when it answered or was not asked. */
  unreachable?: string;
}

function current(path: string): string | null {
  return existsSync(path) ? readFileSync(path, 'utf8') : null;
}

export function installService(
  platform: Platform, opts: ServiceOptions & { dryRun: boolean; manage: boolean }, env = process.env,
): InstallResult {
  const plan = servicePlan(platform, opts, env);
  const files = plan.files.map((f) => {
    const was = current(f.path);
    return { ...f, existed: was !== null, changed: was !== f.content };
  });
  const commands = installCommands(platform, files);
  const shown = files.map((f) => ({ role: f.role, file: f.path, changed: f.changed, content: f.content }));
  const daemon = shown.find((f) => f.role === 'daemon')!;
  const base = { platform, file: daemon.file, files: shown, changed: files.some((f) => f.changed), content: daemon.content };
  if (opts.dryRun) return { ...base, commands: [], dryRun: true, wouldRun: opts.manage ? commands.map((c) => c.argv.join(' ')) : [] };
  ensureDir(logsDir(env));
  for (const f of files) {
    if (!f.changed) continue;
    ensureDir(dirname(f.path));
    writeFileAtomic(f.path, f.content, 0o644);
  }
  if (!opts.manage) return { ...base, commands: [], dryRun: false };
  const reach = probeManager(platform);
  if (!reach.reachable) return { ...base, commands: [], dryRun: false, unreachable: reach.detail };
  return { ...base, commands: commands.map(runManager), dryRun: false };
}

export interface UninstallResult {
  platform: Platform;
  file: string;
  files: Array<{ role: ServiceRole; file: string; present: boolean }>;
  /** Some file was (dry run: would be) removed. */
  present: boolean;
  removed: boolean;
  commands: CommandOutcome[];
  dryRun: boolean;
  wouldRun?: string[];
}

export function uninstallService(
  platform: Platform, opts: ServiceOptions & { dryRun: boolean; manage: boolean }, env = process.env,
): UninstallResult {
  const plan = servicePlan(platform, opts, env);
  const files = plan.files.map((f) => ({ role: f.role, file: f.path, present: existsSync(f.path) }));
  const present = files.some((f) => f.present);
  const reachable = opts.manage && !opts.dryRun && present ? probeManager(platform).reachable : true;
  const { before, after } = uninstallCommands(platform, reachable);
  const base = { platform, file: files[0].file, files, present };
  if (opts.dryRun || !present) {
    return { ...base, removed: false, commands: [], dryRun: opts.dryRun, wouldRun: opts.dryRun && present && opts.manage ? [...before, ...after].map((c) => c.argv.join(' ')) : [] };
  }
  const commands = opts.manage ? before.map(runManager) : [];
  for (const f of files) rmSync(f.file, { force: true });
  if (opts.manage) commands.push(...after.map(runManager));
  return { ...base, removed: true, commands, dryRun: false };
}

export interface ServiceStatus {
  platform: Platform;
  file: string;
  files: Array<{ role: ServiceRole; file: string; installed: boolean; up_to_date: boolean }>;
  /** Every file present. */
  installed: boolean;
  /** Every file present and identical to what this install would write. */
  up_to_date: boolean;
  /** What the service manager says, per unit / agent (when managing). */
  manager: Array<{ unit: string } & CommandOutcome>;
}

export function serviceStatus(platform: Platform, opts: ServiceOptions & { manage: boolean }, env = process.env): ServiceStatus {
  const plan = servicePlan(platform, opts, env);
  const files = plan.files.map((f) => {
    const was = current(f.path);
    return { role: f.role, file: f.path, installed: was !== null, up_to_date: was === f.content };
  });
  const manager: ServiceStatus['manager'] = [];
  const reach = opts.manage && files.some((f) => f.installed) ? probeManager(platform) : null;
  if (reach && !reach.reachable) {
    manager.push({ unit: platform === 'linux' ? 'systemd --user' : 'launchd', command: reach.detail, ok: false, tolerated: false, detail: `unreachable (${reach.detail}): nothing runs these files` });
  } else if (opts.manage) {
    const units = platform === 'linux'
      ? [SYSTEMD_UNIT_NAME, INDEX_TIMER_NAME].map((u) => ({ unit: u, argv: ['systemctl', '--user', 'is-active', u] }))
      : [LAUNCHD_LABEL, INDEX_LAUNCHD_LABEL].map((l) => ({ unit: l, argv: ['launchctl', 'print', `${launchdDomain()}/${l}`] }));
    for (const u of units) if (files.some((f) => f.installed)) manager.push({ unit: u.unit, ...runManager({ argv: u.argv }) });
  }
  return {
    platform,
    file: files[0].file,
    files,
    installed: files.every((f) => f.installed),
    up_to_date: files.every((f) => f.up_to_date),
    manager,
  };
}

/** Whether the service manager runs the scheduled index now: the systemd timer is active, or
 *  the launchd agent is loaded. `detail` says what the manager answered (or why it did not). */
export function managerSchedule(platform: Platform): { active: boolean; detail: string } {
  const argv = platform === 'linux'
    ? ['systemctl', '--user', 'is-active', INDEX_TIMER_NAME]
    : ['launchctl', 'print', `${launchdDomain()}/${INDEX_LAUNCHD_LABEL}`];
  const r = runManager({ argv });
  const name = platform === 'linux' ? INDEX_TIMER_NAME : INDEX_LAUNCHD_LABEL;
  return { active: r.ok, detail: `${name}: ${r.ok ? 'active' : r.detail || 'inactive'}` };
}
