/**
 * Read one past Claude Code transcript for the indexer: its content hash (streamed) and
 * its exchanges, counting malformed lines (not JSON) and over-long lines, which are
 * skipped — never fatal. Lines come from transcript/lines.ts, records from
 * transcript/records.ts, exchanges from transcript/exchanges.ts; the chunks are made by
 * indexer/transcript-chunks.ts.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { basename } from 'node:path';
import { scanLines } from '../transcript/lines.js';
import { parseValue } from '../transcript/records.js';
import { ExchangeAssembler } from '../transcript/exchanges.js';
import type { Exchange } from '../shared/types.js';

/** The reply's end holds its verdict: keep more of it than the live daemon needs. */
const INDEX_ASSISTANT_CHARS = 32_000;

export interface TranscriptRead {
  exchanges: Exchange[];
  /** Lines that were not JSON (torn writes, garbage). */
  malformedLines: number;
  /** Lines over the scanner's limit (dropped unread). */
  overlongLines: number;
}

export async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

export async function readTranscript(path: string, maxLineBytes: number): Promise<TranscriptRead> {
  const fh = await open(path, 'r');
  const sessionId = basename(path).replace(/\.jsonl$/, '');
  const asm = new ExchangeAssembler({ sessionId, limits: { maxAssistantChars: INDEX_ASSISTANT_CHARS } });
  const exchanges: Exchange[] = [];
  let malformedLines = 0;
  let overlongLines = 0;
  try {
    const size = (await fh.stat()).size;
    for await (const batch of scanLines(fh, { offset: 0, skippingFrom: null }, size, { includeUnterminated: true, maxLineBytes })) {
      overlongLines += batch.skipped.length;
      for (const l of batch.lines) {
        let value: unknown;
        try {
          value = JSON.parse(l.line);
        } catch {
          malformedLines++;
          asm.advance(l.endOffset);
          continue;
        }
        exchanges.push(...asm.push(parseValue(value), l.startOffset, l.endOffset));
      }
      asm.advance(batch.state.offset);
    }
    exchanges.push(...asm.flushAll());
  } finally {
    await fh.close();
  }
  exchanges.sort((a, b) => a.startOffset - b.startOffset);
  return { exchanges, malformedLines, overlongLines };
}
