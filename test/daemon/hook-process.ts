/**
 * The registered hook as a real process (bin/active-brain-hook.cjs, the file `install`
 * registers), fed the PostToolUseFailure payload Claude Code sends, and the hook's log.
 * Used by the Past-fix end-to-end tests.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '../helpers/model.js';
import type { Env } from './helpers.js';

const HOOK = join(repoRoot, 'bin', 'active-brain-hook.cjs');
export function failurePayload(env: Env, sessionId: string, error: string, command = 'git push 2>&1') {
  return {
    session_id: sessionId,
    transcript_path: join(env.project, `${sessionId}.jsonl`),
    cwd: '/work/app',
    permission_mode: 'default',
    hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash',
    tool_input: { command, description: 'Push to remote' },
    tool_use_id: `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`,
    error,
    is_interrupt: false,
  };
}

export function runHook(env: Env, payload: unknown) {
  const r = spawnSync(process.execPath, [HOOK], { input: JSON.stringify(payload), env: env.env, encoding: 'utf8', timeout: 10_000 });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

export function hookRecords(env: Env): Array<Record<string, unknown>> {
  const p = join(env.home, 'logs', 'hook.jsonl');
  return existsSync(p) ? readFileSync(p, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>) : [];
}

