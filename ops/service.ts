/**
 * Installs, removes and inspects the daemon's user service (systemd on Linux, launchd on
 * macOS). File generation is pure (ops/service-files.ts); this module does the IO: where the
 * file goes, atomic write, and the service manager calls (skipped with a note when the
 * manager is not reachable, e.g. no user systemd session, or with --dry-run).
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { homedir, userInfo } from 'node:os';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnSync } from 'node:child_process';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';
import { homeDir, logsDir } from '../shared/paths.js';
import { LAUNCHD_LABEL, SYSTEMD_UNIT_NAME, launchdPlist, systemdUnit, type ServiceSpec } from './service-files.js';

export type Platform = 'linux' | 'darwin';

export interface ServicePlan {
  platform: Platform;
  file: string;
  content: string;
  /** Service-manager commands to run after writing (install) or before removing (uninstall). */
  commands: string[][];
}

/** Environment variables worth pinning into the service when the user has set them. */
const PINNED_ENV = ['ACTIVE_BRAIN_TRANSCRIPTS', 'ACTIVE_BRAIN_MODEL_PATH', 'ACTIVE_BRAIN_MODEL', 'ACTIVE_BRAIN_STORE', 'CLAUDE_CONFIG_DIR'];

export function cliPath(): string {
  // dist/ops/service.js → <package>/bin/active-brain.js
  return resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'active-brain.js');
}

export function serviceSpec(env: NodeJS.ProcessEnv = process.env): ServiceSpec {
  const pinned: Record<string, string> = {};
  for (const k of PINNED_ENV) if (env[k]) pinned[k] = resolve(env[k] as string);
  return { node: process.execPath, cli: cliPath(), home: homeDir(env), env: pinned, logFile: join(logsDir(env), 'daemon.out') };
}

export function servicePlan(platform: Platform, action: 'install' | 'uninstall', env: NodeJS.ProcessEnv = process.env): ServicePlan {
  const spec = serviceSpec(env);
  if (platform === 'linux') {
    const dir = join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'systemd', 'user');
    const file = join(dir, SYSTEMD_UNIT_NAME);
    const commands = action === 'install'
      ? [['systemctl', '--user', 'daemon-reload'], ['systemctl', '--user', 'enable', '--now', SYSTEMD_UNIT_NAME]]
      : [['systemctl', '--user', 'disable', '--now', SYSTEMD_UNIT_NAME], ['systemctl', '--user', 'daemon-reload']];
    return { platform, file, content: systemdUnit(spec), commands };
  }
  const file = join(homedir(), 'Library', 'LaunchAgents', `${LAUNCHD_LABEL}.plist`);
  const domain = `gui/${userInfo().uid}`;
  const commands = action === 'install'
    ? [['launchctl', 'bootstrap', domain, file]]
    : [['launchctl', 'bootout', `${domain}/${LAUNCHD_LABEL}`]];
  return { platform, file, content: launchdPlist(spec), commands };
}

export interface CommandOutcome {
  command: string;
  ok: boolean;
  detail: string;
}

function runManager(cmd: string[]): CommandOutcome {
  const r = spawnSync(cmd[0], cmd.slice(1), { encoding: 'utf8', timeout: 15_000 });
  const detail = (r.error?.message ?? (r.stderr || r.stdout || '')).trim().split('\n')[0] ?? '';
  return { command: cmd.join(' '), ok: !r.error && r.status === 0, detail };
}

export interface InstallResult {
  file: string;
  changed: boolean;
  content: string;
  commands: CommandOutcome[];
  dryRun: boolean;
  /** Dry run: the service-manager commands a real install would run (when managing). */
  wouldRun?: string[];
}

export function installService(platform: Platform, opts: { dryRun: boolean; manage: boolean }, env = process.env): InstallResult {
  const plan = servicePlan(platform, 'install', env);
  const current = existsSync(plan.file) ? readFileSync(plan.file, 'utf8') : null;
  const changed = current !== plan.content;
  if (opts.dryRun) return { file: plan.file, changed, content: plan.content, commands: [], dryRun: true, wouldRun: opts.manage ? plan.commands.map((c) => c.join(' ')) : [] };
  ensureDir(dirname(plan.file));
  ensureDir(logsDir(env));
  if (changed) writeFileAtomic(plan.file, plan.content, 0o644);
  const commands = opts.manage ? plan.commands.map(runManager) : [];
  return { file: plan.file, changed, content: plan.content, commands, dryRun: false };
}

export function uninstallService(platform: Platform, opts: { dryRun: boolean; manage: boolean }, env = process.env) {
  const plan = servicePlan(platform, 'uninstall', env);
  const present = existsSync(plan.file);
  if (opts.dryRun || !present) return { file: plan.file, removed: false, present, commands: [] as CommandOutcome[], dryRun: opts.dryRun };
  const commands = opts.manage ? plan.commands.map(runManager) : [];
  rmSync(plan.file, { force: true });
  return { file: plan.file, removed: true, present, commands, dryRun: false };
}

export function serviceStatus(platform: Platform, opts: { manage: boolean }, env = process.env) {
  const plan = servicePlan(platform, 'install', env);
  const present = existsSync(plan.file);
  const upToDate = present && readFileSync(plan.file, 'utf8') === plan.content;
  let manager: CommandOutcome | null = null;
  if (opts.manage && present) {
    manager = platform === 'linux'
      ? runManager(['systemctl', '--user', 'is-active', SYSTEMD_UNIT_NAME])
      : runManager(['launchctl', 'print', `gui/${userInfo().uid}/${LAUNCHD_LABEL}`]);
  }
  return { platform, file: plan.file, installed: present, up_to_date: upToDate, manager };
}
