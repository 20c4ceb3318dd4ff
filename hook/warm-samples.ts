/**
 * What both warm-ups share (hook/warm.ts for the hook's bundle, hook/warm-tool.ts for the tool
 * bundle): the sample session, folder and transcript path, the settings every sample runs
 * under (all live), and the loop that runs samples without ever throwing.
 */
import type { HookSettings } from '../shared/types.js';

export const WARM_SESSION = '00000000-0000-4000-8000-000000000001';
export const WARM_CWD = '/home/user/project/app';
export const WARM_TRANSCRIPT = '/home/user/.claude/projects/-home-user-project/00000000-0000-4000-8000-000000000001.jsonl';

export function warmSettings(): HookSettings {
  const tool = { state: 'live' as const, minConfidence: 0.7, sessionBudget: 5, minGapSteps: 1, minGapSeconds: 30 };
  return {
    version: 1, transcriptsRoot: '/home/user/.claude/projects', deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 262_144,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' }, toolCacheTtlMs: 120_000,
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300, tool }],
  };
}

/** Each sample's decision reason; 'threw' for one the code rejects (it compiled what it reached). */
export function runSamples(samples: ReadonlyArray<() => string>): string[] {
  return samples.map((step) => {
    try {
      return step();
    } catch {
      return 'threw';
    }
  });
}
