/**
 * Codex CLI rollout lines → the same ParsedRecords Claude Code lines give
 * (transcript/records.ts), so ExchangeAssembler and ToolStepTracker work unchanged.
 *
 * Input: one line of `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, each
 * `{timestamp, type, payload}` (openai/codex codex-rs protocol RolloutLine / RolloutItem;
 * sources in docs/CODEX.md). Output, per line:
 *   session_meta                      → nothing; remembers the session id and cwd
 *   turn_context                      → nothing; remembers the cwd
 *   response_item message user        → user-prompt (`<environment_context>`, AGENTS.md
 *                                       and other injected blocks: promptKind `meta`)
 *   response_item message assistant   → assistant (output_text joined)
 *   response_item function_call / custom_tool_call / local_shell_call
 *                                     → assistant with one tool call (id = call_id; the
 *                                       shell tools are named `Bash`, as Codex's hooks do)
 *   response_item function_call_output / custom_tool_call_output
 *                                     → tool-result; failed per shared/codex-output.ts or
 *                                       `success: false`
 *   event_msg task_complete / turn_aborted, compacted → turn-end
 *   everything else (reasoning, developer messages, other event_msg, unknown types, broken
 *   JSON)                             → null
 * The state is per file (the session id and cwd of the rollout, which later lines do not
 * repeat): make one CodexRecordParser per file. A rollout without session_meta (or read
 * from the middle) uses the id in its file name. Pure apart from that state; never throws.
 */
import {
  MAX_ASSISTANT_CHARS,
  MAX_PROMPT_CHARS,
  MAX_TOOL_CALLS_PER_RECORD,
  MAX_TOOL_RESULT_CHARS,
  decodeJsonLine,
  toolCall,
  type ParsedRecord,
  type PromptKind,
  type RecordBase,
  type ToolCall,
} from './records.js';
import { codexErrorText, readCodexToolOutput } from '../shared/codex-output.js';
import { isObj, type Obj } from '../shared/json-object.js';

/** Codex tool names that run a shell command: shown as `Bash` (the name Codex's hooks use). */
export const CODEX_SHELL_TOOLS = ['exec_command', 'shell', 'shell_command', 'local_shell', 'container.exec'] as const;
/** Content items looked at in one message (a hostile line cannot make us loop long). */
const MAX_ITEMS = 256;
/** Text blocks Codex injects as user messages: context, not something the person typed. */
const INJECTED_RE = /^(<environment_context>|<user_instructions>|<INSTRUCTIONS>|# AGENTS\.md instructions|<user_shell_command>|<turn_aborted>|<permissions instructions>|<collaboration_mode>)/;
/** event_msg types that end a turn, and why. */
const TURN_END_EVENTS: Readonly<Record<string, 'turn-duration' | 'interrupted'>> = {
  task_complete: 'turn-duration',
  turn_complete: 'turn-duration',
  turn_aborted: 'interrupted',
};

const str = (v: unknown): string | null => (typeof v === 'string' ? v : null);
const clip = (s: string, max: number) => (s.length <= max ? s : s.slice(0, max));

/** The session id in a rollout file name (`rollout-2025-01-02T03-04-05-<uuid>.jsonl`), or the
 *  name without `.jsonl` when it holds none. */
export function sessionIdFromRolloutName(name: string): string {
  const base = name.replace(/^.*[\\/]/, '').replace(/\.jsonl$/, '');
  const m = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/i.exec(base);
  return m ? m[1] : base;
}

function timestampOf(v: unknown): number | null {
  if (typeof v !== 'string' && typeof v !== 'number') return null;
  const t = typeof v === 'number' ? v : Date.parse(v);
  return Number.isFinite(t) ? t : null;
}

/** Text of a message's content items of the given types (`input_text`, `output_text`). */
function itemsText(content: unknown, types: readonly string[]): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  for (const c of content.slice(0, MAX_ITEMS)) {
    if (isObj(c) && typeof c.text === 'string' && types.includes(c.type as string)) parts.push(c.text);
  }
  return parts.join('\n');
}

/** `bash -lc "<script>"` → the script; other argv → joined. */
function commandOf(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (!Array.isArray(v) || !v.every((x) => typeof x === 'string')) return null;
  const argv = v as string[];
  if (argv.length >= 3 && /(^|\/)(ba|z|da)?sh$/.test(argv[0]) && /^-\w*c$/.test(argv[1])) return argv[argv.length - 1];
  return argv.join(' ');
}

function argsOf(raw: unknown): Obj {
  if (isObj(raw)) return raw;
  if (typeof raw !== 'string' || !raw.trimStart().startsWith('{')) return {};
  try {
    const v = JSON.parse(raw) as unknown;
    return isObj(v) ? v : {};
  } catch {
    return {};
  }
}

/** A tool call's name and `Name: short input` (bounded). */
function toolCallOf(name: string, input: Obj | string, id: string | null): ToolCall {
  const shell = (CODEX_SHELL_TOOLS as readonly string[]).includes(name);
  const shown = shell ? 'Bash' : name.slice(0, 64);
  let s: string | null = null;
  if (typeof input === 'string') {
    // apply_patch's freeform input: the first file it touches
    const m = /^\*\*\* (?:Update|Add|Delete) File: (.+)$/m.exec(input.slice(0, 4096));
    s = m ? m[1] : input.split('\n', 1)[0];
  } else if (shell) s = commandOf(input.cmd) ?? commandOf(input.command);
  else {
    for (const v of Object.values(input)) {
      if (typeof v === 'string' && v.trim()) {
        s = v;
        break;
      }
    }
  }
  const short = (s ?? '').replace(/\s+/g, ' ').trim();
  // A shell command the summary cut, or whose line breaks it lost, is kept whole (records.ts toolCall).
  return toolCall(id, shown, short, shell ? s : null);
}

/** The text of a tool output: a string, `{content}` / `{output}`, or content items. */
function outputText(output: unknown): string {
  if (typeof output === 'string') return output;
  if (Array.isArray(output)) return itemsText(output, ['input_text', 'output_text', 'text']);
  if (isObj(output)) {
    if (typeof output.content === 'string') return output.content;
    if (Array.isArray(output.content)) return itemsText(output.content, ['input_text', 'output_text', 'text']);
    if (typeof output.output === 'string') return output.output;
  }
  return '';
}

export class CodexRecordParser {
  private sessionId: string | null;
  private cwd: string | null = null;
  private version: string | null = null;
  /** session_meta's `originator` (`codex_cli_rs`, `codex_exec` for `codex exec`…): the
   *  records' entrypoint, so `workers.entrypoints` can name non-interactive runs. */
  private originator = 'codex';

  /** `fallbackSessionId`: the id in the file name (used until session_meta names one). */
  constructor(fallbackSessionId: string | null = null) {
    this.sessionId = fallbackSessionId;
  }

  /** One rollout line → a record, or null (skipped). Never throws. */
  parseLine(line: string): ParsedRecord | null {
    return this.parseValue(decodeJsonLine(line));
  }

  /** An already-decoded line → a record, or null. Never throws. */
  parseValue(v: unknown): ParsedRecord | null {
    try {
      return isObj(v) ? this.parseObject(v) : null;
    } catch {
      return null;
    }
  }

  private base(line: Obj, id: string | null): RecordBase {
    return {
      uuid: id,
      sessionId: this.sessionId,
      timestamp: timestampOf(line.timestamp),
      cwd: this.cwd,
      gitBranch: null,
      entrypoint: this.originator,
      isSidechain: false,
      agentId: null,
      version: this.version,
    };
  }

  private parseObject(line: Obj): ParsedRecord | null {
    const p = line.payload;
    if (!isObj(p)) return null;
    switch (line.type) {
      case 'session_meta': {
        const meta = isObj(p.meta) ? p.meta : p; // newer versions nest it: {meta, git}
        this.sessionId = str(meta.id) ?? this.sessionId;
        this.cwd = str(meta.cwd) ?? this.cwd;
        this.version = str(meta.cli_version) ?? this.version;
        this.originator = str(meta.originator)?.slice(0, 64) || this.originator;
        return null;
      }
      case 'turn_context':
        this.cwd = str(p.cwd) ?? this.cwd;
        return null;
      case 'compacted':
        return { ...this.base(line, null), kind: 'turn-end', reason: 'compact' };
      case 'event_msg': {
        const reason = typeof p.type === 'string' && Object.hasOwn(TURN_END_EVENTS, p.type) ? TURN_END_EVENTS[p.type] : undefined;
        return reason ? { ...this.base(line, null), kind: 'turn-end', reason } : null;
      }
      case 'response_item':
        return this.responseItem(line, p);
      default:
        return null;
    }
  }

  private responseItem(line: Obj, p: Obj): ParsedRecord | null {
    const id = str(p.id);
    switch (p.type) {
      case 'message': {
        if (p.role === 'user') {
          const raw = itemsText(p.content, ['input_text']).trim();
          if (!raw) return null;
          const injected = INJECTED_RE.test(raw);
          const promptKind: PromptKind = injected ? 'meta' : 'human';
          return { ...this.base(line, id), kind: 'user-prompt', text: clip(raw, MAX_PROMPT_CHARS), promptKind, injected, isMeta: injected };
        }
        if (p.role === 'assistant') {
          const text = itemsText(p.content, ['output_text']).trim();
          return { ...this.base(line, id), kind: 'assistant', text: clip(text, MAX_ASSISTANT_CHARS), toolCalls: [], messageId: id };
        }
        return null; // developer / system instructions
      }
      case 'function_call': {
        const call = toolCallOf(str(p.name) ?? 'tool', argsOf(p.arguments), str(p.call_id) ?? id);
        return this.callRecord(line, id, call);
      }
      case 'custom_tool_call': {
        const call = toolCallOf(str(p.name) ?? 'tool', typeof p.input === 'string' ? p.input : '', str(p.call_id) ?? id);
        return this.callRecord(line, id, call);
      }
      case 'local_shell_call': {
        const action = isObj(p.action) ? p.action : {};
        return this.callRecord(line, id, toolCallOf('local_shell', { command: action.command }, str(p.call_id) ?? id));
      }
      case 'function_call_output':
      case 'custom_tool_call_output':
        return this.resultRecord(line, p);
      default:
        return null; // reasoning, web_search_call, unknown items
    }
  }

  private callRecord(line: Obj, id: string | null, call: ToolCall): ParsedRecord {
    const toolCalls = MAX_TOOL_CALLS_PER_RECORD > 0 ? [call] : [];
    return { ...this.base(line, id), kind: 'assistant', text: '', toolCalls, messageId: id };
  }

  private resultRecord(line: Obj, p: Obj): ParsedRecord {
    const raw = outputText(p.output);
    const o = readCodexToolOutput(raw);
    const flagged = isObj(p.output) && p.output.success === false;
    const isError = o.failed || flagged;
    const text = clip((isError ? codexErrorText(o) : o.output).trim(), MAX_TOOL_RESULT_CHARS);
    const item = { toolUseId: str(p.call_id), isError, text };
    return { ...this.base(line, null), kind: 'tool-result', results: [item], isError, text };
  }
}
