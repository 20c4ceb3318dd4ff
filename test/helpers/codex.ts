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
