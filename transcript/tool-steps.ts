/**
 * Tool steps: parsed transcript records (transcript/records.ts) → one ToolStep per tool call
 * of the main lane, emitted when its result arrives (tool_use → tool_result, joined by id).
 * Pure and incremental: the daemon feeds it live records to decide at each failure; the
 * indexer feeds it a whole past transcript to cut error episodes (indexer/episodes.ts).
 *
 * `step` is the 1-based ordinal of the call among the session's main-lane tool calls (the
 * `step` of replay's and backtest's JSON). Sidechain (subagent) records are never counted.
 * A result whose call was never seen (the read began mid-session) still becomes a step,
 * numbered in arrival order, with the name `unknown`.
 */
import type { ParsedRecord } from './records.js';
import { markedError } from '../shared/here-mark.js';

/** Most calls waiting for their result (a hostile file cannot grow memory without bound). */
export const MAX_PENDING_CALLS = 256;
/** Characters of the assistant's text kept as the note beside the next calls. */
export const MAX_NOTE_CHARS = 240;

export interface ToolStep {
  step: number;
  toolUseId: string | null;
  name: string;
  /** `Name: short input` (records.ts bounds it). */
  summary: string;
  /** A shell call's whole command when the summary cut it (records.ts ToolCall.command). */
  command?: string;
  isError: boolean;
  /** A `<tool_use_error>` rejection (records.ts): Claude Code fires no hook for it. */
  toolUseError: boolean;
  /** The result text (bounded by records.ts): the error text when isError. */
  resultText: string;
  /** Epoch ms of the call and of its result (null when absent). */
  callAt: number | null;
  resultAt: number | null;
  /** Byte offsets of the result's line. */
  startOffset: number;
  endOffset: number;
  sessionId: string | null;
  /** uuid of the record holding the result (a resumed or forked copy keeps it: lineage). */
  uuid?: string | null;
  /** The working directory after the call (its result's record). */
  cwd: string | null;
  /** The working directory the call started in (its own record; null when unknown): a
   *  command that `cd`s elsewhere ends in another `cwd`. */
  callCwd?: string | null;
  /** The assistant's last visible text before the call (its one-line explanation), bounded. */
  note: string;
}

interface PendingCall {
  step: number;
  name: string;
  summary: string;
  command?: string;
  at: number | null;
  note: string;
  cwd: string | null;
}

/** A shell step's command: the whole one when the summary cut it, else the summary's input
 *  part; '' for a call that is not a shell command. */
export function stepCommand(step: Pick<ToolStep, 'name' | 'summary' | 'command'>): string {
  if (step.name !== 'Bash') return '';
  return step.command ?? summaryInput(step.summary);
}

/** A step summary's input part (`Bash: git push` → `git push`, `Edit: /a/b.ts` → `/a/b.ts`). */
export function summaryInput(summary: string): string {
  const i = summary.indexOf(': ');
  return i >= 0 ? summary.slice(i + 2).trim() : '';
}

/** A step's error as the indexer, the daemon and the hook sign it: the paths naming the folder
 *  the shell is in after the call marked (shared/here-mark.ts) — the result record's cwd, which
 *  is what the hook's payload says. `text`: the result text as the caller has it (redacted, for
 *  the daemon); default the step's own. */
export function stepErrorText(step: Pick<ToolStep, 'name' | 'summary' | 'command' | 'cwd' | 'callCwd' | 'resultText'>, text: string = step.resultText): string {
  return markedError(text, step.cwd ?? step.callCwd ?? null, stepCommand(step));
}

export interface ToolStepSnapshot {
  /** Steps numbered so far. */
  steps: number;
}

function firstLine(s: string): string {
  const t = s.trim();
  const nl = t.search(/\n/);
  const line = nl >= 0 ? t.slice(0, nl) : t;
  return line.length > MAX_NOTE_CHARS ? line.slice(0, MAX_NOTE_CHARS) : line;
}

export class ToolStepTracker {
  private steps: number;
  private readonly pending = new Map<string, PendingCall>();
  private note = '';
  /** [line start offset, steps numbered before that line] for lines that numbered steps,
   *  so a caller that commits an earlier offset than it read can resume the count there. */
  private marks: Array<[number, number]> = [];

  constructor(resume?: Partial<ToolStepSnapshot>) {
    this.steps = Number.isInteger(resume?.steps) && resume!.steps! >= 0 ? resume!.steps! : 0;
  }

  get stepCount(): number {
    return this.steps;
  }

  snapshot(): ToolStepSnapshot {
    return { steps: this.steps };
  }

  /** Steps numbered by the lines that start before `offset` (what a resume from `offset`
   *  must start counting from); marks before it are dropped. */
  stepsBefore(offset: number): number {
    const i = this.marks.findIndex(([at]) => at >= offset);
    const n = i >= 0 ? this.marks[i][1] : this.steps;
    this.marks = i >= 0 ? this.marks.slice(i) : [];
    return n;
  }

  /** Feed one record (null for lines that parse to nothing); returns the steps it completed. */
  push(rec: ParsedRecord | null, startOffset: number, endOffset: number): ToolStep[] {
    if (!rec || rec.isSidechain) return [];
    if (rec.kind === 'assistant') {
      if (rec.text.trim()) this.note = firstLine(rec.text);
      if (rec.toolCalls.length) this.marks.push([startOffset, this.steps]);
      for (const c of rec.toolCalls) {
        const step = ++this.steps;
        if (!c.id) continue;
        if (this.pending.size >= MAX_PENDING_CALLS) this.pending.delete(this.pending.keys().next().value as string);
        this.pending.set(c.id, { step, name: c.name, summary: c.summary, ...(c.command ? { command: c.command } : {}), at: rec.timestamp, note: this.note, cwd: rec.cwd });
      }
      return [];
    }
    if (rec.kind === 'user-prompt') {
      this.note = '';
      return [];
    }
    if (rec.kind !== 'tool-result') return [];
    const out: ToolStep[] = [];
    for (const r of rec.results) {
      const call = r.toolUseId ? this.pending.get(r.toolUseId) : undefined;
      if (call) this.pending.delete(r.toolUseId!);
      if (!call) this.marks.push([startOffset, this.steps]);
      out.push({
        step: call?.step ?? ++this.steps,
        toolUseId: r.toolUseId,
        name: call?.name ?? 'unknown',
        summary: call?.summary ?? 'unknown',
        ...(call?.command ? { command: call.command } : {}),
        isError: r.isError,
        toolUseError: Boolean(r.toolUseError),
        resultText: r.text,
        callAt: call?.at ?? null,
        resultAt: rec.timestamp,
        startOffset,
        endOffset,
        sessionId: rec.sessionId,
        uuid: rec.uuid,
        cwd: rec.cwd,
        callCwd: call ? call.cwd : null,
        note: call?.note ?? '',
      });
    }
    return out;
  }
}

/** Every step of a list of parsed records with their offsets (whole files: the indexer, replay). */
export function toolStepsOf(records: Iterable<{ rec: ParsedRecord | null; startOffset: number; endOffset: number }>): ToolStep[] {
  const t = new ToolStepTracker();
  const out: ToolStep[] = [];
  for (const r of records) out.push(...t.push(r.rec, r.startOffset, r.endOffset));
  return out;
}
