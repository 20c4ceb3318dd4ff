import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ConfigSchema } from '../../config/schema.js';
import { hookGate, livenessGates, rateBand, seatGate, storeWriteGate, usefulnessGate, wilson, wouldFireGates, MIN_EXCHANGES_FOR_RATE, MIN_TOOL_STEPS_FOR_RATE } from '../../ops/soak-gates.js';
import { parseDuration } from '../../ops/soak-report.js';

const soak = ConfigSchema.parse({}).soak;
const pass = (gs: { pass: boolean }[]) => gs.every((g) => g.pass);

describe('soak gates: each fails for its reason, and passes in the control', () => {
  it('hook speed and clean exit', () => {
    const fast = { runs: 100, latencies: Array(100).fill(5), nonZeroExits: 0, errors: 0, byOutcome: {} };
    expect(pass(hookGate(fast, soak, 'prompt'))).toBe(true);
    expect(hookGate({ ...fast, latencies: [...Array(98).fill(5), 500, 500] }, soak, 'prompt')[0].pass).toBe(false);
    expect(hookGate({ ...fast, latencies: Array(100).fill(soak.hookP50Ms + 1) }, soak, 'prompt')[0].pass).toBe(false);
    expect(hookGate({ ...fast, errors: 1 }, soak, 'prompt')[1].pass).toBe(false);
    expect(hookGate({ ...fast, nonZeroExits: 1 }, soak, 'prompt')[1].pass).toBe(false);
    expect(pass(hookGate({ ...fast, runs: 0, latencies: [] }, soak, 'prompt'))).toBe(false);
  });

  it('zero store writes: unchanged or indexer-only passes; anything else fails (chain rules: test/ops/store-writes.test.ts)', () => {
    const base = { baseline: { takenAt: 0, sha256: 'a' }, records: [], alive: () => false };
    const run = (before: string, after: string, t: number) => [
      { ts: t, event: 'index-start' as const, run: `r${t}`, pid: 1, store: 's', before_sha256: before, before_bytes: 1 },
      { ts: t + 1, event: 'index-run' as const, run: `r${t}`, pid: 1, store: 's', started: t, result: 'ok' as const, exit: 0, before_sha256: before, sha256: after, bytes: 1 },
    ];
    expect(storeWriteGate({ ...base, current: 'a' })).toMatchObject({ name: 'zero-store-writes', pass: true });
    expect(storeWriteGate({ ...base, records: [...run('a', 'b', 10), ...run('b', 'c', 20)], current: 'c' })).toMatchObject({ pass: true, figure: expect.stringContaining('only by the indexer') });
    expect(storeWriteGate({ ...base, current: 'c' }).pass).toBe(false);
    expect(storeWriteGate({ ...base, records: run('a', 'b', 10), current: 'c' }).pass).toBe(false);
    expect(storeWriteGate({ ...base, records: run('x', 'b', 10), current: 'b' }).pass).toBe(false);
    expect(storeWriteGate({ ...base, baseline: { takenAt: 0, sha256: null }, current: null }).pass).toBe(false);
  });

  it('would-fire rate: inside the band with enough data passes; mute, chatty or thin data fails', () => {
    const band = rateBand('prompt', soak);
    const n = MIN_EXCHANGES_FOR_RATE * 2;
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: Math.round(n * 0.05) }], band, 'prompt')[0]).toMatchObject({ name: 'prompt.would-fire-rate:default', pass: true });
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: 0 }], band, 'prompt')[0].pass).toBe(false);
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: Math.round(n * 0.5) }], band, 'prompt')[0].pass).toBe(false);
    expect(wouldFireGates([{ mode: 'default', opportunities: 10, wouldFire: 1 }], band, 'prompt')[0].pass).toBe(false);
    expect(wouldFireGates([], band, 'prompt')[0]).toMatchObject({ name: 'prompt.would-fire-rate', pass: false, figure: 'no exchanges observed yet' });
  });

  it('tool channel rate: its own band and unit (per 100 tool events), its own minimum', () => {
    const band = rateBand('tool', soak);
    expect(band).toMatchObject({ unit: 'tool events', minPer100: soak.toolMinWouldFirePer100, maxPer100: soak.toolMaxWouldFirePer100, minOpportunities: MIN_TOOL_STEPS_FOR_RATE });
    const n = MIN_TOOL_STEPS_FOR_RATE;
    // 1 per 100 tool events: inside the tool band (control) …
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: n / 100 }], band, 'tool')[0]).toMatchObject({ name: 'tool.would-fire-rate:default', pass: true, figure: expect.stringContaining('per 100 tool events') });
    // … 5 per 100 passes the prompt band but is chatty for the tool channel …
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: n / 20 }], band, 'tool')[0].pass).toBe(false);
    expect(wouldFireGates([{ mode: 'default', opportunities: n, wouldFire: n / 20 }], rateBand('prompt', soak), 'prompt')[0].pass).toBe(true);
    // … and the prompt channel's 50 exchanges are not enough tool events.
    expect(wouldFireGates([{ mode: 'default', opportunities: n - 1, wouldFire: (n - 1) / 100 }], band, 'tool')[0].pass).toBe(false);
    expect(wouldFireGates([], band, 'tool')[0]).toMatchObject({ name: 'tool.would-fire-rate', pass: false, figure: 'no tool events observed yet' });
  });

  it('hook gates carry their channel in the name, and say which events had no runs', () => {
    const none = hookGate({ runs: 0, latencies: [], nonZeroExits: 0, errors: 0, byOutcome: {} }, soak, 'tool');
    expect(none.map((g) => g.name)).toEqual(['tool.hook-speed', 'tool.hook-clean-exit']);
    expect(none[0].figure).toMatch(/PostToolUseFailure/);
  });

  it('liveness and honest process state', () => {
    const ok = { running: true, canaryAgeS: 1, cycleS: 2, problem: null, lockPid: 42, canaryPid: 42 };
    expect(pass(livenessGates(ok))).toBe(true);
    expect(livenessGates({ ...ok, canaryAgeS: 7 })[0].pass).toBe(false);
    expect(livenessGates({ ...ok, canaryPid: 43 })[1].pass).toBe(false);
    expect(pass(livenessGates({ ...ok, running: false, problem: 'dead-pid' }))).toBe(false);
  });

  it('transcript availability needs an interactive session with assistant text', () => {
    expect(seatGate({ seats: { interactive: { sessions: 2, exchanges: 9, promptOnlySessions: 1 } } }).pass).toBe(true);
    expect(seatGate({ seats: { interactive: { sessions: 2, exchanges: 9, promptOnlySessions: 2 } } }).pass).toBe(false);
    expect(seatGate({ seats: { worker: { sessions: 5, exchanges: 50, promptOnlySessions: 0 } } }).pass).toBe(false);
    expect(seatGate({ seats: {} }).pass).toBe(false);
  });

  it('usefulness: ≥ 70% over ≥ 50 labels', () => {
    expect(usefulnessGate({ n: 50, useful: 35 }, soak, 'prompt')).toMatchObject({ name: 'prompt.usefulness', pass: true });
    expect(usefulnessGate({ n: 50, useful: 35 }, soak, 'tool', 'default')).toMatchObject({ name: 'tool.usefulness:default', pass: true });
    expect(usefulnessGate({ n: 50, useful: 34 }, soak, 'prompt').pass).toBe(false);
    expect(usefulnessGate({ n: 49, useful: 49 }, soak, 'tool').pass).toBe(false);
    expect(usefulnessGate({ n: 0, useful: 0 }, soak, 'tool')).toMatchObject({ pass: false, figure: expect.stringContaining('label --channel tool') });
  });

  it('Wilson interval contains the observed share and narrows with n', () => {
    fc.assert(fc.property(fc.integer({ min: 1, max: 500 }), fc.double({ min: 0, max: 1, noNaN: true }), (n, p) => {
      const k = Math.round(n * p);
      const [lo, hi] = wilson(k, n);
      return lo <= k / n + 1e-9 && hi >= k / n - 1e-9 && lo >= 0 && hi <= 1;
    }));
    const [a, b] = wilson(35, 50);
    const [c, d] = wilson(350, 500);
    expect(d - c).toBeLessThan(b - a);
  });

  it('parses durations and rejects junk', () => {
    expect(parseDuration('7d')).toBe(7 * 86400e3);
    expect(parseDuration('90m')).toBe(90 * 60e3);
    expect(parseDuration('soon')).toBeNull();
  });
});
