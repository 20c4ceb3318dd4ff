/**
 * The folder you are in, marked (shared/here-mark.ts): a path an error quotes that starts with
 * the name of the folder the call ran in signs apart from a missing path elsewhere — and the
 * indexer, the daemon and the hook agree on it (one function, the same inputs each has).
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { HERE_MARK, hereNames, markHere, markedError } from '../../shared/here-mark.js';
import { ranInDir } from '../../shared/run-dir.js';
import { errorSignature } from '../../shared/error-signature.js';
import { sign } from '../../hook/tool-gates.js';
import { stepErrorText, type ToolStep } from '../../transcript/tool-steps.js';

const PATHSPEC = (p: string) => `Exit code 128\nfatal: pathspec '${p}' did not match any files`;
const sigOf = (text: string, cwd: string | null, command: string) => errorSignature(markedError(text, cwd, command))!.sig;

describe('markHere', () => {
  it('`git add database/…` run inside …/database signs as the folder-you-are-in slip, in any project (control: a missing path elsewhere signs as before)', () => {
    const here = sigOf(PATHSPEC('database/'), '/home/ken/database', 'git add database/ docs/x.json');
    expect(sigOf(PATHSPEC('api-gateway/src/x.ts'), '/srv/api-gateway', 'git add api-gateway/src/x.ts')).toBe(here);
    expect(sigOf(PATHSPEC('database'), '/home/ken/database', 'git add database')).toBe(here);
    // Control: a story file in the wrong docs folder is another problem, with other fixes.
    const elsewhere = sigOf(PATHSPEC('docs/story-us-006.txt'), '/home/ken/database', 'git add docs/story-us-006.txt');
    expect(elsewhere).not.toBe(here);
    expect(elsewhere).toBe(errorSignature(PATHSPEC('docs/story-us-006.txt'))!.sig);
    // Control: the same path from the parent folder is no slip.
    expect(sigOf(PATHSPEC('database/'), '/home/ken', 'git add database/')).toBe(elsewhere);
  });

  it('the folder the shell is in after the call counts (a cd that worked is in it already), and the one a leading git -C ran in', () => {
    expect(hereNames('/home/ken/api-gateway', 'cd /home/ken/api-gateway && git add api-gateway/x')).toEqual(['api-gateway']);
    expect(hereNames('/home/ken/api', 'cd api && ls')).toEqual(['api']);
    expect(hereNames('/home/ken', 'git -C database add database/x')).toEqual(['ken', 'database']);
    expect(hereNames('/home/ken', '  git -C database add database/x')).toEqual(['ken', 'database']);
    expect(hereNames('/', 'ls')).toEqual([]);
    expect(hereNames(null, '')).toEqual([]);
    expect(hereNames('C:\\Users\\me\\app', 'dir')).toEqual(['app']);
    expect(ranInDir('/home/ken', 'cd api && npm test')).toBe('/home/ken/api');
    expect(markHere("fatal: pathspec 'app\\\\x.ts' did not match", ['app'])).toContain(HERE_MARK);
    expect(markHere("fatal: pathspec './app/x.ts' did not match", ['app'])).toContain(HERE_MARK);
    // A longer name that only starts like the folder is another folder.
    expect(markHere("fatal: pathspec 'database-tools/x' did not match", ['database'])).not.toContain(HERE_MARK);
    // A bare name is a path only on a line that says a path is missing (control: same line shape).
    expect(markHere('npm error Missing script: "test"', ['test'])).not.toContain(HERE_MARK);
    expect(markHere("error TS2322: Type 'string' is not assignable to type 'app'.", ['app'])).not.toContain(HERE_MARK);
    expect(markHere("ModuleNotFoundError: No module named 'app'", ['app'])).toContain(HERE_MARK);
    // A shell utility's missing-path line names the path unquoted: marked there too (`cd` into
    // the folder you are in; `cat` of a path under it), not on other lines (control).
    expect(markHere('/bin/bash: line 1: cd: developer-portal: No such file or directory', ['developer-portal'])).toBe(`/bin/bash: line 1: cd: ${HERE_MARK}: No such file or directory`);
    expect(markHere('cat: developer-portal/docs/prd.json: No such file or directory', ['developer-portal'])).toBe(`cat: ${HERE_MARK}: No such file or directory`);
    expect(markHere('cat: docs/prd.json: No such file or directory', ['developer-portal'])).toBe('cat: docs/prd.json: No such file or directory');
    expect(markHere('warning: developer-portal/x is large', ['developer-portal'])).toBe('warning: developer-portal/x is large');
    // An apostrophe inside a word opens no quote.
    expect(markHere("error: couldn't find 'database/x' in the index", ['database'])).toBe(`error: couldn't find ${HERE_MARK} in the index`);
  });

  it('property: only quoted spans naming the folder change; text without the name is returned as it is', () => {
    const seg = fc.stringMatching(/^[a-z][a-z0-9_-]{1,12}$/);
    fc.assert(fc.property(seg, seg, fc.string({ maxLength: 200 }), (name, other, noise) => {
      fc.pre(name !== other && !other.startsWith(`${name}/`) && !noise.includes(name));
      const text = `${noise}\nfatal: pathspec '${other}/x' did not match`;
      expect(markHere(text, [name])).toBe(text);
      const marked = markHere(`${noise}\nfatal: pathspec '${name}/x' did not match`, [name]);
      expect(marked).toContain(`pathspec ${HERE_MARK} did`);
      expect(marked.startsWith(noise)).toBe(true);
    }), { numRuns: 300 });
  });
});

describe('the hook and the indexer sign the same', () => {
  it('the payload (cwd, tool_input.command) and the transcript step (cwd, command) give one signature', () => {
    const error = PATHSPEC('database/');
    const payload = { session_id: 's', hook_event_name: 'PostToolUseFailure', tool_name: 'Bash', cwd: '/home/ken/database', tool_input: { command: 'git add database/ docs/p.json' }, error };
    const hook = sign(payload, 'PostToolUseFailure');
    const step: ToolStep = {
      step: 3, toolUseId: 't', name: 'Bash', summary: 'Bash: git add database/ docs/p.json', isError: true, toolUseError: false, resultText: error,
      callAt: null, resultAt: null, startOffset: 0, endOffset: 1, sessionId: 's', cwd: '/home/ken/database', note: '',
    };
    expect(hook.kind === 'error' && hook.sig).toBe(errorSignature(stepErrorText(step))!.sig);
    // A leading cd that worked: the hook's payload and the result record both hold the folder
    // after the call; the call record's (before) is not what either signs by.
    const cdError = "Exit code 2\nls: cannot access 'src/x': No such file or directory";
    const cdHook = sign({ ...payload, cwd: '/w/proj', tool_input: { command: 'cd .. && ls src/x' }, error: cdError }, 'PostToolUseFailure');
    const cdStep: ToolStep = { ...step, summary: 'Bash: cd .. && ls src/x', resultText: cdError, cwd: '/w/proj', callCwd: '/w/proj/src' };
    expect(cdHook.kind === 'error' && cdHook.sig).toBe(errorSignature(stepErrorText(cdStep))!.sig);
    expect(cdHook.kind === 'error' && cdHook.sig).toBe(errorSignature(cdError)!.sig); // from /w/proj, src/x is no slip
    // Leading white space in the payload's command (records are trimmed) signs the same.
    const ws = sign({ ...payload, tool_input: { command: '\n  git -C database add database/x' }, cwd: '/home/ken' }, 'PostToolUseFailure');
    const wsStep: ToolStep = { ...step, summary: 'Bash: git -C database add database/x', cwd: '/home/ken', callCwd: '/home/ken' };
    expect(ws.kind === 'error' && ws.sig).toBe(errorSignature(stepErrorText(wsStep))!.sig);
    // Control: the same error from the parent folder signs otherwise at the hook too.
    const parent = sign({ ...payload, cwd: '/home/ken' }, 'PostToolUseFailure');
    expect(parent.kind === 'error' && parent.sig).not.toBe(hook.kind === 'error' && hook.sig);
  });
});
