/**
 * Where everything lives. The state dir (ACTIVE_BRAIN_HOME, default ~/.active-brain) holds
 * config, store, caches, hook state, logs, canary, lock and the KILL file; the transcript
 * root is Claude Code's (ACTIVE_BRAIN_TRANSCRIPTS, else $CLAUDE_CONFIG_DIR/projects, else
 * ~/.claude/projects). Pure functions of the environment: safe to import from the hook.
 */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

type Env = NodeJS.ProcessEnv;

/** The user's home directory, as os.homedir() gives it. On POSIX that is $HOME when it is set
 *  (libuv reads the variable first), so a set $HOME is read directly and node:os is not loaded
 *  for it: the hook's bundle requires node:os on first use only (scripts/bundles.mjs), and its
 *  load is ~0.5 ms of a start. Windows (USERPROFILE, then the profile API) always asks os. */
export function userHome(): string {
  const home = process.platform === 'win32' ? undefined : process.env.HOME;
  return home || homedir();
}

export function homeDir(env: Env = process.env): string {
  return resolve(env.ACTIVE_BRAIN_HOME || join(userHome(), '.active-brain'));
}
export function claudeConfigDir(env: Env = process.env): string {
  return resolve(env.CLAUDE_CONFIG_DIR || join(userHome(), '.claude'));
}
export function defaultTranscriptsRoot(env: Env = process.env): string {
  return resolve(env.ACTIVE_BRAIN_TRANSCRIPTS || join(claudeConfigDir(env), 'projects'));
}
/** Codex CLI's home ($CODEX_HOME, else ~/.codex): hooks.json and sessions/ live there. */
export function codexHomeDir(env: Env = process.env): string {
  return resolve(env.CODEX_HOME || join(userHome(), '.codex'));
}
/** Where Codex CLI writes rollouts: ACTIVE_BRAIN_CODEX_SESSIONS, else <codex home>/sessions. */
export function defaultCodexSessionsRoot(env: Env = process.env): string {
  return resolve(env.ACTIVE_BRAIN_CODEX_SESSIONS || join(codexHomeDir(env), 'sessions'));
}
/** Offsets of the Codex rollouts the daemon tails (a file of its own: one writer per file). */
export const codexOffsetsPath = (env: Env = process.env) => join(homeDir(env), 'offsets-codex.json');

export const configPath = (env: Env = process.env) => join(homeDir(env), 'config.json');
export const defaultStorePath = (env: Env = process.env) => join(homeDir(env), 'store.sqlite');
export const cacheDir = (env: Env = process.env) => join(homeDir(env), 'cache');
export const logsDir = (env: Env = process.env) => join(homeDir(env), 'logs');
export const modelCacheDir = (env: Env = process.env) => join(homeDir(env), 'models');
export const canaryPath = (env: Env = process.env) => join(homeDir(env), 'canary.json');
export const lockTarget = (env: Env = process.env) => join(homeDir(env), 'daemon');
export const killPath = (env: Env = process.env) => join(homeDir(env), 'KILL');
export const hookSettingsPath = (env: Env = process.env) => join(homeDir(env), 'hook-settings.json');
export const hookStateDir = (env: Env = process.env) => join(homeDir(env), 'hook-state');
export const offsetsPath = (env: Env = process.env) => join(homeDir(env), 'offsets.json');
export const labelsPath = (env: Env = process.env) => join(homeDir(env), 'labels.jsonl');
export const indexLockTarget = (env: Env = process.env) => join(homeDir(env), 'indexer');
/** Stdout/stderr of a daemon started in the background (`start --detach`, the plugin's
 *  SessionStart hook), under logsDir(). */
export const DAEMON_OUT_FILE = 'daemon.out';

/** Session ids become file names: keep only a safe alphabet (ids are UUIDs in practice), and
 *  never one whose offer cache would be another session's tool cache or lineage file. */
export function safeSessionId(id: string): string | null {
  return /^[A-Za-z0-9._-]{1,128}$/.test(id) && !id.startsWith('.') && !/\.(?:tool|lineage)$/i.test(id) ? id : null;
}
export const sessionCachePath = (sessionId: string, env: Env = process.env) => join(cacheDir(env), `${sessionId}.json`);
/** The daemon's tool-channel decision for a session (ToolCache): `cache/<session>.tool.json`. */
export const TOOL_CACHE_SUFFIX = '.tool.json';
export const sessionToolCachePath = (sessionId: string, env: Env = process.env) => join(cacheDir(env), sessionId + TOOL_CACHE_SUFFIX);
/** The sessions sharing this session's message uuids (LineageCache): `cache/<session>.lineage.json`. */
export const LINEAGE_SUFFIX = '.lineage.json';
export const sessionLineagePath = (sessionId: string, env: Env = process.env) => join(cacheDir(env), sessionId + LINEAGE_SUFFIX);
/** Precomputed Past fixes, one file per error signature (FixFile): `fixes/<sig>.json`. */
export const fixesDir = (env: Env = process.env) => join(homeDir(env), 'fixes');
/** Signatures are 14 hex digits (shared/error-signature.ts); anything else has no file. */
export const fixPath = (sig: string, env: Env = process.env) => (/^[0-9a-f]{14}$/.test(sig) ? join(fixesDir(env), `${sig}.json`) : null);
export const sessionHookStatePath = (sessionId: string, env: Env = process.env) => join(hookStateDir(env), `${sessionId}.json`);
