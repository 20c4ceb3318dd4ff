import { describe, expect, it } from 'vitest';
import { isLoop, loopEntry } from '../../core/tool-step.js';
import type { ToolStep } from '../../transcript/tool-steps.js';

const step = (over: Partial<ToolStep> = {}): ToolStep => ({
  step: 1, toolUseId: 't', name: 'Bash', summary: 'Bash: mix test test/a_test.exs:12', isError: true, resultText: 'Exit code 1\nerror: x', toolUseError: false,
  callAt: null, resultAt: null, startOffset: 0, endOffset: 10, sessionId: 's', cwd: '/w', note: '', ...over,
});

describe('in-turn loops', () => {
  const fail = loopEntry(step(), null);
  it('the same failing action with the same error, window times in a row, is a loop', () => {
    const e = { ...fail, sig: 'a' };
    expect(isLoop([e, e], e, 3)).toBe(true);
    expect(isLoop([e], e, 3)).toBe(false); // control: one short
  });
  it('the same action failing differently, or mixed success, is work in progress', () => {
    const a = { ...fail, sig: 'a' };
    expect(isLoop([a, { ...a, sig: 'b' }], a, 3)).toBe(false);
    expect(isLoop([a, { ...a, isError: false, sig: null }], a, 3)).toBe(false);
  });
  it('an identical successful action repeated is a loop; other actions are not', () => {
    const ok = loopEntry(step({ isError: false, summary: 'Read: /w/a.ex' }), null);
    expect(isLoop([ok, ok], ok, 3)).toBe(true);
    expect(isLoop([ok, loopEntry(step({ isError: false, summary: 'Read: /w/b_x.py' }), null)], ok, 3)).toBe(false);
  });
  it('variable parts of the action (line numbers) do not hide a loop', () => {
    expect(loopEntry(step({ summary: 'Bash: mix test test/a_test.exs:12' }), null).action).toBe(loopEntry(step({ summary: 'Bash: mix test test/a_test.exs:40' }), null).action);
  });
});
