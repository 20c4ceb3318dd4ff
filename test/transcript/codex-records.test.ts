/**
 * Codex CLI rollouts → ParsedRecords (transcript/codex-records.ts), the host choice
 * (transcript/host.ts) and the tool output reading (shared/codex-output.ts): known shapes map
 * as expected (prompts, injected context, tool calls joined to their outputs by call_id, a
 * failing exec by its exit code, the legacy JSON shell output, `success: false`, turn ends),
 * broken lines and unknown types are skipped, a rollout without session_meta takes the file
 * name's id, and the parser never throws on random JSON lines (property tests). The fixture
 * rollouts (test/fixtures/codex/) go through ExchangeAssembler and ToolStepTracker unchanged.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CodexRecordParser, sessionIdFromRolloutName } from '../../transcript/codex-records.js';
import { hostOf, parserFor, parserForFile, parserForFileSync } from '../../transcript/host.js';
import { readCodexToolOutput, codexErrorText } from '../../shared/codex-output.js';
import { ExchangeAssembler } from '../../transcript/exchanges.js';
import { ToolStepTracker } from '../../transcript/tool-steps.js';
import { parseLine } from '../../transcript/records.js';
import { errorSignature } from '../../shared/error-signature.js';
import { ROLLOUT_1, ROLLOUT_2, S1, S2 } from '../helpers/codex.js';

const line = (type: string, payload: unknown, timestamp = '2026-11-30T10:00:00.000Z') => JSON.stringify({ timestamp, type, payload });
const meta = line('session_meta', { id: 'sess-a', cwd: '/w/proj', originator: 'codex_exec', cli_version: '0.64.0' });

function parseAll(lines: string[], fallback: string | null = null) {
  const p = new CodexRecordParser(fallback);
  return lines.map((l) => p.parseLine(l));
}

describe('Codex tool output', () => {
  it('reads the unified exec header: the exit code, the output without the header', () => {
    const o = readCodexToolOutput('Chunk ID: ab12\nWall time: 1.2000 seconds\nProcess exited with code 2\nOriginal token count: 9\nOutput:\nerror: no such file\n');
    expect(o).toEqual({ exitCode: 2, output: 'error: no such file\n', failed: true });
    expect(codexErrorText(o)).toBe('Exit code 2\nerror: no such file');
  });
  it('exit code 0 and a running process are not failures', () => {
    expect(readCodexToolOutput('Chunk ID: a\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nError: printed by a passing test\n').failed).toBe(false);
    expect(readCodexToolOutput('Chunk ID: a\nWall time: 10.0 seconds\nProcess running with session ID 7\nOutput:\nbuilding…\n').failed).toBe(false);
  });
  it('reads shell_command\'s `Exit code:` header and the legacy JSON output', () => {
    expect(readCodexToolOutput('Exit code: 1\nWall time: 0.3 seconds\nOutput:\nfatal: not a git repository\n')).toMatchObject({ exitCode: 1, failed: true });
    const legacy = JSON.stringify({ output: 'boom\n', metadata: { exit_code: 127, duration_seconds: 0.1 } });
    expect(readCodexToolOutput(legacy)).toEqual({ exitCode: 127, output: 'boom\n', failed: true });
    expect(readCodexToolOutput(JSON.stringify({ output: 'ok', metadata: { exit_code: 0 } })).failed).toBe(false);
  });
  it('opaque text fails only when it starts like a failure', () => {
    expect(readCodexToolOutput('apply_patch verification failed: Failed to find expected lines in src/a.ts').failed).toBe(true);
    expect(readCodexToolOutput('Success. Updated the following files:\nM a.ts').failed).toBe(false);
    expect(readCodexToolOutput('the word Error: appears later').failed).toBe(false);
    // a header line that is not a Codex header: opaque text
    expect(readCodexToolOutput('Exit code: 1 happened\nOutput:\nx').exitCode).toBeNull();
  });
  it('never throws and is bounded (property)', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 300 }), (s) => {
        const o = readCodexToolOutput(s);
        expect(typeof o.failed).toBe('boolean');
        expect(typeof codexErrorText(o)).toBe('string');
      }),
    );
  });
  it('the same error signs the same through both exec shapes (the hook and the daemon agree)', () => {
    const body = "TypeError: Cannot read properties of undefined (reading 'rate')\n    at applyDiscount (src/cart/discount.ts:14:22)\n";
    const a = codexErrorText(readCodexToolOutput(`Chunk ID: 1\nWall time: 2.0 seconds\nProcess exited with code 1\nOutput:\n${body}`));
    const b = codexErrorText(readCodexToolOutput(JSON.stringify({ output: body.replace('14:22', '16:9'), metadata: { exit_code: 1 } })));
    expect(errorSignature(a)!.sig).toBe(errorSignature(b)!.sig);
  });
});

describe('Codex records', () => {
  it('session_meta and turn_context give the session id, cwd and entrypoint of later records', () => {
    const [m, p] = parseAll([meta, line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the build' }] })]);
    expect(m).toBeNull();
    expect(p).toMatchObject({ kind: 'user-prompt', text: 'fix the build', promptKind: 'human', injected: false, sessionId: 'sess-a', cwd: '/w/proj', entrypoint: 'codex_exec', timestamp: Date.parse('2026-11-30T10:00:00.000Z') });
    const [, c, q] = parseAll([meta, line('turn_context', { cwd: '/w/other' }), line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'x' }] })]);
    expect(c).toBeNull();
    expect(q?.cwd).toBe('/w/other');
  });
  it('injected user blocks are meta, developer messages are skipped', () => {
    const [, env, agents, dev] = parseAll([
      meta,
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '<environment_context>\n<cwd>/w</cwd>\n</environment_context>' }] }),
      line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: '# AGENTS.md instructions for /w\n\nbe nice' }] }),
      line('response_item', { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'sandbox rules' }] }),
    ]);
    expect(env).toMatchObject({ kind: 'user-prompt', promptKind: 'meta', injected: true });
    expect(agents).toMatchObject({ kind: 'user-prompt', promptKind: 'meta', injected: true });
    expect(dev).toBeNull();
  });
  it('assistant text, function calls (shell tools as Bash) and custom tool calls', () => {
    const [, a, f, s, cst, ls] = parseAll([
      meta,
      line('response_item', { type: 'message', role: 'assistant', id: 'msg_1', content: [{ type: 'output_text', text: 'Running tests.' }] }),
      line('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm  test' }), call_id: 'call_1' }),
      line('response_item', { type: 'function_call', name: 'shell', arguments: JSON.stringify({ command: ['bash', '-lc', 'cargo build'] }), call_id: 'call_2' }),
      line('response_item', { type: 'custom_tool_call', name: 'apply_patch', input: '*** Begin Patch\n*** Update File: src/a.ts\n@@\n-x\n+y\n*** End Patch', call_id: 'call_3' }),
      line('response_item', { type: 'local_shell_call', call_id: 'call_4', status: 'completed', action: { type: 'exec', command: ['ls', '-la'] } }),
    ]);
    expect(a).toMatchObject({ kind: 'assistant', text: 'Running tests.', toolCalls: [], messageId: 'msg_1' });
    expect(f).toMatchObject({ kind: 'assistant', text: '', toolCalls: [{ id: 'call_1', name: 'Bash', summary: 'Bash: npm test' }] });
    expect(s).toMatchObject({ toolCalls: [{ id: 'call_2', name: 'Bash', summary: 'Bash: cargo build' }] });
    expect(cst).toMatchObject({ toolCalls: [{ id: 'call_3', name: 'apply_patch', summary: 'apply_patch: src/a.ts' }] });
    expect(ls).toMatchObject({ toolCalls: [{ id: 'call_4', name: 'Bash', summary: 'Bash: ls -la' }] });
  });
  it('tool outputs: failing exec, passing exec, success:false, content items', () => {
    const [, bad, good, flagged, items] = parseAll([
      meta,
      line('response_item', { type: 'function_call_output', call_id: 'call_1', output: 'Chunk ID: 1\nWall time: 0.5 seconds\nProcess exited with code 1\nOutput:\nnpm ERR! missing script: tset\n' }),
      line('response_item', { type: 'function_call_output', call_id: 'call_2', output: 'Chunk ID: 2\nWall time: 0.5 seconds\nProcess exited with code 0\nOutput:\nok\n' }),
      line('response_item', { type: 'function_call_output', call_id: 'call_3', output: { content: 'tool crashed', success: false } }),
      line('response_item', { type: 'custom_tool_call_output', call_id: 'call_4', output: [{ type: 'input_text', text: 'done' }] }),
    ]);
    expect(bad).toMatchObject({ kind: 'tool-result', isError: true, text: 'Exit code 1\nnpm ERR! missing script: tset', results: [{ toolUseId: 'call_1', isError: true }] });
    expect(good).toMatchObject({ kind: 'tool-result', isError: false, text: 'ok' });
    expect(flagged).toMatchObject({ isError: true, text: 'tool crashed' });
    expect(items).toMatchObject({ isError: false, text: 'done', results: [{ toolUseId: 'call_4' }] });
  });
  it('turn ends: task_complete, turn_aborted, compacted; other event_msg and reasoning skipped', () => {
    const r = parseAll([
      meta,
      line('event_msg', { type: 'task_complete' }),
      line('event_msg', { type: 'turn_aborted', reason: 'interrupted' }),
      line('compacted', { message: 's' }),
      line('event_msg', { type: 'user_message', message: 'dup of the prompt' }),
      line('event_msg', { type: 'token_count' }),
      line('response_item', { type: 'reasoning', summary: [] }),
    ]);
    expect(r.slice(1, 4).map((x) => x && x.kind === 'turn-end' && x.reason)).toEqual(['turn-duration', 'interrupted', 'compact']);
    expect(r.slice(4)).toEqual([null, null, null]);
  });
  it('broken lines, unknown types and odd payloads are skipped', () => {
    expect(parseAll(['', 'not json', '{"timestamp":"x","type":"response_item","payload":{"type":"mess', line('ghost', { a: 1 }), JSON.stringify({ type: 'response_item', payload: 'str' }), '[1,2]', 'null'])).toEqual([null, null, null, null, null, null, null]);
  });
  it('a rollout without session_meta uses the file name\'s id', () => {
    expect(sessionIdFromRolloutName(`rollout-2026-12-01T09-00-00-${S2}.jsonl`)).toBe(S2);
    expect(sessionIdFromRolloutName('odd-name.jsonl')).toBe('odd-name');
    const [p] = parseAll([line('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] })], S2);
    expect(p?.sessionId).toBe(S2);
  });
  it('never throws on random JSON lines (property)', () => {
    const parser = new CodexRecordParser('f');
    const shaped = fc.record({
      timestamp: fc.oneof(fc.string(), fc.integer(), fc.constant(null)),
      type: fc.constantFrom('session_meta', 'turn_context', 'response_item', 'event_msg', 'compacted', 'other'),
      payload: fc.oneof(
        fc.jsonValue({ maxDepth: 4 }),
        fc.record({
          type: fc.constantFrom('message', 'function_call', 'function_call_output', 'custom_tool_call', 'custom_tool_call_output', 'local_shell_call', 'task_complete', 'reasoning'),
          role: fc.constantFrom('user', 'assistant', 'developer', 7),
          content: fc.jsonValue({ maxDepth: 3 }),
          arguments: fc.oneof(fc.string(), fc.jsonValue({ maxDepth: 2 })),
          output: fc.jsonValue({ maxDepth: 3 }),
          input: fc.jsonValue({ maxDepth: 2 }),
          call_id: fc.jsonValue({ maxDepth: 1 }),
          action: fc.jsonValue({ maxDepth: 2 }),
        }, { requiredKeys: ['type'] }),
      ),
    });
    fc.assert(
      fc.property(fc.oneof(shaped.map((v) => JSON.stringify(v)), fc.jsonValue({ maxDepth: 5 }).map((v) => JSON.stringify(v)), fc.string({ maxLength: 200 })), (l) => {
        const r = parser.parseLine(l);
        if (r) {
          expect(['user-prompt', 'assistant', 'tool-result', 'turn-end']).toContain(r.kind);
          if (r.kind === 'tool-result') expect(r.text.length).toBeLessThanOrEqual(4000);
        }
      }),
      { numRuns: 500 },
    );
  });
});

describe('host choice (transcript/host.ts)', () => {
  it('a rollout under a day tree, or a first line that is session_meta, is Codex; the rest Claude Code', () => {
    expect(hostOf(ROLLOUT_1)).toBe('codex');
    expect(hostOf('/tmp/x/copied.jsonl', meta)).toBe('codex');
    expect(hostOf('/home/u/.claude/projects/p/s.jsonl', JSON.stringify({ type: 'user', message: { content: 'hi' } }))).toBe('claude-code');
    expect(hostOf('/home/u/.claude/projects/p/rollout-x.jsonl')).toBe('claude-code');
    expect(parserFor('/p/s.jsonl').line).toBe(parseLine);
  });
  it('parserForFile reads the first line of a rollout copied out of its tree', async () => {
    const { mkdtempSync, copyFileSync } = await import('node:fs');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'ab-codex-host-'));
    copyFileSync(ROLLOUT_1, join(dir, 'copy.jsonl'));
    const p = await parserForFile(join(dir, 'copy.jsonl'));
    expect(p.host).toBe('codex');
  });
});

describe('parserForFileSync (the daemon: lines read from an offset)', () => {
  it('a rollout parser is primed with session_meta: a line from the middle carries the id, cwd and originator', () => {
    const p = parserForFileSync(ROLLOUT_1);
    const lines = readFileSync(ROLLOUT_1, 'utf8').split('\n');
    const out = p.line(lines.find((l) => l.includes('function_call_output'))!);
    expect(out).toMatchObject({ kind: 'tool-result', isError: true, sessionId: S1, cwd: '/home/dev/shop-api', entrypoint: 'codex_cli_rs' });
    // control: unprimed, the same line knows only the file name's id
    const cold = parserFor(ROLLOUT_1).line(lines.find((l) => l.includes('function_call_output'))!);
    expect(cold).toMatchObject({ sessionId: S1, cwd: null, entrypoint: 'codex' });
  });
  it('a Claude Code path is not read (host from the path), a missing rollout is no error', () => {
    expect(parserForFileSync('/nope/-p/s.jsonl').line).toBe(parseLine);
    expect(parserForFileSync('/nope/2026/01/01/rollout-x.jsonl').host).toBe('codex');
  });
});

describe('fixture rollouts through the assembler and the tool-step tracker', () => {
  function run(path: string) {
    const p = parserFor(path);
    const asm = new ExchangeAssembler({ sessionId: p.fileSessionId });
    const tools = new ToolStepTracker();
    const exchanges = [];
    const steps = [];
    let off = 0;
    for (const l of readFileSync(path, 'utf8').split('\n').filter(Boolean)) {
      const end = off + Buffer.byteLength(l) + 1;
      const rec = p.line(l);
      steps.push(...tools.push(rec, off, end));
      exchanges.push(...asm.push(rec, off, end));
      off = end;
    }
    exchanges.push(...asm.flushAll());
    return { exchanges, steps };
  }
  it('rollout 1: one exchange (the prompt, the final reply), three steps, the first failing', () => {
    const { exchanges, steps } = run(ROLLOUT_1);
    const main = exchanges.filter((e) => !e.isSidechain && !e.seed);
    expect(main).toHaveLength(1);
    expect(main[0].user).toContain('cart total test fails');
    expect(main[0].assistant).toContain('all six test files pass');
    expect(main[0].sessionId).toBe(S1);
    expect(steps.map((s) => [s.name, s.isError])).toEqual([['Bash', true], ['apply_patch', false], ['Bash', false]]);
    expect(steps[0]).toMatchObject({ summary: 'Bash: npm test', toolUseId: 'call_Ab12Cd34Ef56', sessionId: S1, cwd: '/home/dev/shop-api' });
    expect(steps[0].resultText).toMatch(/^Exit code 1\n/);
    expect(steps[0].resultText).not.toContain('Chunk ID');
    expect(steps[0].note).toBe("I'll run the test suite to see the failure.");
  });
  it('rollout 2 (no session_meta, legacy shell): the file name id, the same error signature as rollout 1', () => {
    const a = run(ROLLOUT_1).steps[0];
    const { steps, exchanges } = run(ROLLOUT_2);
    expect(steps).toHaveLength(1);
    expect(steps[0]).toMatchObject({ isError: true, sessionId: S2, name: 'Bash', summary: 'Bash: npm test' });
    expect(errorSignature(steps[0].resultText)!.sig).toBe(errorSignature(a.resultText)!.sig);
    expect(exchanges[0].sessionId).toBe(S2);
  });
});
