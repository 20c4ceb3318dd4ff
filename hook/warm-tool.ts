/**
 * The tool channel's decision path run once on built-in samples, in memory: two tool failures
 * with a Past fix (a failing test run, a shell slip with a missing path) through the functions
 * a real tool event calls from the tool bundle (signing, the fixes file lookup, the fix's
 * place, the tool gates and the offer line). No file, no stdout, no clock but the one passed in.
 *
 * Who calls it: the launcher (bin/active-brain-hook.cjs), after a run that compiled the tool
 * bundle (hook/tool-channel.ts) without a V8 code cache for it, just before it writes one: V8
 * stores the bytecode of every function compiled so far, and without this warm-up the cache
 * would hold only what that one error needed (docs/HOOK.md, "Code cache"). The prompt side of
 * the hook has its own (hook/warm.ts).
 */
import type { FixFile, HookSettings } from '../shared/types.js';
import { sign, findFixFile, hasPlace, toolGates, toolUseIdOf } from './tool-gates.js';
import { WARM_SESSION as SESSION, WARM_CWD as CWD, WARM_TRANSCRIPT as TRANSCRIPT, warmSettings, runSamples } from './warm-samples.js';

const PAST_SESSION = '00000000-0000-4000-8000-000000000002';

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

function warmTool(s: HookSettings, now: number, error: string, command: string): string {
  const payload: Record<string, unknown> = {
    session_id: SESSION, transcript_path: TRANSCRIPT, cwd: CWD, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash',
    tool_input: { command, description: 'run' }, tool_use_id: 'toolu_01', error, is_interrupt: false,
  };
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
    sessionId: SESSION, mode: s.modes[0], settings: s, event: 'PostToolUseFailure', cwd: CWD, toolUseId: toolUseIdOf(payload.tool_use_id),
    signal, state: null, fixes: found?.file, fixesKey: found?.key, lineage: [], lineageCache: undefined, recent, toolCache: undefined, now, pastDeadline: false,
  });
  return d.reason;
}

/** Runs the two samples and returns each one's decision reason ('printed' when it went all the
 *  way: test/hook/code-cache.test.ts holds them to that). Never throws. */
export function warmUp(now = Date.now()): string[] {
  const s = warmSettings();
  return runSamples([() => warmTool(s, now, TEST_ERROR, 'npm test'), () => warmTool(s, now, SHELL_ERROR, 'cd app && npm test')]);
}
