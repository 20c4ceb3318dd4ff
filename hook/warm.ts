/**
 * The hook's own decision path run once on built-in samples, in memory: a prompt with a cached
 * offer through the same pure functions a real run calls (prelude, the offer gates, the offer
 * line, the next state), and the prelude on a tool failure (the part of a tool event this
 * bundle decides). No file, no stdout, no clock but the one passed in.
 *
 * Who calls it: the launcher (bin/active-brain-hook.cjs), after a run that found no V8 code
 * cache for the hook's bundle, just before it writes one. V8 stores the bytecode of every
 * function compiled so far; without this warm-up the cache would hold only what that one run
 * needed (a tool event's run leaves the offer gates out). The tool channel's code is a bundle
 * of its own with its own cache and warm-up (hook/warm-tool.ts; docs/HOOK.md, "Code cache").
 */
import type { OfferCache } from '../shared/types.js';
import { prelude, offerGates, nextState, parseState, parseCache } from './gates.js';
import { WARM_SESSION as SESSION, WARM_CWD as CWD, WARM_TRANSCRIPT as TRANSCRIPT, warmSettings, runSamples } from './warm-samples.js';
import type { HookSettings } from '../shared/types.js';

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

/** The prelude of a tool failure: the channel it admits the event to ('tool' when it went through). */
function warmToolPrelude(s: HookSettings): string {
  const payload = {
    session_id: SESSION, transcript_path: TRANSCRIPT, cwd: CWD, hook_event_name: 'PostToolUseFailure', tool_name: 'Bash',
    tool_input: { command: 'npm test', description: 'run' }, tool_use_id: 'toolu_01', error: 'Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432', is_interrupt: false,
  };
  const pre = prelude({ payload, stdin: 'ok', settings: s, env: {}, killed: false, home: '/nonexistent/active-brain' });
  return pre.done ? pre.done.reason : pre.channel;
}

/** Runs the samples and returns each one's outcome: 'printed' for the prompt, 'tool' for the
 *  tool failure's prelude, when they went all the way (test/hook/code-cache.test.ts holds them
 *  to that). Never throws: a warm-up that fails only leaves the cache smaller. */
export function warmUp(now = Date.now()): string[] {
  const s = warmSettings();
  return runSamples([() => warmPrompt(s, now), () => warmToolPrelude(s)]);
}
