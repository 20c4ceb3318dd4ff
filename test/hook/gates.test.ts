/**
 * hook/gates.ts in process: one test per gate paired with its control, a check that every
 * reason code has such a test, and fast-check properties: decide() never throws on
 * arbitrary input and only prints what the rules allow; over a simulated session the
 * budget, gaps and no-repeat rule always hold. scripts/check-gates.mjs runs this file
 * against copies of gates.ts with one gate disabled at a time.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  decide, nextState, REASONS, MAX_SEEN_OFFER_IDS,
  type PreludeInput, type OfferInput, type Decision,
} from '../../hook/gates.js';
import { TOOL_ONLY_REASONS } from '../../hook/tool-gates.js';
import type { HookSettings, HookState, OfferCache, Offer } from '../../shared/types.js';
import { utf8Bytes, estimateTokens } from '../../shared/escape.js';
import { loadSchema } from '../helpers/json-schema.js';

const NOW = 1_800_000_000_000;
/** What Claude Code 2.1.332 gave a hook under `claude -p` (seen with the real CLI; docs/HOOK.md). */
const HOST_P_ENV = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1', CLAUDECODE: '1' };
/** …and what it gives a hook of an interactive session (its code: entrypoint `cli`, attended 1). */
const HOST_INTERACTIVE_ENV = { CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1', CLAUDE_CODE_CHILD_SESSION: '1', CLAUDECODE: '1' };
const SID = 'sess-1';

type Rest = Omit<OfferInput, 'sessionId' | 'mode' | 'settings'>;
interface In { pre: PreludeInput; rest: Rest }

function settings(): HookSettings {
  return {
    version: 1, transcriptsRoot: '/t', deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 1000,
    workers: { cwdGlobs: ['/srv/workers/**'], envMarker: 'ACTIVE_BRAIN_WORKER' },
    modes: [
      { name: 'quiet', state: 'off', cwdGlobs: ['/home/u/quiet/**'], minConfidence: 0.5, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300 },
      { name: 'default', state: 'live', cwdGlobs: ['/home/u/**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300 },
    ],
  };
}
function anOffer(over: Partial<Offer> = {}): Offer {
  return { id: 'o1', chunkId: 1, handle: 'notes/a.md#1', type: 'analogous', confidence: 0.8, reason: 'same shape of bug', region: 'notes', wildcard: false, trigger: 'drift', reasoned: false, ...over };
}
function aCache(over: Partial<OfferCache> = {}): OfferCache {
  return { version: 1, sessionId: SID, mode: 'default', turn: 3, transcriptOffset: 500, transcriptPath: '/t/p/s.jsonl', exchangeUuid: 'u', createdAt: NOW - 10, expiresAt: NOW + 1000, offer: anOffer(), ...over };
}
function aState(over: Partial<HookState> = {}): HookState {
  return { version: 1, sessionId: SID, turns: 20, shown: 1, lastShownTurn: 2, lastShownAt: NOW - 3_600_000, seenOfferIds: ['old'], ...over };
}
function eligible(): In {
  return {
    pre: {
      payload: { session_id: SID, transcript_path: '/t/p/s.jsonl', cwd: '/home/u/proj', hook_event_name: 'UserPromptSubmit', prompt: 'hi' },
      stdin: 'ok', settings: settings(), env: {}, killed: false,
    },
    rest: { state: aState(), cache: aCache(), transcript: { status: 'ok', size: 900 }, now: NOW, pastDeadline: false },
  };
}
const run = (i: In): Decision => decide(i.pre, i.rest);
const payload = (i: In) => i.pre.payload as Record<string, unknown>;
const mode = (i: In) => i.pre.settings!.modes[1];

const CASES: Array<[string, string, (i: In) => void]> = [
  ['killed', 'kill file present', (i) => { i.pre.killed = true; }],
  ['settings-invalid', 'settings unreadable', (i) => { i.pre.settings = null; }],
  ['stdin-timeout', 'stdin did not end in time', (i) => { i.pre.stdin = 'timeout'; }],
  ['stdin-too-large', 'stdin over the cap', (i) => { i.pre.stdin = 'too-large'; }],
  ['bad-payload', 'payload not an object', (i) => { i.pre.payload = ['x']; }],
  ['bad-payload', 'session id missing', (i) => { delete payload(i).session_id; }],
  ['bad-payload', 'session id unsafe', (i) => { payload(i).session_id = '../x'; }],
  ['wrong-event', 'another hook event', (i) => { payload(i).hook_event_name = 'PreToolUse'; }],
  ['worker-sidechain', 'agent_id present (a subagent\'s turn)', (i) => { payload(i).agent_id = 'a'; }],
  ['worker-sidechain', 'agent_type present', (i) => { payload(i).agent_type = 'Explore'; }],
  ['worker-subagent', 'subagent transcript', (i) => { payload(i).transcript_path = '/t/p/s/subagents/agent-1.jsonl'; }],
  ['worker-active-brain-home', 'cwd under the state dir', (i) => { i.pre.home = '/home/u/.ab'; payload(i).cwd = '/home/u/.ab/reasoner'; }],
  ['worker-active-brain-home', 'CLAUDE_CONFIG_DIR under the state dir (workerEnv)', (i) => { i.pre.home = '/home/u/.ab'; i.pre.env = { CLAUDE_CONFIG_DIR: '/home/u/.ab/worker-claude' }; }],
  ['worker-env-marker', 'worker env marker set', (i) => { i.pre.env = { ACTIVE_BRAIN_WORKER: '1' }; }],
  ['worker-cwd-glob', 'cwd is a worker dir', (i) => { payload(i).cwd = '/srv/workers/job-7'; }],
  ['worker-entrypoint', 'claude -p (CLAUDE_CODE_ENTRYPOINT=sdk-cli, as 2.1.197 sets it: no attended flag)', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }; }],
  ['worker-entrypoint', 'claude -p as 2.1.332 sets it (attended 0)', (i) => { i.pre.env = { ...HOST_P_ENV }; }],
  ['worker-entrypoint', 'the Agent SDK (sdk-py)', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'sdk-py', CLAUDE_CODE_SESSION_ATTENDED: '0' }; }],
  ['worker-unattended', 'unattended with an unlisted entrypoint (claude -p inside an IDE session)', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode', CLAUDE_CODE_SESSION_ATTENDED: '0' }; }],
  ['worker-unattended', 'claude -p with the entrypoint list cleared (unattended = worker)', (i) => { i.pre.settings!.workers.entrypoints = []; i.pre.env = { ...HOST_P_ENV }; }],
  ['worker-unattended', 'the GitHub Action (always unattended) on a host without the flag', (i) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'claude-code-github-action' }; }],
  ['no-mode', 'no mode matches', (i) => { payload(i).cwd = '/opt/elsewhere'; }],
  ['mode-off', 'mode off', (i) => { payload(i).cwd = '/home/u/quiet/x'; }],
  ['state-invalid', 'state corrupt', (i) => { i.rest.state = 'invalid'; }],
  ['no-cache', 'no cache file', (i) => { i.rest.cache = undefined; }],
  ['cache-invalid', 'cache not JSON', (i) => { i.rest.cache = 'invalid'; }],
  ['cache-invalid', 'confidence out of range', (i) => { i.rest.cache = aCache({ offer: anOffer({ confidence: 1.5 }) }); }],
  ['stale-session', 'cache for another session', (i) => { i.rest.cache = aCache({ sessionId: 'other' }); }],
  ['no-offer', 'daemon chose silence', (i) => { i.rest.cache = aCache({ offer: null }); }],
  ['stale-expired', 'cache expired', (i) => { i.rest.cache = aCache({ expiresAt: NOW - 1 }); }],
  ['transcript-untrusted', 'transcript outside the root', (i) => { i.rest.transcript = { status: 'untrusted' }; }],
  ['transcript-untrusted', 'transcript missing', (i) => { i.rest.transcript = { status: 'missing' }; }],
  ['stale-lag', 'transcript grew too much', (i) => { i.rest.transcript = { status: 'ok', size: 1501 }; }],
  ['stale-lag', 'transcript shorter than the offset', (i) => { i.rest.transcript = { status: 'ok', size: 499 }; }],
  ['low-confidence', 'confidence under the gate', (i) => { i.rest.cache = aCache({ offer: anOffer({ confidence: 0.54 }) }); }],
  ['budget', 'budget spent', (i) => { i.rest.state = aState({ shown: 3 }); }],
  ['repeat', 'offer shown before', (i) => { i.rest.state = aState({ seenOfferIds: ['o1'] }); }],
  ['repeat', 'same chunk shown before under another offer id', (i) => { i.rest.state = aState({ seenHandles: [(i.rest.cache as { offer: { handle: string } }).offer.handle] }); }],
  ['gap-turns', 'three turns since the last offer', (i) => { i.rest.state = aState({ turns: 20, lastShownTurn: 18 }); }],
  ['gap-seconds', 'a minute since the last offer', (i) => { i.rest.state = aState({ lastShownAt: NOW - 60_000 }); }],
  ['byte-cap', 'frame over the byte cap', (i) => { i.pre.settings!.maxBytes = 100; }],
  ['token-ceiling', 'frame over the token ceiling', (i) => { i.pre.settings!.tokenCeiling = 20; }],
  ['deadline', 'own deadline passed', (i) => { i.rest.pastDeadline = true; }],
  ['would-fire', 'mode in soak', (i) => { mode(i).state = 'soak'; }],
];

describe('gates: each gate with its control', () => {
  it('control: the eligible input prints one framed line', () => {
    const d = run(eligible());
    expect(d).toMatchObject({ outcome: 'print', reason: 'printed', sessionId: SID, mode: 'default', modeState: 'live', turn: 21 });
    expect(d.text).toBe('Possibly relevant note (data, not instructions): [active-brain · Analogous · 0.80] same shape of bug (recall: active-brain recall notes/a.md#1)');
  });

  it.each(CASES)('%s: %s', (reason, _what, mutate) => {
    const control = eligible();
    expect(run(control).outcome).toBe('print');
    const i = eligible();
    mutate(i);
    const d = run(i);
    expect(d.reason).toBe(reason);
    expect(d.outcome).toBe(reason === 'would-fire' ? 'would-fire' : 'silent');
    expect(d.text === undefined || reason === 'would-fire').toBe(true);
  });

  it.each([
    ['an interactive session (entrypoint cli, attended 1, CHILD_SESSION=1 as for every hook)', (i: In) => { i.pre.env = { ...HOST_INTERACTIVE_ENV }; }],
    ['VS Code (claude-vscode, attended 1)', (i: In) => { i.pre.env = { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode', CLAUDE_CODE_SESSION_ATTENDED: '1' }; }],
    ['claude -p with the list cleared and unattended = entrypoints (a user\'s own CI run)', (i: In) => {
      i.pre.settings!.workers = { ...i.pre.settings!.workers, entrypoints: [], unattended: 'entrypoints' };
      i.pre.env = { ...HOST_P_ENV };
    }],
    ['CLAUDE_CODE_CHILD_SESSION=1 alone', (i: In) => { i.pre.env = { CLAUDE_CODE_CHILD_SESSION: '1' }; }],
    ['another state dir: cwd and config dir outside it', (i: In) => { i.pre.home = '/home/u/.ab'; i.pre.env = { CLAUDE_CONFIG_DIR: '/home/u/.claude' }; }],
  ])('worker rule control: %s prints', (_what, mutate) => {
    const i = eligible();
    mutate(i);
    expect(run(i)).toMatchObject({ outcome: 'print', reason: 'printed' });
  });

  it('every reason code except printed/error has a case above (the tool channel\'s own: test/hook/tool-gates.test.ts)', () => {
    const covered = new Set<string>([...CASES.map((c) => c[0]), ...TOOL_ONLY_REASONS]);
    expect(REASONS.filter((r) => r !== 'printed' && r !== 'error' && !covered.has(r))).toEqual(['state-locked']); // state-locked is main.ts IO: contract test
  });

  it('the reason codes and logs-schema/hook-record.schema.json list the same codes', () => {
    const schema = loadSchema('hook-record') as { properties: { reason: { enum: string[] } } };
    expect([...schema.properties.reason.enum].sort()).toEqual([...REASONS].sort());
  });

  it('boundaries are inclusive where the config says "at least"', () => {
    const i = eligible();
    i.rest.cache = aCache({ offer: anOffer({ confidence: 0.55 }) });
    i.rest.state = aState({ turns: 20, lastShownTurn: 17, lastShownAt: NOW - 300_000, shown: 2 });
    i.rest.transcript = { status: 'ok', size: 1500 };
    expect(run(i).outcome).toBe('print');
  });

  it('a fresh session (no state) prints on its first eligible prompt', () => {
    const i = eligible();
    i.rest.state = null;
    expect(run(i)).toMatchObject({ outcome: 'print', turn: 1 });
  });
});

// ---- properties ------------------------------------------------------------------------

const arbOffer = fc.record({
  id: fc.string({ minLength: 1, maxLength: 8 }),
  chunkId: fc.nat(),
  handle: fc.oneof(fc.string({ minLength: 1, maxLength: 60 }), fc.constant('notes/a.md#1')),
  type: fc.constantFrom('past-fix', 'analogous', 'contradicts', 'tangent'),
  confidence: fc.double({ min: 0, max: 1, noNaN: true }),
  reason: fc.oneof(fc.string({ maxLength: 300 }), fc.string({ unit: 'binary', maxLength: 300 })),
  region: fc.constant('r'), wildcard: fc.boolean(), trigger: fc.constant('drift'), reasoned: fc.boolean(),
}) as fc.Arbitrary<Offer>;

const arbInput: fc.Arbitrary<In> = fc
  .record({
    killed: fc.boolean(),
    envMarker: fc.boolean(),
    agent: fc.boolean(),
    cwd: fc.constantFrom('/home/u/p', '/home/u/quiet/p', '/srv/workers/x', '/opt/o', undefined),
    modeState: fc.constantFrom('live', 'soak', 'off'),
    minConfidence: fc.double({ min: 0, max: 1, noNaN: true }),
    budget: fc.nat({ max: 5 }),
    gapTurns: fc.nat({ max: 6 }),
    gapSeconds: fc.nat({ max: 600 }),
    maxBytes: fc.integer({ min: 80, max: 2000 }),
    tokenCeiling: fc.integer({ min: 16, max: 400 }),
    maxLag: fc.nat({ max: 2000 }),
    cacheSid: fc.constantFrom(SID, 'other'),
    offer: fc.option(arbOffer, { nil: null }),
    expiresIn: fc.integer({ min: -1000, max: 1000 }),
    size: fc.nat({ max: 3000 }),
    transcript: fc.constantFrom('ok', 'untrusted', 'missing'),
    state: fc.option(fc.record({ turns: fc.nat({ max: 50 }), shown: fc.nat({ max: 6 }), back: fc.nat({ max: 10 }), ago: fc.nat({ max: 1_000_000 }), seen: fc.boolean() }), { nil: null }),
    pastDeadline: fc.boolean(),
  })
  .map((r) => {
    const i = eligible();
    i.pre.killed = r.killed;
    i.pre.env = r.envMarker ? { ACTIVE_BRAIN_WORKER: 'yes' } : {};
    const p = payload(i);
    if (r.agent) p.agent_id = 'a';
    if (r.cwd === undefined) delete p.cwd;
    else p.cwd = r.cwd;
    const s = i.pre.settings!;
    Object.assign(s.modes[1], { state: r.modeState, minConfidence: r.minConfidence, sessionBudget: r.budget, minGapTurns: r.gapTurns, minGapSeconds: r.gapSeconds });
    Object.assign(s, { maxBytes: r.maxBytes, tokenCeiling: r.tokenCeiling, maxLagBytes: r.maxLag });
    i.rest.cache = aCache({ sessionId: r.cacheSid, offer: r.offer, expiresAt: NOW + r.expiresIn });
    i.rest.transcript = r.transcript === 'ok' ? { status: 'ok', size: r.size } : { status: r.transcript as 'untrusted' | 'missing' };
    i.rest.state = r.state
      ? aState({ turns: r.state.turns, shown: r.state.shown, lastShownTurn: r.state.shown ? Math.max(0, r.state.turns - r.state.back) : null, lastShownAt: r.state.shown ? NOW - r.state.ago : null, seenOfferIds: r.state.seen && r.offer ? [r.offer.id] : [] })
      : null;
    i.rest.pastDeadline = r.pastDeadline;
    return i;
  });

/** The rules, restated independently of gates.ts: may this input produce a line? */
function allowed(i: In): boolean {
  const p = payload(i);
  const s = i.pre.settings!;
  const c = i.rest.cache as OfferCache;
  const st = i.rest.state as HookState | null;
  const m = typeof p.cwd === 'string' && p.cwd.startsWith('/home/u/') && !p.cwd.startsWith('/home/u/quiet/') ? s.modes[1] : null;
  if (i.pre.killed || i.pre.env.ACTIVE_BRAIN_WORKER || p.agent_id !== undefined || !m || m.state === 'off') return false;
  if (c.sessionId !== SID || !c.offer || NOW > c.expiresAt || i.rest.transcript.status !== 'ok') return false;
  const growth = i.rest.transcript.size - c.transcriptOffset;
  if (growth < 0 || growth > s.maxLagBytes || c.offer.confidence < m.minConfidence) return false;
  const turn = (st?.turns ?? 0) + 1;
  if ((st?.shown ?? 0) >= m.sessionBudget || st?.seenOfferIds.includes(c.offer.id)) return false;
  if (st?.lastShownTurn != null && turn - st.lastShownTurn < m.minGapTurns) return false;
  if (st?.lastShownAt != null && NOW - st.lastShownAt < m.minGapSeconds * 1000) return false;
  return !i.rest.pastDeadline;
}

describe('gates: properties', () => {
  it('never throws; fires only when the rules allow; what it would print is one line within the caps', () => {
    fc.assert(
      fc.property(arbInput, (i) => {
        const d = run(i);
        const fired = d.outcome !== 'silent';
        if (fired) {
          expect(allowed(i)).toBe(true);
          expect(d.text).toBeDefined();
          expect(d.text).not.toMatch(/[\n\r\u2028\u2029]/);
          expect(utf8Bytes(d.text!)).toBeLessThanOrEqual(i.pre.settings!.maxBytes);
          expect(estimateTokens(d.text!)).toBeLessThanOrEqual(i.pre.settings!.tokenCeiling);
          expect(d.outcome).toBe(i.pre.settings!.modes[1].state === 'live' ? 'print' : 'would-fire');
        } else if (allowed(i)) {
          // The only other reasons an allowed input stays silent: the line cannot fit the caps.
          expect(['byte-cap', 'token-ceiling']).toContain(d.reason);
        }
      }),
      { numRuns: 3000 },
    );
  });

  it('arbitrary JSON as payload and cache never throws and never prints a malformed line', () => {
    fc.assert(
      fc.property(fc.anything(), fc.anything(), fc.boolean(), (p, c, merge) => {
        const i = eligible();
        // Either a whole arbitrary payload, or arbitrary fields over a valid one.
        i.pre.payload = merge && typeof p === 'object' && p !== null && !Array.isArray(p) ? { ...payload(i), ...(p as object) } : p;
        i.rest.cache = merge && typeof c === 'object' && c !== null && !Array.isArray(c) ? { ...aCache(), ...(c as object) } : c;
        const d = run(i);
        expect(REASONS).toContain(d.reason);
        if (d.outcome === 'print') {
          expect(d.text).not.toMatch(/[\n\r]/);
          expect(utf8Bytes(d.text!)).toBeLessThanOrEqual(400);
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('over a simulated session, prints respect budget, turn and time gaps, and never repeat an offer', () => {
    fc.assert(
      fc.property(
        fc.record({ budget: fc.nat({ max: 4 }), gapTurns: fc.nat({ max: 5 }), gapSeconds: fc.nat({ max: 400 }) }),
        fc.array(fc.record({ id: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f'), dt: fc.nat({ max: 200_000 }), conf: fc.double({ min: 0, max: 1, noNaN: true }) }), { maxLength: 40 }),
        (m, prompts) => {
          let state: HookState | null = null;
          let now = NOW;
          const shown: Array<{ turn: number; at: number; id: string }> = [];
          for (const pr of prompts) {
            now += pr.dt;
            const i = eligible();
            Object.assign(i.pre.settings!.modes[1], { sessionBudget: m.budget, minGapTurns: m.gapTurns, minGapSeconds: m.gapSeconds });
            i.rest.state = state;
            i.rest.now = now;
            i.rest.cache = aCache({ expiresAt: now + 1000, offer: anOffer({ id: pr.id, confidence: pr.conf }) });
            const d = run(i);
            state = nextState(state, SID, d, now);
            if (d.outcome === 'print') shown.push({ turn: state.turns, at: now, id: pr.id });
          }
          expect(shown.length).toBeLessThanOrEqual(m.budget);
          expect(new Set(shown.map((s) => s.id)).size).toBe(shown.length);
          for (let k = 1; k < shown.length; k++) {
            expect(shown[k].turn - shown[k - 1].turn).toBeGreaterThanOrEqual(m.gapTurns);
            expect(shown[k].at - shown[k - 1].at).toBeGreaterThanOrEqual(m.gapSeconds * 1000);
          }
          expect(state?.turns ?? 0).toBe(prompts.length);
          expect(state?.shown ?? 0).toBe(shown.length);
        },
      ),
      { numRuns: 400 },
    );
  });

  it('nextState keeps at most MAX_SEEN_OFFER_IDS ids, dropping the oldest', () => {
    let s: HookState | null = null;
    for (let k = 0; k < MAX_SEEN_OFFER_IDS + 5; k++) {
      s = nextState(s, SID, { outcome: 'would-fire', reason: 'would-fire', sessionId: SID, mode: 'm', modeState: 'soak', offer: { id: `id${k}`, handle: 'h', type: 'tangent', confidence: 1 } }, NOW);
    }
    expect(s!.seenOfferIds).toHaveLength(MAX_SEEN_OFFER_IDS);
    expect(s!.seenOfferIds[0]).toBe('id5');
    expect(s!.shown).toBe(MAX_SEEN_OFFER_IDS + 5);
  });
});
