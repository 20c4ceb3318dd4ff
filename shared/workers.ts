/**
 * The one worker rule: which sessions are background work and never get an offer. Defined
 * once, used by the daemon and replay/backtest (core/workers.ts: facts from a transcript's
 * records) and by the hook (hookFacts below: facts from its host's environment and payload).
 * Pure, node:path only: it is bundled into the hook.
 *
 * A session's facts, as each side sees them (the hook never reads the transcript):
 *
 *   fact        hook (env + payload)                          daemon (transcript)
 *   sidechain   payload agent_id / agent_type                 records' isSidechain / agentId
 *   subagent    transcript_path under `/subagents/`           the file is `…/subagents/agent-*.jsonl`
 *   own home    cwd, transcript_path or CLAUDE_CONFIG_DIR     cwd or the transcript under <home> (before
 *               under <home>                                  a record names the cwd: its project folder)
 *   env marker  env[workers.envMarker] set                    — (not in a transcript)
 *   cwd glob    payload cwd                                   records' cwd
 *   entrypoint  env CLAUDE_CODE_ENTRYPOINT                    records' `entrypoint` (Codex: `originator`)
 *   attended    env CLAUDE_CODE_SESSION_ATTENDED (0/1), else  from the entrypoint only
 *               from the entrypoint
 *
 * workerReason() gives the first reason in WORKER_REASONS order, so one session gets one code
 * on both paths (logged as `worker-<reason>`). Verified against the real hosts (docs/HOOK.md,
 * "Session kinds"): Claude Code 2.1.332 gives every hook process CLAUDE_CODE_ENTRYPOINT
 * (`cli` interactive, `sdk-cli` under `claude -p`, `sdk-ts` / `sdk-py` from the Agent SDK) and
 * CLAUDE_CODE_SESSION_ATTENDED (`0` under `-p`); it sets CLAUDE_CODE_CHILD_SESSION=1 for EVERY
 * process it spawns (hooks and Bash alike), so that variable says nothing about the session
 * and is not read. Codex CLI 0.171 gives its hooks no such variable.
 */
import { resolve, sep, basename, dirname } from 'node:path';
import { anyGlobMatch } from './glob.js';

/** Every reason a session is a worker, in the order they are checked. */
export const WORKER_REASONS = ['sidechain', 'subagent', 'active-brain-home', 'env-marker', 'cwd-glob', 'entrypoint', 'unattended'] as const;
export type WorkerReason = (typeof WORKER_REASONS)[number];

/**
 * What an unattended session is to us. `worker` (the default, safe): every session Claude Code
 * marks unattended (CLAUDE_CODE_SESSION_ATTENDED=0; without that variable, an entrypoint in
 * HOST_UNATTENDED_ENTRYPOINTS) is a worker, whatever `entrypoints` lists — another tool's
 * internal model call never gets an offer. `entrypoints`: only the `entrypoints` list decides —
 * for a user whose own headless runs (CI) should get Past fixes: remove `sdk-cli` from the list.
 */
export const UNATTENDED_POLICIES = ['worker', 'entrypoints'] as const;
export type UnattendedPolicy = (typeof UNATTENDED_POLICIES)[number];

/** Entrypoints that are background work by default: `claude -p` and the Agent SDKs. */
export const DEFAULT_WORKER_ENTRYPOINTS = ['sdk-cli', 'sdk-ts', 'sdk-py'] as const;
export const DEFAULT_ENV_MARKER = 'ACTIVE_BRAIN_WORKER';
export const DEFAULT_UNATTENDED: UnattendedPolicy = 'worker';

/**
 * Entrypoints Claude Code always runs unattended (2.1.332: a non-interactive session is
 * attended only when its entrypoint is an app host such as `claude-vscode` or `claude-desktop`;
 * `-p` → `sdk-cli`, the SDKs, the GitHub Action are non-interactive). The transcript carries
 * no attended flag, so the daemon — and a hook under a host too old to set the variable —
 * knows an unattended session by these.
 */
export const HOST_UNATTENDED_ENTRYPOINTS = ['sdk-cli', 'sdk-ts', 'sdk-py', 'claude-code-github-action'] as const;

/** Codex CLI's originators (`codex_exec`, …): the daemon reads them as the entrypoint; the
 *  hook cannot see them (Codex 0.171 sets no such variable for a hook). */
export const CODEX_ENTRYPOINT_PREFIX = 'codex';

/** The host's environment variables the hook reads (Claude Code ≥ 2.1.3xx sets the first two for
 *  every hook; CLAUDE_CONFIG_DIR is there when the session was started with one). */
export const HOST_ENV = {
  entrypoint: 'CLAUDE_CODE_ENTRYPOINT',
  attended: 'CLAUDE_CODE_SESSION_ATTENDED',
  configDir: 'CLAUDE_CONFIG_DIR',
} as const;

/** The `workers` config section (config/schema.ts) and its copy in hook-settings.json.
 *  `entrypoints` / `unattended` are optional there: settings written before them read as
 *  the defaults (fail safe: more silence, never less). */
export interface WorkerRule {
  cwdGlobs: readonly string[];
  envMarker: string;
  entrypoints?: readonly string[];
  unattended?: UnattendedPolicy;
}

/** What one side knows of a session (absent / null = not known). */
export interface SessionFacts {
  sidechain?: boolean;
  subagent?: boolean;
  envMarker?: boolean;
  cwd?: string | null;
  /** Paths of the session's own: its transcript, its config dir (hook: CLAUDE_CONFIG_DIR). */
  ownDirs?: ReadonlyArray<string | null | undefined>;
  /** The transcript's project folder name (`/` and `.` → `-`): the cwd before a record names it. */
  projectFolder?: string | null;
  entrypoint?: string | null;
  /** The host's own attended flag (hook only); null/absent → from the entrypoint. */
  attended?: boolean | null;
}

function isUnder(child: string, parent: string): boolean {
  const c = resolve(child);
  const p = resolve(parent);
  return c === p || c.startsWith(p.endsWith(sep) ? p : p + sep);
}

/** Claude Code's project folder name for a cwd: `/` and `.` replaced by `-`. */
export function projectDirName(cwd: string): string {
  return cwd.replace(/[/\\.]/g, '-');
}

/** True for a subagent transcript: `…/subagents/<file>.jsonl` (or an older `agent-*.jsonl`). */
export function isSubagentPath(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  return /\/subagents\/[^/]+\.jsonl$/.test(p) || basename(p).startsWith('agent-');
}

/** Unattended? The host's flag when it gave one, else false for an entrypoint it always runs
 *  unattended, else unknown (null). */
export function isUnattended(f: SessionFacts): boolean {
  if (f.attended === true) return false;
  if (f.attended === false) return true;
  return !!f.entrypoint && (HOST_UNATTENDED_ENTRYPOINTS as readonly string[]).includes(f.entrypoint);
}

function ownHome(f: SessionFacts, home: string): boolean {
  if (f.ownDirs?.some((d) => !!d && isUnder(d, home))) return true;
  if (f.cwd) return isUnder(f.cwd, home);
  if (f.projectFolder) {
    const homeProject = projectDirName(resolve(home));
    return f.projectFolder === homeProject || f.projectFolder.startsWith(homeProject + '-');
  }
  return false;
}

/** The worker verdict: the first reason that holds, or null for a session that may be offered to. */
export function workerReason(f: SessionFacts, rule: WorkerRule, home: string): WorkerReason | null {
  if (f.sidechain) return 'sidechain';
  if (f.subagent) return 'subagent';
  if (ownHome(f, home)) return 'active-brain-home';
  if (f.envMarker) return 'env-marker';
  if (f.cwd && rule.cwdGlobs.length && anyGlobMatch(rule.cwdGlobs, f.cwd)) return 'cwd-glob';
  const entrypoints = rule.entrypoints ?? DEFAULT_WORKER_ENTRYPOINTS;
  if (f.entrypoint && entrypoints.includes(f.entrypoint)) return 'entrypoint';
  if ((rule.unattended ?? DEFAULT_UNATTENDED) === 'worker' && isUnattended(f)) return 'unattended';
  return null;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The hook's facts: its payload (parsed, fields unchecked) and the environment the host gave it. */
export function hookFacts(payload: Readonly<Record<string, unknown>>, env: Env, rule: WorkerRule): SessionFacts {
  const str = (v: unknown) => (typeof v === 'string' && v ? v : null);
  const attended = env[HOST_ENV.attended];
  return {
    sidechain: payload.agent_id != null || payload.agent_type != null,
    subagent: /[\\/]subagents[\\/]/.test(str(payload.transcript_path) ?? ''),
    envMarker: !!rule.envMarker && !!env[rule.envMarker],
    cwd: str(payload.cwd),
    ownDirs: [env[HOST_ENV.configDir], str(payload.transcript_path)],
    entrypoint: env[HOST_ENV.entrypoint] || null,
    attended: attended === '0' ? false : attended === '1' ? true : null,
  };
}

/** The environment the host gives a hook of a session that wrote `entrypoint` into its
 *  transcript (replay and backtest run the hook's gates with it: the same rule, the same facts).
 *  Codex's originator is the daemon's only: Codex gives its hooks no such variable. */
export function hostEnvFor(entrypoint: string | null | undefined): Record<string, string> {
  return entrypoint && !entrypoint.startsWith(CODEX_ENTRYPOINT_PREFIX) ? { [HOST_ENV.entrypoint]: entrypoint } : {};
}

/** Plain-language lines saying which sessions are workers and why (doctor, status). */
export function describeWorkerRule(rule: WorkerRule, home: string): string[] {
  const entrypoints = rule.entrypoints ?? DEFAULT_WORKER_ENTRYPOINTS;
  const unattended = rule.unattended ?? DEFAULT_UNATTENDED;
  const lines = [
    'subagents and sidechains (payload agent_id, transcripts under /subagents/)',
    `active-brain's own sessions (cwd under ${home})`,
    `sessions with ${rule.envMarker || '(no env marker)'} set`,
  ];
  if (rule.cwdGlobs.length) lines.push(`cwd matching ${rule.cwdGlobs.join(', ')}`);
  lines.push(entrypoints.length ? `entrypoint ${entrypoints.join(', ')} (workers.entrypoints)` : 'no entrypoint (workers.entrypoints is empty)');
  const daemonOnly = entrypoints.filter((e) => e.startsWith(CODEX_ENTRYPOINT_PREFIX));
  if (daemonOnly.length) lines.push(`  note: ${daemonOnly.join(', ')} is seen by the daemon only — Codex gives its hooks no entrypoint; use workers.cwdGlobs for Codex workers`);
  lines.push(
    unattended === 'worker'
      ? `every unattended session (CLAUDE_CODE_SESSION_ATTENDED=0, or entrypoint ${HOST_UNATTENDED_ENTRYPOINTS.join(', ')}; workers.unattended = worker)`
      : 'unattended sessions only when their entrypoint is listed (workers.unattended = entrypoints)',
  );
  return lines;
}
