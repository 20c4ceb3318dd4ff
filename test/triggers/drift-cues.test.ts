/**
 * The dialogue cues in the drift score (core/triggers.ts, core/dialogue-cues.ts) with the
 * shipped mode defaults: a prompt that asks a question lowers the drift bar, one that answers
 * the other side's question raises it, and a question as similar as the session's usual
 * prompts never fires. Each gate has its control; a property checks that the cues only move
 * the score by their constants (so decisions stay scale-free and monotone in the cues).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ModeSchema } from '../../config/schema.js';
import { createSessionState, fromJSON, markBuild, recordExchange, toJSON, type ExchangeFeatures, type SessionState } from '../../core/session-state.js';
import { evaluateTriggers, type TriggerResult, type TriggerThresholds } from '../../core/triggers.js';
import { direction, features, MODE, near, rescaleFeatures, rng, SESSION, topicText } from './vectors.js';

const DEFAULTS: TriggerThresholds = ModeSchema.parse({});
const CUES_OFF: TriggerThresholds = { ...DEFAULTS, driftQuestionBonus: 0, driftAnswerPenalty: 0 };

function step(state: SessionState, f: ExchangeFeatures, mode: TriggerThresholds = DEFAULTS): TriggerResult {
  const r = evaluateTriggers(state, f, mode, SESSION);
  recordExchange(state, f, r.measures, SESSION);
  if (r.kind) markBuild(state, f.timestamp);
  return r;
}
const clone = (s: SessionState) => fromJSON(JSON.parse(JSON.stringify(toJSON(s))));

/** A warmed-up session on one topic and a next exchange whose cue-free drift score lies in
 *  [lo, hi): a moderate move, not a clear break. Found by scanning seeded candidates. */
function moderateMove(lo: number, hi: number, replyAsks = false): { state: SessionState; next: (over: Partial<Parameters<typeof features>[0]>) => ExchangeFeatures; z: number } {
  for (let seed = 1; seed < 500; seed++) {
    const r = rng(seed);
    const topic = direction(r);
    const state = createSessionState('s');
    for (let k = 0; k < 8; k++) step(state, features({ vec: near(topic, r, 0.8), text: topicText(0, k), replyAsks: k === 7 && replyAsks }), CUES_OFF);
    const vec = near(topic, r, 1.2 + (seed % 7) * 0.2);
    const text = `${topicText(0, 8, 2)} ${topicText(1, seed, 2)}`;
    const probe = evaluateTriggers(state, features({ vec, text, asks: false, followsQuestion: false }), CUES_OFF, SESSION);
    if (probe.drift.z !== null && probe.drift.z >= lo && probe.drift.z < hi)
      return { state, z: probe.drift.z, next: (over) => features({ vec, text, ...over }) };
  }
  throw new Error('no seed gives a moderate move');
}

describe('drift dialogue cues (shipped defaults)', () => {
  it('the defaults keep a question alone below the bar: driftQuestionBonus < driftZ', () => {
    expect(DEFAULTS.driftQuestionBonus).toBeGreaterThan(0);
    expect(DEFAULTS.driftAnswerPenalty).toBeGreaterThan(0);
    expect(DEFAULTS.driftQuestionBonus).toBeLessThan(DEFAULTS.driftZ);
  });

  it('a moderate move fires when the prompt asks a question; control: the same move as a statement stays silent', () => {
    const gap = DEFAULTS.driftZ - DEFAULTS.driftQuestionBonus;
    const m = moderateMove(gap + 0.2, DEFAULTS.driftZ - 0.2);
    const asked = evaluateTriggers(clone(m.state), m.next({ asks: true, followsQuestion: false }), DEFAULTS, SESSION);
    const stated = evaluateTriggers(clone(m.state), m.next({ asks: false, followsQuestion: false }), DEFAULTS, SESSION);
    expect(asked.drift.asks).toBe(true);
    expect(asked.drift.fired).toBe(true);
    expect(asked.kind).toBe('drift');
    expect(stated.drift.fired).toBe(false);
    expect(asked.drift.z! - stated.drift.z!).toBeCloseTo(DEFAULTS.driftQuestionBonus, 9);
  });

  it('the cue is read from the prompt text: "?" in prose counts, "?" in code does not', () => {
    const gap = DEFAULTS.driftZ - DEFAULTS.driftQuestionBonus;
    const m = moderateMove(gap + 0.2, DEFAULTS.driftZ - 0.2);
    const prose = evaluateTriggers(clone(m.state), m.next({ userText: 'should the pool retry on timeout?', followsQuestion: false }), DEFAULTS, SESSION);
    const code = evaluateTriggers(clone(m.state), m.next({ userText: 'set `retry = ok ? 1 : 0` in the pool', followsQuestion: false }), DEFAULTS, SESSION);
    expect(prose.drift.asks).toBe(true);
    expect(code.drift.asks).toBe(false);
    expect(prose.drift.fired).toBe(true);
    expect(code.drift.fired).toBe(false);
  });

  it('a question that answers the other side\'s question is held back; control: the same question unprompted fires', () => {
    const gap = DEFAULTS.driftZ - DEFAULTS.driftQuestionBonus;
    const m = moderateMove(gap + 0.2, DEFAULTS.driftZ - 0.2);
    const answering = evaluateTriggers(clone(m.state), m.next({ asks: true, followsQuestion: true }), DEFAULTS, SESSION);
    const opening = evaluateTriggers(clone(m.state), m.next({ asks: true, followsQuestion: false }), DEFAULTS, SESSION);
    expect(answering.drift.followsQuestion).toBe(true);
    expect(answering.drift.fired).toBe(false);
    expect(opening.drift.fired).toBe(true);
  });

  it('"follows a question" comes from the previous reply in the ring when the caller does not say', () => {
    const gap = DEFAULTS.driftZ - DEFAULTS.driftQuestionBonus;
    const asked = moderateMove(gap + 0.2, DEFAULTS.driftZ - 0.2, true);
    const r = evaluateTriggers(clone(asked.state), asked.next({ asks: true }), DEFAULTS, SESSION);
    expect(r.drift.followsQuestion).toBe(true);
    expect(r.drift.fired).toBe(false);
    // control: the same session whose last reply did not ask
    const plain = moderateMove(gap + 0.2, DEFAULTS.driftZ - 0.2, false);
    const c = evaluateTriggers(clone(plain.state), plain.next({ asks: true }), DEFAULTS, SESSION);
    expect(c.drift.followsQuestion).toBe(false);
    expect(c.drift.fired).toBe(true);
  });

  it('a question as similar as the session\'s usual prompts never fires (every seed)', () => {
    for (let seed = 1; seed <= 20; seed++) {
      const r = rng(seed);
      const topic = direction(r);
      const s = createSessionState('s');
      for (let k = 0; k < 8; k++) step(s, features({ vec: near(topic, r, 0.8), text: topicText(0, k) }));
      const res = step(s, features({ vec: near(topic, r, 0.2), text: topicText(0, 7), asks: true, followsQuestion: false }));
      expect(res.drift.fired, `seed ${seed}`).toBe(false);
    }
  });

  it('a clear break fires without any cue (statements still drift)', () => {
    const m = moderateMove(DEFAULTS.driftZ + 0.5, Infinity);
    expect(evaluateTriggers(clone(m.state), m.next({ asks: false, followsQuestion: false }), DEFAULTS, SESSION).drift.fired).toBe(true);
  });

  it('property: the cues move the drift score by exactly their constants, the same on any cosine scale', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), fc.boolean(), fc.boolean(), fc.double({ min: 0, max: 0.6, noNaN: true }), (seed, asks, follows, b) => {
        const r = rng(seed);
        const topic = direction(r);
        const seq: ExchangeFeatures[] = Array.from({ length: 9 }, (_, k) =>
          features({ vec: near(k < 8 ? topic : direction(r), r, 0.3 + r()), text: topicText(k < 8 ? 0 : 1 + (seed % 3), k), asks: r() < 0.3, replyAsks: r() < 0.3 }),
        );
        const last = { ...seq[8], asks, followsQuestion: follows };
        const run = (mode: TriggerThresholds, scale: number) => {
          const s = createSessionState('s');
          for (const f of seq.slice(0, 8)) step(s, rescaleFeatures(f, scale), mode);
          return evaluateTriggers(s, rescaleFeatures(last, scale), mode, SESSION);
        };
        const off = run(CUES_OFF, 0);
        const on = run(DEFAULTS, 0);
        const onOtherScale = run(DEFAULTS, b);
        if (off.drift.z === null) return;
        const cue = (asks ? DEFAULTS.driftQuestionBonus : 0) - (follows ? DEFAULTS.driftAnswerPenalty : 0);
        expect(on.drift.z! - off.drift.z!).toBeCloseTo(cue, 6);
        if (Math.abs(on.drift.z! - DEFAULTS.driftZ) > 1e-3) expect(onOtherScale.drift.fired).toBe(on.drift.fired);
        // monotone: asking can only add a firing, answering can only remove one
        if (off.drift.fired && cue >= 0) expect(on.drift.fired).toBe(true);
        if (!off.drift.fired && cue <= 0) expect(on.drift.fired).toBe(false);
      }),
      { numRuns: 80 },
    );
  });

  it('the similarity-only test mode really has the cues off (MODE in vectors.ts)', () => {
    expect(MODE.driftQuestionBonus).toBe(0);
    expect(MODE.driftAnswerPenalty).toBe(0);
  });
});
