/**
 * The global kill switch: the file <home>/KILL. While it exists the hook prints nothing and
 * the daemon stops producing offers, clears its caches and exits. `touch ~/.active-brain/KILL`
 * and `active-brain kill` are the same thing; `unkill` removes it.
 */
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { killPath, homeDir } from '../shared/paths.js';
import { ensureDir, writeFileAtomic } from '../shared/atomic.js';

export interface KillState {
  killed: boolean;
  path: string;
  /** When the file says it was written (our own `kill`), else null. */
  since: string | null;
  reason: string | null;
}

export function killState(env: NodeJS.ProcessEnv = process.env): KillState {
  const path = killPath(env);
  if (!existsSync(path)) return { killed: false, path, since: null, reason: null };
  let since: string | null = null;
  let reason: string | null = null;
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as { since?: string; reason?: string };
    since = typeof v.since === 'string' ? v.since : null;
    reason = typeof v.reason === 'string' ? v.reason : null;
  } catch {
    /* an empty file from `touch` is a valid kill file */
  }
  return { killed: true, path, since, reason };
}

export function kill(reason: string | null, env: NodeJS.ProcessEnv = process.env): KillState {
  ensureDir(homeDir(env));
  writeFileAtomic(killPath(env), JSON.stringify({ since: new Date().toISOString(), reason, by: 'active-brain kill' }) + '\n');
  return killState(env);
}

export function unkill(env: NodeJS.ProcessEnv = process.env): { removed: boolean; path: string } {
  const path = killPath(env);
  const existed = existsSync(path);
  rmSync(path, { force: true });
  return { removed: existed, path };
}
