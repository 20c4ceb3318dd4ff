/**
 * The trigger decision (core/triggers.ts) on constructed vector sequences: drift on a real
 * topic change vs staying on topic, stall on repetition vs progress, the flow-repair guard
 * and its control, warm-up, cooldown, prompt-only strictness, the error trigger, and the
 * scale-invariance property (same decisions when every cosine is affinely rescaled).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createSessionState, fromJSON, markBuild, recordExchange, toJSON, type ExchangeFeatures, type SessionConfig, type SessionState } from '../../core/session-state.js';
import { evaluateTriggers, type TriggerResult, type TriggerThresholds } from '../../core/triggers.js';
import { direction, features, MODE, near, rescaleFeatures, rng, SESSION, topicText, unit } from './vectors.js';

function step(state: SessionState, f: ExchangeFeatures, mode: TriggerThresholds = MODE, cfg: SessionConfig = SESSION): TriggerResult {
  const r = evaluateTriggers(state, f, mode, cfg);
  recordExchange(state, f, r.measures, cfg);
  if (r.kind) markBuild(state, f.timestamp);
  return r;
}

/** `n` ordinary exchanges on topic `t` (noisy vectors, rotating topic words). */
function onTopic(state: SessionState, topic: Float32Array, t: number, n: number, r: () => number): TriggerResult[] {
  return Array.from({ length: n }, (_, k) => step(state, features({ vec: near(topic, r, 0.8), text: topicText(t, k) })));
}

/** `n` exchanges that each go somewhere new (progress, no repetition). */
function progress(state: SessionState, n: number, r: () => number, offset = 0): TriggerResult[] {
  return Array.from({ length: n }, (_, k) => {
    const v = direction(r);
    return step(state, features({ vec: v, userVec: direction(r), assistantVec: direction(r), text: topicText((k + offset) % 4, k + offset) }));
  });
}

describe('drift', () => {
  it('fires on a real topic change (every seed)', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = rng(seed);
      const a = direction(r);
      const b = direction(r);
      const s = createSessionState('s');
      onTopic(s, a, 0, 8, r);
      const res = step(s, features({ vec: near(b, r, 0.8), text: topicText(3, 0) }));
      expect(res.drift.fired, `seed ${seed}`).toBe(true);
      expect(res.kind).toBe('drift');
      expect(res.reasons).toContain('drift');
    }
  });

  it('vectors alone (no lexical term) still fire on a topic change', () => {
    const r = rng(7);
    const a = direction(r);
    const s = createSessionState('s');
    const mode = { ...MODE, driftLexicalWeight: 0 };
    for (let k = 0; k < 8; k++) step(s, features({ vec: near(a, r, 0.8), text: topicText(0, k) }), mode);
    expect(step(s, features({ vec: direction(r), text: topicText(0, 8) }), mode).drift.fired).toBe(true);
  });

  it('words alone fire: the same vector fires with new words, stays silent with the topic\'s words', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = rng(seed);
      const a = direction(r);
      const s = createSessionState('s');
      onTopic(s, a, 0, 8, r);
      const twin = fromJSON(JSON.parse(JSON.stringify(toJSON(s))));
      const v = near(a, r, 0.5);
      const fresh = step(s, features({ vec: v, text: topicText(2, 0) }));
      expect(fresh.drift.cohesion, `seed ${seed}`).toBe(0);
      expect(fresh.drift.fired, `seed ${seed}`).toBe(true);
      // control: the same vector with the last prompt's own words
      const same = step(twin, features({ vec: v, text: topicText(0, 7) }));
      expect(same.drift.fired, `seed ${seed}`).toBe(false);
    }
  });

  it('the drift window compares with the last prompts, not with their replies', () => {
    const r = rng(3);
    const s = createSessionState('s');
    const v = direction(r);
    for (let k = 0; k < 3; k++) step(s, features({ vec: v, userVec: v, text: `${topicText(0, k)} ${topicText(1, k)}`, userText: topicText(0, k) }));
    const replyWords = step(s, features({ vec: v, text: topicText(1, 0, 10) }));
    expect(replyWords.drift.cohesion).toBe(0);
    const promptWords = step(s, features({ vec: v, text: topicText(0, 3, 10) }));
    expect(promptWords.drift.cohesion).toBeGreaterThan(0.3);
  });

  it('control: staying on the topic does not fire (every seed)', () => {
    for (let seed = 1; seed <= 10; seed++) {
      const r = rng(seed);
      const a = direction(r);
      const s = createSessionState('s');
      onTopic(s, a, 0, 8, r);
      const res = step(s, features({ vec: near(a, r, 0.2), text: topicText(0, 7) }));
      expect(res.drift.fired, `seed ${seed}`).toBe(false);
      expect(res.kind).not.toBe('drift');
    }
  });
});

describe('stall', () => {
  it('fires when the last exchanges repeat themselves', () => {
    const r = rng(3);
    const s = createSessionState('s');
    progress(s, 10, r);
    const same = direction(r);
    const rs = [0, 1, 2].map(() => step(s, features({ vec: same, text: 'the build still fails with the same linker error' })));
    expect(rs.some((x) => x.stall.fired)).toBe(true);
    const fired = rs.find((x) => x.stall.fired)!;
    expect(fired.kind).toBe('stall');
    expect(fired.reasons).toContain('stall:vector');
  });

  it('control: steady progress does not fire', () => {
    const r = rng(3);
    const s = createSessionState('s');
    const rs = progress(s, 16, r);
    expect(rs.filter((x) => x.stall.fired)).toHaveLength(0);
  });

  it('repeated near-identical tool calls fire on their own (numbers and paths normalized)', () => {
    const r = rng(5);
    const s = createSessionState('s');
    progress(s, 5, r);
    const calls = ['Read: ./src/parser.c:650', 'Read: src/parser.c:700', 'Read: src/parser.c:12'];
    const rs = calls.map((c) => step(s, features({ vec: direction(r), userVec: null, assistantVec: direction(r), toolCalls: [c] })));
    expect(rs[2].stall.toolRepeat).toBe(3);
    expect(rs[2].stall.fired).toBe(true);
    expect(rs[2].reasons).toContain('stall:tool-repeat');
  });

  it('control: different tool calls do not fire', () => {
    const r = rng(5);
    const s = createSessionState('s');
    progress(s, 5, r);
    const calls = ['Read: src/parser.c', 'Edit: src/lexer.c', 'Bash: make test'];
    const rs = calls.map((c) => step(s, features({ vec: direction(r), userVec: null, assistantVec: direction(r), toolCalls: [c] })));
    expect(rs.map((x) => x.stall.fired)).toEqual([false, false, false]);
  });
});

describe('flow-repair guard', () => {
  function restating(assistantRepeats: boolean, seed: number): TriggerResult[] {
    const r = rng(seed);
    const s = createSessionState('s');
    progress(s, 10, r);
    const u = direction(r);
    const fixedA = direction(r);
    return [0, 1, 2].map(() => {
      const a = assistantRepeats ? fixedA : direction(r);
      // the whole exchange is dominated by the (repeated) prompt, so its vectors repeat too
      return step(s, features({ vec: unit(u.map((x, i) => x + 0.6 * a[i])), userVec: u, assistantVec: a }));
    });
  }

  it('the human restating an unmet instruction while the assistant varies is not a stall', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const rs = restating(false, seed);
      expect(rs.some((x) => x.guard.flowRepair), `seed ${seed}`).toBe(true);
      expect(rs.some((x) => x.stall.fired), `seed ${seed}`).toBe(false);
      // the guard did the work: there was stall evidence and it was suppressed
      expect(rs.some((x) => x.reasons.includes('guard:flow-repair') && x.stall.z! >= MODE.stallZ), `seed ${seed}`).toBe(true);
    }
  });

  it('control: when the assistant repeats too, the stall fires', () => {
    for (let seed = 1; seed <= 5; seed++) {
      const rs = restating(true, seed);
      expect(rs.some((x) => x.stall.fired), `seed ${seed}`).toBe(true);
      expect(rs.every((x) => !x.stall.fired || !x.guard.flowRepair)).toBe(true);
    }
  });
});

describe('warm-up and cooldown', () => {
  it('nothing fires before warmupExchanges, however wild the session', () => {
    const r = rng(11);
    const s = createSessionState('s');
    const cfg = { ...SESSION, warmupExchanges: 6 };
    const rs = Array.from({ length: 6 }, (_, k) =>
      step(s, features({ vec: direction(r), text: topicText(k % 4, k), toolCalls: ['Bash: make'], toolErrors: [`error ${k}: boom ${k}x`] }), MODE, cfg),
    );
    expect(rs.every((x) => x.kind === null && x.reasons.includes('warmup'))).toBe(true);
    // control: the same stream past warm-up does fire (tool repeat, new error)
    const after = step(s, features({ vec: direction(r), toolCalls: ['Bash: make'], toolErrors: ['fatal: disk quota exceeded'] }), MODE, cfg);
    expect(after.kind).not.toBeNull();
  });

  it('cooldown in turns blocks a build right after a build, then lets the next through', () => {
    const r = rng(13);
    const s = createSessionState('s');
    const cfg = { ...SESSION, cooldownTurns: 2 };
    progress(s, 5, r);
    const call = (): ExchangeFeatures => features({ vec: direction(r), userVec: null, assistantVec: direction(r), toolCalls: ['Bash: npm test'] });
    const rs = [0, 1, 2, 3, 4, 5].map(() => step(s, call(), MODE, cfg));
    // run of 3 at index 2 fires; 3 and 4 are within 2 turns; 5 is allowed again
    expect(rs.map((x) => x.kind)).toEqual([null, null, 'stall', null, null, 'stall']);
    expect(rs[3].stall.fired && rs[3].cooldown.blocked).toBe(true);
    expect(rs[3].reasons).toContain('cooldown:turns');
  });

  it('cooldown in seconds blocks until enough time has passed', () => {
    const r = rng(17);
    const s = createSessionState('s');
    const cfg = { ...SESSION, cooldownSeconds: 600 };
    progress(s, 5, r);
    const t0 = 2_000_000_000_000;
    const at = (ms: number): ExchangeFeatures => features({ vec: direction(r), userVec: null, assistantVec: direction(r), toolCalls: ['Bash: npm test'], timestamp: t0 + ms });
    expect(step(s, at(0), MODE, cfg).kind).toBeNull();
    expect(step(s, at(1000), MODE, cfg).kind).toBeNull();
    expect(step(s, at(2000), MODE, cfg).kind).toBe('stall');
    const blocked = step(s, at(60_000), MODE, cfg);
    expect(blocked.cooldown.blocked).toBe(true);
    expect(blocked.reasons).toContain('cooldown:seconds');
    expect(step(s, at(2000 + 601_000), MODE, cfg).kind).toBe('stall');
  });
});

describe('prompt-only sessions and errors', () => {
  function repeatedPrompts(visible: boolean, mode: TriggerThresholds): TriggerResult[] {
    const r = rng(19);
    const s = createSessionState('s');
    const rs: TriggerResult[] = [];
    const prompts = Array.from({ length: 10 }, () => direction(r));
    const same = direction(r);
    prompts.push(same, near(same, r, 0.6));
    for (const v of prompts) {
      const a = direction(r); // drawn either way, so both sessions see the same prompts
      rs.push(step(s, features({ vec: v, userVec: v, assistantVec: visible ? a : null, assistantVisible: visible }), mode));
    }
    return rs;
  }

  it('a prompt-only session is flagged and needs the stricter threshold; control: visible session fires', () => {
    const visible = repeatedPrompts(true, { ...MODE, stallZ: 0 }).at(-1)!;
    const z = visible.stall.z!;
    expect(z).toBeGreaterThan(0);
    const mode = { ...MODE, stallZ: z / 1.2, stallMaxQuantile: 1 };
    const v = repeatedPrompts(true, mode).at(-1)!;
    // the visible session fires on the vector evidence (its user side varies with its assistant side: no guard)
    expect(v.stall.promptOnly).toBe(false);
    expect(v.stall.fired || v.guard.flowRepair).toBe(true);
    const p = repeatedPrompts(false, mode).at(-1)!;
    expect(p.stall.promptOnly).toBe(true);
    expect(p.stall.z).toBeCloseTo(z, 9);
    expect(p.stall.fired).toBe(false);
    const strictOk = repeatedPrompts(false, { ...mode, stallZ: z / 1.6 }).at(-1)!;
    expect(strictOk.stall.fired).toBe(true);
    expect(strictOk.reasons).toContain('stall:prompt-only');
  });

  it('a tool error not seen before fires the error trigger; the same error again does not', () => {
    const r = rng(23);
    const s = createSessionState('s');
    progress(s, 5, r);
    const e1 = step(s, features({ vec: direction(r), toolErrors: ['ECONNRESET: socket hang up after 30012 ms'] }));
    expect(e1.kind).toBe('error');
    expect(e1.error.newErrors).toBe(1);
    const e2 = step(s, features({ vec: direction(r), toolErrors: ['ECONNRESET: socket hang up after 29950 ms'] }));
    expect(e2.error.fired).toBe(false);
    const e3 = step(s, features({ vec: direction(r), toolErrors: ['TypeError: x is not a function'] }));
    expect(e3.error.fired).toBe(true);
  });
});

describe('scale invariance', () => {
  /** A random session: topic blocks, repeats, tool calls; the same features at two cosine scales. */
  const sessionArb = fc.record({
    seed: fc.integer({ min: 1, max: 1_000_000 }),
    plan: fc.array(fc.record({ topic: fc.integer({ min: 0, max: 3 }), kind: fc.constantFrom('topic', 'repeat', 'restate', 'tool') }), { minLength: 8, maxLength: 24 }),
  });

  it('the same decisions when every cosine is rescaled (MiniLM-like vs GloVe-like ranges)', () => {
    fc.assert(
      fc.property(sessionArb, ({ seed, plan }) => {
        const r = rng(seed);
        const topics = [0, 1, 2, 3].map(() => direction(r));
        const fixed = direction(r);
        const seq: ExchangeFeatures[] = plan.map((p, k) => {
          const v = p.kind === 'repeat' ? near(fixed, r, 0.05) : near(topics[p.topic], r, 0.9);
          const a = direction(r);
          return features({
            vec: p.kind === 'restate' ? unit(fixed.map((x, i) => x + a[i])) : v,
            userVec: p.kind === 'restate' ? near(fixed, r, 0.05) : v,
            assistantVec: p.kind === 'restate' ? a : near(v, r, 0.5),
            text: topicText(p.topic, k),
            toolCalls: p.kind === 'tool' ? ['Bash: make'] : [],
          });
        });
        const run = (b: number) => {
          const s = createSessionState('s');
          return seq.map((f) => step(s, rescaleFeatures(f, b)));
        };
        const glove = run(0);
        const minilm = run(0.35);
        glove.forEach((g, i) => {
          const m = minilm[i];
          const near = (x: number | null, t: number) => x !== null && Math.abs(x - t) < 1e-3;
          // skip the (measure-zero) cases where float32 rounding sits on a threshold
          if (near(g.drift.z, MODE.driftZ) || near(g.stall.z, MODE.stallZ) || near(g.guard.userZ, MODE.stallZ) || near(g.guard.assistantZ, MODE.stallZ)) return;
          expect(m.kind).toBe(g.kind);
          expect(m.drift.fired).toBe(g.drift.fired);
          expect(m.stall.fired).toBe(g.stall.fired);
          expect(m.guard.flowRepair).toBe(g.guard.flowRepair);
          const close = (a: number | null, b: number | null) => expect(a === null ? null : Math.abs(a - b!) <= 1e-3 * Math.max(1, Math.abs(b!))).toBe(a === null ? null : true);
          close(m.drift.z, g.drift.z);
          close(m.stall.z, g.stall.z);
        });
        // the raw cosines really are on different scales
        const gs = glove.map((x) => x.stall.minSim).filter((x): x is number => x !== null);
        const ms = minilm.map((x) => x.stall.minSim).filter((x): x is number => x !== null);
        if (gs.length) expect(Math.min(...ms)).toBeGreaterThan(Math.min(...gs));
      }),
      { numRuns: 60 },
    );
  });
});
