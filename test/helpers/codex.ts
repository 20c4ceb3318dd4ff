/**
 * The Codex CLI fixture rollouts (test/fixtures/codex/sessions, a real-format sessions tree
 * with invented text): their paths and session ids, shared by the parser, replay, indexer,
 * daemon and hook tests.
 */
import { join } from 'node:path';
import { repoRoot } from './model.js';

export const CODEX_FIXTURES = join(repoRoot, 'test', 'fixtures', 'codex', 'sessions');
export const S1 = '0199d1a0-5b2c-7e31-9a40-1c2d3e4f5a61';
export const S2 = '0199e2b1-6c3d-7f42-8b51-2d3e4f5a6b72';
/** npm test fails (exec_command), apply_patch, npm test passes: one resolved episode. */
export const ROLLOUT_1 = join(CODEX_FIXTURES, '2026', '11', '30', `rollout-2026-11-30T10-00-00-${S1}.jsonl`);
/** No session_meta; the legacy shell tool fails with the same error. */
export const ROLLOUT_2 = join(CODEX_FIXTURES, '2026', '12', '01', `rollout-2026-12-01T09-00-00-${S2}.jsonl`);

/** The text of ROLLOUT_1 with its fix made without editing code: the apply_patch of
 *  src/cart/discount.ts becomes `npm install decimal.js` (an exec_command and its output). A
 *  test failure is about the code being written: an edit of code is no fix of it (rules
 *  small-change and code-being-written, shared/pastfix-rules.ts), an install is. */
export function rolloutFixedByInstall(text: string): string {
  const out = text.split('\n').map((l) => {
    if (l.includes('"type":"custom_tool_call","status"')) {
      const r = JSON.parse(l) as { payload: { call_id: string } & Record<string, unknown> };
      r.payload = { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm install decimal.js', workdir: '/home/dev/shop-api' }), call_id: r.payload.call_id };
      return JSON.stringify(r);
    }
    if (l.includes('"type":"custom_tool_call_output"')) {
      const r = JSON.parse(l) as { payload: { call_id: string } & Record<string, unknown> };
      r.payload = { type: 'function_call_output', call_id: r.payload.call_id, output: 'Chunk ID: 1a2b3c\nWall time: 3.1 seconds\nProcess exited with code 0\nOriginal token count: 12\nOutput:\nadded 1 package in 3s\n' };
      return JSON.stringify(r);
    }
    return l;
  });
  if (out.join('\n') === text) throw new Error('rolloutFixedByInstall: no apply_patch call found in the rollout');
  return out.join('\n');
}
