/**
 * Which mode applies to a session: the first mode (in config order) whose cwd globs match
 * the session's cwd. A session with no cwd matches only modes that include `**`. Pure.
 */
import { anyGlobMatch } from './glob.js';

export interface ModeLike {
  name: string;
  cwdGlobs: readonly string[];
}

export function modeFor<M extends ModeLike>(modes: readonly M[], cwd: string | null | undefined): M | null {
  for (const m of modes) {
    if (cwd ? anyGlobMatch(m.cwdGlobs, cwd) : m.cwdGlobs.includes('**')) return m;
  }
  return null;
}

/** Region scope check: `global` anywhere; `project:<glob>` only when the cwd matches. */
export function scopeAllows(scope: string, cwd: string | null | undefined): boolean {
  if (scope === 'global') return true;
  if (scope.startsWith('project:')) return !!cwd && anyGlobMatch([scope.slice('project:'.length)], cwd);
  return false;
}
