/**
 * Uptake without labels (core/uptake.ts): properties of the pure function (fast-check), the
 * fix line's keys, and examples shaped like the real transcripts' steps (a missing upstream, a
 * command run in the wrong folder, a file edited then the test rerun) — each with a control
 * in which the session did something else and the offer is not confirmed.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { UPTAKE_LOOKAHEAD_STEPS, fixLineOf, offeredFix, stepKeys, uptake, type UptakeStep } from '../../core/uptake.js';

const bash = (command: string, isError = false, cwd: string | null = '/home/me/app'): UptakeStep => ({ name: 'Bash', summary: `Bash: ${command}`.slice(0, 160), command, isError, cwd, callCwd: cwd });
const edit = (path: string, isError = false): UptakeStep => ({ name: 'Edit', summary: `Edit: ${path}`, isError, cwd: '/home/me/app', callCwd: '/home/me/app' });
const read = (path: string): UptakeStep => ({ name: 'Read', summary: `Read: ${path}`, isError: false, cwd: '/home/me/app', callCwd: '/home/me/app' });

/** Commands whose keys are neither of the ones the properties use as fix and intent. */
const OTHER = ['ls -la', 'cat package.json', 'git status', 'npm run lint', 'python3 tools/gen.py', 'docker ps', 'make clean', 'rg TODO src'];
const otherStep = fc.oneof(
  fc.record({ cmd: fc.constantFrom(...OTHER), err: fc.boolean() }).map(({ cmd, err }) => bash(cmd, err)),
  fc.constantFrom('src/a.ts', 'lib/b.ex', 'README.md').map((p) => read(p)),
);
const FIX = offeredFix('pnpm install', ['mix test']);
const FAILING = ['mix test'];

describe('uptake: properties', () => {
  it('a confirmed offer points at a success of the failing intent within the look-ahead, at or after the fix ran', () => {
    const step = fc.oneof(otherStep, fc.boolean().map((e) => bash('pnpm install', e)), fc.boolean().map((e) => bash('cd x && mix test 2>&1 | tail -5', e)));
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (after) => {
        const u = uptake({ after, fix: FIX, failing: FAILING });
        if (!u.confirmed) {
          expect(u.steps_between).toBeNull();
          return;
        }
        const i = u.steps_between!;
        expect(i).toBeLessThan(Math.min(after.length, UPTAKE_LOOKAHEAD_STEPS));
        expect(after[i].isError).toBe(false);
        expect(stepKeys(after[i])).toContain('mix test');
        // The fix ran at or before the success.
        expect(after.slice(0, i + 1).some((s) => stepKeys(s).includes('pnpm install'))).toBe(true);
      }),
    );
  });

  it('a session that only did something else never confirms (control for every confirmed case)', () => {
    fc.assert(
      fc.property(fc.array(otherStep, { maxLength: 60 }), (after) => {
        expect(uptake({ after, fix: FIX, failing: FAILING })).toEqual({ confirmed: false, steps_between: null });
      }),
    );
  });

  it('unrelated steps before the fix add to steps_between one for one; steps after the success change nothing', () => {
    fc.assert(
      fc.property(fc.array(otherStep, { maxLength: 20 }), fc.array(otherStep, { maxLength: 20 }), (before, tail) => {
        const core = [bash('pnpm install'), bash('mix test')];
        const u = uptake({ after: [...before, ...core, ...tail], fix: FIX, failing: FAILING });
        expect(u).toEqual({ confirmed: true, steps_between: before.length + 1 });
      }),
    );
  });

  it('nothing past the look-ahead counts', () => {
    fc.assert(
      fc.property(fc.array(otherStep, { minLength: UPTAKE_LOOKAHEAD_STEPS - 1, maxLength: UPTAKE_LOOKAHEAD_STEPS + 5 }), (filler) => {
        const u = uptake({ after: [...filler, bash('pnpm install'), bash('mix test')], fix: FIX, failing: FAILING });
        // The success is at index filler.length + 1: confirmed only when inside the look-ahead.
        expect(u.confirmed).toBe(filler.length + 1 < UPTAKE_LOOKAHEAD_STEPS);
      }),
    );
  });
});

describe('uptake: the fix line', () => {
  it('reads the fix out of a Past fix reason, and nothing out of an unresolved one', () => {
    expect(fixLineOf('fixed by git push --set-upstream origin <branch> — same "fatal: The current branch has no upstream" error in session 1a2b… (2026-01-25)')).toBe('git push --set-upstream origin <branch>');
    expect(fixLineOf('not resolved there: same "x" error in session 1a2b… (2026-01-25)')).toBe('');
  });

  it('keys: the parts that act, the rerun of the failing intent left out while something else acts', () => {
    expect(offeredFix('Edit config/test.exs; then mix test succeeded', ['mix test']).keys).toEqual(['edit test.exs']);
    expect(offeredFix('pnpm install; then pnpm run build', ['pnpm run build']).keys).toEqual(['pnpm install']);
    // Only the rerun itself (with other flags): that is the fix.
    expect(offeredFix('git push --set-upstream origin <branch>', ['git push'])).toEqual({ keys: ['git push'], place: null });
    expect(offeredFix('in api-gateway: pnpm run typecheck', ['pnpm run typecheck'])).toEqual({ keys: ['pnpm run typecheck'], place: 'api-gateway' });
  });
});

describe('uptake: real-transcript-shaped examples', () => {
  it('a missing upstream: the session pushed with --set-upstream and got through', () => {
    const failing = stepKeys(bash('git push 2>&1'));
    const fix = offeredFix('git push --set-upstream origin <branch>', failing);
    const after = [bash('git branch --show-current'), bash('git push --set-upstream origin feat/wallet 2>&1')];
    expect(uptake({ after, fix, failing })).toEqual({ confirmed: true, steps_between: 1 });
    // Control: it gave up on pushing and went on with other work.
    expect(uptake({ after: [bash('git branch --show-current'), edit('/home/me/app/src/a.ts'), bash('npm test')], fix, failing }).confirmed).toBe(false);
  });

  it('a command run in the wrong folder: confirmed when the intent ran in the fix\'s place and succeeded', () => {
    const failing = stepKeys(bash('pnpm run typecheck', true, '/home/ken'));
    const fix = offeredFix('in api-gateway: pnpm run typecheck', failing);
    const moved = [bash('ls', false, '/home/ken'), bash('cd /home/ken/api-gateway && pnpm run typecheck', false, '/home/ken')];
    expect(uptake({ after: moved, fix, failing })).toEqual({ confirmed: true, steps_between: 1 });
    // Control: the same command succeeded in another folder — not the offered fix.
    const elsewhere = [bash('cd /home/ken/web && pnpm run typecheck', false, '/home/ken')];
    expect(uptake({ after: elsewhere, fix, failing }).confirmed).toBe(false);
  });

  it('an edit then the rerun: confirmed only when the same file was edited and the test then passed', () => {
    const failing = stepKeys(bash('cd /home/me/app && mix test test/wallet_test.exs', true));
    const fix = offeredFix('Edit config/test.exs; then mix test succeeded', failing);
    const after = [read('/home/me/app/config/test.exs'), edit('/home/me/app/config/test.exs'), bash('mix test 2>&1 | tail -20', true), bash('mix test')];
    expect(uptake({ after, fix, failing })).toEqual({ confirmed: true, steps_between: 3 });
    // Control: it edited another file and the tests passed — the session found another way.
    const other = [edit('/home/me/app/lib/wallet.ex'), bash('mix test')];
    expect(uptake({ after: other, fix, failing }).confirmed).toBe(false);
    // Control: it made the edit, but the intent never got through.
    expect(uptake({ after: [edit('/home/me/app/config/test.exs'), bash('mix test', true)], fix, failing }).confirmed).toBe(false);
  });

  it('no keys on either side: not confirmed', () => {
    expect(uptake({ after: [bash('mix test')], fix: { keys: [], place: null }, failing: ['mix test'] }).confirmed).toBe(false);
    expect(uptake({ after: [bash('mix test')], fix: offeredFix('mix deps.get', []), failing: [] }).confirmed).toBe(false);
  });
});
