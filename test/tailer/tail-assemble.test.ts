/**
 * Tailer + parser + assembler end to end, the way the daemon uses them: a transcript is
 * appended in arbitrary pieces (cutting lines in half), the consumer commits the assembler's
 * committable offset and snapshot, the tailer is restarted half-way, and the exchanges
 * obtained must equal a one-pass read of the finished file (nothing lost, nothing twice).
 * Runs over the repo fixtures always, and over ../shared/eval/claude-code when present.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { Tailer } from '../../daemon/tailer.js';
import { ExchangeAssembler, exchangesFromFile, type AssembledExchange, type AssemblerSnapshot } from '../../transcript/exchanges.js';
import { parseLine } from '../../transcript/records.js';
import { removeTempDirs, SMALL, tempDirs, waitFor } from './harness.js';

const FIX = join(import.meta.dirname, '..', 'fixtures', 'transcripts');
const EVAL = resolve(process.env.ACTIVE_BRAIN_EVAL_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'eval'), 'claude-code');

const tailers: Tailer[] = [];
afterEach(async () => {
  for (const t of tailers.splice(0)) await t.close();
});
afterAll(() => removeTempDirs());

/** A daemon-like consumer: one assembler per file, commit after every batch. */
function consumer(root: string, offsets: string, seenBefore = 0) {
  const asms = new Map<string, ExchangeAssembler>();
  const out: AssembledExchange[] = [];
  let seen = seenBefore;
  const tailer: Tailer = new Tailer(
    { root, offsetsPath: offsets, daemon: { ...SMALL, maxLineBytes: 16 * 1024 * 1024 } },
    {
      lines(path, sessionId, lines, info) {
        let asm = asms.get(path);
        if (!asm || info.first) {
          asm = new ExchangeAssembler({ sessionId, resume: (info.state as AssemblerSnapshot | undefined) ?? undefined });
          asms.set(path, asm);
        }
        for (const l of lines) out.push(...asm.push(parseLine(l.line), l.startOffset, l.endOffset, info.seed));
        asm.advance(info.endOffset);
        seen = Math.max(seen, info.endOffset);
        tailer.commit(path, asm.committableOffset, asm.snapshot());
      },
    },
  );
  tailers.push(tailer);
  return {
    tailer,
    out,
    seen: () => seen,
    finish: () => {
      for (const a of asms.values()) out.push(...a.flushAll());
      return out;
    },
  };
}

/** Deterministic piece sizes (a small LCG), so failures reproduce. */
function pieces(buf: Buffer, n: number, seed = 7): Buffer[] {
  let x = seed;
  const cuts = new Set<number>();
  while (cuts.size < n - 1) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    cuts.add(1 + (x % (buf.length - 1)));
  }
  const sorted = [...cuts].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let prev = 0;
  for (const c of [...sorted, buf.length]) {
    out.push(buf.subarray(prev, c));
    prev = c;
  }
  return out;
}

const key = (e: AssembledExchange) => ({
  index: e.index,
  startOffset: e.startOffset,
  endOffset: e.endOffset,
  user: e.user,
  assistant: e.assistant,
  toolCalls: e.toolCalls,
  toolErrors: e.toolErrors,
  injected: e.injected,
  closedBy: e.closedBy,
  isSidechain: e.isSidechain,
});

async function replayInPieces(source: string, nPieces: number): Promise<void> {
  const { root, offsets } = tempDirs();
  const proj = join(root, '-home-user-demo');
  mkdirSync(proj, { recursive: true });
  const f = join(proj, 'bbbbbbbb-0000-4000-8000-000000000001.jsonl');
  writeFileSync(f, '');
  const buf = readFileSync(source);
  const parts = pieces(buf, nPieces);
  const half = Math.floor(parts.length / 2);

  let c = consumer(root, offsets);
  await c.tailer.start();
  await waitFor(() => c.tailer.watchedFiles === 1);
  const first: AssembledExchange[] = [];
  let written = 0;
  for (let i = 0; i < parts.length; i++) {
    if (i === half) {
      // restart: whatever was not committed is read again, nothing committed is re-emitted
      await c.tailer.sweep();
      await c.tailer.close();
      first.push(...c.out);
      c = consumer(root, offsets, c.seen());
      await c.tailer.start();
    }
    appendFileSync(f, parts[i]);
    written += parts[i].length;
    const lastNl = buf.subarray(0, written).lastIndexOf(0x0a) + 1;
    const cc = c;
    await waitFor(() => cc.seen() >= lastNl, 20000, `tail to reach ${lastNl}`);
  }
  await c.tailer.sweep();
  const got = [...first, ...c.finish()].sort((a, b) => a.startOffset - b.startOffset || Number(a.isSidechain) - Number(b.isSidechain));
  const want: AssembledExchange[] = [];
  for await (const e of exchangesFromFile(f)) want.push(e);
  want.sort((a, b) => a.startOffset - b.startOffset || Number(a.isSidechain) - Number(b.isSidechain));
  expect(got.map(key)).toEqual(want.map(key));
  expect(got.every((e) => !e.seed)).toBe(true);
}

describe('tail → parse → assemble equals a one-pass read', () => {
  for (const name of ['basic.jsonl', 'commands.jsonl', 'malformed.jsonl']) {
    it(`fixture ${name} in 9 pieces with a restart`, async () => {
      await replayInPieces(join(FIX, name), 9);
    });
  }

  it.skipIf(!existsSync(EVAL))('real transcripts in 12 pieces with a restart', async () => {
    const dir = join(EVAL, 'projects');
    const files = readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .flatMap((d) => readdirSync(join(dir, d.name)).filter((n) => n.endsWith('.jsonl')).map((n) => join(dir, d.name, n)));
    expect(files.length).toBeGreaterThan(0);
    for (const f of [...files, join(EVAL, 'subagent.jsonl')].filter(existsSync)) await replayInPieces(f, 12);
  }, 120_000);
});
