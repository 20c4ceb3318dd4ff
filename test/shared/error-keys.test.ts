/**
 * Lookup keys (shared/error-keys.ts) and the generic-error rule (shared/error-class.ts), on
 * error shapes met in real projects of other people (written for these tests): a key line
 * names what went wrong; a test-name line or a bare outcome is not one; every generic kind
 * fires on its example and each has a control that is not generic.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { errorKeys, isKeyLine, lineKey, MAX_LINE_KEYS } from '../../shared/error-keys.js';
import { contentWordCount, genericKind, GENERIC_KINDS, MIN_CONTENT_WORDS, type GenericKind } from '../../shared/error-class.js';
import { errorSignature, keyLines } from '../../shared/error-signature.js';


describe('key lines', () => {
  it('a line naming what went wrong is a key line; one naming only that something failed, or too short, is not', () => {
    expect(isKeyLine('fatal: not a git repository (or any of the parent directories): .git')).toBe(true);
    expect(isKeyLine('err_pnpm_no_importer_manifest_found no <path> (or <path>, or package.json5) was found in <q>.')).toBe(false); // no lead word: the exact head covers it
    expect(isKeyLine('error: connect econnrefused <n>')).toBe(true);
    expect(isKeyLine('fail <path> > pool > reuses idle connections')).toBe(false); // a test's name, not a cause
    expect(isKeyLine('pre-commit validation failed:')).toBe(false);
    expect(isKeyLine('error')).toBe(false);
    expect(isKeyLine('exit code <n>')).toBe(false);
  });

  it('the same cause under another failing test or another lead line shares a line key; another cause does not', () => {
    const run = (test: string, cause: string) => `Exit code 1\n FAIL  src/${test}.test.ts > ${test}\n${cause}\n    at x (node:net:1:1)`;
    const a = errorKeys(keyLines(run('pool', 'Error: connect ECONNREFUSED 127.0.0.1:5432')))!;
    const b = errorKeys(keyLines(run('db', 'Error: connect ECONNREFUSED 127.0.0.1:5433')))!;
    const c = errorKeys(keyLines(run('pool', 'Error: getaddrinfo EAI_AGAIN registry.internal')))!;
    expect(a.sig).not.toBe(b.sig);
    expect(a.lineKeys.filter((k) => b.lineKeys.includes(k))).toHaveLength(1);
    expect(a.lineKeys.filter((k) => c.lineKeys.includes(k))).toEqual([]);
  });

  it('property: keys are 14 hex digits, at most MAX_LINE_KEYS, deduplicated, and a line key is never the signature', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 80 }), { maxLength: 12 }), (ls) => {
        const lines = ls.map((l) => `error: ${l} failed to load module`);
        const k = errorKeys(lines);
        if (!k) {
          expect(lines).toEqual([]);
          return;
        }
        expect(k.sig).toMatch(/^[0-9a-f]{14}$/);
        expect(k.lineKeys.length).toBeLessThanOrEqual(MAX_LINE_KEYS);
        expect(new Set(k.lineKeys).size).toBe(k.lineKeys.length);
        for (const x of k.lineKeys) expect(x).toMatch(/^[0-9a-f]{14}$/);
        expect(k.lineKeys).not.toContain(k.sig);
        expect(lineKey(lines[0])).not.toBe(k.sig);
      }),
    );
  });
});

describe('generic errors (no Past fix can transfer)', () => {
  const EXAMPLES: Array<[GenericKind, string, string]> = [
    // [kind, a generic one, a control of the same look that is not generic]
    ['rejection', "The user doesn't want to proceed with this tool use. The tool use was rejected (eg. if it was a file edit, the new_string was NOT written to the file).", 'Exit code 1\nfatal: could not read Username: terminal prompts disabled'],
    ['interrupt', '[Request interrupted by user for tool use]', 'Exit code 130\nnpm ERR! signal SIGINT received while installing dependencies'],
    ['cancelled', '<tool_use_error>Sibling tool call errored</tool_use_error>', 'Exit code 1\nerror: the sibling package was not built'],
    ['protocol', 'File has not been read yet. Read it first before writing to it.', 'Exit code 1\ncat: config.json: No such file or directory'],
    ['protocol', 'File content (31619 tokens) exceeds maximum allowed tokens (25000). Please use offset and limit parameters to read specific portions of the file.', 'Exit code 1\nError: request entity too large: 31619 bytes exceeds the proxy limit'],
    ['edit-mismatch', '<tool_use_error>String to replace not found in file.\nString: def total do</tool_use_error>', 'Exit code 1\nsed: -e expression #1, char 5: unterminated `s\' command'],
    ['edit-mismatch', 'No changes to make: old_string and new_string are exactly the same.', 'Exit code 1\nerror: no changes added to commit (use "git add")'],
    ['assertion', 'Exit code 1\n FAIL  src/cart.test.ts > cart > total\nAssertionError: expected 3 to be 4 // Object.is equality', 'Exit code 1\n FAIL  src/cart.test.ts > cart > total\nError: connect ECONNREFUSED 127.0.0.1:5432'],
    // A count of failed tests on a line of its own (the count starts the line: no word before it).
    ['assertion', 'Exit code 1\n 3 failed, 12 passed in 0.42s', 'Exit code 1\n v3 failed to start: port 8080 in use'],
    ['code-at-hand', "Failed to compile.\n\n./src/lib/engine.ts:310:7\nType error: Object is possibly 'undefined'.", "Failed to compile.\n\n./src/lib/engine.ts:310:7\nType error: Property 'utils' does not exist on type 'typeof import(\"ethers\")'."],
    ['code-at-hand', "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type 'number | undefined'.", "src/a.ts(3,5): error TS2322: Type 'string' is not assignable to type '\"1m\" | \"1h\" | undefined'."],
    ['guessed-path', "Exit code 2\nls: cannot access '/home/u/web/src/app/api/projects/suspensions/': No such file or directory", "Exit code 2\nls: cannot access 'docs/prd-audit-logs.md': No such file or directory"],
    ['guessed-path', 'Exit code 127\n/bin/bash: line 1: /opt/tools/convert.sh: No such file or directory', 'Exit code 1\n/bin/bash: line 1: cd: developer-portal: No such file or directory'],
    ['guessed-path', "Exit code 1\ncp: cannot stat 'C:\\Users\\me\\app\\rules\\*': No such file or directory", "Exit code 2\ndir: cannot access '/b': No such file or directory"],
    ['uninformative', 'Error', 'Exit code 127\n/bin/bash: line 1: python: command not found'],
  ];
  it.each(EXAMPLES)('%s: the example is generic; its control is not', (kind, generic, control) => {
    expect(genericKind(generic, keyLines(generic))).toBe(kind);
    expect(genericKind(control, keyLines(control))).toBeNull();
  });

  it('content words: lowercase ASCII is counted without the script classes, exactly as with them (property, mixed scripts)', () => {
    const piece = fc.oneof(fc.stringMatching(/^[a-z][a-z0-9_-]{0,8}$/), fc.constantFrom('error', 'fatal', '<path>', '<n>', ' ', '-', 'é', 'ñandú', 'Abc', '数据库', '連接', 'ошибка', 'εντολή', '⚠'), fc.string({ unit: 'grapheme', maxLength: 6 }));
    const full = /[a-z][a-z0-9_-]{2,}|[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]{2,}|(?![a-z])\p{L}{3,}/gu;
    const labels = new Set(['error', 'errors', 'fatal', 'failed', 'failure', 'fail', 'exception', 'panic', 'err', 'exit', 'code', 'command', 'warning']);
    const reference = (l: string) => (l.replace(/<[a-z]+>/g, ' ').replace(/^(?:fatal|error|err!?|warning|exception|panic|failed|failure)\b/, '').match(full) ?? []).filter((w) => !labels.has(w)).length;
    fc.assert(fc.property(fc.array(piece, { maxLength: 16 }).map((p) => p.join('')), (line) => {
      expect(contentWordCount(line)).toBe(reference(line));
    }), { numRuns: 2000 });
    expect(contentWordCount('数据库 连接 失败')).toBeGreaterThanOrEqual(MIN_CONTENT_WORDS);
    expect(contentWordCount('ñandúa-a')).toBe(1);
    expect(contentWordCount('error: failed')).toBe(0);
  });

  it('every kind has an example above', () => {
    expect(GENERIC_KINDS.filter((k) => !EXAMPLES.some((e) => e[0] === k))).toEqual([]);
  });

  it('guessed-path: one relative missing path among absolute ones, or a program\'s own FileNotFoundError, is not generic', () => {
    const mixed = "Exit code 1\ncat: /home/u/docs/prd.json: No such file or directory\ncat: docs/prd.json: No such file or directory";
    expect(genericKind(mixed, keyLines(mixed))).toBeNull();
    const py = "Traceback (most recent call last):\n  File \"run.py\", line 3, in <module>\nFileNotFoundError: [Errno 2] No such file or directory: '/etc/app/config.yml'";
    expect(genericKind(py, keyLines(py))).toBeNull();
    const both = "Exit code 1\ncat: /home/u/docs/a.json: No such file or directory\nls: cannot access '/srv/x/y': No such file or directory";
    expect(genericKind(both, keyLines(both))).toBe('guessed-path');
    // A program missing under an install folder is a missing install, not a guess.
    for (const install of ['Exit code 127\n/bin/bash: line 1: /home/u/proj/node_modules/.bin/vite: No such file or directory', 'Exit code 127\n/bin/bash: line 1: /home/u/proj/.venv/bin/python: No such file or directory']) {
      expect(genericKind(install, keyLines(install))).toBeNull();
    }
  });

  it('compile errors are not generic by kind: only the very same complaint (the same names) matches', () => {
    const ts = (name: string) => `Failed to compile.\n\n./src/lib/w.ts:1:2\nType error: Property '${name}' does not exist on type 'typeof import("ethers")'.`;
    expect(genericKind(ts('utils'), keyLines(ts('utils')))).toBeNull();
    expect(errorSignature(ts('utils'))!.sig).not.toBe(errorSignature(ts('providers'))!.sig);
  });

  it('property: never throws, on any text', () => {
    fc.assert(fc.property(fc.string({ maxLength: 3000 }), (t) => {
      const k = genericKind(t, keyLines(t));
      expect(k === null || (GENERIC_KINDS as readonly string[]).includes(k)).toBe(true);
    }));
  });
});

describe('errors in other languages', () => {
  it('a Chinese or Russian error signs (the same text with other paths signs the same) and is not generic; control: two different ones differ', () => {
    const zh = (p: string) => `Exit code 1\n错误: 无法打开文件 ${p}，找不到指定的路径`;
    const ru = (p: string) => `Exit code 1\nошибка: не удалось открыть файл ${p}: нет такого файла`;
    expect(errorSignature(zh('/a/b.txt'))!.sig).toBe(errorSignature(zh('/c/d/e.txt'))!.sig);
    expect(errorSignature(ru('/a/b.txt'))!.sig).toBe(errorSignature(ru('C:\\x\\y.txt'))!.sig);
    expect(errorSignature(zh('/a'))!.sig).not.toBe(errorSignature(ru('/a'))!.sig);
    expect(genericKind(zh('/a'), keyLines(zh('/a')))).toBeNull();
    expect(genericKind(ru('/a'), keyLines(ru('/a')))).toBeNull();
  });
});

describe('a secret in the error', () => {
  it('the hook signs the error as the indexer stored it (the secret a marker): two sessions with different keys meet the same Past fix; control: unredacted, the keys would part them', async () => {
    const { sign } = await import('../../hook/tool-gates.js');
    const { createRedactor } = await import('../../shared/redact.js');
    const err = (tok: string) => `Exit code 1\nnpm ERR! 401 Unauthorized: bad token ${tok} for registry, run npm login\nnpm ERR! a complete log of this run can be found in /tmp/x.log`;
    const a = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    const b = 'ghp_' + 'Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2';
    const stored = errorSignature(createRedactor().redact(err(a)))!.sig;
    const s1 = sign({ error: err(a) }, 'PostToolUseFailure');
    const s2 = sign({ error: err(b) }, 'PostToolUseFailure');
    expect(s1).toMatchObject({ kind: 'error', sig: stored });
    expect(s2).toMatchObject({ kind: 'error', sig: stored });
    expect(errorSignature(err(a))!.sig).not.toBe(errorSignature(err(b))!.sig);
  });
});
