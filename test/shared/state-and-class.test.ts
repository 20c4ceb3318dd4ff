/**
 * The rules' classifiers of shared/destructive.ts and shared/error-class.ts: rule
 * no-state-change (STATE_STEP_RE, isDestructive: git init, rm, npm init, --force never a fix;
 * `mkdir -p x && cp` is), rule move-needs-place-error (placeError), rule code-being-written
 * (codeError), and the cascade notice (isCascade) with its properties.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { anyDestructive, isDestructive, STATE_STEP_RE } from '../../shared/destructive.js';
import { codeError, isCascade, placeError } from '../../shared/error-class.js';
import { keyLines } from '../../shared/error-signature.js';

describe('no-state-change: steps that create or remove state', () => {
  it('git init, rm, rmdir, git rm, npm/cargo init and new, --force, stash drop, delete from are state changes', () => {
    for (const s of ['git init', 'cd /home/u/app && git init', 'rm -rf node_modules && npm install', 'Bash: rm x.lock', 'sudo rm /etc/x', 'find . -name "*.pyc" | xargs rm -f', 'rmdir build', 'git rm --cached .env', 'npm init -y', 'pnpm init', 'cargo new app', 'go mod init example.com/x', 'npm install --force', 'git stash drop', 'psql -c "DELETE FROM users"', 'x; truncate -s 0 log']) {
      expect(STATE_STEP_RE.test(s), s).toBe(true);
      expect(isDestructive(s), s).toBe(true);
    }
  });

  it('`dotnet new console` creates a project like `cargo new app`; so does `npx create-next-app`', () => {
    expect(isDestructive('cargo new app')).toBe(true);
    expect(isDestructive('dotnet new console')).toBe(true);
    expect(isDestructive('npx create-next-app@latest web')).toBe(true);
  });

  it('control: making a folder to copy into, installs, builds, a word "rm" inside another are not', () => {
    for (const s of ['mkdir -p /home/u/app/docs && cp /home/u/docs/a.txt /home/u/app/docs/', 'npm install', 'npm run build', 'git add -A && git commit -m "rm old"', 'echo rm', 'npm run format', 'cargo build', 'git push --set-upstream origin <branch>', 'git stash && git pull && git stash pop']) {
      expect(isDestructive(s), s).toBe(false);
    }
    expect(anyDestructive(['npm install', 'git init'])).toBe(true);
    expect(anyDestructive(['npm install', 'npm test'])).toBe(false);
  });
});

describe('move-needs-place-error: placeError', () => {
  it('errors that say the place is wrong', () => {
    for (const t of ['fatal: not a git repository (or any of the parent directories): .git', "ls: cannot access 'docs': No such file or directory", 'npm error Missing script: "dev"', "Error: Cannot find module '/home/u/x.js'", "error: pathspec 'a.ts' did not match any file(s) known to git", "python3: can't open file '/home/u/x.py': [Errno 2] No such file or directory", 'npm error enoent Could not read package.json']) {
      expect(placeError(t), t).toBe(true);
    }
  });

  it('control: a build, type or network error does not', () => {
    for (const t of ['error TS2322: Type string is not assignable to type number', 'Error: connect ECONNREFUSED 127.0.0.1:5432', 'fatal: The current branch x has no upstream branch.', '3 tests failed', 'SyntaxError: Unexpected token }']) {
      expect(placeError(t), t).toBe(false);
    }
  });
});

describe('code-being-written: codeError', () => {
  it('compile and type errors, failing test runs, linters', () => {
    for (const t of ["Failed to compile.\n./src/a.tsx\nType error: Property 'x' does not exist on type 'Y'.", "src/a.ts(3,1): error TS2304: Cannot find name 'foo'.", 'Exit code 1\n 3 tests failed', 'eslint found 3 problems (3 errors, 0 warnings)', 'error[E0432]: unresolved import `crate::cart`']) {
      expect(codeError(keyLines(t)), t).toBe(true);
    }
  });

  it('eslint\'s summary `✖ 3 problems (` counts as a linter\'s complaint', () => {
    expect(codeError(keyLines('✖ 3 problems (3 errors, 0 warnings)'))).toBe(true);
  });

  it('a test runner\'s summary counts: jest `Tests: 2 failed`, mocha `2 failing` (found failing: `\\b<n>` in TEST_FAIL_RE never matches after a blank or at the start — `<` is no word character)', () => {
    for (const t of ['Tests: 2 failed, 10 passed, 12 total', '  2 failing']) {
      expect(codeError(keyLines(t)), t).toBe(true);
    }
  });

  it('a failing test run that names a cause outside the code (a refused connection, a port taken, a host not found) is the environment\'s; control: the same run failing on an assertion is the code\'s', () => {
    for (const t of ['FAIL orders.spec.ts\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect', 'Exit code 1\n 3 tests failed\nError: listen EADDRINUSE: address already in use :::3000', 'Tests: 2 failed\nError: getaddrinfo ENOTFOUND db.internal']) {
      expect(codeError(keyLines(t)), t).toBe(false);
    }
    for (const t of ['FAIL orders.spec.ts\nAssertionError: expected 3 to be 4', 'Exit code 1\n 3 tests failed\nexpected total to equal 42']) {
      expect(codeError(keyLines(t)), t).toBe(true);
    }
  });

  it('control: place, git and network errors are not', () => {
    for (const t of ['fatal: not a git repository (or any of the parent directories): .git', 'Error: connect ECONNREFUSED 127.0.0.1:5432', "ls: cannot access 'docs': No such file or directory", 'fatal: The current branch x has no upstream branch.']) {
      expect(codeError(keyLines(t)), t).toBe(false);
    }
  });
});

describe('isCascade', () => {
  const NOTICES = ['Sibling tool call errored', "The user doesn't want to proceed with this tool use. The tool use was rejected.", '[Request interrupted by user for tool use]', "The user doesn't want to take this action right now.", 'Cancelled: parallel tool call Bash(x) errored', '<tool_use_error>Sibling tool call errored</tool_use_error>'];

  it('the notices are cascades (control: an error of the call itself is not)', () => {
    for (const n of NOTICES) expect(isCascade(n), n).toBe(true);
    for (const t of ['Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432', 'fatal: not a git repository', '']) expect(isCascade(t), t).toBe(false);
  });

  it('property: never throws; a text without any of its words is none; a notice first is one whatever follows; a notice only after the head is none', () => {
    fc.assert(fc.property(fc.string({ maxLength: 3000 }), (t) => {
      const r = isCascade(t);
      expect(typeof r).toBe('boolean');
      if (!/user|denied|blocked|sibling|cancel/.test(t.toLowerCase())) expect(r).toBe(false);
    }));
    fc.assert(fc.property(fc.constantFrom(...NOTICES), fc.string({ maxLength: 500 }), (n, rest) => {
      expect(isCascade(`${n}\n${rest}`)).toBe(true);
    }));
    fc.assert(fc.property(fc.constantFrom(...NOTICES), (n) => {
      expect(isCascade(`Exit code 1\n${'x'.repeat(2100)}\n${n}`)).toBe(false);
    }));
  });
});
