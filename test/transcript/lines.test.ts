/**
 * transcript/lines.ts: the chunked line scanner against a trivial reference (split on
 * newlines) for arbitrary content, chunk sizes, line limits and resume points.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { scanLines, type LineItem, type ScanState, type SkippedLine } from '../../transcript/lines.js';

const dir = mkdtempSync(join(tmpdir(), 'ab-lines-'));
let fileNo = 0;
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Reference: complete lines of buf[from, limit), split on \n. */
function reference(buf: Buffer, from: number, limit: number, maxLineBytes: number, includeUnterminated: boolean) {
  const lines: LineItem[] = [];
  const skipped: Array<{ startOffset: number; endOffset: number }> = [];
  let start = from;
  for (;;) {
    let nl = buf.indexOf(0x0a, start);
    if (nl >= limit) nl = -1;
    if (nl === -1 && !(includeUnterminated && start < limit)) break;
    const end = nl === -1 ? limit : nl + 1;
    const contentEnd = nl === -1 ? limit : nl;
    if (contentEnd - start > maxLineBytes) skipped.push({ startOffset: start, endOffset: end });
    else {
      let text = buf.subarray(start, contentEnd).toString('utf8');
      if (text.endsWith('\r')) text = text.slice(0, -1);
      if (text.trim().length > 0) lines.push({ line: text, startOffset: start, endOffset: end });
    }
    start = end;
    if (nl === -1) break;
  }
  return { lines, skipped, consumed: start };
}

async function scan(path: string, state: ScanState, limit: number, opts: Parameters<typeof scanLines>[3]) {
  const fh = await open(path, 'r');
  const lines: LineItem[] = [];
  const skipped: SkippedLine[] = [];
  let last: ScanState = state;
  try {
    for await (const b of scanLines(fh, state, limit, opts)) {
      lines.push(...b.lines);
      skipped.push(...b.skipped);
      last = b.state;
    }
  } finally {
    await fh.close();
  }
  return { lines, skipped, state: last };
}

const content = fc.array(
  fc.oneof(
    fc.string({ maxLength: 40 }),
    fc.constantFrom('\n', '\r\n', '  \n', 'é✓🚀', '{"type":"user"}'),
    fc.string({ minLength: 50, maxLength: 120 }),
  ),
  { maxLength: 40 },
);

describe('scanLines', () => {
  it('property: equals the reference for any content, chunking and line limit', async () => {
    await fc.assert(
      fc.asyncProperty(content, fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: 100 }), fc.boolean(), fc.integer({ min: 1, max: 5 }), async (parts, chunkBytes, maxLineBytes, includeUnterminated, batchLines) => {
        const buf = Buffer.from(parts.join(''), 'utf8');
        const path = join(dir, `f${fileNo++}`);
        writeFileSync(path, buf);
        const got = await scan(path, { offset: 0, skippingFrom: null }, buf.length, { chunkBytes, maxLineBytes, includeUnterminated, maxBatchLines: batchLines, maxBatchBytes: 1 << 20 });
        const want = reference(buf, 0, buf.length, maxLineBytes, includeUnterminated);
        expect(got.lines).toEqual(want.lines);
        expect(got.skipped.map((s) => [s.startOffset, s.endOffset])).toEqual(want.skipped.map((s) => [s.startOffset, s.endOffset]));
        const resumeAt = got.state.skippingFrom ?? got.state.offset;
        expect(resumeAt).toBe(want.consumed);
      }),
      { numRuns: 300 },
    );
  });

  it('property: scanning in two steps (resume from the returned state) equals one pass', async () => {
    await fc.assert(
      fc.asyncProperty(content, fc.nat(), fc.integer({ min: 1, max: 64 }), fc.integer({ min: 4, max: 100 }), async (parts, cut, chunkBytes, maxLineBytes) => {
        const buf = Buffer.from(parts.join(''), 'utf8');
        const path = join(dir, `g${fileNo++}`);
        writeFileSync(path, buf);
        const mid = buf.length ? cut % (buf.length + 1) : 0;
        const opts = { chunkBytes, maxLineBytes };
        const a = await scan(path, { offset: 0, skippingFrom: null }, mid, opts);
        const b = await scan(path, a.state, buf.length, opts);
        const one = await scan(path, { offset: 0, skippingFrom: null }, buf.length, opts);
        expect([...a.lines, ...b.lines]).toEqual(one.lines);
        expect([...a.skipped, ...b.skipped]).toEqual(one.skipped);
        expect(b.state).toEqual(one.state);
      }),
      { numRuns: 300 },
    );
  });
});
