/**
 * The tool channel in process (hook/gates.ts prelude → hook/tool-gates.ts): one test per gate
 * paired with its control (the same path prints), every tool-only reason code covered, the
 * channel's own state and budget next to the prompt channel's, the shared FIFO of offer ids
 * and handles in both directions, and fast-check properties: arbitrary payloads and
 * tool_response shapes never throw and never print without a matching fix; over a simulated
 * run of tool events the budget, step and time gaps and no-repeat always hold.
 * scripts/check-gates.mjs runs this file against copies with one gate disabled at a time.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { prelude, offerGates, nextState, parseState, REASONS, type PreludeInput, type Decision } from '../../hook/gates.js';
import { toolGates, sign, toolUseIdOf, findFixFile, TOOL_ONLY_REASONS, MAX_FIXES_PER_FILE } from '../../hook/tool-gates.js';
import { errorSignature, keyLines } from '../../shared/error-signature.js';
import { MAX_LINEAGE_SESSIONS } from '../../shared/message-uuid.js';
import { errorKeys } from '../../shared/error-keys.js';
import { utf8Bytes, estimateTokens } from '../../shared/escape.js';
import type { FixFile, FixOffer, HookSettings, HookState, Offer, OfferCache, ToolCache } from '../../shared/types.js';

const NOW = 1_800_000_000_000;
const SID = 'sess-tool-1';
const OTHER_SID = '258c7280-ae70-4798-800f-63464d01a85d';
const ERROR = 'Exit code 128\nfatal: The current branch feature/login has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/login\n';
const SIG = errorSignature(ERROR)!.sig;
const OTHER_ERROR = "Exit code 1\nerror: pathspec 'src/nope.ts' did not match any file(s) known to git";

interface Rest {
  state: HookState | null | 'invalid';
  /** Fixes files on disk, by signature (the hook reads only the one of the payload's error). */
  fixFiles: Record<string, unknown>;
  toolCache: unknown;
  now: number;
  pastDeadline: boolean;
  /** Sessions this one's transcript head names (resumed / forked from). */
  lineage?: string[];
  /** The daemon's lineage file for this session (LineageCache JSON as read). */
  lineageCache?: unknown;
  /** The transcript's last bytes before the failure (where a fix's place must show). */
  recent?: string;
}
interface In { pre: PreludeInput; rest: Rest }

function settings(): HookSettings {
  return {
    version: 1, transcriptsRoot: '/t', deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 1000,
    workers: { cwdGlobs: ['/srv/workers/**'], envMarker: 'ACTIVE_BRAIN_WORKER' },
    toolCacheTtlMs: 120_000,
    modes: [
      { name: 'quiet', state: 'live', cwdGlobs: ['/home/u/quiet/**'], minConfidence: 0.5, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300,
        tool: { state: 'off', minConfidence: 0.7, sessionBudget: 5, minGapSteps: 3, minGapSeconds: 30 } },
      { name: 'legacy', state: 'live', cwdGlobs: ['/home/u/legacy/**'], minConfidence: 0.5, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300 },
      { name: 'default', state: 'off', cwdGlobs: ['/home/u/**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300,
        tool: { state: 'live', minConfidence: 0.7, sessionBudget: 5, minGapSteps: 3, minGapSeconds: 30 } },
    ],
  };
}
function fixOffer(over: Partial<Offer> = {}): Offer {
  return {
    id: `fix-${SIG}-7`, chunkId: 7, handle: 'sessions/258c7280#ep-3', type: 'past-fix', confidence: 0.86,
    reason: 'same "no upstream branch" error in session 258c… (2026-02-11): fixed by git push --set-upstream origin <branch>',
    region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool', ...over,
  };
}
function fix(over: Partial<FixOffer> = {}, offer: Partial<Offer> = {}): FixOffer {
  return { offer: fixOffer(offer), sourceSession: OTHER_SID, scope: 'global', ...over };
}
function fixFile(fixes: FixOffer[] = [fix()], over: Partial<FixFile> = {}): FixFile {
  return { version: 1, sig: SIG, storeStamp: 'st-1', createdAt: NOW - 86_400_000, fixes, ...over };
}
function toolCache(over: Partial<ToolCache> = {}): ToolCache {
  return {
    version: 1, sessionId: SID, mode: 'default', step: 41, toolUseId: 'toolu_01prev', sig: SIG, createdAt: NOW - 5_000, expiresAt: NOW + 60_000,
    offer: fixOffer({ id: 'near-1', handle: 'sessions/aa11#ep-1', confidence: 0.74, reason: 'a similar upstream error, fixed by pushing with -u' }), ...over,
  };
}
function aState(over: Partial<HookState> = {}, tool: Partial<NonNullable<HookState['tool']>> = {}): HookState {
  return {
    version: 1, sessionId: SID, turns: 2, shown: 0, lastShownTurn: null, lastShownAt: null, seenOfferIds: ['old'],
    tool: { steps: 40, shown: 1, lastShownStep: 20, lastShownAt: NOW - 3_600_000, ...tool }, ...over,
  };
}
function failurePayload(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: SID, transcript_path: '/t/p/s.jsonl', cwd: '/home/u/proj', permission_mode: 'default',
    hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', tool_input: { command: 'git push' }, tool_use_id: 'toolu_01ABC',
    error: ERROR, is_interrupt: false, ...over,
  };
}
function postPayload(resp: unknown, over: Record<string, unknown> = {}): Record<string, unknown> {
  const { error: _e, is_interrupt: _i, ...rest } = failurePayload({ hook_event_name: 'PostToolUse', tool_response: resp, ...over });
  return rest;
}
/** The eligible input: a live tool channel, a fixes file for the error's signature. */
function eligible(): In {
  return {
    pre: { payload: failurePayload(), stdin: 'ok', settings: settings(), env: {}, killed: false },
    rest: { state: aState(), fixFiles: { [SIG]: fixFile() }, toolCache: undefined, now: NOW, pastDeadline: false },
  };
}
/** The eligible input through the session's tool cache (no fixes file for the signature). */
function eligibleCache(): In {
  const i = eligible();
  i.rest.fixFiles = {};
  i.rest.toolCache = toolCache();
  return i;
}

/** What main.ts does: prelude, sign, read the signature's fixes file or the first key line's
 *  (else the tool cache), gates. */
function run(i: In): Decision {
  const p = prelude(i.pre);
  if (p.done) return p.done;
  if (p.channel !== 'tool') throw new Error('not a tool event');
  const payload = p.payload as unknown as Record<string, unknown>;
  const signal = sign(payload, p.event);
  const found = findFixFile(signal, (key) => i.rest.fixFiles[key]);
  const fixes = found?.file;
  return toolGates({
    fixesKey: found?.key,
    lineage: i.rest.lineage,
    lineageCache: i.rest.lineageCache,
    recent: i.rest.recent,
    sessionId: p.sessionId, mode: p.mode, settings: i.pre.settings!, event: p.event as 'PostToolUseFailure' | 'PostToolUse',
    cwd: typeof payload.cwd === 'string' ? payload.cwd : null, toolUseId: toolUseIdOf(payload.tool_use_id), signal,
    state: i.rest.state, fixes, toolCache: signal.kind === 'error' && fixes === undefined ? i.rest.toolCache : undefined,
    now: i.rest.now, pastDeadline: i.rest.pastDeadline,
  });
}
const payload = (i: In) => i.pre.payload as Record<string, unknown>;
const toolMode = (i: In) => i.pre.settings!.modes[2].tool!;
const fixesOf = (i: In) => i.rest.fixFiles[SIG] as FixFile;

type Base = 'fix' | 'cache';
const CASES: Array<[reason: string, what: string, base: Base, mutate: (i: In) => void]> = [
  ['killed', 'kill file present', 'fix', (i) => { i.pre.killed = true; }],
  ['settings-invalid', 'settings unreadable', 'fix', (i) => { i.pre.settings = null; }],
  ['wrong-event', 'another tool event', 'fix', (i) => { payload(i).hook_event_name = 'PreToolUse'; }],
  ['worker-sidechain', 'agent_id present (a subagent\'s tool call)', 'fix', (i) => { payload(i).agent_id = 'a1'; }],
  ['worker-subagent', 'subagent transcript', 'fix', (i) => { payload(i).transcript_path = '/t/p/s/subagents/agent-1.jsonl'; }],
  ['worker-active-brain-home', 'cwd under the state dir', 'fix', (i) => { i.pre.home = '/home/u/.ab'; payload(i).cwd = '/home/u/.ab/reasoner'; }],
  ['worker-env-marker', 'worker env marker set', 'fix', (i) => { i.pre.env = { ACTIVE_BRAIN_WORKER: '1' }; }],
  ['worker-cwd-glob', 'cwd is a worker dir', 'fix', (i) => { payload(i).cwd = '/srv/workers/job-1'; }],
  ['worker-entrypoint', 'claude -p at its failing git push (entrypoint sdk-cli, attended 0)', 'fix', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' }; }],
  ['worker-unattended', 'unattended with an unlisted entrypoint', 'fix', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'claude-desktop', CLAUDE_CODE_SESSION_ATTENDED: '0' }; }],
  ['no-mode', 'no mode matches', 'fix', (i) => { payload(i).cwd = '/opt/elsewhere'; }],
  ['mode-off', 'the tool channel is off (the prompt channel is live)', 'fix', (i) => { payload(i).cwd = '/home/u/quiet/p'; }],
  ['mode-off', 'a mode written before the tool channel existed (no `tool`)', 'fix', (i) => { payload(i).cwd = '/home/u/legacy/p'; }],
  ['state-invalid', 'state corrupt', 'fix', (i) => { i.rest.state = 'invalid'; }],
  ['interrupted', 'the user interrupted the call', 'fix', (i) => { payload(i).is_interrupt = true; }],
  ['interrupted', 'PostToolUse: a Bash result marked interrupted', 'fix', (i) => { i.pre.payload = postPayload({ stdout: '', stderr: ERROR, interrupted: true, exitCode: 130 }); }],
  ['no-error', 'PostToolUseFailure without `error`', 'fix', (i) => { delete payload(i).error; }],
  ['no-error', '`error` is not a string', 'fix', (i) => { payload(i).error = { message: ERROR }; }],
  ['no-error', '`error` holds nothing informative', 'fix', (i) => { payload(i).error = 'Exit code 1\n\n'; }],
  ['no-error', 'PostToolUse: a successful Bash call (stderr and "error" in stdout)', 'fix', (i) => { i.pre.payload = postPayload({ stdout: `grep found: ${ERROR}`, stderr: 'warning: LF will be replaced by CRLF', interrupted: false, isImage: false }); }],
  ['no-error', 'PostToolUse: exit code 0', 'fix', (i) => { i.pre.payload = postPayload({ stdout: ERROR, stderr: ERROR, exit_code: 0 }); }],
  ['no-error', 'PostToolUse: MCP text content without isError', 'fix', (i) => { i.pre.payload = postPayload({ content: [{ type: 'text', text: ERROR }] }); }],
  ['generic-error', 'the person rejected the call', 'fix', (i) => { payload(i).error = "The user doesn't want to proceed with this tool use. The tool use was rejected.\n" + ERROR; }],
  ['generic-error', 'an Edit whose old string does not match', 'fix', (i) => { payload(i).error = `<tool_use_error>String to replace not found in file.\nString: ${ERROR}</tool_use_error>`; }],
  ['generic-error', 'a tool usage error that says what to do', 'fix', (i) => { payload(i).error = `File has not been read yet. Read it first before writing to it.\n${ERROR}`; }],
  ['generic-error', 'a failing assertion in the code being tested', 'fix', (i) => { payload(i).error = `Exit code 1\nAssertionError: expected 3 to equal 4\n${ERROR}`; }],
  ['generic-error', 'an error with nothing to tell it apart', 'fix', (i) => { payload(i).error = 'Exit code 1\nError'; i.rest.fixFiles[errorSignature('Exit code 1\nError')!.sig] = fixFile(undefined, { sig: errorSignature('Exit code 1\nError')!.sig }); }],
  ['fixes-invalid', 'fixes file unreadable / not JSON', 'fix', (i) => { i.rest.fixFiles[SIG] = 'invalid'; }],
  ['fixes-invalid', 'fixes file for another signature', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile(undefined, { sig: 'aaaaaaaaaaaaaa' }); }],
  ['fixes-invalid', 'half-written fixes file (no fixes array)', 'fix', (i) => { i.rest.fixFiles[SIG] = { version: 1, sig: SIG, storeStamp: 'x', createdAt: NOW }; }],
  ['fixes-invalid', 'a fix with an unknown offer type', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({}, { type: 'banner' as never })]); }],
  ['fixes-invalid', 'a fix without its source session', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([{ offer: fixOffer(), scope: 'global' } as unknown as FixOffer]); }],
  ['fixes-invalid', `more than ${MAX_FIXES_PER_FILE} fixes`, 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile(Array.from({ length: MAX_FIXES_PER_FILE + 1 }, () => fix())); }],
  ['no-fix', 'a fixes file with no fixes', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([]); }],
  ['own-session', 'every fix came from this very session', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ sourceSession: SID })]); }],
  ['own-session', 'the fix comes from the session this one was resumed from (its transcript head names it)', 'fix', (i) => { i.rest.lineage = [OTHER_SID]; }],
  ['own-session', 'the fix comes from a session the daemon found sharing this one\'s message uuids (its lineage file)', 'fix', (i) => { i.rest.lineageCache = { version: 1, sessionId: SID, sessions: ['a-cousin', OTHER_SID], createdAt: NOW - 60_000 }; }],
  ['out-of-scope', 'the fix\'s region is scoped to another project', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ scope: 'project:/home/u/other/**' })]); }],
  ['out-of-scope', 'an unknown scope', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ scope: 'team:x' })]); }],
  ['elsewhere', 'the fix ran in another project (`in api-gateway:`) that the session does not work in', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' })]); i.rest.recent = '{"cwd":"/home/u/proj/database"} cd /home/u/proj/database && npm test'; }],
  ['elsewhere', 'the fix only edited a file this error does not name', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ edits: ['otel_trace_helpers.ex'] })]); }],
  ['elsewhere', 'a place, and no transcript to show where the session works', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' })]); }],
  ['elsewhere', 'a place where the session works, at a call aimed at a folder beside its cwd (`git -C /home/u/proj/docs status` from api-gateway)', 'fix', (i) => { payload(i).cwd = '/home/u/proj/api-gateway'; payload(i).tool_input = { command: 'git -C /home/u/proj/docs status' }; i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' })]); }],
  ['other-program', 'the fix was met at a failure of another program (`npm run build`; here `git push`)', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ tool: 'Bash', actions: ['npm run build'] })]); }],
  ['other-program', 'the fix was met at a failure of another tool (Glob; here Bash)', 'fix', (i) => { i.rest.fixFiles[SIG] = fixFile([fix({ tool: 'Glob' })]); }],
  ['no-fix', 'first-seen error: no fixes file, no tool cache', 'cache', (i) => { i.rest.toolCache = undefined; }],
  ['cache-invalid', 'tool cache not JSON', 'cache', (i) => { i.rest.toolCache = 'invalid'; }],
  ['cache-invalid', 'tool cache without a step', 'cache', (i) => { i.rest.toolCache = { ...toolCache(), step: 'x' }; }],
  ['stale-session', 'tool cache of another session', 'cache', (i) => { i.rest.toolCache = toolCache({ sessionId: 'other' }); }],
  ['no-offer', 'the daemon chose silence at that step', 'cache', (i) => { i.rest.toolCache = toolCache({ offer: null }); }],
  ['other-error', 'tool cache decided at another error', 'cache', (i) => { i.rest.toolCache = toolCache({ sig: errorSignature(OTHER_ERROR)!.sig }); }],
  ['stale-expired', 'tool cache expired', 'cache', (i) => { i.rest.toolCache = toolCache({ expiresAt: NOW - 1 }); }],
  ['stale-expired', 'tool cache older than toolCacheTtlMs', 'cache', (i) => { i.rest.toolCache = toolCache({ createdAt: NOW - 120_001 }); }],
  ['stale-expired', 'settings without toolCacheTtlMs (written before the tool channel)', 'cache', (i) => { delete i.pre.settings!.toolCacheTtlMs; }],
  ['low-confidence', 'fix under the tool channel\'s gate', 'fix', (i) => { fixesOf(i).fixes[0].offer.confidence = 0.69; }],
  ['low-confidence', 'near match in the tool cache under the gate', 'cache', (i) => { (i.rest.toolCache as ToolCache).offer!.confidence = 0.6; }],
  ['budget', 'tool budget spent', 'fix', (i) => { i.rest.state = aState({}, { shown: 5 }); }],
  ['repeat', 'this offer id was shown at a failure before', 'fix', (i) => { i.rest.state = aState({ seenOfferIds: [fixOffer().id] }); }],
  ['repeat', 'this chunk was shown at a prompt before', 'fix', (i) => { i.rest.state = aState({ seenHandles: [fixOffer().handle] }); }],
  ['gap-steps', 'two tool events since the last tool offer', 'fix', (i) => { i.rest.state = aState({}, { steps: 40, lastShownStep: 39, lastShownAt: NOW - 3_600_000 }); }],
  ['gap-seconds', 'ten seconds since the last tool offer (a state that does not say at which error)', 'fix', (i) => { i.rest.state = aState({}, { lastShownAt: NOW - 10_000 }); }],
  ['gap-seconds', 'ten seconds since the last tool offer, at this same error', 'fix', (i) => { i.rest.state = aState({}, { lastShownAt: NOW - 10_000, lastShownSig: SIG }); }],
  ['byte-cap', 'frame over the byte cap', 'fix', (i) => { i.pre.settings!.maxBytes = 100; }],
  ['token-ceiling', 'frame over the token ceiling', 'fix', (i) => { i.pre.settings!.tokenCeiling = 20; }],
  ['deadline', 'own deadline passed', 'fix', (i) => { i.rest.pastDeadline = true; }],
  ['would-fire', 'tool channel in soak', 'fix', (i) => { toolMode(i).state = 'soak'; }],
  ['would-fire', 'tool channel in soak, tool cache path', 'cache', (i) => { toolMode(i).state = 'soak'; }],
];

const baseOf = (b: Base) => (b === 'fix' ? eligible() : eligibleCache());

describe('tool gates: each gate with its control', () => {
  it('control: a failure with a fixes file prints the best fix, framed as data', () => {
    const d = run(eligible());
    expect(d).toMatchObject({
      outcome: 'print', reason: 'printed', sessionId: SID, mode: 'default', modeState: 'live', channel: 'tool', event: 'PostToolUseFailure',
      step: 41, sig: SIG, toolUseId: 'toolu_01ABC', source: 'fixes', offer: { id: fixOffer().id, handle: 'sessions/258c7280#ep-3', type: 'past-fix', confidence: 0.86 },
    });
    expect(d.text).toBe('Possibly relevant note (data, not instructions): [active-brain · Past fix · 0.86] same "no upstream branch" error in session 258c… (2026-02-11): fixed by git push --set-upstream origin ‹branch› (recall: active-brain recall sessions/258c7280#ep-3)');
    expect(d.turn).toBeUndefined();
  });

  it('a near match: another line in front of the same telling line finds the fix through its line key (control: a line key with no file stays silent)', () => {
    const near = `Exit code 1\nwarning: could not open directory 'docs/x/': No such file or directory\n${ERROR}`;
    expect(errorSignature(near)!.sig).not.toBe(SIG); // another head: no exact file
    const keys = errorKeys(keyLines(ERROR))!;
    const shared = keys.lineKeys[0];
    expect(errorKeys(keyLines(near))!.lineKeys).toContain(shared);
    const i = eligible();
    payload(i).error = near;
    i.rest.fixFiles = { [shared]: fixFile(undefined, { sig: shared }) };
    expect(run(i)).toMatchObject({ outcome: 'print', source: 'fixes' });
    const none = eligible();
    payload(none).error = near;
    none.rest.fixFiles = {};
    expect(run(none).reason).toBe('no-fix');
  });

  it('a fix with a place prints where the session works: its cwd, a path through it in the transcript, or a `cd` into it (control: the elsewhere case above)', () => {
    for (const [cwd, recent] of [
      ['/home/u/proj/api-gateway', ''],
      ['/home/u/proj', '{"type":"assistant","cwd":"/home/u/proj/api-gateway","message":{}}'],
      ['/home/u/proj', '"input":{"command":"cd api-gateway && pnpm test"}'],
      ['/home/u/proj', '"file_path":"C:\\\\Users\\\\u\\\\api-gateway\\\\src\\\\x.ts"'],
    ] as const) {
      const i = eligible();
      payload(i).cwd = cwd;
      i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' })]);
      i.rest.recent = recent;
      expect(run(i), `${cwd} ${recent}`).toMatchObject({ outcome: 'print', source: 'fixes' });
    }
  });

  it('a fix with a place prints at a call made from above the project or inside it (control: the call aimed at a folder beside the cwd, above)', () => {
    for (const command of ['git -C /home/u/proj status', 'cd /home/u && git add -A', 'cd src && git status', 'git status']) {
      const i = eligible();
      payload(i).cwd = '/home/u/proj/api-gateway';
      payload(i).tool_input = { command };
      i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' })]);
      expect(run(i), command).toMatchObject({ outcome: 'print', source: 'fixes' });
    }
  });

  it('a fix that only edited a file prints at an error that names that file (control: the elsewhere case above)', () => {
    const i = eligible();
    payload(i).error = `${ERROR}\n  at lib/deploy/push.ex:12:3`;
    i.rest.fixFiles[errorSignature(payload(i).error as string)!.sig] = fixFile([fix({ edits: ['push.ex'] })], { sig: errorSignature(payload(i).error as string)!.sig });
    expect(run(i)).toMatchObject({ outcome: 'print', source: 'fixes' });
  });

  it('a fix elsewhere is passed over for the next one that holds here (a fix with no place holds anywhere)', () => {
    const i = eligible();
    i.rest.fixFiles[SIG] = fixFile([fix({ where: 'api-gateway' }, { id: `fix-${SIG}-1`, handle: 'sessions/a#ep-1' }), fix({}, { id: `fix-${SIG}-2`, handle: 'sessions/b#ep-2' })]);
    i.rest.recent = '"cwd":"/home/u/proj/database"';
    expect(run(i)).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/b#ep-2' } });
  });

  it('ten seconds after an offer at another error, this error gets its own (control: the same error waits, above)', () => {
    const i = eligible();
    i.rest.state = aState({}, { lastShownAt: NOW - 10_000, lastShownSig: errorSignature(OTHER_ERROR)!.sig });
    expect(run(i)).toMatchObject({ outcome: 'print', source: 'fixes' });
  });

  it('of two fixes, the one met at the failing call\'s action comes first (controls: no command, another tool, the file\'s order)', () => {
    const two = () => fixFile([fix({ actions: ['git log'] }, { id: `fix-${SIG}-1`, handle: 'sessions/a#ep-1' }), fix({ actions: ['git add', 'git commit -m'], sourceSession: 'other-2' }, { id: `fix-${SIG}-2`, handle: 'sessions/b#ep-2' })]);
    const at = (input: unknown, tool = 'Bash') => {
      const i = eligible();
      payload(i).tool_name = tool;
      payload(i).tool_input = input;
      i.rest.fixFiles[SIG] = two();
      return run(i);
    };
    expect(at({ command: 'cd /home/u && git add -A && git commit -m "x"' })).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/b#ep-2' } });
    expect(at({ command: 'git log --oneline -3' })).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/a#ep-1' } });
    expect(at({})).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/a#ep-1' } });
    expect(at({ command: 'git add -A' }, 'Task')).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/a#ep-1' } });
  });

  it('fixes in two places: the one the session showed last is offered (control: the other order)', () => {
    const both = () => fixFile([fix({ where: 'portal' }, { id: `fix-${SIG}-1`, handle: 'sessions/a#ep-1' }), fix({ where: 'api', sourceSession: 'other-2' }, { id: `fix-${SIG}-2`, handle: 'sessions/b#ep-2' })]);
    const portalThenApi = ['"file_path":"/home/u/portal/src/a.ts"', '"command":"cd /home/u/api && npm test"'];
    for (const [recent, handle] of [[portalThenApi.join(' '), 'sessions/b#ep-2'], [[...portalThenApi].reverse().join(' '), 'sessions/a#ep-1']] as const) {
      const i = eligible();
      payload(i).cwd = '/home/u';
      i.rest.fixFiles[SIG] = both();
      i.rest.recent = recent;
      expect(run(i), recent).toMatchObject({ outcome: 'print', offer: { handle } });
    }
  });

  it('the error met again: another session\'s fix rather than the one already shown; all shown → repeat', () => {
    const two = () => fixFile([fix({}, { id: `fix-${SIG}-1`, handle: 'sessions/a#ep-1' }), fix({ sourceSession: 'other-2' }, { id: `fix-${SIG}-2`, handle: 'sessions/b#ep-2' })]);
    const i = eligible();
    i.rest.fixFiles[SIG] = two();
    i.rest.state = aState({ seenOfferIds: [`fix-${SIG}-1`] });
    expect(run(i)).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/b#ep-2' } });
    const control = eligible();
    control.rest.fixFiles[SIG] = two();
    expect(run(control)).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/a#ep-1' } });
    const all = eligible();
    all.rest.fixFiles[SIG] = two();
    all.rest.state = aState({ seenOfferIds: [`fix-${SIG}-1`], seenHandles: ['sessions/b#ep-2'] });
    expect(run(all).reason).toBe('repeat');
  });

  it('a fix met at the same program prints (`git push` at `git push -u`; another git action); one without a tool (a note) holds anywhere; an error naming its program skips the check (control: the other-program cases)', () => {
    for (const f of [fix({ tool: 'Bash', actions: ['git push'] }), fix({ tool: 'Bash', actions: ['git commit -m'] }), fix({ actions: ['npm run build'] })]) {
      const i = eligible();
      i.rest.fixFiles[SIG] = fixFile([f]);
      expect(run(i), JSON.stringify(f)).toMatchObject({ outcome: 'print', source: 'fixes' });
    }
    const named = eligible();
    payload(named).error = "Exit code 2\nls: cannot access 'docs/a.json': No such file or directory";
    const sig = errorSignature(payload(named).error as string)!.sig;
    named.rest.fixFiles[sig] = fixFile([fix({ tool: 'Bash', actions: ['npm run build'] })], { sig });
    expect(run(named)).toMatchObject({ outcome: 'print', source: 'fixes' });
  });

  it('control: without a fixes file, the session\'s tool cache prints', () => {
    expect(run(eligibleCache())).toMatchObject({ outcome: 'print', source: 'tool-cache', offer: { id: 'near-1' } });
  });

  it.each(CASES)('%s: %s', (reason, _what, base, mutate) => {
    expect(run(baseOf(base)).outcome).toBe('print');
    const i = baseOf(base);
    mutate(i);
    const d = run(i);
    expect(d.reason).toBe(reason);
    expect(d.outcome).toBe(reason === 'would-fire' ? 'would-fire' : 'silent');
    expect(d.text === undefined || reason === 'would-fire').toBe(true);
  });

  it.each([
    ['claude -p with the entrypoint list cleared and unattended = entrypoints', (i: In) => {
      i.pre.settings!.workers = { ...i.pre.settings!.workers, entrypoints: [], unattended: 'entrypoints' };
      i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' };
    }],
    ['an interactive session (cli, attended 1)', (i: In) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1', CLAUDE_CODE_CHILD_SESSION: '1' }; }],
  ])('worker rule control at a failure: %s prints the Past fix', (_what, mutate) => {
    const i = eligible();
    mutate(i);
    expect(run(i)).toMatchObject({ outcome: 'print', reason: 'printed', source: 'fixes' });
  });

  it('every tool-only reason code has a case above; the rest are the prompt channel\'s', () => {
    const covered = new Set(CASES.map((c) => c[0]));
    expect(TOOL_ONLY_REASONS.filter((r) => !covered.has(r))).toEqual([]);
    for (const r of TOOL_ONLY_REASONS) expect(REASONS).toContain(r);
  });

  it('boundaries are inclusive where the config says "at least" (confidence, step and time gaps, cache age)', () => {
    const i = eligible();
    fixesOf(i).fixes[0].offer.confidence = 0.7;
    i.rest.state = aState({}, { steps: 40, lastShownStep: 38, lastShownAt: NOW - 30_000, shown: 4 });
    expect(run(i)).toMatchObject({ outcome: 'print', step: 41 });
    const c = eligibleCache();
    c.rest.toolCache = toolCache({ createdAt: NOW - 120_000, expiresAt: NOW });
    expect(run(c).outcome).toBe('print');
  });

  it('the best fix not from this session and in scope is picked (fixes are best first)', () => {
    const i = eligible();
    i.rest.fixFiles[SIG] = fixFile([
      fix({ sourceSession: SID }, { id: 'own', handle: 'sessions/own#1' }),
      fix({ scope: 'project:/home/u/other/**' }, { id: 'elsewhere', handle: 'notes/else.md#1' }),
      fix({ scope: 'project:/home/u/**' }, { id: 'here', handle: 'notes/here.md#1' }),
      fix({}, { id: 'global-later', handle: 'notes/g.md#1' }),
    ]);
    expect(run(i)).toMatchObject({ outcome: 'print', offer: { id: 'here' } });
  });

  it('a fix from a session of this session lineage (a resumed / forked copy) is never offered; control: another lineage is', () => {
    const i = eligible();
    i.rest.fixFiles[SIG] = fixFile([fix({ sourceSession: 'parent-session', sourceSessions: ['parent-session', SID] }, { id: 'parent', handle: 'sessions/parent#1' })]);
    expect(run(i).reason).toBe('own-session');
    const c = eligible();
    c.rest.fixFiles[SIG] = fixFile([
      fix({ sourceSession: 'parent-session', sourceSessions: ['parent-session', SID] }, { id: 'parent', handle: 'sessions/parent#1' }),
      fix({ sourceSession: 'earlier-session', sourceSessions: ['earlier-session', 'its-copy'] }, { id: 'earlier', handle: 'sessions/earlier#1' }),
    ]);
    expect(run(c)).toMatchObject({ outcome: 'print', offer: { id: 'earlier' } });
    // A malformed lineage makes the file invalid (fail closed), not a fix for everyone.
    const bad = eligible();
    bad.rest.fixFiles[SIG] = fixFile([fix({ sourceSessions: 'x' as unknown as string[] })]);
    expect(run(bad).reason).toBe('fixes-invalid');
  });

  it('a lineage file counts only when it is this session\'s and well-formed (control: the same file for this session silences)', () => {
    const file = (over: Record<string, unknown> = {}) => ({ version: 1, sessionId: SID, sessions: [OTHER_SID], createdAt: NOW - 60_000, ...over });
    const at = (lineageCache: unknown) => {
      const i = eligible();
      i.rest.lineageCache = lineageCache;
      return run(i);
    };
    expect(at(file()).reason).toBe('own-session');
    for (const other of [file({ sessionId: 'someone-else' }), file({ version: 2 }), file({ sessions: OTHER_SID }), file({ sessions: [7] }), file({ createdAt: 'x' }),
      file({ sessions: Array.from({ length: MAX_LINEAGE_SESSIONS + 1 }, (_, k) => (k ? `s${k}` : OTHER_SID)) }), 'invalid', null, undefined]) {
      expect(at(other), JSON.stringify(other)?.slice(0, 80)).toMatchObject({ outcome: 'print' });
    }
  });

  it('malformed action keys make the file invalid (fail closed); control: well-formed ones print', () => {
    for (const actions of ['git add', [5], ['a', 'b', 'c', 'd', 'e'], ['x'.repeat(65)], ['']] as unknown as string[][]) {
      const bad = eligible();
      bad.rest.fixFiles[SIG] = fixFile([fix({ actions })]);
      expect(run(bad).reason, JSON.stringify(actions)).toBe('fixes-invalid');
    }
    const ok = eligible();
    ok.rest.fixFiles[SIG] = fixFile([fix({ actions: ['git add', 'git commit'] })]);
    expect(run(ok)).toMatchObject({ outcome: 'print' });
  });

  it('a fix the error does not name (edits) does not decide the place: the next place shown holds (control: named, it does)', () => {
    const two = (edits: string[]) => fixFile([fix({ where: 'api', edits }, { id: `fix-${SIG}-1`, handle: 'sessions/a#ep-1' }), fix({ where: 'web', sourceSession: 'other-2' }, { id: `fix-${SIG}-2`, handle: 'sessions/b#ep-2' })]);
    const recent = '"file_path":"/home/u/web/src/a.ts" … "command":"cd /home/u/api && npm test"';
    const i = eligible();
    payload(i).cwd = '/home/u';
    i.rest.fixFiles[SIG] = two(['never-named.ts']);
    i.rest.recent = recent;
    expect(run(i)).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/b#ep-2' } });
    const c = eligible();
    payload(c).cwd = '/home/u';
    payload(c).error = `${ERROR}\n  at src/named.ts:3:1`;
    const sig = errorSignature(payload(c).error as string)!.sig;
    c.rest.fixFiles[sig] = { ...two(['named.ts']), sig };
    c.rest.recent = recent;
    expect(run(c)).toMatchObject({ outcome: 'print', offer: { handle: 'sessions/a#ep-1' } });
  });

  it('a fixes file, once present, decides: its silence does not fall through to the tool cache', () => {
    const i = eligible();
    i.rest.fixFiles[SIG] = fixFile([fix({ sourceSession: SID })]);
    i.rest.toolCache = toolCache();
    expect(run(i).reason).toBe('own-session');
  });

  it('a tool cache of a loop (sig null) is shown at any error of the session', () => {
    const i = eligibleCache();
    i.rest.toolCache = toolCache({ sig: null });
    payload(i).error = OTHER_ERROR;
    expect(run(i)).toMatchObject({ outcome: 'print', source: 'tool-cache' });
  });

  it('PostToolUse: an error inside tool_response prints the fix with hookEventName PostToolUse', () => {
    for (const resp of [
      { stdout: '', stderr: ERROR.replace(/^Exit code \d+\n/, ''), exitCode: 128 },
      { stdout: '', stderr: ERROR.replace(/^Exit code \d+\n/, ''), exit_code: 128 },
      { isError: true, content: [{ type: 'text', text: ERROR }] },
      { is_error: true, content: ERROR },
      `<tool_use_error>${ERROR}</tool_use_error>`,
    ]) {
      const i = eligible();
      i.pre.payload = postPayload(resp);
      const d = run(i);
      expect(d, JSON.stringify(resp)).toMatchObject({ outcome: 'print', event: 'PostToolUse', sig: SIG });
    }
  });

  it('the tool channel has its own state: prompt channel off or its budget spent does not silence it, and vice versa', () => {
    const i = eligible();
    expect(i.pre.settings!.modes[2].state).toBe('off'); // the prompt channel of this mode is off
    i.rest.state = aState({ shown: 3, lastShownTurn: 2, lastShownAt: NOW - 1000 }); // prompt budget spent a second ago
    expect(run(i).outcome).toBe('print');
    // …and a tool budget spent leaves the prompt channel alone
    const s = { ...settings() };
    s.modes[2].state = 'live';
    const cache: OfferCache = { version: 1, sessionId: SID, mode: 'default', turn: 3, transcriptOffset: 500, transcriptPath: '/t/p/s.jsonl', exchangeUuid: 'u', createdAt: NOW - 10, expiresAt: NOW + 1000,
      offer: { ...fixOffer({ id: 'p1', handle: 'notes/p.md#1', type: 'analogous' }), channel: 'prompt' } };
    const pre = prelude({ payload: { ...failurePayload(), hook_event_name: 'UserPromptSubmit' }, stdin: 'ok', settings: s, env: {}, killed: false });
    if (pre.done) throw new Error('prelude refused');
    const d = offerGates({ sessionId: SID, mode: pre.mode, settings: s, state: aState({ turns: 10, lastShownTurn: null, lastShownAt: null }, { shown: 5, lastShownAt: NOW }), cache, transcript: { status: 'ok', size: 900 }, now: NOW, pastDeadline: false });
    expect(d).toMatchObject({ outcome: 'print', channel: 'prompt', event: 'UserPromptSubmit' });
  });
});

describe('tool gates: state and the shared FIFO', () => {
  it('nextState counts tool steps and tool shows apart from turns; ids and handles are shared', () => {
    const i = eligible();
    const d = run(i);
    const s = nextState(i.rest.state as HookState, SID, d, NOW);
    expect(s.tool).toEqual({ steps: 41, shown: 2, lastShownStep: 41, lastShownAt: NOW, lastShownSig: SIG });
    expect(s).toMatchObject({ turns: 2, shown: 0, lastShownTurn: null });
    expect(s.seenOfferIds).toContain(fixOffer().id);
    expect(s.seenHandles).toContain(fixOffer().handle);
    // a silent tool event still counts as a step
    const quiet = eligible();
    payload(quiet).error = 'Exit code 1';
    const s2 = nextState(s, SID, run({ ...quiet, rest: { ...quiet.rest, state: s } }), NOW + 1);
    expect(s2.tool).toEqual({ steps: 42, shown: 2, lastShownStep: 41, lastShownAt: NOW, lastShownSig: SIG });
    // a prompt decision leaves the tool counts as they were
    const s3 = nextState(s2, SID, { outcome: 'silent', reason: 'no-cache', sessionId: SID, mode: 'default', modeState: 'live', channel: 'prompt', turn: 3 }, NOW + 2);
    expect(s3.tool).toEqual(s2.tool);
    expect(s3.turns).toBe(3);
    expect(parseState(JSON.parse(JSON.stringify(s3)), SID)).toEqual(s3);
  });

  it('a first tool event of a fresh session starts the tool counts; older state files (no `tool`) stay valid', () => {
    const i = eligible();
    i.rest.state = null;
    const d = run(i);
    expect(d).toMatchObject({ outcome: 'print', step: 1 });
    expect(nextState(null, SID, d, NOW).tool).toEqual({ steps: 1, shown: 1, lastShownStep: 1, lastShownAt: NOW, lastShownSig: SIG });
    const old = { version: 1, sessionId: SID, turns: 4, shown: 1, lastShownTurn: 2, lastShownAt: NOW - 10, seenOfferIds: ['a'] };
    expect(parseState(old, SID)).toEqual(old);
    const j = eligible();
    j.rest.state = old as HookState;
    expect(run(j)).toMatchObject({ outcome: 'print', step: 1 });
    for (const tool of [null, [], { steps: 'x', shown: 0, lastShownStep: null, lastShownAt: null }, { steps: 1, shown: 0, lastShownStep: 'x', lastShownAt: null }, { steps: 1, shown: 0 }, { steps: 1, shown: 0, lastShownStep: null, lastShownAt: null, lastShownSig: 5 }]) {
      expect(parseState({ ...old, tool }, SID)).toBeNull();
    }
  });

  it('shared FIFO: a chunk shown at a failure is not shown at the next prompt (control: another chunk is)', () => {
    const i = eligible();
    const d = run(i);
    expect(d.outcome).toBe('print');
    const state = nextState(i.rest.state as HookState, SID, d, NOW);
    const s = settings();
    s.modes[2].state = 'live';
    const prompt = (offer: Offer) => {
      const pre = prelude({ payload: { ...failurePayload(), hook_event_name: 'UserPromptSubmit', prompt: 'next?' }, stdin: 'ok', settings: s, env: {}, killed: false });
      if (pre.done) throw new Error('prelude refused');
      return offerGates({
        sessionId: SID, mode: pre.mode, settings: s, state, now: NOW + 1000, pastDeadline: false, transcript: { status: 'ok', size: 900 },
        cache: { version: 1, sessionId: SID, mode: 'default', turn: 3, transcriptOffset: 500, transcriptPath: '/t/p/s.jsonl', exchangeUuid: 'u', createdAt: NOW, expiresAt: NOW + 60_000, offer },
      });
    };
    // the daemon offers the same chunk at the prompt under its own offer id
    expect(prompt(fixOffer({ id: 'prompt-offer-9' })).reason).toBe('repeat');
    expect(prompt(fixOffer({ id: 'prompt-offer-9', handle: 'notes/other.md#2' })).reason).toBe('printed');
  });
});

// ---- properties ------------------------------------------------------------------------

const text = fc.oneof(fc.string({ maxLength: 200 }), fc.string({ unit: 'binary', maxLength: 200 }), fc.constant(ERROR), fc.constant(OTHER_ERROR), fc.constant(`\u001b[31m${ERROR}\u001b[0m`));
const toolResponse = fc.oneof(
  fc.constantFrom({ stdout: '', stderr: ERROR, exitCode: 128 }, { isError: true, content: [{ type: 'text', text: ERROR }] }, { stdout: ERROR, stderr: '', interrupted: false, isImage: false }),
  text,
  fc.record({ stdout: text, stderr: text, interrupted: fc.boolean(), isImage: fc.boolean() }, { requiredKeys: [] }),
  fc.record({ stdout: text, stderr: text, exitCode: fc.oneof(fc.integer({ min: -2, max: 255 }), fc.constant('1'), fc.constant(null)) }, { requiredKeys: [] }),
  fc.record({ stdout: text, stderr: text, exit_code: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ is_error: fc.oneof(fc.boolean(), fc.constant('true')), content: fc.oneof(text, fc.array(fc.record({ type: fc.constantFrom('text', 'image'), text }), { maxLength: 3 })) }),
  fc.record({ isError: fc.boolean(), content: fc.array(fc.oneof(fc.record({ type: fc.constant('text'), text }), fc.anything()), { maxLength: 3 }) }),
  fc.array(fc.record({ type: fc.constant('text'), text }), { maxLength: 3 }),
  fc.anything(),
);

/** The narrow rule, restated independently: does this tool_response hold an error text? */
function responseHasError(r: unknown): boolean {
  if (typeof r === 'string') return /^\s*<tool_use_error>/.test(r) || r.startsWith('Error: ');
  if (!r || typeof r !== 'object' || Array.isArray(r)) return false;
  const o = r as Record<string, unknown>;
  if (o.is_error === true || o.isError === true) return true;
  if (o.interrupted === true) return false;
  const code = typeof o.exitCode === 'number' ? o.exitCode : typeof o.exit_code === 'number' ? o.exit_code : 0;
  return Number.isFinite(code) && code !== 0;
}

const arbToolInput: fc.Arbitrary<In> = fc
  .record({
    event: fc.constantFrom('PostToolUseFailure', 'PostToolUseFailure', 'PostToolUse'),
    error: fc.oneof({ arbitrary: fc.constant(ERROR), weight: 3 }, { arbitrary: text, weight: 2 }, { arbitrary: fc.anything(), weight: 1 }),
    interrupt: fc.oneof({ arbitrary: fc.constant(false), weight: 3 }, { arbitrary: fc.boolean(), weight: 1 }, { arbitrary: fc.anything(), weight: 1 }),
    resp: toolResponse,
    extra: fc.dictionary(fc.constantFrom('tool_name', 'tool_use_id', 'tool_input', 'duration_ms', 'cwd'), fc.anything(), { maxKeys: 2 }),
    fixesFor: fc.constantFrom('none', 'this', 'this', 'other', 'garbage'),
    fixSession: fc.constantFrom(SID, OTHER_SID),
    scope: fc.constantFrom('global', 'project:/home/u/**', 'project:/nowhere/**'),
    cache: fc.constantFrom('none', 'match', 'match', 'loop', 'other', 'expired', 'garbage'),
    conf: fc.oneof(fc.double({ min: 0, max: 1, noNaN: true }), fc.double({ min: 0.7, max: 1, noNaN: true })),
    toolState: fc.constantFrom('live', 'live', 'soak', 'off'),
    st: fc.option(fc.record({ steps: fc.nat({ max: 50 }), shown: fc.nat({ max: 6 }), back: fc.nat({ max: 6 }), ago: fc.nat({ max: 100_000 }), seen: fc.boolean() }), { nil: null }),
  })
  .map((r) => {
    const i = eligible();
    const p = r.event === 'PostToolUse' ? postPayload(r.resp) : failurePayload({ error: r.error, is_interrupt: r.interrupt });
    i.pre.payload = { ...p, ...r.extra, session_id: SID, hook_event_name: r.event };
    if (typeof (i.pre.payload as Record<string, unknown>).cwd !== 'string') (i.pre.payload as Record<string, unknown>).cwd = '/home/u/proj';
    toolMode(i).state = r.toolState;
    const offer = fixOffer({ confidence: r.conf });
    const sigOf = (v: unknown) => (typeof v === 'string' ? errorSignature(v)?.sig : undefined);
    const s = sign(i.pre.payload as Record<string, unknown>, r.event);
    const sig = s.kind === 'error' ? s.sig : sigOf(ERROR)!;
    const file = fixFile([fix({ sourceSession: r.fixSession, scope: r.scope }, { confidence: r.conf })], { sig });
    i.rest.fixFiles = r.fixesFor === 'this' ? { [sig]: file } : r.fixesFor === 'other' ? { [SIG === sig ? 'aaaaaaaaaaaaaa' : SIG]: fixFile() } : r.fixesFor === 'garbage' ? { [sig]: { fixes: 'x' } } : {};
    i.rest.toolCache = r.cache === 'none' ? undefined
      : r.cache === 'garbage' ? { version: 1 }
      : toolCache({ offer, sig: r.cache === 'loop' ? null : r.cache === 'other' ? 'bbbbbbbbbbbbbb' : sig, expiresAt: r.cache === 'expired' ? NOW - 1 : NOW + 1000 });
    i.rest.state = r.st ? aState({ seenOfferIds: r.st.seen ? [offer.id] : [] }, { steps: r.st.steps, shown: r.st.shown, lastShownStep: r.st.shown ? Math.max(1, r.st.steps - r.st.back) : null, lastShownAt: r.st.shown ? NOW - r.st.ago : null }) : null;
    return i;
  });

describe('tool gates: properties', () => {
  it('never throws; fires only for an error with a matching, allowed fix or tool cache, within the caps and the channel\'s rules', () => {
    let fired = 0;
    fc.assert(
      fc.property(arbToolInput, (i) => {
        const d = run(i);
        expect(REASONS).toContain(d.reason);
        if (d.outcome === 'silent') return;
        fired++;
        const p = payload(i);
        const s = sign(p, p.hook_event_name as string);
        expect(s.kind).toBe('error');
        if (s.kind !== 'error') return;
        if (p.hook_event_name === 'PostToolUse') expect(responseHasError(p.tool_response)).toBe(true);
        else expect(p.is_interrupt === true).toBe(false);
        expect(d.sig).toBe(s.sig);
        const file = i.rest.fixFiles[s.sig] as FixFile | undefined;
        if (d.source === 'fixes') {
          expect(file?.sig).toBe(s.sig);
          const f = file!.fixes.find((x) => x.offer.id === d.offer!.id)!;
          expect(f.sourceSession).not.toBe(SID);
          expect(f.scope === 'global' || f.scope === 'project:/home/u/**').toBe(true);
        } else {
          expect(file).toBeUndefined();
          const c = i.rest.toolCache as ToolCache;
          expect(c.sig === null || c.sig === s.sig).toBe(true);
          expect(NOW).toBeLessThanOrEqual(c.expiresAt);
        }
        const t = (i.rest.state as HookState | null)?.tool;
        const tm = toolMode(i);
        expect(d.offer!.confidence).toBeGreaterThanOrEqual(tm.minConfidence);
        expect(t?.shown ?? 0).toBeLessThan(tm.sessionBudget);
        if (t?.lastShownStep != null) expect(d.step! - t.lastShownStep).toBeGreaterThanOrEqual(tm.minGapSteps);
        expect((i.rest.state as HookState | null)?.seenOfferIds ?? []).not.toContain(d.offer!.id);
        expect(d.text).not.toMatch(/[\n\r\u2028\u2029]/);
        expect(utf8Bytes(d.text!)).toBeLessThanOrEqual(i.pre.settings!.maxBytes);
        expect(estimateTokens(d.text!)).toBeLessThanOrEqual(i.pre.settings!.tokenCeiling);
        expect(d.outcome).toBe(tm.state === 'live' ? 'print' : 'would-fire');
      }),
      { numRuns: 3000 },
    );
    expect(fired).toBeGreaterThan(30); // the property saw offers, not only silence
  });

  it('arbitrary JSON as payload, fixes file and tool cache never throws and never prints a malformed line', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.anything(), fc.boolean(), (p, f, c, merge) => {
        const i = eligible();
        i.pre.payload = merge && typeof p === 'object' && p !== null && !Array.isArray(p) ? { ...failurePayload(), ...(p as object) } : p;
        i.rest.fixFiles = { [SIG]: merge && typeof f === 'object' && f !== null && !Array.isArray(f) ? { ...fixFile(), ...(f as object) } : f };
        i.rest.toolCache = c;
        let d: Decision;
        try {
          d = run(i);
        } catch (e) {
          if ((e as Error).message === 'not a tool event') return; // the prompt channel's: gates.test.ts
          throw e;
        }
        expect(REASONS).toContain(d.reason);
        if (d.outcome === 'print') {
          expect(d.text).not.toMatch(/[\n\r]/);
          expect(utf8Bytes(d.text!)).toBeLessThanOrEqual(400);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('over a simulated run of tool events (with prompts between), the tool budget, step and time gaps hold and no chunk shows twice on either channel', () => {
    fc.assert(
      fc.property(
        fc.record({ budget: fc.nat({ max: 4 }), gapSteps: fc.nat({ max: 5 }), gapSeconds: fc.nat({ max: 60 }) }),
        fc.array(fc.record({ prompt: fc.boolean(), fix: fc.constantFrom('a', 'b', 'c', 'd'), dt: fc.nat({ max: 40_000 }), err: fc.boolean() }), { maxLength: 40 }),
        (m, events) => {
          let state: HookState | null = null;
          let now = NOW;
          const shown: Array<{ step: number; at: number; handle: string; channel: string }> = [];
          const s = settings();
          s.modes[2].state = 'live';
          Object.assign(s.modes[2].tool!, { sessionBudget: m.budget, minGapSteps: m.gapSteps, minGapSeconds: m.gapSeconds });
          Object.assign(s.modes[2], { minGapTurns: 0, minGapSeconds: 0, sessionBudget: 100 });
          for (const ev of events) {
            now += ev.dt;
            const handle = `notes/${ev.fix}.md#1`;
            let d: Decision;
            if (ev.prompt) {
              const pre = prelude({ payload: { ...failurePayload(), hook_event_name: 'UserPromptSubmit' }, stdin: 'ok', settings: s, env: {}, killed: false });
              if (pre.done) throw new Error('prelude refused');
              d = offerGates({ sessionId: SID, mode: pre.mode, settings: s, state, now, pastDeadline: false, transcript: { status: 'ok', size: 900 },
                cache: { version: 1, sessionId: SID, mode: 'default', turn: 1, transcriptOffset: 500, transcriptPath: '/t', exchangeUuid: 'u', createdAt: now, expiresAt: now + 1, offer: fixOffer({ id: `p-${ev.fix}`, handle }) } });
            } else {
              const i: In = { pre: { payload: failurePayload(ev.err ? {} : { error: 'Exit code 1' }), stdin: 'ok', settings: s, env: {}, killed: false },
                rest: { state, fixFiles: { [SIG]: fixFile([fix({}, { id: `t-${ev.fix}`, handle })]) }, toolCache: undefined, now, pastDeadline: false } };
              d = run(i);
            }
            state = nextState(state, SID, d, now);
            if (d.outcome === 'print') shown.push({ step: state.tool?.steps ?? 0, at: now, handle, channel: d.channel! });
          }
          const tool = shown.filter((x) => x.channel === 'tool');
          expect(tool.length).toBeLessThanOrEqual(m.budget);
          expect(new Set(shown.map((x) => x.handle)).size).toBe(shown.length);
          for (let k = 1; k < tool.length; k++) {
            expect(tool[k].step - tool[k - 1].step).toBeGreaterThanOrEqual(m.gapSteps);
            expect(tool[k].at - tool[k - 1].at).toBeGreaterThanOrEqual(m.gapSeconds * 1000);
          }
          expect(state?.tool?.steps ?? 0).toBe(events.filter((e) => !e.prompt).length);
          expect(state?.turns ?? 0).toBe(events.filter((e) => e.prompt).length);
          expect(state?.tool?.shown ?? 0).toBe(tool.length);
        },
      ),
      { numRuns: 400 },
    );
  });
});
