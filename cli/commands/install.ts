/**
 * `active-brain install [--project] [--dry-run]`: registers the hook in Claude Code's
 * settings under UserPromptSubmit, PostToolUseFailure and PostToolUse (user scope by
 * default, honouring CLAUDE_CONFIG_DIR; --project: ./.claude/settings.json) and writes
 * <home>/hook-settings.json from the effective config. `--host codex`: Codex CLI's
 * $CODEX_HOME/hooks.json instead (UserPromptSubmit and PostToolUse; docs/CODEX.md). The merge itself is pure
 * (ops/hook-install.ts); file handling in ops/hook-install-files.ts.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { writeHookSettings } from '../../config/hook-settings.js';
import { installCodexHook, installHook, packageRoot } from '../../ops/hook-install-files.js';
import { SettingsShapeError, CODEX_POST_TOOL_USE_MATCHER } from '../../ops/hook-install.js';
import { pluginRegistrations } from '../../ops/plugin-registration.js';
import { HOSTS, type Host } from '../../transcript/host.js';

/** `--host` → the agent whose hooks file to change (Claude Code unless told otherwise). */
export function hostFlag(v: unknown): Host {
  if (v === undefined) return 'claude-code';
  if (typeof v === 'string' && (HOSTS as readonly string[]).includes(v)) return v as Host;
  throw new UserError(`--host must be one of ${HOSTS.join(', ')} (got ${String(v)}). Run with --help for usage.`, EXIT.USAGE);
}

export const command: Command = {
  name: 'install',
  summary: 'register the Claude Code hook (prompt and tool events)',
  help: `usage: active-brain install [--project] [--host claude-code|codex] [--dry-run] [--json] [--set key.path=value ...]

Adds the hook ("<node> <package>/bin/active-brain-hook.cjs", timeout 5 s) to Claude Code's
settings under two events, and writes $ACTIVE_BRAIN_HOME/hook-settings.json for the hook:
  UserPromptSubmit     the prompt channel
  PostToolUseFailure   the tool channel, every tool (a failed call: the Past fix; Claude Code
                       sends a Bash exit code ≠ 0 and an MCP isError result here)
Not PostToolUse: it would start the hook after every successful tool call, with nothing to
fix (an older install's PostToolUse entry is removed; docs/HOOK.md "What each event costs").
  (default)   user scope: $CLAUDE_CONFIG_DIR/settings.json, else ~/.claude/settings.json
  --project   this directory's .claude/settings.json
  --dry-run   show the change (a line diff) and write nothing
  --host codex  Codex CLI instead: $CODEX_HOME/hooks.json (else ~/.codex/hooks.json) gets
              UserPromptSubmit and PostToolUse (matcher ${CODEX_POST_TOOL_USE_MATCHER}); Codex
              has no failure event. config.toml is not touched (Codex before hooks were on by
              default needs [features] codex_hooks = true there).
Idempotent: entries already present are left alone (an older path of ours is updated; an
install from before the tool channel gains the tool event).
Every other setting and hook is kept; your original is saved once, at the first install that
changes the file, as settings.json.active-brain.bak (\`uninstall\` puts it back).
Invalid JSON in the settings file: nothing is changed, exit 1.
Warns when the hook is also registered at the other scope, or when the active-brain Claude
Code plugin is enabled (its hooks answer the same events): either way it would fire twice.
Every mode starts in soak on both channels (logs what it would say, prints nothing) until
"active-brain enable".`,
  async run(argv) {
    const { values } = parseFlags(argv, { project: { type: 'boolean' }, 'dry-run': { type: 'boolean' }, host: { type: 'string' } }, false);
    const dryRun = Boolean(values['dry-run']);
    const host = hostFlag(values.host);
    if (host === 'codex' && values.project) throw new UserError('--project is for Claude Code; with --host codex the user hooks file ($CODEX_HOME/hooks.json) is changed. Drop --project.', EXIT.USAGE);
    const bundle = join(packageRoot(), 'dist', 'hook.bundle.cjs');
    if (!existsSync(bundle)) throw new UserError(`the hook is not built (${bundle} is missing). Run "npm run build" in ${packageRoot()} first.`, EXIT.ENV);
    const { config } = loadConfig({ flags: values.set });
    let report;
    try {
      report = host === 'codex'
        ? installCodexHook({ cwd: process.cwd(), env: process.env, dryRun })
        : installHook({ scope: values.project ? 'project' : 'user', cwd: process.cwd(), env: process.env, dryRun });
    } catch (e) {
      if (e instanceof SettingsShapeError) throw new UserError(e.message, EXIT.FAIL);
      throw e;
    }
    const hookSettings = dryRun ? null : writeHookSettings(config);
    // A Claude Code plugin doubles only Claude Code's hooks.
    const plugins = host === 'claude-code' ? pluginRegistrations(process.env, process.cwd()) : [];
    if (values.json) {
      const { text: _text, ...shown } = report; // the file itself is not echoed (it may hold secrets)
      printJson({ ...shown, host, plugins: plugins.map((p) => p.id), hookSettings });
    } else {
      const out: string[] = [];
      if (dryRun) {
        out.push(report.changed ? `would change ${report.path}:` : `${report.path} already has the hook; nothing would change.`);
        if (report.changed) out.push(report.diff);
      } else if (report.changed) {
        out.push(`hook ${report.action} in ${report.path}${report.backup ? ` (your original is kept in ${report.backup})` : ''}`);
      } else out.push(`hook already installed in ${report.path}; nothing changed.`);
      if (report.events) out.push(`events: ${Object.entries(report.events).map(([e, a]) => `${e} ${a}`).join(', ')}`);
      out.push(`command: ${report.command}`);
      if (hookSettings) out.push(`hook settings: ${hookSettings}`);
      process.stdout.write(out.join('\n') + '\n');
    }
    for (const d of report.duplicates) {
      process.stderr.write(`active-brain: warning: the hook is also registered in ${d}; Claude Code merges scopes, so it would fire twice. Remove one (active-brain uninstall${report.scope === 'user' ? ' --project' : ''}).\n`);
    }
    for (const p of plugins) {
      process.stderr.write(`active-brain: warning: the active-brain Claude Code plugin ${p.id} (${p.why}) registers the same hooks; both would fire, so every offer would show twice. Keep one: "active-brain uninstall${report.scope === 'project' ? ' --project' : ''}" (keeps the plugin) or "claude plugin uninstall ${p.id}".\n`);
    }
    return EXIT.OK;
  },
};
