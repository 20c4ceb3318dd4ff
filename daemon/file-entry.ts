/**
 * What the daemon's consumer (daemon/consumer.ts) keeps per transcript file: its exchange
 * assembler, its tool-step tracker, its line parser (Claude Code or Codex CLI), the promise
 * chain that keeps its batches in order, the pending settle timer, and the publish book
 * (core/publish.ts). Made on the file's first delivery, from the snapshot the tailer hands
 * back (daemon/offsets.ts keeps it beside the committed offset); remade when the file starts
 * over (truncated, replaced).
 */
import { parserForFileSync, type LineParser } from '../transcript/host.js';
import { ExchangeAssembler, type AssemblerSnapshot } from '../transcript/exchanges.js';
import { ToolStepTracker } from '../transcript/tool-steps.js';
import type { PublishBook } from '../core/publish.js';
import type { LinesInfo } from './tail-events.js';

export interface FileEntry extends PublishBook {
  asm: ExchangeAssembler;
  /** Tool calls of the main lane, joined with their results (the tool channel). */
  tools: ToolStepTracker;
  /** Entry point of the file's records (worker detection for tool steps). */
  entrypoint: string | null;
  sessionId: string;
  subagent: boolean;
  chain: Promise<void>;
  settle: NodeJS.Timeout | null;
  /** `uuid@endOffset` of the last provisional decision (never twice on the same content). */
  lastProvisional: string | null;
  /** End offset of the last tool step decided live (persisted in the snapshot, FileSnapshot). */
  toolsDecidedUntil: number;
  skipped: number;
  /** The file's line parser: Claude Code or Codex CLI (transcript/host.ts). */
  parse: LineParser['line'];
}

/** What the daemon persists beside a committed offset: the assembler's snapshot, the tool
 *  steps numbered before that offset (so step ordinals survive a restart) and the end of the last
 *  tool step decided (the steps of an exchange still open sit past the committed offset but were
 *  decided, logged and cached at once: after a restart they are history, not decided again). */
export type FileSnapshot = AssemblerSnapshot & { toolSteps?: number; toolsDecidedUntil?: number };

function isSnapshot(v: unknown): v is FileSnapshot {
  const s = v as AssemblerSnapshot | null;
  return !!s && typeof s === 'object' && typeof s.offset === 'number' && typeof s.nextIndex === 'number' && typeof s.assistantVisible === 'boolean';
}

/** A fresh entry for `path`, resumed from the delivery's snapshot when it carries one; the
 *  batch chain and the skipped-line count carry over from `prev` (the entry it replaces). */
export function newFileEntry(path: string, sessionId: string, info: LinesInfo | null, prev: FileEntry | undefined): FileEntry {
  const resume = info && isSnapshot(info.state) ? info.state : undefined;
  return {
    asm: new ExchangeAssembler({ sessionId, resume }),
    tools: new ToolStepTracker({ steps: resume?.toolSteps }),
    entrypoint: null,
    sessionId,
    subagent: info?.subagent ?? false,
    chain: prev?.chain ?? Promise.resolve(),
    settle: null,
    provisionalOffer: null,
    lastProvisional: null,
    toolsDecidedUntil: typeof resume?.toolsDecidedUntil === 'number' ? resume.toolsDecidedUntil : 0,
    skipped: prev?.skipped ?? 0,
    parse: parserForFileSync(path).line,
  };
}

/** The snapshot committed with `offset`. */
export function snapshotAt(f: FileEntry, offset: number): FileSnapshot {
  return { ...f.asm.snapshot(), toolSteps: f.tools.stepsBefore(offset), toolsDecidedUntil: f.toolsDecidedUntil };
}

/** A cheap malformed-line check for lines the parser dropped (unknown types are not "malformed"). */
export function looksMalformed(line: string): boolean {
  const t = line.trim();
  if (!t) return false;
  if (!t.startsWith('{') || !t.endsWith('}')) return true;
  try {
    JSON.parse(t);
    return false;
  } catch {
    return true;
  }
}
