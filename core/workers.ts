/**
 * Worker-session detection: sessions that are background work never get offers.
 *
 * Input: what the daemon knows of a session (transcript path, and from its records: cwd,
 * entrypoint, isSidechain, agentId) plus the `workers` config section and the state dir.
 * Output: a reason code, or null for an ordinary interactive session. Pure (no I/O).
 *
 * Markers: sidechain records; subagent files (`<session>/subagents/agent-*.jsonl`); a
 * configured entrypoint (`claude -p` writes `sdk-cli`); a cwd matching a configured glob;
 * and active-brain's own model calls, which run with a cwd (and config dir) under the
 * state dir — any cwd under `<home>` is a worker (before a record names the cwd, the
 * project folder name, which encodes it, is checked).
 */
import { sep, resolve, basename, dirname } from 'node:path';
import type { Config } from '../config/schema.js';
import { anyGlobMatch } from '../shared/glob.js';

export type WorkerReason = 'sidechain' | 'subagent-file' | 'entrypoint' | 'cwd-glob' | 'active-brain-home';

export interface SessionMeta {
  /** Transcript file path. */
  path?: string | null;
  cwd?: string | null;
  entrypoint?: string | null;
  isSidechain?: boolean;
  agentId?: string | null;
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

/** True for `<root>/<project>/<session>/subagents/agent-*.jsonl`. */
export function isSubagentPath(path: string): boolean {
  const p = path.replace(/\\/g, '/');
  return /\/subagents\/[^/]+\.jsonl$/.test(p) || basename(p).startsWith('agent-');
}

export function isWorkerSession(meta: SessionMeta, workers: Config['workers'], home: string): WorkerReason | null {
  if (meta.isSidechain) return 'sidechain';
  if (meta.path && isSubagentPath(meta.path)) return 'subagent-file';
  if (meta.entrypoint && workers.entrypoints.includes(meta.entrypoint)) return 'entrypoint';
  if (meta.cwd) {
    if (isUnder(meta.cwd, home)) return 'active-brain-home';
  } else if (meta.path) {
    // Before any record names the cwd, the project folder name still encodes it.
    const project = basename(dirname(meta.path));
    const homeProject = projectDirName(resolve(home));
    if (project === homeProject || project.startsWith(homeProject + '-')) return 'active-brain-home';
  }
  if (meta.cwd && workers.cwdGlobs.length && anyGlobMatch(workers.cwdGlobs, meta.cwd)) return 'cwd-glob';
  return null;
}
