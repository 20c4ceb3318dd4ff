/**
 * transcript/records.ts: real-shaped records (test/fixtures/transcripts, trimmed from the
 * Claude Code 2.1.x format) → normalized records; property tests that no input throws.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_COMMAND_CHARS } from '../../shared/command-keys.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MAX_TOOL_SUMMARY_CHARS, looksLikeFailure, parseLine, parseValue, stripSystemReminders, type ParsedRecord } from '../../transcript/records.js';

const FIX = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const lines = (name: string) => readFileSync(join(FIX, name), 'utf8').split('\n').filter((l) => l.length > 0);
const parsed = (name: string) => lines(name).map(parseLine);

describe('parseLine on real-shaped records', () => {
  it('skips snapshots, progress, queue operations, summaries and unknown types', () => {
    const recs = parsed('basic.jsonl');
    const raw = lines('basic.jsonl').map((l) => JSON.parse(l).type as string);
    raw.forEach((type, i) => {
      if (['file-history-snapshot', 'progress', 'queue-operation', 'summary', 'some-future-record'].includes(type)) expect(recs[i]).toBeNull();
      else expect(recs[i]).not.toBeNull();
    });
  });

  it('normalizes a typed prompt, stripping system reminders', () => {
    const p = parsed('basic.jsonl').find((r) => r?.kind === 'user-prompt')!;
    expect(p).toMatchObject({
      kind: 'user-prompt',
      text: 'the dev server doesnt start',
      promptKind: 'human',
      injected: false,
      sessionId: '11111111-2222-4333-8444-555555555555',
      cwd: '/home/user/projects/demo',
      gitBranch: 'main',
      isSidechain: false,
      entrypoint: null,
    });
    expect(p.timestamp).toBe(Date.parse(JSON.parse(lines('basic.jsonl')[2]).timestamp));
    expect(JSON.stringify(p)).not.toContain('secret reminder');
  });

  it('ignores thinking, keeps text, summarises tool calls as `Name: short input`', () => {
    const recs = parsed('basic.jsonl').filter((r): r is Extract<ParsedRecord, { kind: 'assistant' }> => r?.kind === 'assistant');
    expect(recs[0].text).toBe('');
    expect(JSON.stringify(recs[0])).not.toContain('private thinking');
    expect(recs[1].text).toBe('Let me check the server logs.');
    expect(recs[2].toolCalls).toEqual([{ id: 'toolu_01', name: 'Bash', summary: 'Bash: mix phx.server' }]);
    expect(recs[3].toolCalls[0].summary).toBe('Read: /home/user/projects/demo/config/dev.exs');
    expect(recs[2].messageId).toBe('msg_01');
  });

  it('a shell command the summary cuts is kept whole (bounded) beside it; control: a short one, and a long non-shell input, have none', () => {
    const line = (name: string, input: object) => JSON.stringify({ type: 'assistant', uuid: 'u1', sessionId: 's', timestamp: '2026-01-01T00:00:00Z', message: { id: 'm', role: 'assistant', content: [{ type: 'tool_use', id: 't1', name, input }] } });
    const call = (name: string, input: object) => (parseLine(line(name, input)) as Extract<ParsedRecord, { kind: 'assistant' }>).toolCalls[0];
    const long = `mkdir -p ${'/very/long/path'.repeat(12)} && cp a b && git add -A && git commit -m "docs"`;
    const c = call('Bash', { command: long });
    expect(c.summary.length).toBeLessThanOrEqual(MAX_TOOL_SUMMARY_CHARS);
    expect(c.command).toBe(long);
    expect(call('Bash', { command: 'x'.repeat(MAX_COMMAND_CHARS * 2) }).command).toHaveLength(MAX_COMMAND_CHARS);
    expect(call('Bash', { command: 'git status' })).toEqual({ id: 't1', name: 'Bash', summary: 'Bash: git status' });
    expect(call('Grep', { pattern: 'p'.repeat(400) }).command).toBeUndefined();
    // Line breaks are kept (the summary collapses them): the walk reads each line's command.
    const lines = 'cd app\nnpm run build\ngit add dist/app.js';
    expect(call('Bash', { command: lines })).toMatchObject({ summary: 'Bash: cd app npm run build git add dist/app.js', command: lines });
  });

  it('flags tool errors (is_error or clearly failing output) and keeps their text', () => {
    const res = parsed('basic.jsonl').filter((r): r is Extract<ParsedRecord, { kind: 'tool-result' }> => r?.kind === 'tool-result');
    expect(res[0].isError).toBe(true);
    expect(res[0].text).toContain('eaddrinuse');
    expect(res[1].isError).toBe(false);
    // unflagged but clearly failing
    const unflagged = parseValue({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'Exit code 2\nboom' }] },
    });
    expect(unflagged).toMatchObject({ kind: 'tool-result', isError: true });
    // control: output that merely mentions an error is not a failure
    const fine = parseValue({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't', content: 'grep found 3 lines with Error: in them\nExit code 0' }] },
    });
    expect(fine).toMatchObject({ kind: 'tool-result', isError: false });
  });

  it('turn ends: turn_duration, stop hook, compact boundary and user interrupts; local_command is skipped', () => {
    const recs = parsed('commands.jsonl');
    const ends = recs.filter((r) => r?.kind === 'turn-end').map((r) => (r as { reason: string }).reason);
    expect(ends).toEqual(['interrupted', 'compact', 'stop-hook']);
    const raw = lines('commands.jsonl').map((l) => JSON.parse(l));
    const localIdx = raw.findIndex((r) => r.subtype === 'local_command');
    expect(recs[localIdx]).toBeNull();
  });

  it('classifies injected prompts', () => {
    const prompts = parsed('commands.jsonl').filter((r): r is Extract<ParsedRecord, { kind: 'user-prompt' }> => r?.kind === 'user-prompt');
    expect(prompts.map((p) => [p.promptKind, p.injected])).toEqual([
      ['human', false],
      ['meta', true],
      ['command', true],
      ['command-output', true],
      ['task-notification', true],
      ['compact-summary', true],
      ['meta', true],
      ['human', false],
    ]);
    expect(prompts[2].text).toBe('/status');
    expect(prompts[4].text).toContain('Background command "Start server" completed');
    expect(prompts[4].text).not.toContain('<task-id>');
  });

  it('carries isSidechain and agentId from subagent files', () => {
    const file = join('projects', '-home-user-projects-demo', '11111111-2222-4333-8444-555555555555', 'subagents', 'agent-a1b2c3d.jsonl');
    const recs = parsed(file);
    expect(recs.every((r) => r !== null && r.isSidechain && r.agentId === 'a1b2c3d')).toBe(true);
  });

  it('reads entrypoint when present', () => {
    const r = parseValue({ type: 'user', entrypoint: 'sdk-cli', message: { role: 'user', content: 'hi' } });
    expect(r?.entrypoint).toBe('sdk-cli');
  });

  it('skips malformed lines without throwing', () => {
    const recs = parsed('malformed.jsonl');
    expect(recs.filter(Boolean).map((r) => r!.kind)).toEqual(['user-prompt', 'assistant', 'tool-result', 'assistant', 'turn-end']);
  });

  it('strips unclosed system reminders to the end', () => {
    expect(stripSystemReminders('keep <system-reminder>a</system-reminder>this<system-reminder>never closed')).toBe('keep this');
  });

  it('failure heuristics stay narrow', () => {
    expect(looksLikeFailure('Error: ENOENT')).toBe(true);
    expect(looksLikeFailure('Exit code 1')).toBe(true);
    expect(looksLikeFailure('Exit code 0')).toBe(false);
    expect(looksLikeFailure('All tests passed. 0 errors')).toBe(false);
  });
});

describe('parseLine never throws (properties)', () => {
  it('arbitrary strings', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'binary', maxLength: 400 }), (s) => {
        const r = parseLine(s);
        expect(r === null || typeof r.kind === 'string').toBe(true);
      }),
      { numRuns: 800 },
    );
  });

  it('arbitrary JSON values, serialized', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (v) => {
        const r = parseLine(JSON.stringify(v) ?? '');
        expect(r === null || typeof r.kind === 'string').toBe(true);
      }),
      { numRuns: 800 },
    );
  });

  it('record-shaped objects with arbitrary fields', () => {
    const block = fc.record(
      {
        type: fc.oneof(fc.constantFrom('text', 'tool_use', 'tool_result', 'thinking', 'image'), fc.string()),
        text: fc.anything(),
        name: fc.anything(),
        input: fc.anything(),
        id: fc.anything(),
        content: fc.anything(),
        is_error: fc.anything(),
        tool_use_id: fc.anything(),
      },
      { requiredKeys: [] },
    );
    const rec = fc.record(
      {
        type: fc.oneof(fc.constantFrom('user', 'assistant', 'system', 'progress', 'summary'), fc.string()),
        subtype: fc.oneof(fc.constantFrom('turn_duration', 'stop_hook_summary', 'compact_boundary', 'toString', '__proto__'), fc.anything()),
        message: fc.oneof(fc.record({ role: fc.anything(), content: fc.oneof(fc.string(), fc.array(fc.oneof(block, fc.anything()))), id: fc.anything() }), fc.anything()),
        uuid: fc.anything(),
        sessionId: fc.anything(),
        timestamp: fc.anything(),
        cwd: fc.anything(),
        isSidechain: fc.anything(),
        isMeta: fc.anything(),
        entrypoint: fc.anything(),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(rec, (v) => {
        let line: string;
        try {
          line = JSON.stringify(v);
        } catch {
          return; // BigInt etc. cannot be a transcript line
        }
        const r = parseLine(line);
        expect(r === null || ['user-prompt', 'tool-result', 'assistant', 'turn-end'].includes(r.kind)).toBe(true);
        expect(parseValue(v) === null || typeof parseValue(v)!.kind === 'string').toBe(true);
      }),
      { numRuns: 600 },
    );
  });

  it('bounded output for huge fields', () => {
    const big = 'x'.repeat(200_000);
    const r = parseValue({ type: 'assistant', message: { content: [{ type: 'text', text: big }, { type: 'tool_use', name: 'Bash', input: { command: big } }] } });
    expect(r?.kind).toBe('assistant');
    expect(JSON.stringify(r).length).toBeLessThan(40_000);
  });
});
