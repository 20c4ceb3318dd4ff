/**
 * `active-brain service install|uninstall|status [--dry-run]`: the daemon as a systemd user
 * unit (Linux) or a launchd agent (macOS). See ops/service.ts.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { installService, uninstallService, serviceStatus, type Platform } from '../../ops/service.js';

function platformOf(flag: string | undefined): Platform {
  const p = flag ?? process.platform;
  if (p === 'linux' || p === 'darwin') return p;
  throw new UserError(`no user service manager support for platform "${p}" (linux: systemd, darwin: launchd). Run \`active-brain start --detach\` instead.`, EXIT.ENV);
}

export const command: Command = {
  name: 'service',
  summary: 'install the daemon as a systemd user unit / launchd agent',
  help: `usage: active-brain service install|uninstall|status [--dry-run] [--no-manage] [--platform linux|darwin] [--json]

install    write the unit (~/.config/systemd/user/active-brain.service) or agent
           (~/Library/LaunchAgents/dev.active-brain.daemon.plist) for this node binary, this
           CLI and this state dir, then enable and start it (systemctl --user / launchctl).
           Idempotent: an identical file is left alone. Restarts on failure only, so the kill
           file and idle exit stop it for good. Output: $ACTIVE_BRAIN_HOME/logs/daemon.out.
uninstall  stop, disable and remove it.
status     whether it is installed, up to date with this install, and what the manager says.

--dry-run    print what would be written and run; change nothing.
--no-manage  write/remove the file only; do not call systemctl/launchctl.
--platform   generate for another platform (useful with --dry-run).`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, {
      'dry-run': { type: 'boolean' },
      'no-manage': { type: 'boolean' },
      platform: { type: 'string' },
    });
    const action = positionals[0];
    const platform = platformOf(values.platform);
    const dryRun = Boolean(values['dry-run']);
    const manage = !values['no-manage'] && platform === process.platform;
    if (action === 'install') {
      const r = installService(platform, { dryRun, manage });
      if (values.json) printJson(r);
      else {
        if (dryRun) {
          process.stdout.write(`# would write ${r.file}${r.changed ? '' : ' (unchanged)'}\n${r.content}`);
          for (const c of r.wouldRun ?? []) process.stdout.write(`# would run: ${c}\n`);
        }
        else process.stdout.write(`${r.changed ? 'wrote' : 'unchanged'}: ${r.file}\n`);
        for (const c of r.commands) process.stdout.write(`${c.ok ? 'ok  ' : 'FAIL'} ${c.command}${c.ok ? '' : `: ${c.detail}`}\n`);
        if (!dryRun && !manage) process.stdout.write(`not started: run ${platform === 'linux' ? 'systemctl --user enable --now active-brain.service' : 'launchctl bootstrap gui/$(id -u) ' + r.file}\n`);
      }
      return r.commands.every((c) => c.ok) ? EXIT.OK : EXIT.ENV;
    }
    if (action === 'uninstall') {
      const r = uninstallService(platform, { dryRun, manage });
      if (values.json) printJson(r);
      else process.stdout.write(r.removed ? `removed: ${r.file}\n` : r.present ? `would remove: ${r.file}\n` : `not installed: ${r.file}\n`);
      return EXIT.OK;
    }
    if (action === 'status') {
      const r = serviceStatus(platform, { manage });
      if (values.json) printJson(r);
      else process.stdout.write(`${r.installed ? 'installed' : 'not installed'}${r.installed ? (r.up_to_date ? ', up to date' : ', OUTDATED (run service install)') : ''}: ${r.file}\n${r.manager ? `manager: ${r.manager.detail || (r.manager.ok ? 'active' : 'inactive')}\n` : ''}`);
      return r.installed ? EXIT.OK : EXIT.FAIL;
    }
    throw new UserError('expected install, uninstall or status. Run `active-brain service --help`.', EXIT.USAGE);
  },
};
