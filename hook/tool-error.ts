/**
 * The error a tool event carries, as the hook sees it on stdin. Pure and dependency-free
 * (bundled into the hook). Input: the payload of a PostToolUseFailure (`error`,
 * `is_interrupt`) or PostToolUse (`tool_response`, any shape). Output: the error text to
 * sign (shared/error-signature.ts), "interrupted", or "none".
 *
 * What counts as an error is narrow on purpose — a successful command's output is never one,
 * even when it mentions "error" or writes to stderr:
 *   - PostToolUseFailure: a non-empty string `error` (Claude Code already decided the call
 *     failed); `is_interrupt: true` is the user stopping it: not an error to fix.
 *   - PostToolUse `tool_response`:
 *       string                              → only a `<tool_use_error>` wrapper or a leading `Error: `
 *       {is_error: true, content}           → its text (a string or text blocks)
 *       {isError: true, content: [{type:'text', text}]}   (MCP)  → the text blocks
 *       {stdout, stderr, exitCode | exit_code: N ≠ 0} → "Exit code N", stderr, stdout
 *       {interrupted: true}                 → interrupted
 *       anything else (Bash's {stdout, stderr, interrupted: false}, file results, arrays of
 *       content blocks without an error flag, numbers, null) → none.
 *   Codex CLI's PostToolUse (it has no failure event; hook/host.ts tells its payloads apart):
 *       a string `tool_response` is the model-facing output of the shell tools
 *       (`Process exited with code N` / `Exit code: N` headers, or the legacy JSON
 *       `{"output", "metadata": {"exit_code"}}`) → shared/codex-output.ts: "Exit code N" and
 *       the output when N ≠ 0; other shapes as above.
 * Every text is bounded to MAX_SCAN_CHARS per part before it is joined (a 1 MB error costs
 * no more than a 16 KB one).
 */
import { MAX_SCAN_CHARS } from '../shared/error-signature.js';
import { codexErrorText, readCodexToolOutput } from '../shared/codex-output.js';
import { isCodexPayload } from './host.js';
import { isObj } from '../shared/json-object.js';

export type ToolErrorFound = { kind: 'error'; text: string } | { kind: 'interrupted' } | { kind: 'none' };

const NONE: ToolErrorFound = { kind: 'none' };
const INTERRUPTED: ToolErrorFound = { kind: 'interrupted' };

/** Content blocks read from an error's `content` (a hostile array cannot cost more). */
export const MAX_CONTENT_BLOCKS = 64;

const cap = (s: string) => (s.length > MAX_SCAN_CHARS ? s.slice(0, MAX_SCAN_CHARS) : s);
const TOOL_USE_ERROR_RE = /^\s*<tool_use_error>/;
const LEADING_ERROR_RE = /^Error: /;

function found(text: string): ToolErrorFound {
  return text.trim() ? { kind: 'error', text } : NONE;
}

/** Text of a `content` field: a string, or the `text` of its text blocks (bounded). */
export function contentText(content: unknown): string {
  if (typeof content === 'string') return cap(content);
  if (!Array.isArray(content)) return '';
  const parts: string[] = [];
  let size = 0;
  for (const b of content.slice(0, MAX_CONTENT_BLOCKS)) {
    if (!isObj(b) || b.type !== 'text' || typeof b.text !== 'string') continue;
    const t = cap(b.text);
    parts.push(t);
    size += t.length;
    if (size >= MAX_SCAN_CHARS) break;
  }
  return parts.join('\n');
}

/** The exit code of a command result, when it names one as a number. */
function exitCodeOf(r: Record<string, unknown>): number | null {
  for (const k of ['exitCode', 'exit_code']) {
    const v = r[k];
    if (typeof v === 'number' && Number.isFinite(v)) return v;
  }
  return null;
}

/** The error inside a PostToolUse `tool_response`, if it holds one (see the header).
 *  `codex`: the payload came from Codex CLI (its string responses are shell output). */
export function errorInToolResponse(resp: unknown, codex = false): ToolErrorFound {
  if (typeof resp === 'string' && codex) {
    const o = readCodexToolOutput(resp);
    return o.failed ? found(cap(codexErrorText(o))) : NONE;
  }
  if (typeof resp === 'string') return TOOL_USE_ERROR_RE.test(resp) || LEADING_ERROR_RE.test(resp) ? found(cap(resp)) : NONE;
  if (!isObj(resp)) return NONE;
  if (resp.is_error === true || resp.isError === true) return found(contentText(resp.content));
  if (resp.interrupted === true) return INTERRUPTED;
  const code = exitCodeOf(resp);
  if (code === null || code === 0) return NONE;
  const out = [`Exit code ${code}`];
  if (typeof resp.stderr === 'string' && resp.stderr) out.push(cap(resp.stderr));
  if (typeof resp.stdout === 'string' && resp.stdout) out.push(cap(resp.stdout));
  return found(out.join('\n'));
}

/** The error of a tool event's payload (`event` is PostToolUseFailure or PostToolUse). */
export function toolErrorOf(payload: Record<string, unknown>, event: string): ToolErrorFound {
  if (event === 'PostToolUseFailure') {
    if (payload.is_interrupt === true) return INTERRUPTED;
    return typeof payload.error === 'string' ? found(cap(payload.error)) : NONE;
  }
  if (event === 'PostToolUse') return errorInToolResponse(payload.tool_response, isCodexPayload(payload));
  return NONE;
}
