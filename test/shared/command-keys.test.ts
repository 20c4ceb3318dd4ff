/**
 * The program of an action and of an error (shared/command-keys.ts programOf, sameProgram,
 * namedProgram), which rule same-program (shared/pastfix-rules.ts) reads through
 * shared/fix-choice.ts: examples of each, and properties — never throws, sameProgram is
 * reflexive and symmetric, namedProgram names a word at the lead's start or nothing; and rule
 * quoted-is-data (segments: a quoted span starts no segment) and rule git-place-option (git's
 * `-C X` is its place, not its action), each with its control and properties.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { actionKeys, commandKey, namedProgram, programOf, sameProgram, segments } from '../../shared/command-keys.js';
import { ablateRules } from '../../shared/pastfix-rules.js';

const word = fc.stringMatching(/^[a-z][a-z0-9.+-]{0,8}$/);
const key = fc.array(fc.oneof(word, fc.constantFrom('npx', 'pnpx', 'bunx', 'uvx', 'run', 'tsc', 'python', 'python3', 'git', 'add', 'npm', '-m', '')), { minLength: 0, maxLength: 4 }).map((w) => w.join(' '));

describe('programOf / sameProgram', () => {
  it('the program of an action key: its first word, or the two after a runner', () => {
    expect(programOf('git add')).toBe('git');
    expect(programOf('npm run build')).toBe('npm');
    expect(programOf('npx tsc')).toBe('npx tsc');
    expect(programOf('npx')).toBe('npx');
    expect(programOf('')).toBe('');
  });

  it('same program: git add and git log; python and python3 stand in; npm and git, npx tsc and npx vite do not (control)', () => {
    expect(sameProgram('git add', 'git log')).toBe(true);
    expect(sameProgram('npm run build', 'npm run dev')).toBe(true);
    expect(sameProgram('python -c', 'python3 -c')).toBe(true);
    expect(sameProgram('npm run build', 'git push')).toBe(false);
    expect(sameProgram('npx tsc', 'npx vite')).toBe(false);
    expect(sameProgram('npm install', 'pnpm install')).toBe(false);
  });

  it('property: never throws; reflexive and symmetric; the same program always counts', () => {
    fc.assert(fc.property(key, key, (a, b) => {
      expect(typeof programOf(a)).toBe('string');
      expect(sameProgram(a, a)).toBe(true);
      expect(sameProgram(a, b)).toBe(sameProgram(b, a));
      if (programOf(a) === programOf(b)) expect(sameProgram(a, b)).toBe(true);
    }));
    fc.assert(fc.property(fc.string(), fc.string(), (a, b) => {
      expect(sameProgram(a, b)).toBe(sameProgram(b, a));
    }));
  });

  it('property: on the keys of real commands too (actionKeys), symmetric', () => {
    const cmd = fc.array(fc.constantFrom('git add -A', 'git push', 'npm run build', 'npx tsc --noEmit', 'python3 x.py', 'python x.py', 'ls -la', 'cd app', 'pnpm test', 'mix format'), { minLength: 1, maxLength: 3 }).map((c) => c.join(' && '));
    fc.assert(fc.property(cmd, cmd, (x, y) => {
      for (const a of actionKeys(x)) for (const b of actionKeys(y)) expect(sameProgram(a, b)).toBe(sameProgram(b, a));
    }));
  });
});

describe('namedProgram', () => {
  it('a lead that names the program that failed: ls, cat, cd after a shell prefix, python after `<path>: line <n>:`', () => {
    expect(namedProgram("ls: cannot access <q>: no such file or directory")).toBe('ls');
    expect(namedProgram('cat: <path>: no such file or directory')).toBe('cat');
    expect(namedProgram('bash: line <n>: cd: app: no such file or directory')).toBe('cd');
    expect(namedProgram('<path>: line <n>: python: command not found')).toBe('python');
  });

  it('control: severity labels and error class names are no program', () => {
    for (const lead of ['error: pathspec <q> did not match', 'fatal: not a git repository', 'warning: x', 'typeerror: x is not a function', 'modulenotfounderror: no module named <q>', 'type error: cannot find name', 'failed to compile.', 'npm error missing script: <q>', '']) {
      expect(namedProgram(lead), lead).toBeNull();
    }
  });

  it('property: never throws; a name it gives is a word the lead starts with (after a shell prefix), never a severity label', () => {
    fc.assert(fc.property(fc.oneof(fc.string(), fc.tuple(fc.constantFrom('', 'bash: ', 'sh: line <n>: ', '<path>: '), word, fc.constantFrom(': ', ' ', ':'), fc.string()).map((p) => p.join(''))), (lead) => {
      const p = namedProgram(lead);
      if (p === null) return;
      expect(p).toMatch(/^[a-z][\w.+-]*$/);
      expect(lead.includes(`${p}: `)).toBe(true);
      expect(['error', 'fatal', 'warning', 'failed']).not.toContain(p);
      expect(p.endsWith('error')).toBe(false);
    }));
  });
});

describe('segments (rule quoted-is-data)', () => {
  const COMMIT = 'git add -A && git commit -m "feat: add OTEL deps\n\n- Add opentelemetry; a && b\n\nCo-Authored-By: Claude <noreply@anthropic.com>"';

  it("a commit message's lines, `;` and `&&` inside quotes start no segment: the action is git commit, not a message line", () => {
    expect(segments(COMMIT)).toHaveLength(2);
    expect(commandKey(COMMIT)).toBe('git commit');
    expect(actionKeys(COMMIT)).toEqual(['git add', 'git commit']);
    expect(segments("echo 'a;b' ; ls x")).toEqual(["echo 'a;b'", 'ls x']);
    expect(segments('grep "a\\"; b" f && wc -l f')).toEqual(['grep "a\\"; b" f', 'wc -l f']);
    // An unclosed quote (a summary cut inside a message) runs to the end.
    expect(segments('git commit -m "fix: x; y')).toEqual(['git commit -m "fix: x; y']);
  });

  it('control: outside quotes every separator splits; with the rule off the quoted lines split too', () => {
    expect(segments('cd app && npm ci; npm test || echo failed\nls')).toEqual(['cd app', 'npm ci', 'npm test', 'echo failed', 'ls']);
    ablateRules(['quoted-is-data']);
    try {
      expect(commandKey(COMMIT)).toBe('Co-Authored-By: Claude');
    } finally {
      ablateRules([]);
    }
  });

  it('property: never throws; without quotes it splits as the plain separators do; the parts keep every non-separator character', () => {
    const plain = fc.stringMatching(/^[a-z &|;\n.-]{0,40}$/);
    fc.assert(fc.property(plain, (cmd) => {
      expect(segments(cmd)).toEqual(cmd.split(/&&|\|\||;|\n/).map((x) => x.trim()).filter(Boolean));
    }));
    fc.assert(fc.property(fc.string(), (cmd) => {
      const parts = segments(cmd);
      const strip = (x: string) => x.replace(/[;&|\s]/g, '');
      expect(strip(parts.join(''))).toBe(strip(cmd));
      for (const p of parts) expect(p).toBe(p.trim());
    }));
  });
});

describe('segmentWords (rule git-place-option)', () => {
  it("git's place and config options are not its action: `git -C /x add` is `git add`, `git -C /x status` a look (control: rule off, a bare `git`)", () => {
    expect(actionKeys('git -C /home/u add -A && git -C /home/u commit -m "x"')).toEqual(['git add', 'git commit']);
    expect(actionKeys('git -c core.pager=cat --git-dir=/home/u/app/.git log -3')).toEqual(['git log']);
    expect(actionKeys('git -C /home/u/app status && git -C /home/u/app push')).toEqual(['git push']);
    expect(actionKeys('git add -A')).toEqual(['git add']);
    ablateRules(['git-place-option']);
    try {
      expect(actionKeys('git -C /home/u add -A')).toEqual(['git']);
    } finally {
      ablateRules([]);
    }
  });

  it('property: with place options in front, the key is the one without them', () => {
    const sub = fc.constantFrom('add', 'commit', 'push', 'status', 'log', 'diff');
    const dir = fc.stringMatching(/^\/[a-z]{1,6}(\/[a-z0-9_-]{1,6}){0,3}$/);
    fc.assert(fc.property(sub, dir, fc.constantFrom('-C', '--git-dir', '--work-tree'), (s, d, opt) => {
      expect(commandKey(`git ${opt} ${d} ${s} -v`)).toBe(commandKey(`git ${s} -v`));
    }));
  });
});
