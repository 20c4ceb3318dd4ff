/**
 * Claude Code transcript records → normalized records.
 *
 * Input: one JSONL line of a Claude Code transcript (`~/.claude/projects/<p>/<s>.jsonl`,
 * format described in ../shared/eval/README.md; not a stable contract). Output: a small,
 * bounded `ParsedRecord` for transcript/exchanges.ts, or null for everything that is not
 * part of a conversation turn (progress, file-history-snapshot, queue-operation, summary,
 * local-command system lines, unknown types, malformed JSON). Pure; never throws.
 */
import { MAX_COMMAND_CHARS } from '../shared/command-keys.js';
import { isObj, type Obj } from '../shared/json-object.js';

/** What a user-side prompt record is. Only `human` is typed by the person. */
export type PromptKind =
  | 'human' // typed by the person
  | 'command' // a slash command (`<command-name>`): typed, but framed by Claude Code
  | 'command-output' // `<local-command-stdout>` / `<local-command-stderr>`: output of a local command
  | 'task-notification' // a background task finished (`<task-notification>`)
  | 'meta' // isMeta: skill bodies, caveats, other injected context
  | 'compact-summary'; // the summary that continues a compacted conversation

/** Why a turn ended (system records and interruption markers). */
export type TurnEndReason = 'turn-duration' | 'stop-hook' | 'compact' | 'interrupted';

export interface RecordBase {
  uuid: string | null;
  sessionId: string | null;
  /** Epoch ms, or null when absent / unparsable. */
  timestamp: number | null;
  cwd: string | null;
  gitBranch: string | null;
  entrypoint: string | null;
  isSidechain: boolean;
  agentId: string | null;
  version: string | null;
}

export interface UserPromptRecord extends RecordBase {
  kind: 'user-prompt';
  /** Prompt text, system reminders stripped, bounded to MAX_PROMPT_CHARS. */
  text: string;
  promptKind: PromptKind;
  /** True for everything not typed as a plain prompt (isMeta, commands, notifications…). */
  injected: boolean;
  isMeta: boolean;
}

export interface ToolResultItem {
  toolUseId: string | null;
  isError: boolean;
  /** Claude Code rejected the call before running it (`<tool_use_error>`: a Read of a missing
   *  file, an Edit whose old string is absent). Such failures fire no hook at all. */
  toolUseError?: boolean;
  /** Result text, bounded to MAX_TOOL_RESULT_CHARS. */
  text: string;
}

export interface ToolResultRecord extends RecordBase {
  kind: 'tool-result';
  results: ToolResultItem[];
  /** Any result flagged (or clearly) failing. */
  isError: boolean;
  /** Text of the failing results (or of all results when none fails), bounded. */
  text: string;
}

export interface ToolCall {
  id: string | null;
  name: string;
  /** `Name: short input`, bounded to MAX_TOOL_SUMMARY_CHARS. */
  summary: string;
  /** A shell call's whole command, bounded to MAX_COMMAND_CHARS, when the summary cut it:
   *  what the call did is often after the cut (`mkdir -p … && cp … && git add … && git commit`),
   *  and an error episode's walk needs it to see that the failing intent succeeded. */
  command?: string;
}

export interface AssistantRecord extends RecordBase {
  kind: 'assistant';
  /** Visible text blocks joined (thinking ignored), bounded to MAX_ASSISTANT_CHARS. */
  text: string;
  toolCalls: ToolCall[];
  /** API message id: several records (one per content block) share it. */
  messageId: string | null;
}

export interface TurnEndRecord extends RecordBase {
  kind: 'turn-end';
  reason: TurnEndReason;
}

export type ParsedRecord = UserPromptRecord | ToolResultRecord | AssistantRecord | TurnEndRecord;
export type RecordKind = ParsedRecord['kind'];

export const MAX_PROMPT_CHARS = 16_000;
export const MAX_ASSISTANT_CHARS = 16_000;
export const MAX_TOOL_RESULT_CHARS = 4_000;
export const MAX_TOOL_SUMMARY_CHARS = 160;
/** Tool calls kept from one assistant record. */
export const MAX_TOOL_CALLS_PER_RECORD = 32;
/** Content blocks looked at in one record (a hostile line cannot make us loop long). */
const MAX_BLOCKS = 256;

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);

function clip(s: string, max: number): string {
  return s.length <= max ? s : s.slice(0, max);
}

/** Remove `<system-reminder>…</system-reminder>` (an unclosed one is cut to the end). */
export function stripSystemReminders(s: string): string {
  if (!s.includes('<system-reminder')) return s;
  let out = s.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '');
  const open = out.indexOf('<system-reminder>');
  if (open >= 0) out = out.slice(0, open);
  return out;
}

/** Remove hook output that older versions inlined into the prompt. */
function stripHookOutput(s: string): string {
  if (!s.includes('<user-prompt-submit-hook')) return s;
  let out = s.replace(/<user-prompt-submit-hook>[\s\S]*?<\/user-prompt-submit-hook>/g, '');
  const open = out.indexOf('<user-prompt-submit-hook>');
  if (open >= 0) out = out.slice(0, open);
  return out;
}

// eslint-disable-next-line no-control-regex
const ANSI = /\u001b\[[0-9;]*[A-Za-z]/g;

function tagContent(s: string, tag: string): string | null {
  const m = new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`).exec(s);
  return m ? m[1] : null;
}

function timestampOf(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v;
  if (typeof v !== 'string') return null;
  const t = Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

function baseOf(r: Obj): RecordBase {
  return {
    uuid: str(r.uuid),
    sessionId: str(r.sessionId),
    timestamp: timestampOf(r.timestamp),
    cwd: str(r.cwd),
    gitBranch: str(r.gitBranch),
    entrypoint: str(r.entrypoint),
    isSidechain: r.isSidechain === true,
    agentId: str(r.agentId),
    version: str(r.version),
  };
}

/** Text of a content value: a string or a list of blocks (text blocks only). */
function textOf(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const b of content.slice(0, MAX_BLOCKS)) {
    if (typeof b === 'string') parts.push(b);
    else if (isObj(b) && b.type === 'text' && typeof b.text === 'string') parts.push(b.text);
  }
  return parts.join('\n');
}

const INTERRUPT = /^\[Request interrupted by user[^\]]*\]\s*$/;

/** Output that fails even though the tool did not flag it. Deliberately narrow. */
export function looksLikeFailure(text: string): boolean {
  const t = text.trimStart();
  return (
    /^Error:/.test(t) ||
    /^<tool_use_error>/.test(t) ||
    /^Exit code [1-9]\d*\b/.test(t) ||
    /^Command failed with exit code [1-9]/.test(t)
  );
}

function cleanToolText(text: string): string {
  return stripSystemReminders(text).replace(/<\/?tool_use_error>/g, '').replace(ANSI, '').trim();
}

function classifyPrompt(raw: string, r: Obj): { promptKind: PromptKind; text: string } {
  if (r.isCompactSummary === true || r.isVisibleInTranscriptOnly === true) {
    return { promptKind: 'compact-summary', text: raw };
  }
  if (r.isMeta === true) return { promptKind: 'meta', text: raw };
  const t = raw.trimStart();
  if (t.startsWith('<local-command-stdout>') || t.startsWith('<local-command-stderr>') || t.startsWith('<local-command-caveat>')) {
    const inner =
      tagContent(t, 'local-command-stdout') ?? tagContent(t, 'local-command-stderr') ?? tagContent(t, 'local-command-caveat') ?? t;
    return { promptKind: 'command-output', text: inner.replace(ANSI, '') };
  }
  if (/^<command-(name|message|args)>/.test(t)) {
    const name = (tagContent(t, 'command-name') ?? tagContent(t, 'command-message') ?? '').trim();
    const args = (tagContent(t, 'command-args') ?? '').trim();
    return { promptKind: 'command', text: [name, args].filter(Boolean).join(' ') };
  }
  if (t.startsWith('<task-notification>')) {
    const summary = tagContent(t, 'summary');
    const after = t.replace(/<task-notification>[\s\S]*?<\/task-notification>/, '').trim();
    return { promptKind: 'task-notification', text: [summary ?? t.replace(/<[^>]+>/g, ' '), after].filter(Boolean).join('\n') };
  }
  return { promptKind: 'human', text: raw };
}

/** A tool call: its summary (`input`: the short input, white space collapsed), and a shell
 *  call's whole command (`command`: as written, line breaks kept) when the summary cut it or
 *  lost its line breaks — what the hook reads from Claude Code's `tool_input.command`. */
export function toolCall(id: string | null, name: string, input: string, command: string | null = null): ToolCall {
  const summary = clip(input ? `${name}: ${input}` : name, MAX_TOOL_SUMMARY_CHARS);
  const whole = command?.trim() ?? '';
  const keep = whole !== '' && (`${name}: ${input}`.length > summary.length || whole.includes('\n'));
  return keep ? { id, name, summary, command: whole.slice(0, MAX_COMMAND_CHARS) } : { id, name, summary };
}

function shortInput(name: string, input: unknown): string {
  if (!isObj(input)) return '';
  const pick = (...keys: string[]): string | null => {
    for (const k of keys) {
      const v = input[k];
      if (typeof v === 'string' && v.trim()) return v;
    }
    return null;
  };
  let s: string | null;
  switch (name) {
    case 'Bash':
      s = pick('command', 'description');
      break;
    case 'Read':
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
    case 'NotebookEdit':
      s = pick('file_path', 'notebook_path', 'path');
      break;
    case 'Grep':
    case 'Glob':
      s = [pick('pattern'), pick('path', 'glob')].filter(Boolean).join(' in ') || null;
      break;
    case 'WebSearch':
      s = pick('query');
      break;
    case 'WebFetch':
      s = pick('url');
      break;
    case 'Task':
    case 'Agent':
      s = pick('description', 'subagent_type', 'prompt');
      break;
    case 'Skill':
      s = pick('skill', 'command');
      break;
    default:
      s = null;
      for (const v of Object.values(input)) {
        if (typeof v === 'string' && v.trim()) {
          s = v;
          break;
        }
      }
  }
  return (s ?? '').replace(/\s+/g, ' ').trim();
}

function parseUser(r: Obj, base: RecordBase): ParsedRecord | null {
  const msg = r.message;
  if (!isObj(msg)) return null;
  const content = msg.content;
  const blocks = Array.isArray(content) ? content.slice(0, MAX_BLOCKS) : null;
  if (blocks && blocks.some((b) => isObj(b) && b.type === 'tool_result')) {
    const results: ToolResultItem[] = [];
    for (const b of blocks) {
      if (!isObj(b) || b.type !== 'tool_result') continue;
      const raw = textOf(b.content);
      const text = clip(cleanToolText(raw), MAX_TOOL_RESULT_CHARS);
      const toolUseError = /^\s*<tool_use_error>/.test(raw);
      const isError = b.is_error === true || toolUseError || looksLikeFailure(text);
      results.push({ toolUseId: str(b.tool_use_id), isError, text, toolUseError });
    }
    const failing = results.filter((x) => x.isError);
    const shown = failing.length ? failing : results;
    return {
      ...base,
      kind: 'tool-result',
      results,
      isError: failing.length > 0,
      text: clip(shown.map((x) => x.text).join('\n'), MAX_TOOL_RESULT_CHARS),
    };
  }
  const raw = textOf(content);
  if (INTERRUPT.test(raw.trim())) return { ...base, kind: 'turn-end', reason: 'interrupted' };
  const { promptKind, text } = classifyPrompt(stripHookOutput(stripSystemReminders(raw)), r);
  return {
    ...base,
    kind: 'user-prompt',
    text: clip(text.trim(), MAX_PROMPT_CHARS),
    promptKind,
    injected: promptKind !== 'human',
    isMeta: r.isMeta === true,
  };
}

function parseAssistant(r: Obj, base: RecordBase): ParsedRecord | null {
  const msg = r.message;
  if (!isObj(msg)) return null;
  const content = msg.content;
  const texts: string[] = [];
  const toolCalls: ToolCall[] = [];
  if (typeof content === 'string') texts.push(content);
  else if (Array.isArray(content)) {
    for (const b of content.slice(0, MAX_BLOCKS)) {
      if (!isObj(b)) continue;
      if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text);
      else if (b.type === 'tool_use' && toolCalls.length < MAX_TOOL_CALLS_PER_RECORD) {
        const name = (str(b.name) ?? 'tool').slice(0, 64);
        const input = shortInput(name, b.input);
        const command = name === 'Bash' && isObj(b.input) && typeof b.input.command === 'string' ? b.input.command : null;
        toolCalls.push(toolCall(str(b.id), name, input, command));
      }
      // thinking, redacted_thinking, images and unknown blocks are ignored.
    }
  } else return null;
  return {
    ...base,
    kind: 'assistant',
    text: clip(texts.map((t) => t.trim()).filter(Boolean).join('\n'), MAX_ASSISTANT_CHARS),
    toolCalls,
    messageId: str(msg.id),
  };
}

const TURN_END_SUBTYPES: Record<string, TurnEndReason> = {
  turn_duration: 'turn-duration',
  stop_hook_summary: 'stop-hook',
  compact_boundary: 'compact',
};

function parseObject(r: Obj): ParsedRecord | null {
  const base = baseOf(r);
  switch (r.type) {
    case 'user':
      return parseUser(r, base);
    case 'assistant':
      return parseAssistant(r, base);
    case 'system': {
      const reason = typeof r.subtype === 'string' ? TURN_END_SUBTYPES[r.subtype] : undefined;
      return reason && Object.hasOwn(TURN_END_SUBTYPES, r.subtype as string) ? { ...base, kind: 'turn-end', reason } : null;
    }
    default:
      return null; // progress, file-history-snapshot, queue-operation, summary, unknown
  }
}

/** Parse an already-decoded JSON value (used by tests and by callers that decoded it). */
export function parseValue(value: unknown): ParsedRecord | null {
  try {
    return isObj(value) ? parseObject(value) : null;
  } catch {
    return null;
  }
}

/** One JSONL line → its decoded JSON value, or undefined when it is no JSON object line
 *  (blank, not starting with `{`, broken). Never throws. Both hosts' parsers read lines so. */
export function decodeJsonLine(line: string): unknown {
  if (typeof line !== 'string') return undefined;
  const t = line.trim();
  if (!t.startsWith('{')) return undefined;
  try {
    return JSON.parse(t);
  } catch {
    return undefined;
  }
}

/** One transcript line → a normalized record, or null (skipped). Never throws. */
export function parseLine(line: string): ParsedRecord | null {
  return parseValue(decodeJsonLine(line));
}
