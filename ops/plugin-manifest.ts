/**
 * What the Claude Code plugin declares, as data built from the values `active-brain install`
 * uses (ops/hook-install.ts: events, matchers, timeout, the environment cleared for the hook's
 * Node): the hook commands of hooks/hooks.json and the MCP server of .claude-plugin/plugin.json.
 * The checked-in JSON files are the artifacts; test/plugin/manifests.test.ts asserts they equal
 * what this module builds, so a value changed here (or in install) cannot drift from them.
 *
 * Commands are shell form (Claude Code runs them with `sh -c`, exporting CLAUDE_PLUGIN_ROOT and
 * substituting `${CLAUDE_PLUGIN_ROOT}` inline; plugins reference, "Environment variables"):
 * shell form is needed to clear NODE_OPTIONS / NODE_EXTRA_CA_CERTS for the hook's process only.
 */
import { CLAUDE_EVENTS, EVENT_MATCHERS, HOOK_CLEARED_ENV, HOOK_TIMEOUT_SECONDS } from './hook-install.js';

/** The plugin's name (plugin.json, marketplace entry); its id is `<name>@<marketplace>`. */
export const PLUGIN_NAME = 'active-brain';
/** The marketplace this repository declares (.claude-plugin/marketplace.json). */
export const MARKETPLACE_NAME = 'active-brain';
/** The plugin root as Claude Code names it in commands (substituted inline, also exported). */
export const PLUGIN_ROOT_VAR = '${CLAUDE_PLUGIN_ROOT}';
/** Paths inside the plugin root (the repository root) that the manifests name. */
export const PLUGIN_HOOK_LAUNCHER = 'bin/active-brain-hook.cjs';
export const PLUGIN_SESSION_START_LAUNCHER = 'hooks/session-start.cjs';
export const PLUGIN_CLI = 'bin/active-brain.js';
/** The shell launcher of the CLI (also what Claude Code puts on the Bash tool's PATH). */
export const PLUGIN_CLI_SH = 'bin/active-brain';

/** Without node on PATH nothing of ours can run: exit 0 with no output rather than a shell
 *  error Claude Code would show at every prompt and tool call. */
const NODE_GUARD = 'command -v node >/dev/null 2>&1 || exit 0;';

const inRoot = (rel: string) => `"${PLUGIN_ROOT_VAR}/${rel}"`;

/** The hook (UserPromptSubmit, PostToolUseFailure, PostToolUse), as hookCommand() runs it but
 *  with `node` from PATH (a plugin cannot know the node path at install time). */
export function pluginHookCommand(): string {
  return `${NODE_GUARD} ${HOOK_CLEARED_ENV.map((v) => `${v}=`).join(' ')} node ${inRoot(PLUGIN_HOOK_LAUNCHER)}`;
}

/** SessionStart: start the daemon detached when none runs (ops/plugin-session-start.ts). The
 *  environment is kept: the daemon it starts may need NODE_EXTRA_CA_CERTS (model download). */
export function pluginSessionStartCommand(): string {
  return `${NODE_GUARD} node ${inRoot(PLUGIN_SESSION_START_LAUNCHER)}`;
}

interface Handler { type: 'command'; command: string; timeout: number }
interface Group { matcher?: string; hooks: Handler[] }

/** hooks/hooks.json: one group per event, matchers as install writes them. */
export function pluginHooks(): { description: string; hooks: Record<string, Group[]> } {
  const group = (command: string, matcher: string | undefined): Group => ({
    ...(matcher !== undefined ? { matcher } : {}),
    hooks: [{ type: 'command', command, timeout: HOOK_TIMEOUT_SECONDS }],
  });
  const hooks: Record<string, Group[]> = {};
  for (const event of CLAUDE_EVENTS) hooks[event] = [group(pluginHookCommand(), EVENT_MATCHERS[event])];
  hooks.SessionStart = [group(pluginSessionStartCommand(), undefined)];
  return { description: 'active-brain: at most one recall offer per prompt or failed tool call; starts the daemon at session start', hooks };
}

/** The MCP server (recall, search), inline in plugin.json: through bin/active-brain, which runs
 *  the root's own CLI when built, else the installed `active-brain` on PATH (a plugin copy
 *  installed by Claude Code has no dist/). */
export function pluginMcpServers(): Record<string, { command: string; args: string[] }> {
  return { [PLUGIN_NAME]: { command: 'sh', args: [`${PLUGIN_ROOT_VAR}/${PLUGIN_CLI_SH}`, 'mcp'] } };
}
