/**
 * transcript/exchanges.ts: closing rules, tool errors, prompt-only detection, resume
 * snapshots, whole-file streaming; and the real transcripts in ../shared/eval/claude-code
 * when present (skipped otherwise).
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ExchangeAssembler, exchangesFromFile, exchangesFromLines, type AssembledExchange } from '../../transcript/exchanges.js';
import { parseLine } from '../../transcript/records.js';

const FIX = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const lines = (name: string) => readFileSync(join(FIX, name), 'utf8').split('\n').filter((l) => l.length > 0);

const S = 's-1';
let n = 0;
const u = (content: unknown, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'user', sessionId: S, uuid: `u${++n}`, timestamp: '2026-01-01T00:00:00Z', message: { role: 'user', content }, ...extra });
const a = (blocks: unknown[], extra: Record<string, unknown> = {}) =>
  JSON.stringify({ type: 'assistant', sessionId: S, uuid: `a${++n}`, message: { role: 'assistant', id: 'm', content: blocks }, ...extra });
const text = (t: string) => a([{ type: 'text', text: t }]);
const tool = (id: string, name = 'Bash', input: unknown = { command: 'ls' }) => a([{ type: 'tool_use', id, name, input }]);
const result = (id: string, content: string, isError = false) => u([{ type: 'tool_result', tool_use_id: id, content, ...(isError ? { is_error: true } : {}) }]);
const sys = (subtype: string) => JSON.stringify({ type: 'system', subtype, sessionId: S, uuid: `s${++n}` });

describe('closing rules on the fixtures', () => {
  it('basic.jsonl: turn end closes the first, flush closes the open second', () => {
    const ex = exchangesFromLines(lines('basic.jsonl'));
    expect(ex).toHaveLength(2);
    const [x, y] = ex;
    expect(x).toMatchObject({
      index: 0,
      user: 'the dev server doesnt start',
      assistant: 'Let me check the server logs.\nPort 4000 is taken by another process; stop it or change the port.',
      toolCalls: ['Bash: mix phx.server', 'Read: /home/user/projects/demo/config/dev.exs'],
      assistantVisible: true,
      injected: false,
      isSidechain: false,
      closedBy: 'turn-end',
      cwd: '/home/user/projects/demo',
    });
    expect(x.toolErrors).toHaveLength(1);
    expect(x.toolErrors[0]).toContain('eaddrinuse');
    expect(y).toMatchObject({ index: 1, user: 'thanks, now add a test for the port config', closedBy: 'flush', toolCalls: ['Write: /home/user/projects/demo/test/port_test.exs'] });
    // offsets cover the right bytes
    const buf = readFileSync(join(FIX, 'basic.jsonl'));
    expect(buf.subarray(x.startOffset, x.endOffset).toString()).toContain('the dev server doesnt start');
    expect(buf.subarray(x.startOffset, x.endOffset).toString()).toContain('stop_hook_summary');
    expect(buf.subarray(x.startOffset, x.endOffset).toString()).not.toContain('add a test');
    expect(y.endOffset).toBe(buf.length);
  });

  it('commands.jsonl: interrupts, commands, notifications, compaction; meta and command output never open', () => {
    const ex = exchangesFromLines(lines('commands.jsonl'));
    expect(ex.map((e) => [e.promptKind, e.closedBy, e.injected])).toEqual([
      ['human', 'interrupted', false],
      ['command', 'next-prompt', true],
      ['task-notification', 'compact', true],
      ['compact-summary', 'next-prompt', true],
      ['human', 'turn-end', false],
    ]);
    const last = ex[4];
    // the cascade "Sibling tool call errored" is dropped, the real error kept without tags
    expect(last.toolErrors).toEqual(['String to replace not found in file.']);
    expect(last.toolCalls).toEqual(['Grep: error in log/dev.log', 'Edit: /home/user/projects/demo/lib/a.ex']);
    expect(ex[1].assistantVisible).toBe(false);
  });

  it('malformed.jsonl: garbage lines are skipped, the exchange survives', () => {
    const ex = exchangesFromLines(lines('malformed.jsonl'));
    expect(ex).toHaveLength(1);
    expect(ex[0]).toMatchObject({ user: 'first prompt', assistant: 'plain string reply', closedBy: 'turn-end' });
  });
});

describe('ExchangeAssembler', () => {
  const feed = (asm: ExchangeAssembler, ls: string[], start = 0) => {
    const out: AssembledExchange[] = [];
    let off = start;
    for (const l of ls) {
      const end = off + Buffer.byteLength(l) + 1;
      out.push(...asm.push(parseLine(l), off, end));
      off = end;
    }
    return { out, off };
  };

  it('a new prompt closes the previous exchange', () => {
    const asm = new ExchangeAssembler();
    const { out } = feed(asm, [u('one'), text('reply one'), u('two')]);
    expect(out.map((e) => [e.user, e.assistant, e.closedBy])).toEqual([['one', 'reply one', 'next-prompt']]);
    expect(asm.hasOpen).toBe(true);
  });

  it('exposes pending tool calls and the last record kind for the settle decision', () => {
    const asm = new ExchangeAssembler();
    feed(asm, [u('go'), tool('t1'), tool('t2')]);
    expect(asm.pendingToolCalls).toBe(2);
    expect(asm.settleCandidate).toBe(false);
    feed(asm, [result('t1', 'ok'), result('t2', 'ok')]);
    expect(asm.pendingToolCalls).toBe(0);
    expect(asm.lastRecordKind).toBe('tool-result');
    expect(asm.settleCandidate).toBe(false);
    feed(asm, [text('done')]);
    expect(asm.lastRecordKind).toBe('assistant');
    expect(asm.settleCandidate).toBe(true);
    const ex = asm.flush()!;
    expect(ex.closedBy).toBe('flush');
    expect(asm.flush()).toBeNull();
    expect(asm.hasOpen).toBe(false);
  });

  it('peek() shows the open exchange without closing it', () => {
    const asm = new ExchangeAssembler();
    feed(asm, [u('go'), text('part one')]);
    const p = asm.peek()!;
    expect(p).toMatchObject({ user: 'go', assistant: 'part one', index: 0 });
    p.toolCalls.push('mutated');
    feed(asm, [tool('t1'), result('t1', 'ok'), text('part two')]);
    expect(asm.hasOpen).toBe(true);
    const done = asm.flush()!;
    expect(done).toMatchObject({ index: 0, assistant: 'part one\npart two', toolCalls: ['Bash: ls'] });
    expect(asm.peek()).toBeNull();
  });

  it('prompt-only sessions: assistantVisible stays false until assistant text appears', () => {
    const asm = new ExchangeAssembler();
    const { out } = feed(asm, [u('p1'), u('p2'), u('p3')]);
    expect(out.every((e) => !e.assistantVisible)).toBe(true);
    expect(asm.assistantVisible).toBe(false);
    feed(asm, [tool('t9')]);
    expect(asm.assistantVisible).toBe(false); // a tool call is not visible text
    feed(asm, [text('hello')]);
    expect(asm.assistantVisible).toBe(true);
  });

  it('tool errors are bounded in count and length', () => {
    const asm = new ExchangeAssembler({ limits: { maxToolErrors: 2, maxErrorChars: 10 } });
    feed(asm, [u('x'), tool('1'), result('1', 'Error: ' + 'a'.repeat(50)), tool('2'), result('2', 'Exit code 3\nbad'), tool('3'), result('3', 'fail', true)]);
    const ex = asm.flush()!;
    expect(ex.toolErrors).toEqual(['Error: aaa', 'Exit code ']);
  });

  it('assistant activity with no open prompt becomes a continuation exchange', () => {
    const asm = new ExchangeAssembler({ sessionId: 'from-file' });
    const { out } = feed(asm, [text('still working'), sys('turn_duration')]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ continuation: true, injected: true, user: '', assistant: 'still working', closedBy: 'turn-end' });
  });

  it('sidechain records in the main file do not disturb the main exchange', () => {
    const asm = new ExchangeAssembler();
    const side = { isSidechain: true };
    const { out } = feed(asm, [
      u('main prompt'),
      tool('t1', 'Task', { description: 'explore' }),
      u('sub prompt', side),
      a([{ type: 'text', text: 'sub reply' }], side),
      result('t1', 'done'),
      text('main reply'),
      sys('turn_duration'),
    ]);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ user: 'main prompt', assistant: 'main reply', isSidechain: false, index: 0 });
    const rest = asm.flushAll();
    expect(rest).toHaveLength(1);
    expect(rest[0]).toMatchObject({ user: 'sub prompt', assistant: 'sub reply', isSidechain: true });
  });

  it('committable offset stops at the open exchange; a resumed assembler continues exactly', () => {
    const all = [u('one'), text('r1'), sys('turn_duration'), u('two'), tool('t'), result('t', 'ok'), text('r2'), sys('turn_duration'), u('three'), text('r3')];
    const whole = exchangesFromLines(all);

    // process the first 6 lines, "crash", resume from the snapshot
    const asm = new ExchangeAssembler();
    const first = feed(asm, all.slice(0, 6));
    const snap = asm.snapshot();
    const twoStart = first.out.length === 1 ? first.out[0].endOffset : -1;
    expect(snap.offset).toBe(twoStart); // start of the open exchange "two"
    expect(snap.nextIndex).toBe(1);
    let off = 0;
    let idx = 0;
    while (off < snap.offset) off += Buffer.byteLength(all[idx++]) + 1;
    const resumed = new ExchangeAssembler({ resume: snap });
    const second = feed(resumed, all.slice(idx), off);
    const got = [...first.out, ...second.out, ...resumed.flushAll()];
    const strip = (e: AssembledExchange) => ({ ...e, timestamp: 0 });
    expect(got.map(strip)).toEqual(whole.map(strip));
  });

  it('property: any split point + resume yields the same exchanges as one pass', () => {
    const kinds = fc.array(fc.constantFrom('prompt', 'text', 'tool', 'result', 'end', 'meta', 'noise'), { minLength: 1, maxLength: 30 });
    fc.assert(
      fc.property(kinds, fc.nat(), (ks, cut) => {
        let t = 0;
        const ls = ks.map((k) => {
          t++;
          switch (k) {
            case 'prompt':
              return u(`p${t}`);
            case 'text':
              return text(`t${t}`);
            case 'tool':
              return tool(`id${t}`);
            case 'result':
              return result(`id${t - 1}`, t % 3 ? 'ok' : 'Error: x');
            case 'end':
              return sys('stop_hook_summary');
            case 'meta':
              return u('meta', { isMeta: true });
            default:
              return '{"type":"progress"}';
          }
        });
        const whole = exchangesFromLines(ls).map((e) => ({ ...e, timestamp: 0 }));
        const at = cut % (ls.length + 1);
        const asm = new ExchangeAssembler();
        const first = feed(asm, ls.slice(0, at));
        const snap = asm.snapshot();
        let off = 0;
        let idx = 0;
        while (off < snap.offset) off += Buffer.byteLength(ls[idx++]) + 1;
        const resumed = new ExchangeAssembler({ resume: snap });
        const second = feed(resumed, ls.slice(idx), off);
        const got = [...first.out, ...second.out, ...resumed.flushAll()].map((e) => ({ ...e, timestamp: 0 }));
        // exchanges closed before the snapshot are not re-emitted; the rest match one pass
        expect(got).toEqual(whole);
      }),
      { numRuns: 200 },
    );
  });
});

describe('exchangesFromFile', () => {
  const dirs: string[] = [];
  afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));
  it('streams with byte offsets matching exchangesFromLines (multi-byte text, CRLF-free)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-ex-'));
    dirs.push(dir);
    const ls = [u('héllo wörld ✓'), text('réponse 🚀'), sys('turn_duration'), u('zwei'), text('drei')];
    const p = join(dir, 's.jsonl');
    writeFileSync(p, ls.join('\n')); // no trailing newline: the last line still counts
    const got: AssembledExchange[] = [];
    for await (const e of exchangesFromFile(p, { scan: { chunkBytes: 7 } })) got.push(e);
    const want = exchangesFromLines(ls);
    expect(got.map((e) => [e.user, e.assistant, e.startOffset])).toEqual(want.map((e) => [e.user, e.assistant, e.startOffset]));
    expect(got[1].endOffset).toBe(statSync(p).size);
  });

  it('skips an over-long line and reports it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ab-ex-'));
    dirs.push(dir);
    const p = join(dir, 's.jsonl');
    const huge = u('x'.repeat(300_000));
    writeFileSync(p, [u('before'), text('r'), huge, u('after'), text('r2')].join('\n') + '\n');
    const skipped: number[] = [];
    const got: AssembledExchange[] = [];
    for await (const e of exchangesFromFile(p, { scan: { maxLineBytes: 100_000, chunkBytes: 4096 }, onSkipped: (s) => skipped.push(s) })) got.push(e);
    expect(skipped).toHaveLength(1);
    expect(got.map((e) => e.user)).toEqual(['before', 'after']);
  });
});

/** Real Claude Code transcripts (eval data; absent on CI machines). */
const EVAL = resolve(process.env.ACTIVE_BRAIN_EVAL_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'eval'), 'claude-code');
const realFiles = (): string[] => {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.jsonl')) out.push(p);
    }
  };
  if (existsSync(EVAL)) walk(EVAL);
  return out;
};

describe.skipIf(!existsSync(EVAL))('real transcripts (../shared/eval/claude-code)', () => {
  it('parse without throwing and give sane exchanges', async () => {
    const files = realFiles();
    expect(files.length).toBeGreaterThan(0);
    let total = 0;
    for (const f of files) {
      for (const line of readFileSync(f, 'utf8').split('\n')) expect(() => parseLine(line)).not.toThrow();
      const ex: AssembledExchange[] = [];
      for await (const e of exchangesFromFile(f)) ex.push(e);
      const size = statSync(f).size;
      const sub = f.includes(`${'/'}subagents${'/'}`);
      expect(ex.length).toBeGreaterThan(0);
      // a real session has a handful of human turns, never one per line
      expect(ex.length).toBeLessThan(readFileSync(f, 'utf8').split('\n').length / 3 + 2);
      for (const e of ex) {
        expect(e.startOffset).toBeLessThan(e.endOffset);
        expect(e.endOffset).toBeLessThanOrEqual(size);
        expect(e.isSidechain).toBe(sub);
        expect(e.user.length + e.assistant.length).toBeGreaterThan(0);
      }
      // exchanges of the main lane do not overlap and come in index order
      const main = ex.filter((e) => !e.isSidechain);
      for (let i = 1; i < main.length; i++) {
        expect(main[i].index).toBe(main[i - 1].index + 1);
        expect(main[i].startOffset).toBeGreaterThanOrEqual(main[i - 1].endOffset);
      }
      if (!sub) expect(ex.some((e) => !e.injected && e.assistantVisible && e.assistant.length > 0)).toBe(true);
      total += ex.length;
    }
    expect(total).toBeGreaterThanOrEqual(files.length);
  });
});
