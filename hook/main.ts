/**
 * `active-brain-hook`: the Claude Code (and Codex CLI: hook/host.ts) hook for UserPromptSubmit
 * (the prompt channel) and PostToolUseFailure / PostToolUse (the tool channel), one binary that tells them apart by
 * `hook_event_name` (bundled as CommonJS into dist/hook.bundle.cjs, run through
 * bin/active-brain-hook.cjs — what install registers — or the package bin
 * bin/active-brain-hook.js). Reads the payload on stdin, the precomputed
 * <home>/hook-settings.json, the kill file and this session's hook state; then, at a prompt,
 * the session's offer cache (hook/gates.ts decides), at a tool event the fixes file of the
 * error's signature, else of its first key line that has one (at most 1 + 6 reads), else the
 * session's tool cache (hook/tool-gates.ts decides, loaded from the tool bundle beside this one
 * at a tool event only: hook/tool-channel.ts). This
 * file does the IO around it: the session lock, the state write, at most one line of JSON on
 * stdout, one record in <home>/logs/hook.jsonl.
 *
 * Cache-only: no search, no model, no network. Any failure, and anything past its own
 * deadline (settings.deadlineMs), ends in silence with exit 0 and nothing on stderr. The
 * deadline and the logged latency_ms count from this module's start (the hook's own time);
 * boot_ms is the Node start-up before it, and the tool bundle's load at a tool event.
 */
import { existsSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { killPath } from '../shared/paths.js';
import type { HookSettings, HookState } from '../shared/types.js';
import { prelude, offerGates, nextState, type Decision, type Reason } from './gates.js';
import { TOOL_BUNDLE_FILE, type ToolChannel } from './tool-bundle.js';
import { readHookSettings, defaultHookSettings } from './settings.js';
import { readStdin, readCache, readFixFile, readLineageCache, readToolCache, transcriptFacts, transcriptLineage, transcriptTail } from './inputs.js';
import { acquireLock, lockPathFor, readState, writeState } from './state.js';
import { appendHookRecord } from './log.js';
import { nestingWithin } from './json-depth.js';
import { transcriptRootFor } from './host.js';

/** For the launcher's code cache (bin/active-brain-hook.cjs): the rest of this bundle's code, warmed up. */
export { warmUp } from './warm.js';

/** Time kept back from the deadline for writing state, output and the log. */
const DEADLINE_MARGIN_MS = 10;
/** Longest wait for the session lock (also bounded by the deadline). */
const LOCK_WAIT_MS = 40;

/** When this module started: the deadline and latency_ms count the hook's own time from here.
 *  process.hrtime / process.uptime, not perf_hooks: loading that module costs ~1 ms per prompt. */
const T0 = process.hrtime.bigint();
/** Node start-up before this module (ms): process.uptime() counts from the process start. */
const BOOT_MS = process.uptime() * 1000;
/** Time spent loading the tool channel's code (at a tool event): start-up like this bundle's own
 *  load before T0, so it counts in boot_ms, not in the hook's own time nor against its deadline. */
let codeLoadMs = 0;
const ownMs = () => Number(process.hrtime.bigint() - T0) / 1e6 - codeLoadMs;
let deadlineTimer: NodeJS.Timeout | undefined;
/** Threads in libuv's pool, which starts at the hook's first fs.read (stdin, its only use of
 *  the pool, one read at a time): one is enough, and each of the default four costs start-up
 *  time, the more on a busy machine. libuv reads the variable when the pool starts. */
const POOL_THREADS = '1';
process.env.UV_THREADPOOL_SIZE = POOL_THREADS;
const env = process.env;
let release: (() => void) | null = null;
let ended = false;
let context: Partial<Decision> = {};

function record(d: Decision): void {
  appendHookRecord(
    {
      ts: Date.now(),
      session: d.sessionId,
      outcome: d.outcome,
      reason: d.reason,
      latency_ms: Math.round(ownMs() * 100) / 100,
      boot_ms: Math.round((BOOT_MS + codeLoadMs) * 100) / 100,
      mode: d.mode,
      mode_state: d.modeState,
      channel: d.channel ?? null,
      event: d.event ?? null,
      ...(d.turn !== undefined ? { turn: d.turn } : {}),
      ...(d.step !== undefined ? { step: d.step } : {}),
      ...(d.sig !== undefined ? { sig: d.sig } : {}),
      ...(d.toolUseId !== undefined ? { tool_use_id: d.toolUseId } : {}),
      ...(d.source !== undefined ? { source: d.source } : {}),
      ...(d.offer
        ? { offer_id: d.offer.id, handle: d.offer.handle, type: d.offer.type, confidence: d.offer.confidence }
        : {}),
      ...(d.bytes !== undefined && d.outcome !== 'silent' ? { bytes: d.bytes } : {}),
      exit: 0,
    },
    env,
  );
}

/** End the run: release the lock, print when the decision says so, log, exit 0. */
function end(d: Decision): never {
  if (!ended) {
    ended = true;
    try { release?.(); } catch { /* nothing to do */ }
    if (d.outcome === 'print' && d.text) {
      const out = JSON.stringify({ hookSpecificOutput: { hookEventName: d.event ?? 'UserPromptSubmit', additionalContext: d.text } });
      try { writeSync(1, out + '\n'); } catch { /* stdout closed: nothing shown */ }
    }
    try { record(d); } catch { /* never */ }
  }
  process.exit(0);
}

function silentNow(reason: Reason): never {
  return end({ sessionId: null, mode: null, modeState: null, ...context, outcome: 'silent', reason, text: undefined });
}

/** Shown for `active-brain-hook --help` (Claude Code never passes arguments). */
const HELP = `usage: active-brain-hook   (run by Claude Code on UserPromptSubmit, PostToolUseFailure and
                           PostToolUse, payload JSON on stdin)

Cache-only: reads <home>/hook-settings.json, the kill file, this session's hook state and, at a
prompt, its offer cache; at a tool error, the fixes file of the error's signature (else of one
of its key lines) or the session's tool cache, and — only when a fix was found — the first
64 KiB of its transcript and the daemon's <home>/cache/<session>.lineage.json (lineage) and, when a fix ran in another directory, the last 64 KiB
(where the session works). Prints at most one line of JSON (additionalContext) or nothing;
always exits 0.
Registered by \`active-brain install\`; its runs are logged in <home>/logs/hook.jsonl.
Its launcher keeps a V8 code cache beside each bundle (<bundle>.<node>-<arch>.codecache; the
tool channel's bundle is loaded at a tool event only), written once after a run that found
none; ACTIVE_BRAIN_HOOK_CODE_CACHE=off: none.
Docs: docs/HOOK.md.
`;

/** The tool channel's code (hook/tool-channel.ts), a bundle of its own beside this one, required
 *  at a tool event only: a prompt never reads, parses or compiles it. `require` and `__dirname`
 *  are the bundle's CommonJS ones (the launcher passes a require that compiles the tool bundle
 *  with its own code cache); a missing or broken file throws: silence ('error'). */
function loadToolChannel(): ToolChannel {
  const t = process.hrtime.bigint();
  try {
    return require(join(__dirname, TOOL_BUNDLE_FILE)) as ToolChannel;
  } finally {
    codeLoadMs += Number(process.hrtime.bigint() - t) / 1e6;
  }
}

/** (Re)start the timer that ends the run at the deadline of the hook's own time. */
function armDeadline(deadlineMs: number): void {
  if (deadlineTimer) clearTimeout(deadlineTimer);
  deadlineTimer = setTimeout(() => silentNow('deadline'), Math.max(0, deadlineMs - ownMs()));
  deadlineTimer.unref();
}

async function run(): Promise<never> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    writeSync(1, HELP);
    process.exit(0);
  }
  const read = readHookSettings(env);
  const deadlineMs = (read.settings ?? defaultHookSettings(env)).deadlineMs;
  const remaining = () => deadlineMs - DEADLINE_MARGIN_MS - ownMs();
  armDeadline(deadlineMs);

  const stdin = await readStdin(remaining());
  let payload: unknown;
  try {
    // Nesting bounded before the parse (a deep one is bad-payload): hook/json-depth.ts.
    payload = stdin.status === 'ok' && nestingWithin(stdin.text) ? JSON.parse(stdin.text) : undefined;
  } catch {
    payload = undefined;
  }
  const pre = prelude({ payload, stdin: stdin.status, settings: read.settings, env, killed: existsSync(killPath(env)) });
  if (pre.done) return end(pre.done);
  const settings = read.settings as HookSettings;
  context = { sessionId: pre.sessionId, mode: pre.mode.name, modeState: pre.modeState, channel: pre.channel, event: pre.event };

  if (pre.channel === 'tool') {
    const { sign, toolUseIdOf, findFixFile, hasPlace, toolGates } = loadToolChannel();
    armDeadline(deadlineMs); // the load was start-up, not the hook's own time
    // Signed before the lock: bounded pure work (~0.5 ms for a 10,000-char error).
    const p = pre.payload as unknown as Record<string, unknown>;
    const signal = sign(p, pre.event);
    const toolUseId = toolUseIdOf(p.tool_use_id);
    context = { ...context, ...(toolUseId ? { toolUseId } : {}), ...(signal.kind === 'error' ? { sig: signal.sig } : {}) };
    release = acquireLock(lockPathFor(pre.sessionId, env), Math.min(LOCK_WAIT_MS, Math.max(0, remaining())));
    if (!release) return silentNow('state-locked');
    const state = readState(pre.sessionId, env);
    const found = findFixFile(signal, (key) => readFixFile(key, env));
    const fixes = found?.file;
    const toolCache = signal.kind === 'error' && fixes === undefined ? readToolCache(pre.sessionId, env) : undefined;
    // Only when there is a fix to weigh: the sessions this one was resumed or forked from
    // (as the transcript's head names them, and as the daemon found them in the store).
    const lineage = found ? transcriptLineage(p.transcript_path, transcriptRootFor(p, settings), pre.sessionId) : [];
    const lineageCache = found ? readLineageCache(pre.sessionId, env) : undefined;
    // Only when a fix ran somewhere else: where the session has been working (shared/fix-place.ts).
    const recent = hasPlace(fixes) ? transcriptTail(p.transcript_path, transcriptRootFor(p, settings)) : '';
    const now = Date.now();
    const d = toolGates({
      sessionId: pre.sessionId, mode: pre.mode, settings, event: pre.event as 'PostToolUseFailure' | 'PostToolUse',
      cwd: typeof p.cwd === 'string' && p.cwd ? p.cwd : null, toolUseId, signal, state, fixes, fixesKey: found?.key, lineage, lineageCache, recent, toolCache, now,
      pastDeadline: remaining() <= 0,
    });
    return saveAndEnd(state, pre.sessionId, d, now);
  }

  release = acquireLock(lockPathFor(pre.sessionId, env), Math.min(LOCK_WAIT_MS, Math.max(0, remaining())));
  if (!release) return silentNow('state-locked');
  const state = readState(pre.sessionId, env);
  const cache = readCache(pre.sessionId, env);
  const transcript = cache === undefined ? { status: 'absent' as const } : transcriptFacts(pre.payload.transcript_path, transcriptRootFor(pre.payload as unknown as Record<string, unknown>, settings));
  const now = Date.now();
  const d = offerGates({
    sessionId: pre.sessionId, mode: pre.mode, settings, state, cache, transcript, now,
    pastDeadline: remaining() <= 0,
  });
  return saveAndEnd(state, pre.sessionId, d, now);
}

/** Write the session's next state (atomic, under the lock), then end with the decision. */
function saveAndEnd(state: HookState | null | 'invalid', sessionId: string, d: Decision, now: number): never {
  if (state !== 'invalid') {
    try {
      writeState(nextState(state, sessionId, d, now), env);
    } catch {
      // Unwritable state: the budget could not be kept, so nothing may be shown.
      return end({ ...d, outcome: 'silent', reason: 'error', text: undefined });
    }
  }
  return end(d);
}

process.on('uncaughtException', () => silentNow('error'));
process.on('unhandledRejection', () => silentNow('error'));
run().catch(() => silentNow('error'));
