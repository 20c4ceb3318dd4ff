/**
 * Rule cwd-persists (shared/cwd-persists.ts): what the line says when the shell was already in
 * the folder a path starts with. Examples of each phrase with their controls, and properties:
 * cwdPersistsAdvice never throws, is null without a cwd, and names the cwd when it speaks;
 * withAdvice keeps the part after the last " — ".
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { cwdPersistsAdvice, MAX_CWD_CHARS, withAdvice } from '../../shared/cwd-persists.js';
import { ablateRules } from '../../shared/pastfix-rules.js';

describe('cwdPersistsAdvice', () => {
  it('`cd proj && …` inside /home/u/proj: drop the cd; `cd proj/src`: cd src; a path `proj/x`: drop the prefix', () => {
    expect(cwdPersistsAdvice('/home/u/proj', 'cd proj && npm test', 'cd')).toBe('the shell is already in /home/u/proj (its cwd persists between calls): drop the "cd proj"');
    expect(cwdPersistsAdvice('/home/u/proj', 'cd ./proj/ && npm test', 'cd')).toBe('the shell is already in /home/u/proj (its cwd persists between calls): drop the "cd proj"');
    expect(cwdPersistsAdvice('/home/u/proj', 'cd proj/src && ls', 'cd')).toBe('the shell is already in /home/u/proj (its cwd persists between calls): cd src, not cd proj/src');
    expect(cwdPersistsAdvice('/home/u/proj', 'git add proj/x.ts', null)).toBe('the shell is already in /home/u/proj (its cwd persists between calls): paths start inside it — drop the "proj/" prefix');
  });

  it('control: a `cd proj` that did not fail gets the prefix advice, not "drop the cd"; a `git -C` folder (the shell is not there) gets none', () => {
    expect(cwdPersistsAdvice('/home/u/proj', 'cd proj && cat proj/x', 'cat')).toBe('the shell is already in /home/u/proj (its cwd persists between calls): paths start inside it — drop the "proj/" prefix');
    expect(cwdPersistsAdvice('/home/u/proj', 'git -C /home/u/proj add proj/x.ts', null)).toBeNull();
  });

  it('rule parent-paths: a call that names the folder itself among its paths was written from the folder above: cd there (control: every path inside it keeps "drop the prefix"; ablated, the prefix advice)', () => {
    const parent = 'the shell is already in /home/u/db (its cwd persists between calls): "db" is that folder — its paths are from /home/u: cd /home/u first';
    expect(cwdPersistsAdvice('/home/u/db', 'git reset && git add db docs/prd-jobs.json', null)).toBe(parent);
    expect(cwdPersistsAdvice('/home/u/db', 'git add db/ api/ docs/prd.json && git status -s', null)).toBe(parent);
    expect(cwdPersistsAdvice('/home/u/db', 'git add ./db && git commit -m x', null)).toBe(parent);
    const prefix = 'the shell is already in /home/u/db (its cwd persists between calls): paths start inside it — drop the "db/" prefix';
    expect(cwdPersistsAdvice('/home/u/db', 'git add db/src/a.ts db/src/b.ts', null)).toBe(prefix);
    expect(cwdPersistsAdvice('/home/u/db', 'git add db/src/a.ts dbx', null)).toBe(prefix);
    ablateRules(['parent-paths']);
    try {
      expect(cwdPersistsAdvice('/home/u/db', 'git add db docs/prd-jobs.json', null)).toBe(prefix);
    } finally {
      ablateRules([]);
    }
  });

  it('control: no cwd, or a cwd with no usable name, says nothing; a long cwd is cut at the front', () => {
    expect(cwdPersistsAdvice(null, 'cd proj && npm test', 'cd')).toBeNull();
    expect(cwdPersistsAdvice('', 'cd proj && npm test', 'cd')).toBeNull();
    expect(cwdPersistsAdvice('/', 'cd proj', 'cd')).toBeNull();
    const long = `/home/u/${'deep/'.repeat(30)}proj`;
    const a = cwdPersistsAdvice(long, 'cd proj && make', 'cd')!;
    expect(a).toMatch(/^the shell is already in …[^ ]*\/proj \(/);
    expect(a.split(' (')[0].length).toBeLessThanOrEqual('the shell is already in '.length + MAX_CWD_CHARS);
  });

  it('property: never throws; null without a cwd; when it speaks it names the end of the cwd', () => {
    const seg = fc.stringMatching(/^[A-Za-z0-9._-]{1,12}$/);
    const cwd = fc.oneof(fc.string(), fc.array(seg, { minLength: 1, maxLength: 6 }).map((s) => `/${s.join('/')}`));
    fc.assert(fc.property(fc.option(cwd, { nil: null }), fc.string(), fc.option(fc.constantFrom('cd', 'ls', 'git', 'cat'), { nil: null }), (c, cmd, program) => {
      const a = cwdPersistsAdvice(c, cmd, program);
      if (!c) expect(a).toBeNull();
      if (a !== null) {
        expect(a.startsWith('the shell is already in ')).toBe(true);
        expect(c!.endsWith(a.slice('the shell is already in '.length).split(' (its cwd')[0].replace(/^…/, ''))).toBe(true);
      }
    }));
  });
});

describe('withAdvice', () => {
  it('replaces the "fixed by …" part, keeps the error, session and date (control: a reason with no dash is replaced whole)', () => {
    expect(withAdvice('fixed by cd .. — same "x" error in session 1a2b… (2026-02-11)', 'drop the cd')).toBe('drop the cd — same "x" error in session 1a2b… (2026-02-11)');
    expect(withAdvice('fixed by a — b — same error', 'A')).toBe('A — same error');
    expect(withAdvice('a note', 'A')).toBe('A');
  });

  it('property: never throws; ends with what followed the last dash', () => {
    fc.assert(fc.property(fc.string(), fc.string(), (r, a) => {
      const out = withAdvice(r, a);
      const at = r.lastIndexOf(' — ');
      expect(out).toBe(at >= 0 ? a + r.slice(at) : a);
    }));
  });
});
