import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { buildFixFiles, FixIndex, exactFixes, fixConfidence, fixKey, fixReason, MAX_FIXES_PER_SIG, MAX_SESSIONS_PER_GROUP, EXACT_RESOLVED, LINE_RESOLVED, CONTRADICTION, DISAGREEMENT, NEAR_MIN_OVERLAP, UNRESOLVED } from '../../core/fixes.js';
import { errorKeys } from '../../shared/error-keys.js';
import { errorSignature } from '../../shared/error-signature.js';
import { DESTRUCTIVE_STEP_RE, STATE_STEP_RE } from '../../shared/destructive.js';
import type { EpisodeRecord } from '../../store/types.js';
import { ablateRules } from '../../shared/pastfix-rules.js';

const SIG = '00563818672bd1';
const ep = (over: Partial<EpisodeRecord> = {}): EpisodeRecord => ({
  chunkId: 1, handle: 'sessions/p/s1.jsonl#e1', region: 'sessions', regionScope: 'global', source: 'episode',
  sig: SIG, head: ['fatal: the current branch <name> has no upstream branch.'], words: ['fatal', 'current', 'branch', 'upstream'],
  sessionId: '258c7280-aaaa', tool: 'Bash', action: 'Bash: git push', fix: 'git push --set-upstream origin <branch>',
  resolved: true, at: Date.UTC(2026, 1, 11), outcome: 'succeeded', attempts: 1, note: '', ...over,
});

describe('Past fix offers from episodes', () => {
  it('says which error, where and when, and what fixed it', () => {
    expect(fixReason(ep(), 'exact')).toBe('fixed by git push --set-upstream origin <branch> — same "the current branch … has no upstream branch." error in session 258c… (2026-02-11)');
    expect(fixReason(ep({ resolved: false, fix: '' }), 'exact')).toMatch(/^not resolved there: same /);
    expect(fixReason(ep({ source: 'note', handle: 'notes/git.md#2' }), 'near')).toMatch(/^fixed by .* — similar ".*" error in a note \(notes\/git.md#2\)$/);
  });

  it('is most confident for an exact signature of a resolved episode; near and unresolved stay below it', () => {
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), fc.integer({ min: 0, max: 10 }), (o, agree) => {
        const exact = fixConfidence(ep(), 'exact', 1, agree);
        expect(exact).toBeGreaterThanOrEqual(EXACT_RESOLVED);
        expect(exact).toBeLessThanOrEqual(0.95);
        expect(fixConfidence(ep(), 'near', o, agree)).toBeLessThan(EXACT_RESOLVED);
        expect(fixConfidence(ep({ resolved: false }), 'exact', 1, agree)).toBe(UNRESOLVED);
      }),
    );
    expect(fixConfidence(ep(), 'near', NEAR_MIN_OVERLAP, 0)).toBeLessThan(0.7); // below the tool channel's default gate
  });

  it('counts agreement across sessions, not repeats within one', () => {
    const one = exactFixes(SIG, [ep({ chunkId: 1 }), ep({ chunkId: 2 })]);
    const two = exactFixes(SIG, [ep({ chunkId: 1 }), ep({ chunkId: 2, sessionId: 'other' })]);
    expect(one[0].offer.confidence).toBe(EXACT_RESOLVED);
    expect(two[0].offer.confidence).toBeGreaterThan(EXACT_RESOLVED);
  });

  it('ranks resolved first and most recent first; ids are deterministic', () => {
    const f = exactFixes(SIG, [ep({ chunkId: 5, resolved: false, fix: '' }), ep({ chunkId: 6, at: 1 }), ep({ chunkId: 7, at: 2 })]);
    expect(f.map((x) => x.offer.chunkId)).toEqual([7, 6, 5]);
    expect(f[0].offer.id).toBe(`fix-${SIG}-7`);
    expect(f[0]).toMatchObject({ sourceSession: '258c7280-aaaa', scope: 'global' });
    expect(f[0].offer).toMatchObject({ type: 'past-fix', trigger: 'error', channel: 'tool' });
  });

  it('builds one fixes file per signature with a resolved episode and one per key line of it; nothing for unresolved ones', () => {
    const files = buildFixFiles([ep(), ep({ chunkId: 9, sig: '0000000000000a', head: ['fatal: something else entirely went wrong'], resolved: false, fix: '' }), ep({ chunkId: 3, sig: 'not-a-sig' })], 'stamp', 5);
    const lineKeys = errorKeys(ep().head)!.lineKeys;
    expect(lineKeys.length).toBe(1);
    expect([...files.keys()].sort()).toEqual([SIG, ...lineKeys].sort());
    expect(files.get(SIG)).toMatchObject({ version: 1, sig: SIG, storeStamp: 'stamp', createdAt: 5 });
    // The line file answers the same error under another lead, a little less sure.
    expect(files.get(lineKeys[0])!.fixes[0].offer.confidence).toBe(LINE_RESOLVED);
    expect(files.get(SIG)!.fixes[0].offer.confidence).toBe(EXACT_RESOLVED);
  });

  it('a generic error (here an Edit whose old string did not match) never gets a fixes file', () => {
    const edit = ep({ sig: '0000000000000b', head: ['string to replace not found in file.'], tool: 'Edit', fix: 'Read lib/a.ex; then Edit lib/a.ex' });
    expect(buildFixFiles([edit], 's', 0).size).toBe(0);
    expect(buildFixFiles([ep()], 's', 0).size).toBeGreaterThan(0); // control
  });

  it('consensus: the fix most sessions agree on comes first; sessions that met the error again and again without fixing it, or fixed it another way, lower the confidence', () => {
    const a = (i: number, fix: string, at: number) => ep({ chunkId: i, sessionId: `s${i}`, fix, at });
    const files = buildFixFiles([a(1, 'cd api && git add -A', 1), a(2, 'cd api && git status', 2), a(3, 'git config --global safe.directory <path>', 3)], 's', 0);
    const f = files.get(SIG)!.fixes;
    expect(fixKey(f[0].offer.reason.replace(/^fixed by /, '').split(' — ')[0])).toBe('dir api');
    expect(f[0].offer.confidence).toBeCloseTo(EXACT_RESOLVED + 0.04 - DISAGREEMENT, 4); // 2 agree, 1 disagrees
    expect(f[1].offer.confidence).toBe(f[0].offer.confidence); // the same fix, from its other session
    expect(f[2].offer.confidence).toBeCloseTo(EXACT_RESOLVED - 2 * DISAGREEMENT, 4);
    // A `git init` fix is none (rule no-state-change): it neither shows nor counts against the others.
    const withInit = buildFixFiles([a(1, 'cd api && git add -A', 1), a(2, 'cd api && git status', 2), a(3, 'git init', 3)], 's', 0).get(SIG)!.fixes;
    expect(withInit.map((x) => x.offer.confidence)).toEqual([EXACT_RESOLVED + 0.04, EXACT_RESOLVED + 0.04]);
    expect(withInit.some((x) => x.offer.reason.includes('git init'))).toBe(false);
    // Many sessions, each its own way: under the gate.
    const scattered = [1, 2, 3, 4, 5, 6, 7, 8].map((i) => a(i, `tool${i} --fix`, i));
    expect(buildFixFiles(scattered, 's', 0).get(SIG)!.fixes[0].offer.confidence).toBeLessThan(0.7);
    const tried = ep({ chunkId: 8, sessionId: 's8', resolved: false, fix: '', attempts: 3 });
    const once = ep({ chunkId: 9, sessionId: 's9', resolved: false, fix: '', attempts: 1 });
    expect(buildFixFiles([ep(), tried], 's', 0).get(SIG)!.fixes[0].offer.confidence).toBeCloseTo(EXACT_RESOLVED - CONTRADICTION, 4);
    // Met once and left (the work moved on) says nothing against the fix.
    expect(buildFixFiles([ep(), once], 's', 0).get(SIG)!.fixes[0].offer.confidence).toBe(EXACT_RESOLVED);
  });

  it('fixKey: the directory a fix moves to (however it moves), else the first action words', () => {
    expect(fixKey('in api: git add -A && git status')).toBe('dir api');
    expect(fixKey('cd api/ && git log --oneline -3')).toBe('dir api');
    expect(fixKey('git -C api status')).toBe('dir api');
    expect(fixKey('cd developer-portal && pnpm run typecheck')).toBe('dir developer-portal');
    expect(fixKey('git push --set-upstream origin <branch>')).toBe('git push');
    // The place, however the directory was written: absolute, relative, with a slash.
    expect(fixKey('cd /home/ken/api-gateway && git add -A')).toBe('dir api-gateway');
  });

  it('a fix records its place; fixes in two different places do not count against each other (control: another kind of fix does)', () => {
    const a = (i: number, fix: string) => ep({ chunkId: i, sessionId: `s${i}`, fix, at: i });
    const f = buildFixFiles([a(1, 'cd api && git add -A'), a(2, 'in portal: git add -A')], 's', 0).get(SIG)!.fixes;
    expect(f.map((x) => x.where).sort()).toEqual(['api', 'portal']);
    expect(f.every((x) => x.offer.confidence === EXACT_RESOLVED)).toBe(true);
    const control = buildFixFiles([a(1, 'cd api && git add -A'), a(2, 'git config --global safe.directory <path>')], 's', 0).get(SIG)!.fixes;
    expect(control.map((x) => x.offer.confidence)).toEqual([EXACT_RESOLVED - DISAGREEMENT, EXACT_RESOLVED - DISAGREEMENT]);
    expect(control.find((x) => x.offer.reason.includes('safe.directory'))!.where).toBeUndefined();
    // Only up, or nowhere named: no place.
    expect(buildFixFiles([a(1, 'cd .. && git add -A')], 's', 0).get(SIG)!.fixes[0].where).toBeUndefined();
  });

  it('a fix that only edited files records them; a fix that does more does not', () => {
    const f = (fix: string) => buildFixFiles([ep({ fix })], 's', 0).get(SIG)!.fixes[0];
    expect(f('Edit src/lib/wallet-manager.ts').edits).toEqual(['wallet-manager.ts']);
    expect(f('Edit package.json; then npm install').edits).toBeUndefined();
    expect(f('git push --set-upstream origin <branch>').edits).toBeUndefined();
  });

  it('a fix records the action keys of the call that failed (a shell call only)', () => {
    const f = (over: Partial<EpisodeRecord>) => buildFixFiles([ep(over)], 's', 0).get(SIG)!.fixes[0];
    expect(f({ action: 'Bash: cd /home/me && git add -A && git commit -m "docs: x"' }).actions).toEqual(['git add', 'git commit']);
    expect(f({ action: 'Bash: git status' }).actions).toEqual(['git status']);
    expect(f({ tool: 'Edit', action: 'Edit: /home/me/a.ts' }).actions).toBeUndefined();
  });

  it('a fix records the tool whose call failed (rule same-program); a note records none (control)', () => {
    const f = (over: Partial<EpisodeRecord>) => buildFixFiles([ep(over)], 's', 0).get(SIG)!.fixes[0];
    expect(f({}).tool).toBe('Bash');
    expect(f({ tool: 'Glob', action: 'Glob: src/**/*.ts' }).tool).toBe('Glob');
    expect(f({ source: 'note', handle: 'notes/git.md#2' }).tool).toBeUndefined();
    expect(f({ tool: 'x'.repeat(65) }).tool).toBeUndefined(); // longer than a tool name: not recorded
  });

  it('code-being-written: a compile error fixed by an edit gets no fixes file; the same complaint fixed without an edit gets one under its exact key only (control: another error also gets its line key)', () => {
    const text = "Failed to compile.\n./src/app/page.tsx:3:1\nType error: Cannot find module '@tanstack/react-query' or its corresponding type declarations.";
    const s = errorSignature(text)!;
    const keys = errorKeys(s.head)!;
    expect(keys.lineKeys.filter((k) => k !== keys.sig).length).toBeGreaterThan(0);
    const code = (fix: string) => ep({ sig: s.sig, head: s.head, words: s.words, action: 'Bash: npm run build', fix });
    expect(buildFixFiles([code('Edit /home/u/app/src/app/page.tsx; then npm run build succeeded')], 's', 0).size).toBe(0);
    const installed = buildFixFiles([code('npm install @tanstack/react-query; then npm run build succeeded')], 's', 0);
    expect([...installed.keys()]).toEqual([s.sig]);
    // Control: an error not in the code being written gets its line keys' files as well.
    const other = buildFixFiles([ep()], 's', 0);
    expect([...other.keys()].sort()).toEqual([SIG, ...errorKeys(ep().head)!.lineKeys].sort());
  });

  it('FixIndex gives the files buildFixFiles writes, one key at a time; asOf keeps only the episodes met by then', () => {
    const eps = [ep({ chunkId: 1, sessionId: 's1', at: 100 }), ep({ chunkId: 2, sessionId: 's2', at: 200, fix: 'git push -u origin <branch>' })];
    const built = buildFixFiles(eps, 'stamp', 0);
    const index = new FixIndex(eps, 'stamp');
    for (const [key, file] of built) expect(index.file(key)).toEqual(file);
    expect(index.file('ffffffffffffff')).toBeUndefined();
    expect(index.file(SIG, 150)!.fixes.map((f) => f.offer.chunkId)).toEqual([1]);
    expect(index.file(SIG, 50)).toBeUndefined();
    expect(index.file(SIG, 200)!.fixes.length).toBe(2); // control: both met by then
  });

  it('a fix that staged named files on the way to another action is about those files; a retried `git add` is not (control)', () => {
    const f = (over: Partial<EpisodeRecord>) => buildFixFiles([ep(over)], 's', 0).get(SIG)!.fixes[0];
    expect(f({ action: 'Bash: git push origin main', fix: 'git add webui/index.html webui/index.js; git commit -m "<message>"; git pull origin <branch> --no-rebase' }).edits).toEqual(['index.html', 'index.js']);
    expect(f({ action: 'Bash: git add docs/prd.json docs/story.txt', fix: 'git add docs/prd.json' }).edits).toBeUndefined();
  });

  it('rule task-files: a fix records the files of its own task; a move or a corrected path records none (control)', () => {
    const f = (over: Partial<EpisodeRecord>) => buildFixFiles([ep(over)], 's', 0).get(SIG)!.fixes[0];
    expect(f({ action: 'Bash: git add docs/prd.json docs/story.txt', fix: 'git add docs/prd.json' }).files).toEqual(['prd.json']);
    expect(f({ action: 'Bash: cd /home/me && git add -A', fix: 'in /home/me/api: git add docs/prd.json && git status' }).files).toBeUndefined();
    expect(f({ action: 'Bash: cat "docs/prd.json"', fix: 'cat /home/me/docs/prd.json' }).files).toBeUndefined();
    // A note is the person's own knowledge: the paths it names never gate it (control: the same
    // line as a session's fix does).
    expect(f({ source: 'note', action: '', fix: 'cat db/README.md before the migrations' }).files).toBeUndefined();
    expect(f({ action: 'Bash: make migrate', fix: 'cat db/README.md before the migrations' }).files).toEqual(['README.md']);
  });

  it('rule named-not-all: `git add <files>` failed and `git add -A` got through is no fix (control: the same after `git add -A` failed; the rule ablated)', () => {
    const files = (over: Partial<EpisodeRecord>) => buildFixFiles([ep(over)], 's', 0);
    const all = { fix: 'git add -A && git status' };
    expect(files({ ...all, action: 'Bash: git add docs/x/story.txt && git commit -m "docs: x"' }).size).toBe(0);
    expect(files({ ...all, action: 'Bash: cd /home/me && git add -A && git commit -m "docs: x"' }).get(SIG)!.fixes[0].offer.reason).toMatch(/^fixed by git add -A && git status/);
    ablateRules(['named-not-all']);
    try {
      expect(files({ ...all, action: 'Bash: git add docs/x/story.txt && git commit -m "docs: x"' }).get(SIG)).toBeDefined();
    } finally {
      ablateRules([]);
    }
  });

  it('every place keeps a turn: one group cannot fill the file', () => {
    const eps = Array.from({ length: MAX_FIXES_PER_SIG + 1 }, (_, k) => k + 1).map((i) => ep({ chunkId: i, sessionId: `s${i}`, fix: 'cd api && git add -A', at: i }));
    const f = buildFixFiles([...eps, ep({ chunkId: 20, sessionId: 's20', fix: 'cd portal && git add -A', at: 0 })], 's', 0).get(SIG)!.fixes;
    expect(f.map((x) => x.where)).toContain('portal');
    expect(f.filter((x) => x.where === 'api').length).toBe(MAX_SESSIONS_PER_GROUP);
  });

  it('a destructive or state-making fix (force push, hard reset, aborted rebase, skipped hooks; rm, git init, npm init, --force: rule no-state-change) is never offered (control: the same error fixed safely is)', () => {
    for (const fix of ['git checkout <branch>; then git push --force origin <branch>:main', 'git reset --hard <hash>', 'git rebase --abort', 'git commit --no-verify -m <message>', 'git push origin +main', 'git checkout -- src/a.ts']) {
      expect(buildFixFiles([ep({ fix })], 's', 0).size, fix).toBe(0);
      expect(DESTRUCTIVE_STEP_RE.test(fix)).toBe(true);
    }
    for (const fix of ['rm -rf node_modules && npm install', 'git init', 'in /home/u/app: git init && git add -A', 'npm init -y', 'npm install --force', 'cargo new app', 'git rm --cached x.env', 'git stash drop']) {
      expect(buildFixFiles([ep({ fix })], 's', 0).size, fix).toBe(0);
      expect(STATE_STEP_RE.test(fix), fix).toBe(true);
    }
    for (const fix of ['git pull --rebase && git push', 'git push --set-upstream origin <branch>', 'npm install', 'git checkout -b <branch>', 'mkdir -p /home/u/app/docs && cp /home/u/docs/a.txt /home/u/app/docs/', 'npm run format']) {
      expect(buildFixFiles([ep({ fix })], 's', 0).size, fix).toBeGreaterThan(0);
    }
  });
});
