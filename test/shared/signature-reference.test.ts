/**
 * The tool path's signing code, rewritten for the one-shot hook's start-up cost (docs/HOOK.md,
 * "Tool path, third pass"), against the code it replaced (test/shared/reference/: copies of
 * the modules as they were): the same informative lines, key lines, signatures, generic
 * verdicts, folder marks and redactions on random and real-shaped errors. The hook, the
 * daemon and the indexer all sign through these functions, so a stored signature made by the
 * old code must still be the one the new code computes.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import * as now from '../../shared/error-signature.js';
import * as was from './reference/error-signature.js';
import { genericKind } from '../../shared/error-class.js';
import { genericKind as genericKindWas } from './reference/error-class.js';
import { markedError, markHere } from '../../shared/here-mark.js';
import { markedError as markedErrorWas, markHere as markHereWas } from './reference/here-mark.js';
import { gitDirectory } from '../../shared/run-dir.js';
import { gitDirectory as gitDirectoryWas } from './reference/run-dir.js';
import { builtinRedactor } from '../../shared/redact.js';
import { base64Runs, joinedView } from '../../shared/redact-views.js';
import { createRedactor as createRedactorWas } from './reference/redact.js';
import { errorKeys } from '../../shared/error-keys.js';
import { sign } from '../../hook/tool-gates.js';

const redactorWas = createRedactorWas();

/** The hook's signal for an error as the old code computed it (hook/tool-gates.ts sign). */
function signWas(text: string, cwd: string | null, command: string) {
  const lines = was.keyLines(markedErrorWas(redactorWas.redact(text), cwd, command));
  const keys = errorKeys(lines);
  return keys ? { sig: keys.sig, lineKeys: keys.lineKeys, generic: genericKindWas(text, lines) } : null;
}

/** A test runner's output as a failed Bash call reports it (the hook bench's shape): passing
 *  lines, the failing test, its cause, a stack; `n` passing lines, `m` frames. */
const testRun = fc.record({
  n: fc.integer({ min: 0, max: 60 }),
  m: fc.integer({ min: 0, max: 40 }),
  mark: fc.constantFrom('✓', '√', 'ok', 'PASS', '·'),
  cause: fc.constantFrom('Error: connect ECONNREFUSED 127.0.0.1:5432', 'AssertionError: expected 1 to be 2', "TypeError: Cannot read properties of undefined (reading 'x')",
    'Error: getaddrinfo EAI_AGAIN registry.internal.example', "Error: ENOENT: no such file or directory, open '/home/u/proj/cfg.json'", 'FATAL: password authentication failed for user "app"'),
}).map(({ n, m, mark, cause }) => {
  const lines = ['Exit code 1', '', '> proj@1.0.0 test', '> vitest run', ''];
  for (let k = 0; k < n; k++) lines.push(` ${mark} src/module-${k}.test.ts > computes case ${k} correctly (${(k * 7) % 40} ms)`);
  lines.push(' FAIL  src/pool.test.ts > pool > reuses idle connections', cause, '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)');
  for (let k = 0; k < m; k++) lines.push(`    at Object.<anonymous> (/home/u/proj/src/pool-${k % 9}.ts:${10 + k}:${(k * 3) % 40})`);
  return lines.join('\n');
});

/** Errors of the shapes met in sessions, and what joins or splits their words. */
const piece = fc.oneof(
  fc.constantFrom('Exit code 1', 'error:', 'Error:', 'fatal:', 'FAIL', 'failed', 'not found', 'no such file or directory', 'not•a', 'can\'t', 'could  not', 'NOT\tFOUND',
    'unKnown', 'İnvalid', 'ſuch', 'ıgnored', // look-alike letters that lower-case (or not) to ASCII
    'pathspec', "'proj/src/a.ts'", '"proj"', '`proj/x`', "'database/'", 'did not match any files', 'No module named', "'app'",
    '<tool_use_error>', '</tool_use_error>', 'tool_use_error>', '\u001b[31m', '\u001b[0m', '\r', '\u0001', '\uFFFD', '\\n', '\t', '   ', '│', '✗', '×', '*', '|',
    'https://x.io/a?b=1', '/home/u/proj/src/a.ts:12:4', 'C:\\Users\\me\\my app\\src\\x.ts', '0x1f2e3d4c', '1x1f2e3d4c', '0x1f2e3d4', 'utf8', 'v18.2', 'e2e', 'deadbeef12', '3f2504e0-4f89-11d3-9a0c-0305e82c3301',
    'branch main', 'origin feature/x-1', 'checkout v2', 'tag', 'TS2304', "Property 'utils' does not exist on type 'Foo'", 'is not assignable to', 'failed to compile',
    'string to replace not found', 'File has not been read yet', 'Request failed with status code 500', 'expected 1 to be 2', '3 tests failed', 'E   assert x',
    'The user doesn\'t want to proceed', 'THE USER HAS REJECTED', 'Interrupted by user', 'cancelled: parallel tool call', 'sibling tool call errored',
    'ls: cannot access \'/home/u/x\': No such file or directory',
    'cat: proj/x: No such file or directory', 'bash: line 1: cd: app: No such file or directory', 'database/src: Not a directory', 'DIRECTORY', 'cat: /tmp/y: No such file or directory', 'node_modules/.bin/vite',
    'ghp_0123456789abcdefghijklmnopqrstuvwxyzAB', 'password=hunter22x', 'Authorization: Bearer abcdefgh12345678', 'sk-ant-abcdefghijklmnopqrstuv1234',
    'K', 'k', 'ſ', 'İ', '数据库连接失败', 'Ошибка', '12%', 'Compiling 3 files (.ex)', 'npm WARN deprecated', '✓ passes'),
  fc.stringMatching(/^[a-zA-Z]{1,7}$/),
  fc.string({ maxLength: 6 }),
);
const line = fc.array(piece, { maxLength: 9 }).chain((ps) => fc.constantFrom(' ', '', ': ', '  ').map((sep) => ps.join(sep)));
const randomText = fc.array(line, { maxLength: 30 }).map((ls) => ls.join('\n'));
/** Lines that differ in their digits only, one after another (frames, numbered test lines). */
const digitVariants = fc.tuple(line, fc.array(fc.stringMatching(/^[0-9]{1,3}$/), { minLength: 1, maxLength: 6 }))
  .map(([l, ds]) => ds.map((d) => l.replace(/[0-9]/g, (c) => String((Number(c) + Number(d)) % 10))).join('\n'));
const errorText = fc.oneof(testRun, randomText, digitVariants, fc.tuple(testRun, randomText).map(([a, b]) => `${b}\n${a}\n${b}`), fc.tuple(digitVariants, testRun).map(([a, b]) => `${a}\n${b}`));
const cwd = fc.constantFrom(null, '/home/u/proj', '/srv/database', '/home/u/app', 'C:\\Users\\me\\proj', '/');
const command = fc.constantFrom('', 'npm test', 'git add database/ docs/x.json', 'git -C proj add proj/src/a.ts', 'cd app && python -c "import app"', '  git status');

describe('the rewritten signing code gives what the code it replaced gave', () => {
  it('property: informative lines (every reading), key lines, signatures, generic verdicts', () => {
    fc.assert(fc.property(errorText, fc.integer({ min: 1, max: 8 }), (t, max) => {
      for (const keepQuoted of [false, true]) {
        for (const fromLead of [false, true]) expect(now.informativeLines(t, now.MAX_INFORMATIVE_LINES, undefined, keepQuoted, fromLead)).toEqual(was.informativeLines(t, was.MAX_INFORMATIVE_LINES, undefined, keepQuoted, fromLead));
        expect(now.informativeLines(t, max, undefined, keepQuoted)).toEqual(was.informativeLines(t, max, undefined, keepQuoted));
      }
      const lines = now.keyLines(t);
      expect(lines).toEqual(was.keyLines(t));
      expect(now.errorSignature(t)).toEqual(was.errorSignature(t));
      expect(now.errorSig(t)).toBe(was.errorSig(t));
      expect(genericKind(t, lines)).toBe(genericKindWas(t, lines));
    }), { numRuns: 1500 });
  });

  it('property: each line normalized alike, quoted names kept or not', () => {
    fc.assert(fc.property(line, (l) => {
      expect(now.normalizeErrorLine(l)).toBe(was.normalizeErrorLine(l));
      expect(now.normalizeErrorLine(l, true)).toBe(was.normalizeErrorLine(l, true));
      expect(now.normalizeErrorLine(`${l}\u0000a\u0000`, true)).toBe(was.normalizeErrorLine(`${l}\u0000a\u0000`, true));
    }), { numRuns: 3000 });
  });

  it('property: the folder-you-are-in mark, the redaction, and the hook\'s signal of a payload', () => {
    fc.assert(fc.property(errorText, cwd, command, (t, dir, cmd) => {
      expect(markHere(t, ['proj', 'database', 'app'])).toBe(markHereWas(t, ['proj', 'database', 'app']));
      expect(markedError(t, dir, cmd)).toBe(markedErrorWas(t, dir, cmd));
      expect(gitDirectory(cmd)).toBe(gitDirectoryWas(cmd));
      // Issue 38 added views the old code did not have (a token cut by a line break joined,
      // base64 decoded: test/shared/redact-views.test.ts); on text with neither, the same.
      if (joinedView(t) !== null || base64Runs(t).length > 0) return;
      expect(builtinRedactor().redact(t)).toBe(redactorWas.redact(t));
      const payload = { tool_name: 'Bash', tool_input: { command: cmd }, cwd: dir ?? undefined, error: t };
      const s = sign(payload, 'PostToolUseFailure');
      const w = signWas(t, dir, cmd);
      if (w === null) expect(s.kind).toBe('none');
      else expect(s.kind === 'error' ? { sig: s.sig, lineKeys: s.lineKeys, generic: s.generic } : s).toEqual(w);
    }), { numRuns: 800 });
  });

  it('the hook bench\'s error (a 10,000-char test run, lead past the first 70 lines) signs as before (control: another cause, another signature)', () => {
    const run = (cause: string) => {
      const ls = ['Exit code 1', '', '> proj@1.0.0 test', '> vitest run', ''];
      for (let k = 0; ls.join('\n').length < 6000; k++) ls.push(` \u2713 src/module-${k}.test.ts > computes case ${k} correctly (${(k * 7) % 40} ms)`);
      ls.push(' FAIL  src/pool.test.ts > pool > reuses idle connections', cause, '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)', '');
      for (let k = 0; ls.join('\n').length < 10_200; k++) ls.push(`    at Object.<anonymous> (/home/u/proj/src/pool-${k % 9}.ts:${10 + k}:${(k * 3) % 40})`);
      return ls.join('\n').slice(0, 10_000);
    };
    const a = run('Error: connect ECONNREFUSED 127.0.0.1:5432');
    const b = run('Error: getaddrinfo EAI_AGAIN registry.internal.example');
    for (const t of [a, b]) {
      const s = sign({ tool_name: 'Bash', tool_input: { command: 'npm test' }, cwd: '/home/u/proj', error: t }, 'PostToolUseFailure');
      expect(s.kind === 'error' ? { sig: s.sig, lineKeys: s.lineKeys, generic: s.generic } : s).toEqual(signWas(t, '/home/u/proj', 'npm test'));
    }
    expect(now.errorSig(a)).not.toBe(now.errorSig(b));
  });
});
