/**
 * Worker-session detection on the daemon's side: the facts a transcript gives (its path, and
 * from its records: cwd, entrypoint, isSidechain, agentId) handed to the one worker rule
 * (shared/workers.ts, which the hook uses with the facts of its environment and payload).
 * Output: a reason code, or null for a session that may be offered to. Pure (no I/O).
 * Used by the pipeline, so by the daemon, replay and backtest alike.
 */
import { basename, dirname } from 'node:path';
import type { Config } from '../config/schema.js';
import { isSubagentPath, projectDirName, workerReason, type SessionFacts, type WorkerReason } from '../shared/workers.js';

export { isSubagentPath, projectDirName, type WorkerReason };

export interface SessionMeta {
  /** Transcript file path. */
  path?: string | null;
  cwd?: string | null;
  entrypoint?: string | null;
  isSidechain?: boolean;
  agentId?: string | null;
}

/** A transcript's facts for the worker rule. */
export function transcriptFacts(meta: SessionMeta): SessionFacts {
  return {
    sidechain: Boolean(meta.isSidechain) || !!meta.agentId,
    subagent: !!meta.path && isSubagentPath(meta.path),
    cwd: meta.cwd || null,
    ownDirs: [meta.path],
    // Before any record names the cwd, the project folder name still encodes it.
    projectFolder: meta.path ? basename(dirname(meta.path)) : null,
    entrypoint: meta.entrypoint || null,
    attended: null,
  };
}

export function isWorkerSession(meta: SessionMeta, workers: Config['workers'], home: string): WorkerReason | null {
  return workerReason(transcriptFacts(meta), workers, home);
}
