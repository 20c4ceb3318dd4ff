/**
 * Session state (core/session-state.ts): EWMA centroid and drift anchor, bounded ring
 * buffer and calibration, prompt-only flag, cooldown bookkeeping, offered-chunk FIFO, and
 * serialization (round trip; malformed input rejected with an error, never half-loaded).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  centroidUnit,
  createSessionState,
  fromJSON,
  isPromptOnly,
  markBuild,
  recordExchange,
  rememberOffered,
  toJSON,
} from '../../core/session-state.js';
import { measureExchange } from '../../core/trigger-measures.js';
import { evaluateTriggers } from '../../core/triggers.js';
import { direction, features, MODE, rng, SESSION, topicText, unit } from './vectors.js';

const record = (s: ReturnType<typeof createSessionState>, f: ReturnType<typeof features>, cfg = SESSION) =>
  recordExchange(s, f, measureExchange(s, f, MODE.stallWindow), cfg);

describe('session state', () => {
  it('keeps the EWMA centroid c ← α·v + (1−α)·c (seeded with the first vector) and the user-side anchor', () => {
    const s = createSessionState('s');
    const a = unit(Float32Array.from([1, 0, 0]));
    const b = unit(Float32Array.from([0, 1, 0]));
    const u = unit(Float32Array.from([0, 0, 1]));
    record(s, features({ vec: a, userVec: u }));
    record(s, features({ vec: b, userVec: null }));
    expect(Array.from(s.centroid!)).toEqual([expect.closeTo(0.7, 6), expect.closeTo(0.3, 6), 0]);
    // anchor: the user vector when there is one, the whole vector otherwise
    expect(Array.from(s.anchor!)).toEqual([0, expect.closeTo(0.7, 6), expect.closeTo(0.3, 6)]);
    const c = centroidUnit(s)!;
    expect(Math.hypot(...c)).toBeCloseTo(1, 6);
    expect(c[0] / c[1]).toBeCloseTo(0.7 / 0.3, 5);
    expect(s.turns).toBe(2);
  });

  it('bounds the ring buffer, the calibration and the offered FIFO', () => {
    const r = rng(1);
    const s = createSessionState('s');
    const cfg = { ...SESSION, historySize: 5, calibrationSize: 7 };
    for (let k = 0; k < 40; k++) record(s, features({ vec: direction(r), text: topicText(k % 4, k) }), cfg);
    expect(s.ring).toHaveLength(5);
    expect(s.ring.map((e) => e.turn)).toEqual([35, 36, 37, 38, 39]);
    for (const xs of Object.values(s.calibration)) expect(xs.length).toBeLessThanOrEqual(7);
    expect(s.calibration.affinity).toHaveLength(7);
    rememberOffered(s, [1, 2, 3], 4);
    rememberOffered(s, [2, 4, 5], 4);
    expect(s.offered).toEqual([3, 2, 4, 5]);
    rememberOffered(s, [9], 0);
    expect(s.offered).toEqual([]);
  });

  it('refuses a vector of another dimension (a model change is an error, not garbage)', () => {
    const s = createSessionState('s');
    record(s, features({ vec: unit(Float32Array.from([1, 2, 3])) }));
    expect(() => record(s, features({ vec: unit(Float32Array.from([1, 2, 3, 4])) }))).toThrow(/dimension 4/);
  });

  it('flags prompt-only sessions until assistant text shows up', () => {
    const r = rng(2);
    const s = createSessionState('s');
    expect(isPromptOnly(s)).toBe(false);
    record(s, features({ vec: direction(r), assistantVec: null, assistantVisible: false }));
    record(s, features({ vec: direction(r), assistantVec: null, assistantVisible: false }));
    expect(isPromptOnly(s)).toBe(true);
    record(s, features({ vec: direction(r) }));
    expect(isPromptOnly(s)).toBe(false);
  });

  it('markBuild records the last recorded turn and time', () => {
    const r = rng(3);
    const s = createSessionState('s');
    record(s, features({ vec: direction(r) }));
    record(s, features({ vec: direction(r) }));
    markBuild(s, 1234);
    expect(s.lastBuildTurn).toBe(1);
    expect(s.lastBuildAt).toBe(1234);
  });

  it('round-trips through JSON and decides the same afterwards', () => {
    const r = rng(4);
    const s = createSessionState('sess-1');
    for (let k = 0; k < 12; k++) record(s, features({ vec: direction(r), userVec: direction(r), assistantVec: k % 3 ? direction(r) : null, text: topicText(k % 4, k), toolCalls: ['Bash: make'], toolErrors: k === 5 ? ['Error: boom'] : [], replyAsks: k === 11 }));
    expect(s.ring[s.ring.length - 1].replyAsks).toBe(true);
    markBuild(s, 99);
    rememberOffered(s, [7, 8], 20);
    const back = fromJSON(JSON.parse(JSON.stringify(toJSON(s))));
    expect(toJSON(back)).toEqual(toJSON(s));
    const next = features({ vec: direction(r), text: topicText(2, 3) });
    const a = evaluateTriggers(s, next, MODE, SESSION);
    const b = evaluateTriggers(back, next, MODE, SESSION);
    expect(b.kind).toBe(a.kind);
    expect(b.drift.z).toBeCloseTo(a.drift.z!, 9);
    expect(b.drift.followsQuestion).toBe(true);
    // no raw text in the serialized state
    expect(JSON.stringify(toJSON(s))).not.toMatch(/make|boom|docker|react/);
  });

  it('rejects malformed persisted state with an error (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        try {
          const s = fromJSON(v);
          // anything accepted must be a usable state
          expect(typeof s.sessionId).toBe('string');
          expect(Array.isArray(s.ring)).toBe(true);
        } catch (e) {
          expect(e).toBeInstanceOf(Error);
          expect((e as Error).message).toMatch(/^session state: /);
        }
      }),
      { numRuns: 300 },
    );
    const good = toJSON(createSessionState('x'));
    expect(() => fromJSON({ ...good, ring: [{ turn: 0, vec: 'nope' }] })).toThrow(/ring entry 0/);
    expect(() => fromJSON({ ...good, version: 2 })).toThrow(/version/);
    expect(() => fromJSON({ ...good, dim: 3, centroid: [1, 2] })).toThrow(/centroid/);
  });

  it('loads a state persisted before the drift window or the dialogue cues (no cohesion history, no prompt tokens, no replyAsks)', () => {
    const r = rng(5);
    const s = createSessionState('old');
    for (let k = 0; k < 6; k++) record(s, features({ vec: direction(r), text: topicText(k % 4, k) }));
    const j = toJSON(s) as unknown as { calibration: Record<string, unknown>; ring: Record<string, unknown>[] };
    const old = { ...j, calibration: { ...j.calibration, novelty: [0.5] }, ring: j.ring.map(({ userTokens: _u, ...e }) => e) };
    delete (old.calibration as Record<string, unknown>).cohesion;
    const back = fromJSON(JSON.parse(JSON.stringify(old)));
    expect(back.calibration.cohesion).toEqual([]);
    back.ring.forEach((e, i) => expect(e.userTokens).toEqual(s.ring[i].tokens));
    // a state from before the dialogue cues (no replyAsks) loads with no cue
    const noCue = { ...toJSON(s), ring: toJSON(s).ring.map(({ replyAsks: _q, ...e }) => e) };
    expect(fromJSON(JSON.parse(JSON.stringify(noCue))).ring.every((e) => e.replyAsks === false)).toBe(true);
    expect(() => fromJSON({ ...toJSON(s), ring: toJSON(s).ring.map((e) => ({ ...e, replyAsks: 'yes' })) })).toThrow(/replyAsks/);
    // control: a malformed cohesion history is still an error
    expect(() => fromJSON({ ...toJSON(s), calibration: { ...toJSON(s).calibration, cohesion: ['x'] } })).toThrow(/calibration/);
  });
});
