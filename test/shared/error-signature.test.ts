import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { COMPILE_LEAD_RE, KEY_LINES, LEAD_RE, MAX_INFORMATIVE_LINES, errorSignature, errorPhrase, informativeLines, keyLines, normalizeErrorLine, wordOverlap } from '../../shared/error-signature.js';

// Error templates of the shapes met in coding sessions (written for these tests). {P} path,
// {B} branch, {N} number, {H} hash, {Q} quoted name.
const TEMPLATES = [
  'Exit code {N}\nfatal: The current branch {B} has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin {B}\n',
  'Exit code {N}\nThe following paths are ignored by one of your .gitignore files:\n{P}\nhint: Use -f if you really want to add them.',
  "Pre-commit validation failed:\\n\\n[FORMAT] Code is not formatted.\\nRun 'mix format' to fix.\\n\\nFix these issues before committing.",
  'Exit code {N}\nCompiling {N} files (.ex)\nGenerated app_{N} app\nerror: undefined function {Q}/{N} in module Foo\n  {P}:{N}:{N}',
  'Exit code {N}\nnpm ERR! code ENOENT\nnpm ERR! syscall open\nnpm ERR! path {P}/package.json',
  'Exit code {N}\nTraceback (most recent call last):\n  File "{P}", line {N}, in <module>\nModuleNotFoundError: No module named {Q}',
  'Exit code {N}\nerror[E0382]: borrow of moved value: {Q}\n --> {P}:{N}:{N}',
  'Exit code {N}\nerror: Your local changes to the following files would be overwritten by checkout:\n\t{P}\nPlease commit your changes or stash them before you switch branches.',
  'Exit code {N}\nError: connect ECONNREFUSED 127.0.0.1:{N}\n    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:{N}:{N})',
  'Exit code {N}\nfatal: not a git repository (or any of the parent directories): .git',
  'Exit code {N}\nsrc/{P}.ts({N},{N}): error TS2304: Cannot find name {Q}.',
  'Exit code {N}\nPermission denied (publickey).\nfatal: Could not read from remote repository.',
];

const word = fc.stringMatching(/^[a-z][a-z0-9_]{2,9}$/);
const pathArb = fc.array(word, { minLength: 1, maxLength: 5 }).map((p) => `/home/${p.join('/')}.ex`);
const branchArb = fc.tuple(word, fc.integer({ min: 1, max: 999 })).map(([w, n]) => `feature/${w}-${n}`);
const hashArb = fc.stringMatching(/^[0-9a-f]{12}$/).map((h) => `1${h}`);
const fill = (t: string, v: { p: string; b: string; n: number; h: string; q: string }) =>
  t.replace(/\{P\}/g, v.p).replace(/\{B\}/g, v.b).replace(/\{N\}/g, String(v.n)).replace(/\{H\}/g, v.h).replace(/\{Q\}/g, `'${v.q}'`);
const vars = fc.record({ p: pathArb, b: branchArb, n: fc.integer({ min: 0, max: 99999 }), h: hashArb, q: word });

/** A compiler's or type checker's complaint: its quoted names stay in the signature. */
const keepsNames = (t: string) => informativeLines(t).some((l) => COMPILE_LEAD_RE.test(l));

describe('errorSignature', () => {
  it('is the same for the same error with other paths, branches, numbers, hashes and quoted names (a compile error: the same names)', () => {
    expect(TEMPLATES.filter(keepsNames).length).toBeGreaterThanOrEqual(2); // the rule is exercised
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TEMPLATES.length - 1 }), vars, vars, (i, a, b) => {
        const other = keepsNames(TEMPLATES[i]) ? { ...b, q: a.q } : b;
        expect(errorSignature(fill(TEMPLATES[i], a))!.sig).toBe(errorSignature(fill(TEMPLATES[i], other))!.sig);
      }),
    );
  });

  it('a compile error keeps its quoted names: the same complaint about another name is another error (control: other paths and lines are the same)', () => {
    const ts = (name: string, file: string, line: number) => `Exit code 2\nFailed to compile.\n\n./src/lib/${file}.ts:${line}:19\nType error: Property '${name}' does not exist on type 'typeof import("/home/u/app/node_modules/ethers/lib.esm/ethers")'.`;
    expect(errorSignature(ts('utils', 'wallet', 221))!.sig).toBe(errorSignature(ts('utils', 'dex', 905))!.sig);
    expect(errorSignature(ts('utils', 'wallet', 221))!.sig).not.toBe(errorSignature(ts('providers', 'wallet', 221))!.sig);
    expect(keyLines(ts('utils', 'wallet', 1)).join('\n')).toContain("'utils'");
    // Not a compile error: quoted names are placeholders as before.
    expect(errorSignature("fatal: pathspec 'a.txt' did not match any files")!.sig).toBe(errorSignature("fatal: pathspec 'b/c.md' did not match any files")!.sig);
  });

  it('a hex-looking piece of a branch or path name is no hash: the name is a path as a whole (found by the property above)', () => {
    const push = (b: string) => `Exit code 1\nfatal: The current branch ${b} has no upstream branch.`;
    expect(errorSignature(push('feature/a0aa000-1'))!.sig).toBe(errorSignature(push('feature/a_0-1'))!.sig);
    // Control: a hash standing alone is still a hash.
    expect(normalizeErrorLine('error: object 1a2b3c4d5e6f is corrupt')).toBe('error: object <hash> is corrupt');
  });

  it('differs between different errors', () => {
    fc.assert(
      fc.property(vars, vars, (a, b) => {
        const sigs = TEMPLATES.map((t, i) => errorSignature(fill(t, i % 2 ? a : b))!.sig);
        expect(new Set(sigs).size).toBe(TEMPLATES.length);
      }),
    );
  });

  it('ignores ANSI colour, carriage-return progress and the build chatter in front', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: TEMPLATES.length - 1 }), vars, fc.integer({ min: 1, max: 400 }), (i, v, n) => {
        const plain = fill(TEMPLATES[i], v);
        const noisy =
          `Exit code 2\nCompiling ${n} files (.ex)\nGenerated demo app\nRunning setup for AshSqlite.DataLayer...\n` +
          `Checking ${n} source files (this might take a while) ...\nprogress 10%\rprogress 100%\r\n` +
          plain.replace(/error/i, (m) => `\x1b[31m${m}\x1b[0m`);
        expect(errorSignature(noisy)!.sig).toBe(errorSignature(plain)!.sig);
      }),
    );
  });

  it('never throws on any input, and returns null when nothing is informative', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.uint8Array({ maxLength: 2000 }).map((b) => Buffer.from(b).toString('utf8'))), (s) => {
        const r = errorSignature(s);
        if (r) {
          expect(r.sig).toMatch(/^[0-9a-f]{14}$/);
          expect(r.head.length).toBeGreaterThan(0);
        }
      }),
    );
    expect(errorSignature('')).toBeNull();
    expect(errorSignature(undefined)).toBeNull();
    expect(errorSignature('Exit code 1\n\n   \n')).toBeNull();
    expect(errorSignature('Exit code 1\n12345 678\n/usr/lib/x.so')).toBeNull();
  });

  it('reads a 1 MB error by its head only', () => {
    const head = 'Exit code 1\nfatal: The current branch main2 has no upstream branch.\n';
    expect(errorSignature(head + 'x '.repeat(500_000))!.sig).toBe(errorSignature(head)!.sig);
  });

  it('keeps the words of the head for near matches, and a phrase for reason lines', () => {
    const s = errorSignature(fill(TEMPLATES[0], { p: '/a/b', b: 'dev-1', n: 128, h: '1abcdef0', q: 'x' }))!;
    expect(s.words).toEqual(expect.arrayContaining(['fatal', 'current', 'branch', 'upstream']));
    expect(s.words).not.toContain('dev-1');
    expect(errorPhrase(s)).toBe('the current branch … has no upstream branch.');
    const other = errorSignature('fatal: The current branch x-9 has no upstream configured')!;
    expect(wordOverlap(s.words, other.words)).toBeGreaterThan(0.3);
    expect(wordOverlap(s.words, errorSignature('ModuleNotFoundError: No module named foo')!.words)).toBe(0);
  });

  it('normalizes one line: placeholders in, decoration out', () => {
    expect(normalizeErrorLine("  │ └─ lib/a/b.ex:128: undefined function bar/1 'quoted' 0xdeadbeef1")).toBe('<path>: undefined function <path> <q> <hash>');
    expect(normalizeErrorLine('  └─ lib/a/b.ex:128:4')).toBe('');
    expect(normalizeErrorLine('┃ [D] ↘ Nested modules could be aliased.')).toBe('[d] nested modules could be aliased.');
    expect(informativeLines('Exit code 1\nsame\nsame\nother')).toEqual(['same', 'other']);
  });
});

describe('errorSignature on long output', () => {
  it('finds a failure line after pages of passing lines (the same failure, other passing lines → the same signature)', () => {
    const passing = (n: number, tag: string) => Array.from({ length: n }, (_, i) => `test_${tag}_${i} PASSED in ${i}.01s`).join('\n');
    const fail = 'FAILED tests/test_cart.py::test_total - AssertionError: assert 3 == 4';
    const a = errorSignature(`Exit code 1\n${passing(150, 'alpha')}\n${fail}\n`)!;
    const b = errorSignature(`Exit code 1\n${passing(90, 'beta')}\n${fail}\n`)!;
    expect(a.head[0]).toContain('failed');
    expect(a.sig).toBe(b.sig);
    const other = errorSignature(`Exit code 1\n${passing(150, 'alpha')}\nFAILED tests/test_cart.py::test_total - KeyError: 'sku'\n`)!;
    expect(other.sig).not.toBe(a.sig);
  });
});

describe('signatures that generalize (shapes met in real projects of other people)', () => {
  const seg = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_-]{0,8}( [A-Za-z0-9]{1,5})?$/);
  const segs = fc.array(seg, { minLength: 1, maxLength: 4 });
  const file = fc.stringMatching(/^[a-z][a-z0-9_]{0,8}\.(py|ts|json)$/);
  /** One path in every shape a shell prints it: Unix, Windows drive (both slashes), MSYS, UNC. */
  const shaped = fc.tuple(segs, file, fc.constantFrom('unix', 'win', 'winfwd', 'msys', 'unc')).map(([d, f, shape]) => {
    const tail = [...d, f];
    if (shape === 'unix') return `/home/${tail.join('/').replace(/ /g, '_')}`;
    if (shape === 'win') return `C:\\Users\\${tail.join('\\')}`;
    if (shape === 'winfwd') return `C:/Users/${tail.join('/')}`;
    if (shape === 'msys') return `/c/Users/${tail.join('/')}`;
    return `\\\\fileserver\\share\\${tail.join('\\')}`;
  });
  const SHAPES = [
    (p: string) => `Exit code 1\nerror: cannot open ${p} for reading`,
    (p: string) => `Exit code 2\npython: can't open file ${p}: [Errno 2] No such file or directory`,
    (p: string) => `Exit code 1\nnpm ERR! enoent Could not read package.json: Error: ENOENT: no such file or directory, open ${p}`,
  ];

  it('a path in any shape (Windows drive, forward slashes, MSYS, UNC, spaces in folder names, `!`) signs as any other path', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: SHAPES.length - 1 }), shaped, shaped, (i, a, b) => {
        expect(errorSignature(SHAPES[i](a))!.sig).toBe(errorSignature(SHAPES[i](b))!.sig);
      }),
    );
    expect(errorSignature(SHAPES[0]('/home/ken/my!app/x.py'))!.sig).toBe(errorSignature(SHAPES[0]('/home/ken/app/x.py'))!.sig);
    // Control: the shapes are still three different errors.
    expect(new Set(SHAPES.map((f) => errorSignature(f('/home/a/b.py'))!.sig)).size).toBe(SHAPES.length);
  });

  it('shell chatter printed before every output (a conda or nvm start-up line) does not change the signature', () => {
    const err = 'Exit code 127\n/bin/bash: line 1: python: command not found';
    const chatter = [
      '(base) conda activate: initialising shell hooks',
      'Now using node v20.11.1 (npm v10.2.4)',
      '\u001b[33mwarning:\u001b[0m setlocale: LC_ALL: cannot change locale (en_US.UTF-8)',
    ];
    for (const c of chatter) {
      const noisy = `Exit code 127\n${c}\n/bin/bash: line 1: python: command not found`;
      // The lead is the first line naming a failure: chatter that names none is skipped; chatter
      // that does (the locale warning) changes the head, and the key line still matches.
      const keys = errorSignature(noisy)!.lines;
      expect(keys).toContain(errorSignature(err)!.head[0]);
    }
    expect(errorSignature(`Exit code 127\n${chatter[0]}\n/bin/bash: line 1: python: command not found`)!.sig).toBe(errorSignature(err)!.sig);
  });
});


describe('reading from the lead (informativeLines fromLead, what keyLines reads)', () => {
  // Pieces of real output and of what normalization joins or removes: lead words split by
  // decoration, control characters, tool_use_error tags and runs of white space; quotes, paths,
  // numbers, passing test lines, carriage-return progress.
  const piece = fc.oneof(
    fc.constantFrom('not', 'a', 'no', 'such', 'could', 'can\'t', 'error', 'fail', 'Error:', 'FATAL', 'denied', 'x', 'ok', 'passed', '✓', '•', '|', '~', '*', '×',
      '\u0001', '\u0000', '\t', '   ', '\r', '\\n', '<tool_use_error>', '</tool_use_error>', "'src/a.ts'", '"q"', '/home/u/p/x.ts', 'C:\\Users\\me\\a b\\c.ts', '42', '0x1f2e3d4c',
      'https://x.io/a', '\u001b[31m', 'warning', 'undefined', 'not•a', 'no\u0001such', 'could  not'),
    fc.stringMatching(/^[a-z]{1,6}$/),
  );
  const line = fc.array(piece, { maxLength: 8 }).map((p) => p.join(' '));
  const text = fc.array(fc.oneof(line, line.map((l) => l.replace(/ /g, ''))), { maxLength: 40 }).map((ls) => ls.join('\n'));
  const fromFirstLead = (ls: string[]) => {
    const i = ls.findIndex((l) => LEAD_RE.test(l));
    return i < 0 ? null : ls.slice(i);
  };

  it('property: the lines from the first lead on are the same whether the lines before it are read or not; no lead in one, none in the other', () => {
    fc.assert(fc.property(text, fc.boolean(), (t, keepQuoted) => {
      const all = informativeLines(t, MAX_INFORMATIVE_LINES, undefined, keepQuoted);
      const skipped = informativeLines(t, MAX_INFORMATIVE_LINES, undefined, keepQuoted, true);
      expect(fromFirstLead(skipped)).toEqual(fromFirstLead(all));
    }), { numRuns: 3000 });
  });

  it('a test run\'s passing lines before its failure are not read; its key lines are those of the failure (control: no lead, the first lines)', () => {
    const passing = Array.from({ length: 50 }, (_, k) => ` ✓ src/m${k}.test.ts > case ${k} (3 ms)`).join('\n');
    const failing = `${passing}\n FAIL  src/pool.test.ts > pool\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect (node:net:1555:16)`;
    expect(informativeLines(failing, MAX_INFORMATIVE_LINES, undefined, false, true)[0]).toMatch(/^fail/);
    expect(keyLines(failing)[0]).toMatch(/^fail <path> > pool/);
    expect(keyLines(passing)).toEqual(informativeLines(passing).slice(0, KEY_LINES));
  });
});

describe('letters of any script (the Unicode class built on first use: shared/regexp.ts lazyRegExp)', () => {
  it('a line of Chinese or Russian letters is informative; one of placeholders and punctuation is not (control: Latin letters)', () => {
    expect(normalizeErrorLine('数据库连接失败')).toBe('数据库连接失败');
    expect(normalizeErrorLine('Ошибка: нет доступа')).toBe('ошибка: нет доступа');
    expect(normalizeErrorLine('→ 12 :: /a/b')).toBe('');
    expect(normalizeErrorLine('ok 12')).toBe('ok <n>');
  });
});
