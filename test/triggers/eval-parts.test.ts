/**
 * The pure parts of `eval drift` / `eval stall`: segmentation metrics (P/R/F1, Pk),
 * the TextTiling baseline, the TIAGE and OpenHands parsers, the deterministic gold-loop
 * definition, stall scoring, and the lexical normalization the triggers use.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { countBoundaries, pkCounts, prf, meanSegmentLength } from '../../eval/segmentation.js';
import { textTiling, textTilingDepths } from '../../eval/textiling.js';
import { parseTiage } from '../../eval/tiage.js';
import { goldRuns, normalizeArg, parseOpenHands, parseTrajectory } from '../../eval/openhands.js';
import { scoreStall } from '../../eval/stall.js';
import { contentTokens, normalizeToolCall, toolSignatures, errorSignatures, jaccard } from '../../core/lexical.js';
import { median, robustZ, quantileBelow } from '../../core/robust.js';

const B = (s: string) => [...s].map((c) => c === '1');

describe('segmentation metrics', () => {
  it('counts exact boundary hits (position 0 ignored)', () => {
    const c = countBoundaries(B('0010010'), B('1010001'));
    expect(c).toEqual({ tp: 1, fp: 1, fn: 1 });
    expect(prf(c)).toEqual({ precision: 0.5, recall: 0.5, f1: 0.5 });
    expect(prf({ tp: 0, fp: 0, fn: 3 })).toEqual({ precision: 0, recall: 0, f1: 0 });
  });

  it('Pk is 0 for a perfect hypothesis, positive for a wrong one, window = half the mean segment', () => {
    const gold = B('000100010000');
    expect(meanSegmentLength(gold)).toBe(4);
    expect(pkCounts(gold, gold).errors).toBe(0);
    const none = pkCounts(gold, B('000000000000'));
    expect(none.comparisons).toBe(10); // k = 2
    expect(none.errors).toBe(4); // the pairs that straddle the two gold boundaries
    expect(pkCounts(gold, B('011111111111')).errors).toBeGreaterThan(0);
  });

  it('Pk stays within [0, 1] (property)', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 2, maxLength: 40 }), fc.array(fc.boolean(), { minLength: 40, maxLength: 40 }), (g, h) => {
        const { errors, comparisons } = pkCounts(g, h.slice(0, g.length));
        expect(errors).toBeGreaterThanOrEqual(0);
        expect(errors).toBeLessThanOrEqual(comparisons);
      }),
    );
  });
});

describe('TextTiling baseline', () => {
  it('puts a boundary where the vocabulary changes, not inside a topic', () => {
    const d = [
      'the postgres pool keeps timing out',
      'raise the pool size and the postgres timeout',
      'pool timeout fixed after the postgres change',
      'my cat likes the garden and birds',
      'the garden birds annoy my cat',
      'cat and birds in the garden again',
    ];
    const b = textTiling(d);
    expect(b[3]).toBe(true);
    expect(b[0]).toBe(false);
    const depth = textTilingDepths(d);
    expect(depth.indexOf(Math.max(...depth))).toBe(2); // gap before utterance 3
  });
});

describe('TIAGE parser', () => {
  it('reads dialogues and shift labels', () => {
    const d = parseTiage({ a: [['hi', '-1'], ['x', '0'], ['y', '1']], b: [['only', '-1']] });
    expect(d).toEqual([
      { id: 'a', utterances: ['hi', 'x', 'y'], shifts: [false, false, true] },
      { id: 'b', utterances: ['only'], shifts: [false] },
    ]);
  });
  it('rejects other shapes with the dialogue named', () => {
    expect(() => parseTiage([1, 2])).toThrow(/JSON object/);
    expect(() => parseTiage({ d7: [['hi', 'maybe']] })).toThrow(/dialogue d7, turn 0/);
  });
});

function traj(actions: { action: string; args: Record<string, unknown>; obs?: string; err?: boolean }[]) {
  const history: unknown[] = [{ source: 'agent', action: 'system', args: { content: 'sys' } }, { source: 'user', action: 'message', args: { content: 'fix it' } }];
  for (const a of actions) {
    history.push({ source: 'agent', action: a.action, args: { thought: 'hmm', ...a.args } });
    history.push({ source: 'agent', observation: a.err ? 'error' : a.action, content: a.obs ?? 'ok', extras: {} });
  }
  return { instance_id: 'x', history };
}

describe('OpenHands parser and gold loops', () => {
  it('turns agent actions into steps with Claude-style tool calls and error flags', () => {
    const t = parseTrajectory(
      traj([
        { action: 'run', args: { command: 'ls src' } },
        { action: 'think', args: {} },
        { action: 'edit', args: { path: '/workspace/repo__x/a.c', old_str: 'x' }, obs: 'ERROR: No replacement was performed' },
      ]),
    );
    expect(t.steps.map((s) => s.toolCall)).toEqual(['Bash: ls src', 'Edit: /workspace/repo__x/a.c']);
    expect(t.steps.map((s) => s.isError)).toEqual([false, true]);
    expect(t.steps[1].goldKey).toBe('edit a.c');
  });

  it('gold = runs of ≥ 3 consecutive actions with equal normalized keys (view ranges, contents, numbers ignored)', () => {
    const t = parseTrajectory(
      traj([
        { action: 'read', args: { path: '/workspace/r/src/p.c', view_range: [1, 50] } },
        { action: 'read', args: { path: './src/p.c', view_range: [650, 700] } },
        { action: 'read', args: { path: 'src/p.c' } },
        { action: 'run', args: { command: 'make   -j4' } },
        { action: 'edit', args: { path: 'src/p.c', old_str: 'a' } },
        { action: 'edit', args: { path: 'src/p.c', old_str: 'b' } },
        { action: 'run', args: { command: 'make -j8' } },
      ]),
    );
    expect(goldRuns(t.steps)).toEqual([{ start: 0, end: 2, key: 'read src/p.c' }]);
    expect(normalizeArg('make   -j4')).toBe(normalizeArg('make -j8'));
  });

  it('parses JSONL and names a bad line', () => {
    const line = JSON.stringify(traj([{ action: 'run', args: { command: 'ls' } }]));
    expect(parseOpenHands(`${line}\n\n${line}\n`)).toHaveLength(2);
    expect(() => parseOpenHands(`${line}\n{oops\n`)).toThrow(/line 2/);
    expect(() => parseOpenHands(`{"a":1}\n`)).toThrow(/line 1/);
  });

  it('scores a firing inside a run (or 1 step after) once per run; others are false', () => {
    const runs = [[{ start: 3, end: 5, key: 'k' }, { start: 10, end: 12, key: 'j' }]];
    const fired = [Array.from({ length: 15 }, (_, i) => i === 4 || i === 5 || i === 8 || i === 13)];
    const s = scoreStall(runs, fired);
    expect(s).toMatchObject({ runs: 2, hit: 2, firings: 4, falseFirings: 1, redundant: 1 });
    expect(s.precision).toBeCloseTo(2 / 3, 9);
    expect(s.recall).toBe(1);
  });
});

describe('lexical features', () => {
  it('content tokens drop stopwords and numbers and fold plurals', () => {
    expect(contentTokens('I have two cats and 1000 hats, the cat')).toEqual(['cat', 'hat', 'cat']);
  });
  it('tool-call signatures ignore numbers, ./ and whitespace; different files differ', () => {
    expect(normalizeToolCall('Read: ./src/a.ts:120')).toBe(normalizeToolCall('Read:  src/a.ts:7'));
    expect(jaccard(toolSignatures(['Read: src/a.ts']), toolSignatures(['Read: src/b.ts']))).toBe(0);
    expect(errorSignatures(['Error: timeout after 300 ms\nstack'])).toEqual(errorSignatures(['Error: timeout after 12 ms']));
  });
  it('robust statistics are affine-invariant (property)', () => {
    fc.assert(
      fc.property(
        // cosine-like values on a 1e-4 grid (no subnormals: rescaling them underflows)
        fc.array(fc.integer({ min: -10_000, max: 10_000 }).map((i) => i / 10_000), { minLength: 3, maxLength: 30 }),
        fc.integer({ min: -10_000, max: 10_000 }).map((i) => i / 10_000),
        fc.integer({ min: 1, max: 30 }).map((i) => i / 10),
        fc.integer({ min: -10, max: 10 }).map((i) => i / 10),
        (h, x, a, b) => {
          const t = (v: number) => a * v + b;
          expect(median(h.map(t))).toBeCloseTo(t(median(h)), 9);
          const z1 = robustZ(h, x);
          const z2 = robustZ(h.map(t), t(x));
          if (Math.abs(z1) < 1e6) expect(z2).toBeCloseTo(z1, 4);
          expect(quantileBelow(h.map(t), t(x))).toBeCloseTo(quantileBelow(h, x), 9);
        },
      ),
    );
  });
});
