/**
 * The one chooser of a Past fix (shared/fix-choice.ts chooseFix), as the hook and the daemon
 * call it: errors signed by shared/tool-signal.ts signError, a fixes file as core/fixes.ts
 * writes it. One direct case per silence (no-fix, own-session, out-of-scope, elsewhere,
 * other-program), each with the same input printing when the silence's condition is absent;
 * the rules that decide among the fixes left: same-program (the tool and program the fix was
 * met at) and cwd-persists (the shell already in the folder: the line says so). Imports only
 * shared/ (scripts/check-gates.mjs copies this file with hook/ and shared/ and runs it against
 * each gate of fix-choice.ts turned off).
 */
import { describe, expect, it } from 'vitest';
import { chooseFix, FIX_SILENCES, type FixChoiceInput } from '../../shared/fix-choice.js';
import { signError, fixKeys, type ErrorSignal } from '../../shared/tool-signal.js';
import { builtinRedactor } from '../../shared/redact.js';
import type { FixFile, FixOffer, Offer } from '../../shared/types.js';
import { ablateRules } from '../../shared/pastfix-rules.js';

const SID = 'sess-now';
const OTHER = 'sess-before';
const CWD = '/home/u/proj';
const NO_UPSTREAM = 'Exit code 128\nfatal: The current branch feature/login has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin feature/login\n';
const REASON = 'fixed by git push --set-upstream origin <branch> — same "no upstream branch" error in session 258c… (2026-02-11)';

function signal(text = NO_UPSTREAM, command = 'git push', cwd: string | null = CWD, tool = 'Bash'): ErrorSignal {
  const s = signError(text, cwd, command, builtinRedactor(), tool);
  if (s.kind !== 'error') throw new Error(`not signed: ${text}`);
  return s;
}
function offer(over: Partial<Offer> = {}): Offer {
  return {
    id: 'fix-1', chunkId: 1, handle: 'sessions/p/before.jsonl#e1', type: 'past-fix', confidence: 0.85, reason: REASON,
    region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool', ...over,
  };
}
function fix(over: Partial<FixOffer> = {}, o: Partial<Offer> = {}): FixOffer {
  return { offer: offer(o), sourceSession: OTHER, scope: 'global', ...over };
}
function input(fixes: FixOffer[] = [fix()], over: Partial<FixChoiceInput> = {}): FixChoiceInput {
  const sig = over.signal ?? signal();
  const file: FixFile = { version: 1, sig: sig.sig, storeStamp: 's', createdAt: 0, fixes };
  return { file, key: sig.sig, signal: sig, sessionId: SID, cwd: CWD, lineage: [], recent: '', seen: () => false, ...over };
}
const silence = (i: FixChoiceInput) => {
  const r = chooseFix(i);
  return 'silence' in r ? r.silence : null;
};
const shown = (i: FixChoiceInput) => {
  const r = chooseFix(i);
  return 'offer' in r ? r.offer : null;
};

describe('chooseFix: each silence with its control', () => {
  it('control: a fix from another session, in scope, anywhere, with no tool recorded prints', () => {
    expect(shown(input())).toMatchObject({ id: 'fix-1', reason: REASON });
  });

  it('no-fix: a fixes file with no fixes (control: one fix prints)', () => {
    expect(silence(input([]))).toBe('no-fix');
    expect(shown(input([fix()]))).not.toBeNull();
  });

  it('own-session: every fix from this session, or from its lineage either way (control: another session prints)', () => {
    expect(silence(input([fix({ sourceSession: SID })]))).toBe('own-session');
    expect(silence(input([fix()], { lineage: [OTHER] }))).toBe('own-session');
    expect(silence(input([fix({ sourceSessions: [SID] })]))).toBe('own-session');
    expect(shown(input([fix({ sourceSession: SID }), fix({}, { id: 'fix-2' })]))).toMatchObject({ id: 'fix-2' });
    expect(shown(input([fix()], { lineage: ['a-cousin'] }))).not.toBeNull();
  });

  it('out-of-scope: a fix scoped to another project, or an unknown scope (control: a scope holding the cwd prints)', () => {
    expect(silence(input([fix({ scope: 'project:/home/u/other/**' })]))).toBe('out-of-scope');
    expect(silence(input([fix({ scope: 'team:x' })]))).toBe('out-of-scope');
    expect(shown(input([fix({ scope: 'project:/home/u/**' })]))).not.toBeNull();
  });

  it('elsewhere: a fix that ran in a folder the session does not work in, or only edited a file the error does not name (control: the session works there; the error names the file)', () => {
    expect(silence(input([fix({ where: 'api-gateway' })]))).toBe('elsewhere');
    expect(silence(input([fix({ edits: ['push.ex'] })]))).toBe('elsewhere');
    expect(shown(input([fix({ where: 'api-gateway' })], { cwd: '/home/u/proj/api-gateway', signal: signal(NO_UPSTREAM, 'git push', '/home/u/proj/api-gateway') }))).not.toBeNull();
    expect(shown(input([fix({ where: 'api-gateway' })], { recent: '"command":"cd api-gateway && pnpm test"' }))).not.toBeNull();
    expect(shown(input([fix({ edits: ['push.ex'] })], { signal: signal(`${NO_UPSTREAM}\n  at lib/deploy/push.ex:12:3`) }))).not.toBeNull();
  });

  it('elsewhere (rule task-files): a fix naming its own task\'s files only at a failure whose error or command names one (control: named in the error, in the command, or the rule ablated: it prints)', () => {
    const pathspec = (f: string) => `Exit code 128\nfatal: pathspec '${f}' did not match any files`;
    const kept = fix({ files: ['prd-api.json'] });
    expect(silence(input([kept], { signal: signal(pathspec('docs/audit/story-5.txt'), 'git add docs/audit/story-5.txt && git commit --amend --no-edit') }))).toBe('elsewhere');
    expect(shown(input([kept], { signal: signal(pathspec('docs/prd-api.json'), 'git add docs/prd-api.json') }))).not.toBeNull();
    expect(shown(input([kept], { signal: signal(pathspec('docs/story.txt'), 'git add docs/prd-api.json docs/story.txt') }))).not.toBeNull();
    // Another fix of the file that names no task file is the one shown.
    expect(shown(input([kept, fix({}, { id: 'fix-2' })], { signal: signal(pathspec('docs/s.txt'), 'git add docs/s.txt') }))!.id).toBe('fix-2');
    ablateRules(['task-files']);
    try {
      expect(shown(input([kept], { signal: signal(pathspec('docs/audit/story-5.txt'), 'git add docs/audit/story-5.txt') }))).not.toBeNull();
    } finally {
      ablateRules([]);
    }
  });

  it('other-program (rule same-program): a fix met at `npm run build` is not offered at a `git push` failure with the same words; offered at `npm run dev` (control)', () => {
    const built = fix({ tool: 'Bash', actions: ['npm run build'] });
    expect(silence(input([built], { signal: signal(NO_UPSTREAM, 'git push') }))).toBe('other-program');
    expect(shown(input([built], { signal: signal(NO_UPSTREAM, 'npm run dev') }))).not.toBeNull();
    expect(shown(input([built], { signal: signal(NO_UPSTREAM, 'cd /home/u/proj && npm run build -- --watch') }))).not.toBeNull();
  });

  it('other-program: a fix met at another tool is not offered (control: the same tool, and a call with no command, print)', () => {
    expect(silence(input([fix({ tool: 'Glob' })]))).toBe('other-program');
    expect(shown(input([fix({ tool: 'Bash' })]))).not.toBeNull();
    expect(shown(input([fix({ tool: 'Bash', actions: ['npm run build'] })], { signal: signal(NO_UPSTREAM, '') }))).not.toBeNull();
    expect(shown(input([fix({ tool: 'Bash' })], { signal: signal(NO_UPSTREAM, 'git push', CWD, '') }))).not.toBeNull(); // tool unknown here
  });

  it('same-program skips an error that names its program (`ls: cannot access`), and a note (no tool) is not held to it (control: the same fix at an unnamed error is held)', () => {
    const LS = "Exit code 2\nls: cannot access 'docs/a.json': No such file or directory";
    const lsSignal = signal(LS, 'git status && ls docs/a.json');
    expect(lsSignal.program).toBe('ls');
    const built = fix({ tool: 'Bash', actions: ['npm run build'] });
    expect(shown(input([built], { signal: lsSignal }))).not.toBeNull();
    // Read under a line key, the program named in the signature is not what the file was met at: held (control).
    expect(silence(input([built], { signal: lsSignal, key: lsSignal.lineKeys[0] }))).toBe('other-program');
    expect(shown(input([fix({ actions: ['npm run build'] })], { signal: signal(NO_UPSTREAM, 'git push') }))).not.toBeNull();
    expect(silence(input([built], { signal: signal(NO_UPSTREAM, 'git push') }))).toBe('other-program');
  });

  it('other-program leaves the fix of the same program among several (control: with it removed, silence)', () => {
    const fixes = [fix({ tool: 'Bash', actions: ['npm run build'] }, { id: 'build' }), fix({ tool: 'Bash', actions: ['git push'] }, { id: 'push' })];
    expect(shown(input(fixes))).toMatchObject({ id: 'push' });
    expect(silence(input(fixes.slice(0, 1)))).toBe('other-program');
  });

  it('the silences are exactly those listed', () => {
    expect([...FIX_SILENCES].sort()).toEqual(['elsewhere', 'no-fix', 'other-program', 'out-of-scope', 'own-session']);
  });
});

describe('chooseFix: cwd-persists (the shell is already in the folder)', () => {
  const IN = '/home/u/proj';
  const CD_MISSING = (dir: string) => `Exit code 1\n/bin/bash: line 1: cd: ${dir}: No such file or directory`;

  it('`cd proj && x` run inside /home/u/proj: the line says the shell is already there and to drop the `cd proj`; the error, session and date stay', () => {
    const s = signal(CD_MISSING('proj'), 'cd proj && npm test', IN);
    expect(s.advice).toBe('the shell is already in /home/u/proj (its cwd persists between calls): drop the "cd proj"');
    const o = shown(input([fix({}, { reason: 'fixed by cd .. && cd proj && npm test — same "cd: … no such file" error in session 258c… (2026-02-11)' })], { signal: s, cwd: IN }));
    expect(o!.reason).toBe('the shell is already in /home/u/proj (its cwd persists between calls): drop the "cd proj" — same "cd: … no such file" error in session 258c… (2026-02-11)');
  });

  it('`git add proj/x` inside /home/u/proj: drop the "proj/" prefix', () => {
    const s = signal("Exit code 128\nfatal: pathspec 'proj/src/x.ts' did not match any files", 'git add proj/src/x.ts', IN);
    const o = shown(input([fix()], { signal: s, cwd: IN }));
    expect(o!.reason).toMatch(/^the shell is already in \/home\/u\/proj \(its cwd persists between calls\): paths start inside it — drop the "proj\/" prefix — same /);
  });

  it('the advice holds whatever the fix\'s own text was (its place, files, program are not asked); own session and scope still silence', () => {
    const s = signal(CD_MISSING('proj'), 'cd proj && npm test', IN);
    const odd = fix({ where: 'api-gateway', edits: ['x.ex'], tool: 'Glob', actions: ['npm run build'] });
    expect(shown(input([odd], { signal: s, cwd: IN }))!.reason).toMatch(/^the shell is already in \/home\/u\/proj .*: drop the "cd proj" — same /);
    expect(silence(input([fix({ sourceSession: SID })], { signal: s, cwd: IN }))).toBe('own-session');
    expect(silence(input([fix({ scope: 'project:/home/u/other/**' })], { signal: s, cwd: IN }))).toBe('out-of-scope');
    // Control: without the advice, the same fix is held to its place.
    expect(silence(input([odd]))).toBe('elsewhere');
  });

  it('control: a `cd other` into a folder that is missing gets the earlier fix text', () => {
    const s = signal(CD_MISSING('other'), 'cd other && npm test', IN);
    expect(s.advice).toBeNull();
    const reason = 'fixed by cd /home/u/work/other && npm test — same "cd: … no such file" error in session 258c… (2026-02-11)';
    expect(shown(input([fix({}, { reason })], { signal: s, cwd: IN }))!.reason).toBe(reason);
  });
});

describe('fixKeys (rule code-being-written)', () => {
  it('an error in the code being written is looked up under its exact signature only (control: another error also under its line keys)', () => {
    const code = signal("Failed to compile.\n./src/app/page.tsx:3:1\nType error: Cannot find module '@tanstack/react-query' or its corresponding type declarations.", 'npm run build');
    expect(code.code).toBe(true);
    expect(code.lineKeys.length).toBeGreaterThan(0);
    expect(fixKeys(code)).toEqual([code.sig]);
    const other = signal();
    expect(other.code).toBe(false);
    expect(fixKeys(other)).toEqual([other.sig, ...other.lineKeys]);
  });

  it('module specifiers are kept whole: another package with the same words is another complaint (control: the same package again is the same)', () => {
    const msg = (pkg: string) => `Failed to compile.\n./src/app/page.tsx:3:1\nType error: Cannot find module '${pkg}' or its corresponding type declarations.`;
    expect(signal(msg('@tanstack/react-query')).sig).not.toBe(signal(msg('@/components/ui/form')).sig);
    expect(signal(msg('@tanstack/react-query')).sig).toBe(signal(msg('@tanstack/react-query').replace('3:1', '9:14')).sig);
  });
});
