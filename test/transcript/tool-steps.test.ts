/**
 * ToolStepTracker on real-format transcript lines (invented content): calls paired with
 * their results by id (in any order, parallel calls), sidechain records never counted,
 * results whose call was never seen numbered as `unknown`, resume from a snapshot, the
 * assistant's note carried to the calls it explains, the pending-call bound.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { parseLine } from '../../transcript/records.js';
import { ToolStepTracker, toolStepsOf, MAX_PENDING_CALLS } from '../../transcript/tool-steps.js';

const base = (type: string, extra: Record<string, unknown> = {}) => ({
  type,
  isSidechain: false,
  sessionId: 'sess-1',
  cwd: '/home/user/demo',
  uuid: `u-${Math.random().toString(36).slice(2)}`,
  timestamp: '2026-03-02T09:00:00.000Z',
  ...extra,
});
const call = (id: string, name: string, input: Record<string, unknown>, text = '', extra: Record<string, unknown> = {}) =>
  JSON.stringify(base('assistant', { ...extra, message: { role: 'assistant', content: [...(text ? [{ type: 'text', text }] : []), { type: 'tool_use', id, name, input }] } }));
const calls = (items: Array<[string, string, Record<string, unknown>]>) =>
  JSON.stringify(base('assistant', { message: { role: 'assistant', content: items.map(([id, name, input]) => ({ type: 'tool_use', id, name, input })) } }));
const result = (id: string, content: string, isError = false, extra: Record<string, unknown> = {}) =>
  JSON.stringify(base('user', { ...extra, message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }] } }));
const prompt = (text: string) => JSON.stringify(base('user', { message: { role: 'user', content: text } }));

function feed(lines: string[], t = new ToolStepTracker()) {
  let off = 0;
  const out = [];
  for (const l of lines) {
    const end = off + Buffer.byteLength(l) + 1;
    out.push(...t.push(parseLine(l), off, end));
    off = end;
  }
  return out;
}

describe('tool steps', () => {
  it('pairs each call with its result by id, numbers calls in call order, keeps the error text', () => {
    const steps = feed([
      prompt('ship the release branch'),
      call('t1', 'Bash', { command: 'make release' }, 'Building the release first.'),
      result('t1', 'Exit code 2\nmake: *** No rule to make target `release`.  Stop.', true),
      calls([['t2', 'Read', { file_path: '/home/user/demo/Makefile' }], ['t3', 'Bash', { command: 'ls dist' }]]),
      result('t3', 'app.tar.gz'),
      result('t2', 'all: build'),
    ]);
    expect(steps.map((s) => [s.step, s.name, s.isError])).toEqual([[1, 'Bash', true], [3, 'Bash', false], [2, 'Read', false]]);
    expect(steps[0].summary).toBe('Bash: make release');
    expect(steps[0].resultText).toContain('No rule to make target');
    expect(steps[0].note).toBe('Building the release first.');
    // A note stays with later calls until new text; a prompt clears it.
    expect(steps[1].note).toBe('Building the release first.');
    expect(steps[0].sessionId).toBe('sess-1');
    expect(steps[0].cwd).toBe('/home/user/demo');
    expect(steps[0].startOffset).toBeLessThan(steps[0].endOffset);
    const after = feed([prompt('next'), call('t9', 'Bash', { command: 'true' }), result('t9', 'ok')]);
    expect(after[0].note).toBe('');
  });

  it('ignores sidechain calls and results entirely (control: the same lines on the main lane count)', () => {
    const side = { isSidechain: true, agentId: 'a1' };
    const lines = [call('s1', 'Bash', { command: 'npm test' }, 'worker', side), result('s1', 'Error: boom', true, side)];
    expect(feed(lines)).toEqual([]);
    const main = feed([call('s1', 'Bash', { command: 'npm test' }), result('s1', 'Error: boom', true)]);
    expect(main).toHaveLength(1);
    expect(main[0].isError).toBe(true);
  });

  it('a result whose call was never seen becomes an `unknown` step in arrival order', () => {
    const steps = feed([result('ghost', 'Error: no such thing', true), call('t1', 'Bash', { command: 'pwd' }), result('t1', '/home/user/demo')]);
    expect(steps.map((s) => [s.step, s.name, s.summary])).toEqual([[1, 'unknown', 'unknown'], [2, 'Bash', 'Bash: pwd']]);
  });

  it('resumes numbering from a snapshot (a bad snapshot starts at zero)', () => {
    const t = new ToolStepTracker({ steps: 41 });
    const steps = feed([call('t1', 'Bash', { command: 'date' }), result('t1', 'Mon')], t);
    expect(steps[0].step).toBe(42);
    expect(t.snapshot()).toEqual({ steps: 42 });
    expect(new ToolStepTracker({ steps: -3 }).stepCount).toBe(0);
    expect(new ToolStepTracker({ steps: 2.5 }).stepCount).toBe(0);
  });

  it('bounds the calls waiting for results (oldest dropped: its late result becomes unknown)', () => {
    const lines: string[] = [];
    for (let i = 0; i <= MAX_PENDING_CALLS; i++) lines.push(call(`c${i}`, 'Bash', { command: `echo ${i}` }));
    lines.push(result('c0', 'late'), result(`c${MAX_PENDING_CALLS}`, 'ok'));
    const steps = feed(lines);
    expect(steps[0].name).toBe('unknown');
    expect(steps[1].summary).toBe(`Bash: echo ${MAX_PENDING_CALLS}`);
  });

  it('property: toolStepsOf never yields a step from a sidechain record and numbers main calls 1..n', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.boolean(), fc.boolean()), { maxLength: 30 }), (plan) => {
        const lines: string[] = [];
        plan.forEach(([sidechain, failing], i) => {
          const extra = sidechain ? { isSidechain: true } : {};
          lines.push(call(`id${i}`, 'Bash', { command: `step ${i}` }, '', extra), result(`id${i}`, failing ? 'Error: x' : 'ok', failing, extra));
        });
        let off = 0;
        const recs = lines.map((l) => {
          const r = { rec: parseLine(l), startOffset: off, endOffset: off + l.length + 1 };
          off = r.endOffset;
          return r;
        });
        const steps = toolStepsOf(recs);
        const main = plan.map((p, i) => ({ p, i })).filter((x) => !x.p[0]);
        expect(steps.map((s) => s.summary)).toEqual(main.map((x) => `Bash: step ${x.i}`));
        expect(steps.map((s) => s.step)).toEqual(main.map((_, k) => k + 1));
        expect(steps.map((s) => s.isError)).toEqual(main.map((x) => x.p[1]));
      }),
    );
  });
});
