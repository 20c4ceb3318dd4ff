/**
 * Read one past Claude Code transcript (or Codex CLI rollout: transcript/host.ts) for the indexer: its content hash (streamed), its
 * exchanges and its main-lane tool steps (for error episodes, indexer/episodes.ts), counting
 * malformed lines (not JSON) and over-long lines, which are skipped — never fatal. Lines come
 * from transcript/lines.ts, records from transcript/records.ts, exchanges from
 * transcript/exchanges.ts, steps from transcript/tool-steps.ts; the chunks are made by
 * indexer/transcript-chunks.ts.
 *
 * Redaction (shared/redact.ts) happens here, on each parsed record before records.ts reads
 * it: the parser reads the record through a redacting view (shared/redact-on-read.ts), so every
 * string it reads has its secrets replaced by markers, whole, before it is cut or joined — the
 * exchanges, tool steps, episodes, chunks and signatures made from it never see a secret (and a
 * secret cut in half by a later length bound cannot escape detection). Strings the parser never
 * reads are never scanned.
 *
 * An open last turn (no turn end, no next prompt) in a file written less than
 * OPEN_TURN_QUIET_MS ago is still being written: it is left out (exchange and tool steps)
 * and `openFrom` says where it starts, so the indexer marks the document stale and the next
 * run reads it again. In an older file the open turn is final (the session ended without a
 * turn-end record) and is indexed.
 */
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { scanLines } from '../transcript/lines.js';
import { parserForFile } from '../transcript/host.js';
import { ExchangeAssembler } from '../transcript/exchanges.js';
import { ToolStepTracker, type ToolStep } from '../transcript/tool-steps.js';
import type { Exchange } from '../shared/types.js';
import type { Redactor } from '../shared/redact.js';
import { RedactedReader } from '../shared/redact-on-read.js';

/** A last turn with no end is still open when the file was written less than this long ago.
 *  Claude Code appends a record at least at every tool call and result; a turn quiet for
 *  10 minutes has ended or died (a long build can exceed it: then that turn is indexed as it
 *  stands and re-chunked when it grows — only its changed chunks are embedded again). */
export const OPEN_TURN_QUIET_MS = 10 * 60_000;

/** The reply's end holds its verdict: keep more of it than the live daemon needs. */
const INDEX_ASSISTANT_CHARS = 32_000;

export interface TranscriptRead {
  exchanges: Exchange[];
  /** Main-lane tool steps, in result order (before `openFrom` when set). */
  steps: ToolStep[];
  /** Byte offset of the open last turn that was left out, or null. */
  openFrom: number | null;
  /** Lines that were not JSON (torn writes, garbage). */
  malformedLines: number;
  /** Lines over the scanner's limit (dropped unread). */
  overlongLines: number;
  /** uuids of the main-lane (not sidechain) records, in file order (lineage: indexer/lineage.ts). */
  uuids: string[];
}

export async function hashFile(path: string): Promise<string> {
  const h = createHash('sha256');
  for await (const chunk of createReadStream(path)) h.update(chunk as Buffer);
  return h.digest('hex');
}

/** `redactor`: the redactor, or a reader over it that a run shares between files (it remembers
 *  what it redacted: the same text in a resumed session's file is not scanned again). */
export async function readTranscript(path: string, maxLineBytes: number, redactor: Redactor | RedactedReader, now: number = Date.now()): Promise<TranscriptRead> {
  const parser = await parserForFile(path); // Claude Code or Codex CLI (transcript/host.ts)
  const fh = await open(path, 'r');
  const sessionId = parser.fileSessionId;
  const asm = new ExchangeAssembler({ sessionId, limits: { maxAssistantChars: INDEX_ASSISTANT_CHARS } });
  const tracker = new ToolStepTracker();
  const reader = redactor instanceof RedactedReader ? redactor : new RedactedReader(redactor);
  let steps: ToolStep[] = [];
  let openFrom: number | null = null;
  let exchanges: Exchange[] = [];
  let malformedLines = 0;
  let overlongLines = 0;
  let uuids: Array<{ uuid: string; offset: number }> = [];
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
        const rec = parser.value(reader.view(value)); // redact:transcript
        if (rec && typeof rec === 'object' && 'uuid' in rec && typeof rec.uuid === 'string' && !rec.isSidechain) uuids.push({ uuid: rec.uuid, offset: l.startOffset });
        exchanges.push(...asm.push(rec, l.startOffset, l.endOffset));
        steps.push(...tracker.push(rec, l.startOffset, l.endOffset));
      }
      asm.advance(batch.state.offset);
    }
    const mtime = (await fh.stat()).mtimeMs;
    const open = asm.peek();
    if (open && now - mtime < OPEN_TURN_QUIET_MS) openFrom = open.startOffset;
    exchanges.push(...asm.flushAll());
  } finally {
    await fh.close();
  }
  if (openFrom !== null) {
    const cut = openFrom;
    exchanges = exchanges.filter((e) => e.isSidechain || e.startOffset < cut);
    steps = steps.filter((s) => s.startOffset < cut);
    uuids = uuids.filter((u) => u.offset < cut);
  }
  exchanges.sort((a, b) => a.startOffset - b.startOffset);
  return { exchanges, steps, openFrom, malformedLines, overlongLines, uuids: uuids.map((u) => u.uuid) };
}
