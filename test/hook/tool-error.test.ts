/**
 * hook/tool-error.ts: which tool results hold an error, per shape (string, Bash result,
 * {is_error, content}, MCP {isError, content}), with the successful look-alikes that must not
 * count; fast-check: never throws on any JSON, agrees with an independent restatement of the
 * rule, and stays bounded (a 1 MB error signs as fast as a 16 KB one, and the same way).
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { errorInToolResponse, toolErrorOf, contentText, MAX_CONTENT_BLOCKS } from '../../hook/tool-error.js';
import { sign, ERROR_TEXT_CHARS } from '../../hook/tool-gates.js';
import { MAX_SCAN_CHARS, MAX_INFORMATIVE_LINES, errorSignature, errorSig } from '../../shared/error-signature.js';

const ERR = 'fatal: not a git repository (or any of the parent directories): .git';

describe('tool-error: shapes', () => {
  it('PostToolUseFailure: a non-empty `error` string; an interrupt; nothing else', () => {
    expect(toolErrorOf({ error: `Exit code 128\n${ERR}` }, 'PostToolUseFailure')).toEqual({ kind: 'error', text: `Exit code 128\n${ERR}` });
    expect(toolErrorOf({ error: ERR, is_interrupt: true }, 'PostToolUseFailure')).toEqual({ kind: 'interrupted' });
    expect(toolErrorOf({ error: ERR, is_interrupt: 'true' }, 'PostToolUseFailure').kind).toBe('error'); // only a real boolean counts
    for (const error of [undefined, null, '', '  \n', 42, { message: ERR }, [ERR]]) expect(toolErrorOf({ error }, 'PostToolUseFailure')).toEqual({ kind: 'none' });
    expect(toolErrorOf({ error: ERR }, 'UserPromptSubmit')).toEqual({ kind: 'none' });
    expect(toolErrorOf({ error: ERR }, 'PostToolUse')).toEqual({ kind: 'none' }); // PostToolUse reads tool_response only
  });

  it('PostToolUse: errors inside tool_response', () => {
    expect(errorInToolResponse({ stdout: 'out', stderr: ERR, exitCode: 128 })).toEqual({ kind: 'error', text: `Exit code 128\n${ERR}\nout` });
    expect(errorInToolResponse({ stdout: ERR, stderr: '', exit_code: 2 })).toEqual({ kind: 'error', text: `Exit code 2\n${ERR}` });
    expect(errorInToolResponse({ is_error: true, content: ERR })).toEqual({ kind: 'error', text: ERR });
    expect(errorInToolResponse({ is_error: true, content: [{ type: 'text', text: 'a' }, { type: 'image', data: 'x' }, { type: 'text', text: ERR }] })).toEqual({ kind: 'error', text: `a\n${ERR}` });
    expect(errorInToolResponse({ isError: true, content: [{ type: 'text', text: ERR }] })).toEqual({ kind: 'error', text: ERR });
    expect(errorInToolResponse(`<tool_use_error>${ERR}</tool_use_error>`).kind).toBe('error');
    expect(errorInToolResponse(`Error: ${ERR}`).kind).toBe('error');
    expect(errorInToolResponse({ stdout: '', stderr: ERR, interrupted: true, exitCode: 130 })).toEqual({ kind: 'interrupted' });
  });

  it('PostToolUse: successful results are never errors, whatever they say', () => {
    for (const resp of [
      { stdout: ERR, stderr: ERR, interrupted: false, isImage: false, noOutputExpected: false }, // Claude Code's Bash result
      { stdout: '', stderr: 'npm WARN deprecated x', interrupted: false, isImage: false, returnCodeInterpretation: 'No matches found' },
      { stdout: ERR, stderr: ERR, exitCode: 0 },
      { stdout: ERR, stderr: ERR, exitCode: '1' }, // not a number
      { stdout: ERR, stderr: ERR, exitCode: Number.NaN },
      { is_error: false, content: ERR },
      { isError: 'yes', content: [{ type: 'text', text: ERR }] },
      { content: [{ type: 'text', text: `Error: ${ERR}` }] }, // MCP text without isError
      [{ type: 'text', text: `Error: ${ERR}` }],
      { type: 'text', file: { filePath: '/x/errors.ts', content: `throw new Error("${ERR}")` } }, // a Read of a file about errors
      `the command printed: Error: ${ERR}`,
      `error: ${ERR}`, // lower case, not Claude Code's own prefix
      { is_error: true, content: '' }, // flagged, but nothing to sign
      { isError: true, content: [{ type: 'image', data: 'x' }] },
      null, 0, true, undefined,
    ]) {
      expect(errorInToolResponse(resp), JSON.stringify(resp)).not.toMatchObject({ kind: 'error' });
    }
  });

  it('bounded: long parts are cut to MAX_SCAN_CHARS, content blocks to MAX_CONTENT_BLOCKS', () => {
    const big = 'x'.repeat(MAX_SCAN_CHARS * 4);
    const r = errorInToolResponse({ stdout: big, stderr: big, exitCode: 1 });
    expect(r.kind === 'error' && r.text.length).toBeLessThanOrEqual(MAX_SCAN_CHARS * 2 + 20);
    const blocks = Array.from({ length: MAX_CONTENT_BLOCKS * 4 }, (_, k) => ({ type: 'text', text: `b${k}` }));
    expect(contentText(blocks).split('\n')).toHaveLength(MAX_CONTENT_BLOCKS);
    expect(contentText([{ type: 'text', text: big }, { type: 'text', text: 'after' }])).toHaveLength(MAX_SCAN_CHARS);
  });

  it('a 1 MB error (also binary, ANSI, invalid UTF-8 as decoded) signs within the same bound as 16 KB, to the same signature', () => {
    const head = `Exit code 1\n\u001b[31m${ERR}\u001b[0m\n`;
    const body = Buffer.from(Array.from({ length: 1 << 20 }, (_, k) => (k * 7919) % 256)).toString('utf8'); // invalid UTF-8 → U+FFFD
    const big = JSON.parse(JSON.stringify(head + body)) as string; // flat, as from JSON.parse of stdin
    const small = big.slice(0, MAX_SCAN_CHARS);
    const t0 = performance.now();
    const a = sign({ error: big }, 'PostToolUseFailure');
    const ms = performance.now() - t0;
    // The same lookup keys (the signal also carries the error's text, for naming checks).
    const keys = (s: ReturnType<typeof sign>) => (s.kind === 'error' ? { sig: s.sig, lineKeys: s.lineKeys, generic: s.generic } : s);
    expect(keys(a)).toEqual(keys(sign({ error: small }, 'PostToolUseFailure')));
    expect(keys(a)).toEqual(keys(sign({ error: `Exit code 1\n${ERR}\n${body}` }, 'PostToolUseFailure'))); // ANSI does not change it
    expect(a.kind === 'error' && a.text.length).toBeLessThanOrEqual(ERROR_TEXT_CHARS);
    expect(a.kind).toBe('error');
    expect(ms).toBeLessThan(200); // generous: the machine is shared; the bench measures it properly
  });
});

/** The rule, restated independently of tool-error.ts. */
function expected(resp: unknown): 'error' | 'interrupted' | 'none' {
  const textOf = (c: unknown): string =>
    typeof c === 'string' ? c : Array.isArray(c) ? c.slice(0, MAX_CONTENT_BLOCKS).filter((b) => b && typeof b === 'object' && (b as { type?: unknown }).type === 'text' && typeof (b as { text?: unknown }).text === 'string').map((b) => (b as { text: string }).text).join('\n') : '';
  if (typeof resp === 'string') return (/^\s*<tool_use_error>/.test(resp) || resp.startsWith('Error: ')) && resp.trim() ? 'error' : 'none';
  if (!resp || typeof resp !== 'object' || Array.isArray(resp)) return 'none';
  const o = resp as Record<string, unknown>;
  if (o.is_error === true || o.isError === true) return textOf(o.content).trim() ? 'error' : 'none';
  if (o.interrupted === true) return 'interrupted';
  const code = [o.exitCode, o.exit_code].find((v) => typeof v === 'number' && Number.isFinite(v)) as number | undefined;
  return code !== undefined && code !== 0 ? 'error' : 'none';
}

describe('errorSig (the hook\'s signature): always errorSignature(…).sig', () => {
  const line = fc.oneof(
    fc.constantFrom('Exit code 1', 'Compiling 41 files (.ex)', 'Generated spotter app', '> proj@1.0.0 test', ' \u2713 src/a.test.ts > works (3 ms)',
      'fatal: not a git repository', 'Error: Cannot find module \'x\'', '    at Object.<anonymous> (/a/b.ts:1:2)', 'npm ERR! code ELIFECYCLE', '', '   ',
      'To push the current branch and set the remote as upstream, use', '\u001b[31merror\u001b[0m: failed', '50%\r100%', 'AssertionError: expected 2 to be 3',
      // Lines whose lead word only appears once normalized or cleaned (errorSig's pre-filter must let them through):
      'the file was   not    found', 'err\u0007or: disk', 'fa\uFFFDiled to start', 'is not\u2022a directory', 'could\tnot open x', 'UNKNOWN \u212Aey', 'Cannot find x', 'main.ts:3:4 not a function', '<tool_use_error>File does not exist.</tool_use_error>', '  \u2713 computes case 3 correctly (21 ms)'),
    fc.string({ maxLength: 60 }),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );
  it('on any mix of lead, context, boilerplate and noise lines (also past MAX_INFORMATIVE_LINES), for any head size', () => {
    fc.assert(
      fc.property(fc.array(line, { maxLength: MAX_INFORMATIVE_LINES + 20 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), (lines, head, escaped) => {
        const text = lines.join(escaped ? '\\n' : '\n');
        expect(errorSig(text, head)).toBe(errorSignature(text, head)?.sig ?? null);
      }),
      { numRuns: 2000 },
    );
    for (const v of [undefined, null, 7, '', {}]) expect(errorSig(v)).toBeNull();
  });
});

describe('tool-error: properties', () => {
  const part = fc.oneof(fc.string({ maxLength: 40 }), fc.string({ unit: 'binary', maxLength: 40 }), fc.constant(ERR), fc.constant(''), fc.constant('  '));
  const block = fc.oneof(fc.record({ type: fc.constantFrom('text', 'image', 'resource'), text: fc.oneof(part, fc.anything()) }), fc.anything());
  const resp = fc.oneof(
    part.map((s) => (s.length % 3 === 0 ? `Error: ${s}` : s.length % 3 === 1 ? `<tool_use_error>${s}` : s)),
    fc.record({ stdout: fc.oneof(part, fc.anything()), stderr: fc.oneof(part, fc.anything()), interrupted: fc.oneof(fc.boolean(), fc.anything()), exitCode: fc.oneof(fc.integer({ min: -3, max: 3 }), fc.double(), fc.anything()), exit_code: fc.anything() }, { requiredKeys: [] }),
    fc.record({ is_error: fc.oneof(fc.boolean(), fc.anything()), isError: fc.oneof(fc.boolean(), fc.anything()), content: fc.oneof(part, fc.array(block, { maxLength: 4 }), fc.anything()) }, { requiredKeys: [] }),
    fc.array(block, { maxLength: 4 }),
    fc.anything(),
  );

  it('never throws; an error exactly when the narrow rule says so; its text is what sign() reads', () => {
    fc.assert(
      fc.property(resp, (r) => {
        const got = errorInToolResponse(r);
        expect(got.kind).toBe(expected(r));
        const s = sign({ tool_response: r }, 'PostToolUse');
        if (got.kind !== 'error') expect(s.kind).toBe(got.kind);
        else if (!errorSignature(got.text)) expect(s).toEqual({ kind: 'none' });
        else expect(s).toMatchObject({ kind: 'error', sig: errorSignature(got.text)!.sig });
      }),
      { numRuns: 3000 },
    );
  });
});
