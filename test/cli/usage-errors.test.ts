import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import fc from 'fast-check';
import { closest, editDistance } from '../../shared/suggest.js';
import { repoRoot } from '../helpers/model.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
const run = (args: string[]) => spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ACTIVE_BRAIN_HOME: '/nonexistent-ab-home' } });

describe('usage errors say what was wrong and what was meant', () => {
  it('a mistyped command gets "did you mean" and exit 2', () => {
    const r = run(['stauts']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('Did you mean "active-brain status"?');
  });
  it('a name that is not close to any command gets no guess', () => {
    const r = run(['frobnicate']);
    expect(r.status).toBe(2);
    expect(r.stderr).not.toContain('Did you mean');
    expect(r.stderr).toContain('unknown command "frobnicate"');
  });
  it('an unknown flag is named plainly, with the nearest flag when there is one', () => {
    const a = run(['search', 'x', '--bogus']);
    expect(a.status).toBe(2);
    expect(a.stderr.trim()).toBe('active-brain: unknown option --bogus. Run with --help for usage.');
    const b = run(['search', 'x', '--jsn']);
    expect(b.stderr).toContain('Did you mean --json?');
  });
  it('bare `active-brain` prints the overview with exit 0 (control: an unknown command is exit 2)', () => {
    const r = run([]);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: active-brain <command>/);
    expect(r.stdout).toMatch(/^ {2}setup +/m);
    expect(run(['nope']).status).toBe(2);
  });
  it('a positional argument where none is taken is named', () => {
    const r = run(['status', 'extra']);
    expect(r.status).toBe(2);
    expect(r.stderr).toContain('unexpected argument "extra"');
  });
});

describe('closest', () => {
  it('edit distance is a metric on small strings (symmetric, zero only on equal)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
        expect(editDistance(a, b)).toBe(editDistance(b, a));
        expect(editDistance(a, b) === 0).toBe(a === b);
      }),
    );
  });
  it('never suggests the typed name itself, and suggests swapped letters', () => {
    expect(closest('status', ['status', 'start'])).toBeNull();
    expect(closest('satrt', ['status', 'start'])).toBe('start');
    expect(closest('x', ['status'])).toBeNull();
  });
});
