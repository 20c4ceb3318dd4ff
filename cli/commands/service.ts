/**
 * `active-brain service install|uninstall|status [--dry-run]`: the daemon as a systemd user
 * unit (Linux) or a launchd agent (macOS), and beside it the scheduled incremental index
 * (systemd timer / launchd StartInterval, every indexer.intervalMinutes). See ops/service.ts;
 * the last index run comes from logs/index.jsonl (daemon/index-runs.ts).
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { applyChoices, choicesFrom, persistChoices } from '../../config/persist.js';
import { defaultStorePath } from '../../shared/paths.js';
import {
  commandsOk, installService, uninstallService, serviceStatus, type InstallResult, type Platform, type ServiceStatus, type UninstallResult,
} from '../../ops/service.js';
import { describeLastRun, lastIndexRun, readIndexLog, type LastIndexRun } from '../../daemon/index-runs.js';

function platformOf(flag: string | undefined): Platform {
  const p = flag ?? process.platform;
  if (p === 'linux' || p === 'darwin') return p;
  throw new UserError(`no user service manager support for platform "${p}" (linux: systemd, darwin: launchd). Run \`active-brain start --detach\` for the daemon and \`active-brain index\` from your own scheduler (cron) instead.`, EXIT.ENV);
}

export function installText(r: InstallResult, manage: boolean): string {
  const out: string[] = [];
  for (const f of r.files) {
    if (r.dryRun) out.push(`# would write ${f.file}${f.changed ? '' : ' (unchanged)'}`, f.content.trimEnd());
    else out.push(`${f.changed ? 'wrote' : 'unchanged'}: ${f.file}`);
  }
  for (const c of r.wouldRun ?? []) out.push(`# would run: ${c}`);
  for (const c of r.commands) out.push(`${c.ok ? 'ok  ' : c.tolerated ? 'skip' : 'FAIL'} ${c.command}${c.ok ? '' : `: ${c.detail}`}`);
  if (r.unreachable) {
    out.push(`FAIL no user service manager reachable (${r.unreachable}): the files are written but nothing runs them. ` +
      'Without one, `active-brain setup` starts the daemon detached and has it run the scheduled index itself (indexer.schedule = "daemon").');
  }
  if (!r.dryRun && !manage) {
    out.push(r.platform === 'linux'
      ? 'not started: run systemctl --user daemon-reload && systemctl --user enable --now active-brain.service active-brain-index.timer'
      : `not started: run ${r.files.map((f) => `launchctl bootstrap gui/$(id -u) ${f.file}`).join(' && ')}`);
  }
  return out.join('\n') + '\n';
}

function uninstallText(r: UninstallResult): string {
  const out: string[] = [];
  for (const f of r.files) out.push(!f.present ? `not installed: ${f.file}` : r.removed ? `removed: ${f.file}` : `would remove: ${f.file}`);
  for (const c of r.wouldRun ?? []) out.push(`# would run: ${c}`);
  for (const c of r.commands) out.push(`${c.ok ? 'ok  ' : c.tolerated ? 'skip' : 'FAIL'} ${c.command}${c.ok ? '' : `: ${c.detail}`}`);
  return out.join('\n') + '\n';
}

function statusText(r: ServiceStatus & { last_index_run: LastIndexRun }, daemonSchedule: boolean): string {
  const out = r.files.map((f) => `${f.role.padEnd(13)} ${f.installed ? (f.up_to_date ? 'installed, up to date' : 'installed, OUTDATED (run service install)') : 'not installed'}: ${f.file}`);
  for (const m of r.manager) out.push(`manager:      ${m.unit}: ${m.detail || (m.ok ? 'active' : 'inactive')}`);
  out.push(`last index:   ${describeLastRun(r.last_index_run)}`);
  if (!r.installed && daemonSchedule) {
    out.push('not installed: the daemon runs the scheduled index itself (indexer.schedule = "daemon": setup\'s fallback without a user service manager; `active-brain status` shows it)');
  } else if (!r.installed) out.push('not (fully) installed: run `active-brain service install` (or `active-brain setup`)');
  return out.join('\n') + '\n';
}

export const command: Command = {
  name: 'service',
  summary: 'install the daemon and the scheduled index as systemd user units / launchd agents',
  help: `usage: active-brain service install|uninstall|status [--dry-run] [--no-manage] [--platform linux|darwin] [--json]

install    Linux: write ~/.config/systemd/user/active-brain.service (the daemon) and
           active-brain-index.service + active-brain-index.timer (the scheduled index);
           macOS: ~/Library/LaunchAgents/dev.active-brain.daemon.plist and
           dev.active-brain.index.plist — for this node binary, this CLI and this state dir —
           then enable and start them (systemctl --user / launchctl).
           The daemon restarts on failure only, so the kill file and idle exit stop it for
           good; output: $ACTIVE_BRAIN_HOME/logs/daemon.out.
           The scheduled index runs \`active-brain index\` (incremental: unchanged files are
           skipped) every indexer.intervalMinutes (default 15), at nice 19 and idle I/O
           priority (launchd: Background, LowPriorityIO); a run missed while the machine
           slept happens at wake (systemd Persistent=true). Output: logs/index.out; every
           run is recorded in logs/index.jsonl. It is the store's only writer besides you.
           Idempotent: identical files are left alone.
uninstall  stop, disable and remove all of them.
status     whether each file is installed and up to date with this install, what the
           manager says, and the last index run (result, age, counts, exit code).

--dry-run    print every file that would be written and every command that would run; change nothing.
--no-manage  write/remove the files only; do not call systemctl/launchctl.
--platform   generate for another platform (useful with --dry-run).
Exit codes: 0 done · 1 status: not installed · 2 usage · 3 the service manager failed or
the platform has none.`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, {
      'dry-run': { type: 'boolean' },
      'no-manage': { type: 'boolean' },
      platform: { type: 'string' },
    });
    const action = positionals[0];
    if (action !== 'install' && action !== 'uninstall' && action !== 'status') {
      throw new UserError('expected install, uninstall or status. Run `active-brain service --help`.', EXIT.USAGE);
    }
    const platform = platformOf(values.platform);
    const { config, sources } = loadConfig({ flags: values.set });
    const dryRun = Boolean(values['dry-run']);
    const manage = !values['no-manage'] && platform === process.platform;
    if (action === 'install') {
      // The units read config.json: what this shell set (model folder, roots, store) goes there
      // first, so the units, a new shell and the hook agree (config/persist.ts).
      const choices = choicesFrom(config, sources, process.env);
      const persisted = persistChoices(choices, { dryRun });
      const r = installService(platform, { config: applyChoices(config, choices), dryRun, manage });
      const running = manage && !dryRun && !r.unreachable && commandsOk(r.commands);
      // The timer runs the schedule now: the daemon no longer needs to (indexer.schedule).
      if (running && config.indexer.schedule !== 'service') persisted.changed.push(...persistChoices({ 'indexer.schedule': 'service' }, { dryRun }).changed);
      if (values.json) printJson({ ...r, config: { file: persisted.file, changed: persisted.changed } });
      else {
        if (persisted.changed.length) process.stdout.write(`${dryRun ? 'would write' : 'wrote'} ${persisted.changed.join(', ')} to ${persisted.file}\n`);
        process.stdout.write(installText(r, manage));
      }
      return r.unreachable || !commandsOk(r.commands) ? EXIT.ENV : EXIT.OK;
    }
    if (action === 'uninstall') {
      const r = uninstallService(platform, { config, dryRun, manage });
      if (values.json) printJson(r);
      else process.stdout.write(uninstallText(r));
      return commandsOk(r.commands) ? EXIT.OK : EXIT.ENV;
    }
    const storePath = config.store.path ?? defaultStorePath();
    const r = { ...serviceStatus(platform, { config, manage }), last_index_run: lastIndexRun(readIndexLog(), storePath) };
    if (values.json) printJson(r);
    else process.stdout.write(statusText(r, config.indexer.schedule === 'daemon'));
    return r.installed ? EXIT.OK : EXIT.FAIL;
  },
};
