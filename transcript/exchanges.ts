/**
 * Normalized transcript records → exchanges (a prompt and the assistant's reply).
 *
 * Input: ParsedRecords (transcript/records.ts) with their byte offsets, fed in file order
 * by the daemon (daemon/tailer.ts) or read from a whole file by the indexer and replay
 * (`exchangesFromFile`). Output: `Exchange` objects (shared/types.ts) as they complete.
 *
 * Closing rules: a new opening prompt closes the previous exchange; a `turn-end` record
 * (turn_duration, stop-hook summary, compact boundary, user interrupt) closes the current
 * one; `flush()` closes the open one (the caller decides when, from `pendingToolCalls` and
 * `lastRecordKind`). Meta prompts and local-command output never open an exchange.
 * Sidechain records (older formats mixed them into the main file) are assembled in their
 * own lane so they never corrupt the main conversation. Memory is bounded per exchange.
 */
import { open } from 'node:fs/promises';
import type { Exchange } from '../shared/types.js';
import { parseLine, type ParsedRecord, type PromptKind, type RecordKind } from './records.js';
import { parserForFile } from './host.js';
import { scanLines, type ScanOptions } from './lines.js';

/** How an exchange was closed. */
export type CloseReason = 'next-prompt' | 'turn-end' | 'interrupted' | 'compact' | 'flush';

/** Exchange plus assembly details (all extra fields optional in shared/types.ts terms). */
export interface AssembledExchange extends Exchange {
  agentId: string | null;
  promptKind: PromptKind | null;
  closedBy: CloseReason;
  /** True when the exchange had no opening prompt (reply continuing after a turn end,
   *  or the start of a read that began mid-conversation). */
  continuation: boolean;
  /** True when every line of it came from seed history (set by the caller's feed). */
  seed: boolean;
}

export interface AssemblerLimits {
  maxUserChars: number;
  maxAssistantChars: number;
  maxToolCalls: number;
  maxToolErrors: number;
  maxErrorChars: number;
}

export const DEFAULT_LIMITS: AssemblerLimits = {
  maxUserChars: 8000,
  maxAssistantChars: 8000,
  maxToolCalls: 40,
  maxToolErrors: 8,
  maxErrorChars: 600,
};

/** What a caller persists alongside a committed offset to resume assembly exactly. */
export interface AssemblerSnapshot {
  /** Byte offset up to which everything is emitted (start of the open exchange, if any). */
  offset: number;
  /** Index the next exchange of the main lane will get. */
  nextIndex: number;
  /** Whether assistant text was ever seen in this session. */
  assistantVisible: boolean;
}

export interface AssemblerOptions {
  /** Session id used when records carry none (e.g. from the file name). */
  sessionId?: string;
  /** Resume from a snapshot (offset is informational; the caller feeds from there). */
  resume?: Partial<AssemblerSnapshot>;
  limits?: Partial<AssemblerLimits>;
}

/** Cascade notices that carry no information of their own. */
const NOISE_ERRORS = /^(Sibling tool call errored|The user doesn't want to proceed with this tool use)/;

/** Prompt kinds that start a new exchange. */
const OPENS: ReadonlySet<PromptKind> = new Set<PromptKind>(['human', 'command', 'task-notification', 'compact-summary']);

interface Open {
  ex: AssembledExchange;
  pending: Set<string>;
  assistantChars: number;
  allSeed: boolean;
}

class Lane {
  open: Open | null = null;
  nextIndex: number;
  lastKind: RecordKind | null = null;
  constructor(
    readonly sidechain: boolean,
    startIndex: number,
  ) {
    this.nextIndex = startIndex;
  }
}

export class ExchangeAssembler {
  private readonly limits: AssemblerLimits;
  private readonly lanes: [Lane, Lane];
  private lastEnd = 0;
  private sessionId: string;
  private textSeen: boolean;
  private textSeenAtOpen = false;

  constructor(opts: AssemblerOptions = {}) {
    this.limits = { ...DEFAULT_LIMITS, ...opts.limits };
    this.sessionId = opts.sessionId ?? '';
    this.textSeen = opts.resume?.assistantVisible ?? false;
    this.lanes = [new Lane(false, opts.resume?.nextIndex ?? 0), new Lane(true, 0)];
    if (typeof opts.resume?.offset === 'number') this.lastEnd = opts.resume.offset;
  }

  /** Tool calls of the open main-lane exchange still waiting for their result. */
  get pendingToolCalls(): number {
    return this.lanes[0].open?.pending.size ?? 0;
  }
  /** Kind of the last main-lane record fed (null before any). */
  get lastRecordKind(): RecordKind | null {
    return this.lanes[0].lastKind;
  }
  /** True while a main-lane exchange is open. */
  get hasOpen(): boolean {
    return this.lanes[0].open !== null;
  }
  /** Whether any assistant text has been seen in this session (false → prompt-only). */
  get assistantVisible(): boolean {
    return this.textSeen;
  }
  /** The open main-lane exchange's last assistant record had text (a settled reply candidate). */
  get settleCandidate(): boolean {
    return this.hasOpen && this.pendingToolCalls === 0 && this.lastRecordKind === 'assistant';
  }

  /** Everything of the main lane before this offset is emitted; safe to commit. (Sidechain
   *  records mixed into a main file are worker traffic: they do not hold the commit back, so
   *  a sidechain exchange open across a restart may lose its beginning.) */
  get committableOffset(): number {
    const open = this.lanes[0].open;
    return open ? Math.min(this.lastEnd, open.ex.startOffset) : this.lastEnd;
  }

  snapshot(): AssemblerSnapshot {
    const lane = this.lanes[0];
    return { offset: this.committableOffset, nextIndex: lane.open ? lane.open.ex.index : lane.nextIndex, assistantVisible: this.textSeenBefore() };
  }

  /** Session-level text flag as of the commit point (text inside the open exchange is re-fed). */
  private textSeenBefore(): boolean {
    return this.lanes[0].open ? this.textSeenAtOpen : this.textSeen;
  }

  /** Bytes consumed without a record (skipped lines, blank lines): moves the commit point. */
  advance(endOffset: number): void {
    if (endOffset > this.lastEnd) this.lastEnd = endOffset;
  }

  /**
   * Feed one record (or null for a line that parsed to nothing) with its byte range.
   * Returns the exchanges it completed (usually zero or one). `seed` marks history lines.
   */
  push(record: ParsedRecord | null, startOffset: number, endOffset: number, seed = false): AssembledExchange[] {
    this.advance(endOffset);
    if (!record) return [];
    if (record.sessionId && !this.sessionId) this.sessionId = record.sessionId;
    const lane = this.lanes[record.isSidechain ? 1 : 0];
    const out: AssembledExchange[] = [];
    const closeOpen = (reason: CloseReason, end: number) => {
      const o = lane.open;
      if (!o) return;
      lane.open = null;
      o.ex.endOffset = end;
      o.ex.closedBy = reason;
      o.ex.seed = o.allSeed;
      out.push(o.ex);
    };

    switch (record.kind) {
      case 'user-prompt': {
        if (!OPENS.has(record.promptKind)) break; // meta / command output: context, not a turn
        closeOpen('next-prompt', startOffset);
        if (!lane.sidechain) this.textSeenAtOpen = this.textSeen;
        lane.open = this.openExchange(lane, record, startOffset, endOffset, false, seed);
        break;
      }
      case 'turn-end': {
        if (lane.open) {
          const o = lane.open;
          o.ex.endOffset = endOffset;
          closeOpen(record.reason === 'interrupted' ? 'interrupted' : record.reason === 'compact' ? 'compact' : 'turn-end', endOffset);
        }
        break;
      }
      case 'assistant': {
        if (!lane.open && !lane.sidechain) this.textSeenAtOpen = this.textSeen;
        const o = lane.open ?? (lane.open = this.openExchange(lane, record, startOffset, endOffset, true, seed));
        this.touch(o, endOffset, seed);
        o.ex.assistantVisible = true;
        if (record.text) {
          if (!record.isSidechain) this.textSeen = true;
          const room = this.limits.maxAssistantChars - o.assistantChars;
          if (room > 0) {
            const add = record.text.slice(0, room);
            o.ex.assistant = o.ex.assistant ? `${o.ex.assistant}\n${add}` : add;
            o.assistantChars += add.length + 1;
          }
        }
        for (const c of record.toolCalls) {
          if (c.id) o.pending.add(c.id);
          if (o.ex.toolCalls.length < this.limits.maxToolCalls) o.ex.toolCalls.push(c.summary);
        }
        break;
      }
      case 'tool-result': {
        if (!lane.open && !lane.sidechain) this.textSeenAtOpen = this.textSeen;
        const o = lane.open ?? (lane.open = this.openExchange(lane, record, startOffset, endOffset, true, seed));
        this.touch(o, endOffset, seed);
        for (const r of record.results) {
          if (r.toolUseId) o.pending.delete(r.toolUseId);
          if (!r.isError || !r.text || NOISE_ERRORS.test(r.text)) continue;
          if (o.ex.toolErrors.length < this.limits.maxToolErrors) o.ex.toolErrors.push(r.text.slice(0, this.limits.maxErrorChars));
        }
        break;
      }
    }
    lane.lastKind = record.kind;
    return out;
  }

  /** Close the open main-lane exchange now (after the caller's settle delay, or at EOF). */
  flush(): AssembledExchange | null {
    const lane = this.lanes[0];
    const o = lane.open;
    if (!o) return null;
    lane.open = null;
    o.ex.closedBy = 'flush';
    o.ex.seed = o.allSeed;
    return o.ex;
  }

  /**
   * A copy of the open main-lane exchange, left open (null when none). For provisional work
   * while a turn may still continue: in real transcripts the next assistant record follows a
   * text record by a median ~1 s (p90 ~6 s, max ~72 s), so a short settle delay cannot tell
   * a finished reply from a pause; `flush()` after it splits the turn into continuations.
   */
  peek(): AssembledExchange | null {
    const o = this.lanes[0].open;
    if (!o) return null;
    return { ...o.ex, toolCalls: [...o.ex.toolCalls], toolErrors: [...o.ex.toolErrors], closedBy: 'flush', seed: o.allSeed };
  }

  /** Close every open exchange, sidechain lane included (end of a whole-file read). */
  flushAll(): AssembledExchange[] {
    const out: AssembledExchange[] = [];
    const main = this.flush();
    if (main) out.push(main);
    const side = this.lanes[1].open;
    if (side) {
      this.lanes[1].open = null;
      side.ex.closedBy = 'flush';
      side.ex.seed = side.allSeed;
      out.push(side.ex);
    }
    out.sort((a, b) => a.startOffset - b.startOffset);
    return out;
  }

  private touch(o: Open, endOffset: number, seed: boolean): void {
    if (endOffset > o.ex.endOffset) o.ex.endOffset = endOffset;
    if (!seed) o.allSeed = false;
  }

  private openExchange(
    lane: Lane,
    r: ParsedRecord,
    startOffset: number,
    endOffset: number,
    continuation: boolean,
    seed: boolean,
  ): Open {
    const prompt = r.kind === 'user-prompt' ? r : null;
    const ex: AssembledExchange = {
      sessionId: r.sessionId ?? this.sessionId,
      uuid: r.uuid ?? `offset-${startOffset}`,
      index: lane.nextIndex++,
      startOffset,
      endOffset,
      timestamp: r.timestamp ?? Date.now(),
      cwd: r.cwd,
      gitBranch: r.gitBranch,
      entrypoint: r.entrypoint,
      isSidechain: r.isSidechain,
      user: prompt ? prompt.text.slice(0, this.limits.maxUserChars) : '',
      assistant: '',
      toolCalls: [],
      toolErrors: [],
      assistantVisible: false,
      injected: prompt ? prompt.injected : true,
      agentId: r.agentId,
      promptKind: prompt ? prompt.promptKind : null,
      closedBy: 'flush',
      continuation,
      seed,
    };
    return { ex, pending: new Set(), assistantChars: 0, allSeed: seed };
  }
}

export interface FileReadOptions {
  sessionId?: string;
  /** Start here (aligned to a line start by the caller). */
  startOffset?: number;
  scan?: Partial<ScanOptions>;
  limits?: Partial<AssemblerLimits>;
  /** Called for every over-long line skipped. */
  onSkipped?: (startOffset: number, endOffset: number) => void;
}

/**
 * Every exchange of a transcript file, streamed with bounded memory (chunked reads, over-long
 * lines skipped). Open exchanges are flushed at end of file.
 */
export async function* exchangesFromFile(path: string, opts: FileReadOptions = {}): AsyncGenerator<AssembledExchange> {
  const parser = await parserForFile(path); // Claude Code or Codex CLI (transcript/host.ts)
  const fh = await open(path, 'r');
  try {
    const size = (await fh.stat()).size;
    const asm = new ExchangeAssembler({ sessionId: opts.sessionId ?? (parser.host === 'codex' ? parser.fileSessionId : undefined), limits: opts.limits });
    const start = opts.startOffset ?? 0;
    asm.advance(start);
    for await (const batch of scanLines(fh, { offset: start, skippingFrom: null }, size, { ...opts.scan, includeUnterminated: true })) {
      for (const s of batch.skipped) opts.onSkipped?.(s.startOffset, s.endOffset);
      for (const l of batch.lines) yield* asm.push(parser.line(l.line), l.startOffset, l.endOffset);
      asm.advance(batch.state.offset);
    }
    yield* asm.flushAll();
  } finally {
    await fh.close();
  }
}

/** Exchanges of in-memory lines (tests, small inputs). Offsets count UTF-8 bytes plus newlines. */
export function exchangesFromLines(lines: Iterable<string>, opts: { sessionId?: string; limits?: Partial<AssemblerLimits> } = {}): AssembledExchange[] {
  const asm = new ExchangeAssembler(opts);
  const out: AssembledExchange[] = [];
  let off = 0;
  for (const line of lines) {
    const end = off + Buffer.byteLength(line, 'utf8') + 1;
    out.push(...asm.push(parseLine(line), off, end));
    off = end;
  }
  out.push(...asm.flushAll());
  return out;
}
