/**
 * The hook's decision path run once on built-in samples, in memory: a prompt with a cached
 * offer and a tool failure with a Past fix, through the same pure functions a real run calls
 * (prelude, the offer and tool gates, signing, the fix's place, the offer line, the next
 * state). No file, no stdout, no clock but the one passed in.
 *
 * Who calls it: the launcher (bin/active-brain-hook.cjs), after a run that found no V8 code
 * cache for this bundle, just before it writes one. V8 stores the bytecode of every function
 * compiled so far; without this warm-up the cache would hold only what that one run needed
 * (a prompt's run leaves the whole signing path out) and every tool failure after it would
 * compile those functions again (docs/HOOK.md, "Code cache").
 */
import type { FixFile, HookSettings, OfferCache } from '../shared/types.js';
import { prelude, offerGates, nextState, parseState, parseCache } from './gates.js';
import { sign, findFixFile, hasPlace, toolGates, toolUseIdOf } from './tool-gates.js';

const SESSION = '00000000-0000-4000-8000-000000000001';
const PAST_SESSION = '00000000-0000-4000-8000-000000000002';
const CWD = '/home/user/project/app';
const TRANSCRIPT = '/home/user/.claude/projects/-home-user-project/00000000-0000-4000-8000-000000000001.jsonl';

/** A failing test run: a head, file paths, numbers, quoted text, a stack, a summary. */
const TEST_ERROR = [
  'Exit code 1',
  '> app@1.0.0 test /home/user/project/app',
  '> vitest run',
  '',
  ' FAIL  test/db/pool.test.ts > pool > reconnects after a reset',
  "Error: connect ECONNREFUSED 127.0.0.1:5432 (config 'db.url' from /home/user/project/app/.env)",
  '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)',
  '    at Pool.connect (/home/user/project/app/src/db/pool.ts:42:11)',
  ' Test Files  1 failed | 12 passed (13)',
  '      Tests  1 failed | 87 passed (88)',
].join('\n');

/** A shell slip with a missing path: the directory mark and the generic rule read it. */
const SHELL_ERROR = 'Exit code 1\n/bin/bash: line 1: cd: app: No such file or directory';

function settings(): HookSettings {
  const tool = { state: 'live' as const, minConfidence: 0.7, sessionBudget: 5, minGapSteps: 1, minGapSeconds: 30 };
  return {
    version: 1, transcriptsRoot: '/home/user/.claude/projects', deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 262_144,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' }, toolCacheTtlMs: 120_000,
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300, tool }],
  };
}

function warmPrompt(s: HookSettings, now: number): string {
  const payload = { session_id: SESSION, transcript_path: TRANSCRIPT, cwd: CWD, hook_event_name: 'UserPromptSubmit', prompt: 'why does the pool reset?' };
  const pre = prelude({ payload, stdin: 'ok', settings: s, env: {}, killed: false, home: '/nonexistent/active-brain' });
  if (pre.done) return pre.done.reason;
  const cache: OfferCache = {
    version: 1, sessionId: SESSION, mode: 'default', turn: 2, transcriptOffset: 100, transcriptPath: TRANSCRIPT, exchangeUuid: 'u',
    createdAt: now, expiresAt: now + 600_000,
    offer: { id: 'o-1', chunkId: 1, handle: 'notes/db/pool.md#2', type: 'past-fix', confidence: 0.8, reason: 'same ECONNRESET; fixed by raising the idle timeout', region: 'notes', wildcard: false, trigger: 'error', reasoned: false },
  };
  const state = parseState(JSON.parse(JSON.stringify(nextState(null, SESSION, { sessionId: SESSION, mode: 'default', modeState: 'live', outcome: 'silent', reason: 'no-cache', channel: 'prompt' }, now))), SESSION);
  const d = offerGates({ sessionId: SESSION, mode: pre.mode, settings: s, state, cache: parseCache(JSON.parse(JSON.stringify(cache))), transcript: { status: 'ok', size: 200 }, now, pastDeadline: false });
  nextState(state, SESSION, d, now);
  return d.reason;
}

function warmTool(s: HookSettings, now: number, error: string, command: string): string {
  const payload: Record<string, unknown> = {
    session_id: SESSION, transcript_path: TRANSCRIPT, cwd: CWD, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash',
    tool_input: { command, description: 'run' }, tool_use_id: 'toolu_01', error, is_interrupt: false,
  };
  const pre = prelude({ payload, stdin: 'ok', settings: s, env: {}, killed: false, home: '/nonexistent/active-brain' });
  if (pre.done) return pre.done.reason;
  const signal = sign(payload, 'PostToolUseFailure');
  if (signal.kind !== 'error') return signal.kind;
  const file: FixFile = {
    version: 1, sig: signal.sig, storeStamp: 's', createdAt: now - 86_400_000,
    fixes: [{
      offer: { id: `fix-${signal.sig}-7`, chunkId: 7, handle: `sessions/${PAST_SESSION.slice(0, 8)}#ep-3`, type: 'past-fix', confidence: 0.85, reason: 'fixed by cd app && npm test — same error in session 0000… (2026-01-01)', region: 'sessions', wildcard: false, trigger: 'error', reasoned: false },
      sourceSession: PAST_SESSION, scope: 'global', where: 'app', actions: ['npm test'],
    }],
  };
  const json = JSON.parse(JSON.stringify(file)) as unknown;
  const found = findFixFile({ ...signal, generic: null }, (key) => (key === signal.sig ? json : undefined));
  const recent = hasPlace(found?.file) ? `{"cwd":"${CWD}","command":"cd /home/user/project/app && ls"}` : '';
  const d = toolGates({
    sessionId: SESSION, mode: pre.mode, settings: s, event: 'PostToolUseFailure', cwd: CWD, toolUseId: toolUseIdOf(payload.tool_use_id),
    signal, state: null, fixes: found?.file, fixesKey: found?.key, lineage: [], lineageCache: undefined, recent, toolCache: undefined, now, pastDeadline: false,
  });
  nextState(null, SESSION, d, now);
  return d.reason;
}

/** Runs the samples and returns each one's decision reason ('printed' when it went all the
 *  way: test/hook/code-cache.test.ts holds them to that). Never throws: a warm-up that fails
 *  only leaves the cache smaller. */
export function warmUp(now = Date.now()): string[] {
  const s = settings();
  return [
    () => warmPrompt(s, now),
    () => warmTool(s, now, TEST_ERROR, 'npm test'),
    () => warmTool(s, now, SHELL_ERROR, 'cd app && npm test'),
  ].map((step) => {
    try {
      return step();
    } catch {
      return 'threw'; // a sample the code rejects compiles what it reached
    }
  });
}
