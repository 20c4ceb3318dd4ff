/**
 * `active-brain uninstall [--project] [--dry-run]`: removes only active-brain's entries
 * (UserPromptSubmit, PostToolUseFailure, PostToolUse) from Claude Code's settings (user
 * scope by default, --project for ./.claude/settings.json); every other setting and hook
 * stays. `--host codex`: the same in Codex CLI's $CODEX_HOME/hooks.json. Pure change in ops/hook-install.ts, files in ops/hook-install-files.ts.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { uninstallCodexHook, uninstallHook, type ChangeReport } from '../../ops/hook-install-files.js';
import { hostFlag } from './install.js';
import { SettingsShapeError } from '../../ops/hook-install.js';

/** What uninstall did to the file, said plainly. */
export function undoText(r: ChangeReport): string {
  if (r.undo === 'restored-original') return `hook removed: ${r.path} is back to what it was before install, byte for byte (nothing else had changed it since)`;
  if (r.undo === 'deleted-created') return `hook removed: ${r.path} deleted (install had created it)`;
  const why = r.undoNote ? ` (${r.undoNote})` : '';
  return `hook removed from ${r.path}: only our entries; the rest of the file is as it was${why}${r.backup ? `. Your settings from before install are in ${r.backup}` : ''}`;
}

export const command: Command = {
  name: 'uninstall',
  summary: 'remove the Claude Code hook entries (only ours)',
  help: `usage: active-brain uninstall [--project] [--host claude-code|codex] [--dry-run] [--json]

Removes active-brain's hook entries (UserPromptSubmit, PostToolUseFailure, PostToolUse) and
nothing else.
  (default)   user scope: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  --project   this directory's .claude/settings.json
  --dry-run   show the change and write nothing
  --host codex  Codex CLI's $CODEX_HOME/hooks.json (else ~/.codex/hooks.json) instead
When nothing else changed the file since \`install\` wrote it, the original comes back byte
for byte (install kept it in settings.json.active-brain.bak), or the file is deleted when
install created it. Otherwise only our entries are removed and the rest of the text is kept
as it is (the .bak keeps your settings from before install). Invalid JSON: nothing changed, exit 1.
Mentions any registration left at the other scope.`,
  async run(argv) {
    const { values } = parseFlags(argv, { project: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, host: { type: 'string' } }, false);
    const dryRun = Boolean(values['dry-run']);
    const host = hostFlag(values.host);
    if (host === 'codex' && values.project) throw new UserError('--project is for Claude Code; with --host codex the user hooks file ($CODEX_HOME/hooks.json) is changed. Drop --project.', EXIT.USAGE);
    let report;
    try {
      report = host === 'codex'
        ? uninstallCodexHook({ cwd: process.cwd(), env: process.env, dryRun })
        : uninstallHook({ scope: values.project ? 'project' : 'user', cwd: process.cwd(), env: process.env, dryRun });
    } catch (e) {
      if (e instanceof SettingsShapeError) throw new UserError(e.message, EXIT.FAIL);
      throw e;
    }
    const { text: _text, ...shown } = report; // the file itself is not echoed (it may hold secrets)
    if (values.json) printJson(shown);
    else if (!report.changed) process.stdout.write(`no active-brain hook in ${report.path}; nothing changed.\n`);
    else if (dryRun) process.stdout.write(`would change ${report.path}:\n${report.diff}\n`);
    else process.stdout.write(`${undoText(report)}\n`);
    for (const d of report.duplicates) process.stderr.write(`active-brain: note: the hook is still registered in ${d}.\n`);
    return EXIT.OK;
  },
};
