import { describe, expect, it } from 'vitest';
import { decideToolStep, isLoop, loopEntry, type ToolStepContext } from '../../core/tool-step.js';
import { FixIndex } from '../../core/fixes.js';
import { errorSignature } from '../../shared/error-signature.js';
import { markedError } from '../../shared/here-mark.js';
import type { EpisodeRecord } from '../../store/types.js';

/** An error's text as every part signs it: the folder the shell is in marked. */
const signedText = (text: string, cwd: string, command: string) => markedError(text, cwd, command);
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

/** The daemon's decision at a failed tool step, through the hook's own engine: the error signed
 *  by shared/tool-signal.ts, the fixes file from a FixIndex of the store's episodes, the fix
 *  chosen by shared/fix-choice.ts. */
describe('decideToolStep: the Past fix from a FixIndex', () => {
  const NO_UPSTREAM = 'Exit code 128\nfatal: The current branch feature/login has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/login\n';
  const signed = errorSignature(NO_UPSTREAM)!;
  const past = (over: Partial<EpisodeRecord> = {}): EpisodeRecord => ({
    chunkId: 7, handle: 'sessions/p/past.jsonl#e1', region: 'sessions', regionScope: 'global', source: 'episode',
    sig: signed.sig, head: signed.head, words: signed.words, sessionId: 'past-session', tool: 'Bash', action: 'Bash: git push',
    fix: 'git push --set-upstream origin <branch>', resolved: true, at: 1000, outcome: 'succeeded', attempts: 1, note: '', ...over,
  });
  const ctx = (fixes: FixIndex | null, over: Partial<ToolStepContext> = {}): ToolStepContext => ({
    sessionId: 'now', cwd: '/home/u/proj', mode: null, fixes, offered: [], ring: [], config: { retrieval: {} as ToolStepContext['config']['retrieval'] }, ...over,
  });
  const failing = (over: Partial<ToolStep> = {}) => step({ summary: 'Bash: git push', command: 'git push', resultText: NO_UPSTREAM, cwd: '/home/u/proj', ...over });

  it('a recurring error gets the fix met in another session, exact (control: no episode → no-fix; no store → no-store)', () => {
    const r = decideToolStep(failing(), ctx(new FixIndex([past()])), 3);
    expect(r).toMatchObject({ trigger: 'error', sig: signed.sig, match: 'exact', silence: null });
    expect(r.offer).toMatchObject({ type: 'past-fix', chunkId: 7 });
    expect(r.offer!.reason).toMatch(/^fixed by git push --set-upstream origin <branch> — /);
    expect(decideToolStep(failing(), ctx(new FixIndex([])), 3)).toMatchObject({ trigger: 'error', offer: null, silence: 'no-fix' });
    expect(decideToolStep(failing(), ctx(null), 3)).toMatchObject({ trigger: 'error', offer: null, silence: 'no-store' });
  });

  it('the chooser\'s silences reach the decision: own session, other program; shown already → repeat; asOf before the episode → no-fix (control above)', () => {
    expect(decideToolStep(failing(), ctx(new FixIndex([past({ sessionId: 'now' })])), 3)).toMatchObject({ offer: null, silence: 'own-session' });
    expect(decideToolStep(failing(), ctx(new FixIndex([past({ action: 'Bash: npm run build' })])), 3)).toMatchObject({ offer: null, silence: 'other-program' });
    expect(decideToolStep(failing(), ctx(new FixIndex([past()]), { offered: [7] }), 3)).toMatchObject({ offer: null, silence: 'repeat' });
    expect(decideToolStep(failing(), ctx(new FixIndex([past()]), { asOf: 999 }), 3)).toMatchObject({ offer: null, silence: 'no-fix' });
    expect(decideToolStep(failing(), ctx(new FixIndex([past()]), { asOf: 1000 }), 3).offer).not.toBeNull();
  });

  it('a cascade and a generic error are decided silent before any lookup (control: the real error above prints)', () => {
    expect(decideToolStep(failing({ resultText: 'Sibling tool call errored' }), ctx(new FixIndex([past()])), 3)).toMatchObject({ trigger: null, silence: 'cascade' });
    const rejected = `The user doesn't want to proceed with this tool use. The tool use was rejected.\n${NO_UPSTREAM}`;
    expect(decideToolStep(failing({ resultText: rejected }), ctx(new FixIndex([past()])), 3).offer).toBeNull();
  });

  it('the cwd-persists advice replaces the fix text when the shell was already in the folder (control: a missing other folder keeps it)', () => {
    const cdErr = (dir: string) => `Exit code 1\n/bin/bash: line 1: cd: ${dir}: No such file or directory`;
    const s = errorSignature(signedText(cdErr('proj'), '/home/u/proj', 'cd proj && npm test'))!;
    const index = new FixIndex([past({ sig: s.sig, head: s.head, words: s.words, action: 'Bash: cd app && npm test', fix: 'npm test' })]);
    const here = decideToolStep(failing({ summary: 'Bash: cd proj && npm test', command: 'cd proj && npm test', resultText: cdErr('proj') }), ctx(index), 3);
    expect(here.silence, JSON.stringify(here)).toBeNull();
    expect(here.offer!.reason).toMatch(/^the shell is already in \/home\/u\/proj \(its cwd persists between calls\): drop the "cd proj" — /);
    const o = errorSignature(cdErr('other'))!;
    const other = new FixIndex([past({ sig: o.sig, head: o.head, words: o.words, action: 'Bash: cd other && npm test', fix: 'npm run setup' })]);
    expect(decideToolStep(failing({ summary: 'Bash: cd other && npm test', command: 'cd other && npm test', resultText: cdErr('other') }), ctx(other), 3).offer!.reason).toMatch(/^fixed by npm run setup — /);
  });
});
