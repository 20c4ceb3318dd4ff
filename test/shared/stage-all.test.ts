/**
 * Rule named-not-all (shared/stage-all.ts): a success that staged every file in place of the
 * ones the failing call named. Examples with their controls, and a property: never throws, and
 * a failing call that staged everything itself is never swapped.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { swapsNamedForAll } from '../../shared/stage-all.js';

describe('swapsNamedForAll (rule named-not-all)', () => {
  it('`git add <files>` failed and `git add -A` / `.` / `commit -a` got through: the named files were not staged', () => {
    expect(swapsNamedForAll('git add -A && git status', 'Bash: git add docs/x/story.txt && git commit -m "docs"')).toBe(true);
    expect(swapsNamedForAll('git add . && git commit -m <text>', 'Bash: git add src/a.ts && git commit -m x')).toBe(true);
    expect(swapsNamedForAll('git add --all', 'Bash: git add -f docs/a.md')).toBe(true);
    expect(swapsNamedForAll('git commit -am <text>', 'Bash: git add src/a.ts && git commit -m x')).toBe(true);
  });

  it('control: the failing call staged everything too, or named nothing; a fix that names files; another action', () => {
    expect(swapsNamedForAll('cd /home/u/api && git add -A && git commit -m <text>', 'Bash: git add -A && git commit -m x')).toBe(false);
    expect(swapsNamedForAll('git add -A', 'Bash: git -C /home/u add -A')).toBe(false);
    expect(swapsNamedForAll('git add docs/prd.json', 'Bash: git add docs/prd.json docs/story.txt')).toBe(false);
    expect(swapsNamedForAll('git push --set-upstream origin <branch>', 'Bash: git push')).toBe(false);
    expect(swapsNamedForAll('git commit -m <text>', 'Bash: git add src/a.ts && git commit -m x')).toBe(false);
    // `-A` / `-u` limited to named paths stages only those; `-a` inside a quoted message is text.
    expect(swapsNamedForAll('git add -A docs/x.md && git commit -m <text>', 'Bash: git add docs/x.md && git commit -m x')).toBe(false);
    expect(swapsNamedForAll('git add -u src/ && git status', 'Bash: git add src/a.ts')).toBe(false);
    expect(swapsNamedForAll('git commit -m "drop -a flag"', 'Bash: git add src/a.ts && git commit -m x')).toBe(false);
  });

  it('property: never throws; a failing call that staged everything is never swapped', () => {
    fc.assert(fc.property(fc.string({ maxLength: 200 }), fc.string({ maxLength: 200 }), (fix, failing) => {
      expect(typeof swapsNamedForAll(fix, failing)).toBe('boolean');
      expect(swapsNamedForAll(fix, `Bash: git add -A ${failing}`)).toBe(false);
    }));
  });
});
