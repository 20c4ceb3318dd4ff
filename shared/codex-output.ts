/**
 * Codex CLI tool output → whether it failed and the text to sign. Pure (shared/ only):
 * used by transcript/codex-records.ts (a rollout's `function_call_output` /
 * `custom_tool_call_output`) and by the hook (hook/tool-error.ts: a Codex PostToolUse
 * `tool_response`, which for shell tools is the same model-facing text as a plain string).
 *
 * The shapes, as openai/codex writes them (codex-rs; see docs/CODEX.md for the sources):
 *   - unified exec (`exec_command`, `write_stdin`): header lines, then `Output:` and the output:
 *       Chunk ID: …  /  Wall time: 0.1234 seconds  /  Process exited with code N
 *       [Process running with session ID …]  [Original token count: …]  Output:  <text>
 *   - `shell_command` (freeform): `Exit code: N`, `Wall time: …`, `Output:`, <text>
 *   - legacy `shell` / `local_shell` / apply_patch: a JSON string
 *       {"output": "<text>", "metadata": {"exit_code": N, "duration_seconds": …}}
 * Anything else is opaque text: it fails only when it starts the way a failure does
 * (`Error:`, `error:`, `apply_patch verification failed`) — narrow on purpose.
 *
 * The text to sign is `Exit code N` + the output, the same shape as Claude Code's Bash
 * failures, so the daemon, the indexer and the hook sign the same error the same way (the
 * varying header lines — chunk id, wall time — are left out).
 */

import { isObj } from './json-object.js';

export interface CodexToolOutput {
  /** The exit code the output names, or null when it names none. */
  exitCode: number | null;
  /** The output without the header lines. */
  output: string;
  /** The call failed: a non-zero exit code, or opaque text that starts like a failure. */
  failed: boolean;
}

/** Characters of an output looked at (a 1 MB output costs no more than this). */
export const MAX_CODEX_OUTPUT_CHARS = 65_536;
/** Header lines read before `Output:` (the exec header has at most six). */
const MAX_HEADER_LINES = 8;

const EXIT_RE = /^(?:Process exited with code|Exit code:)\s*(-?\d+)\s*$/;
const HEADER_RE = /^(?:Chunk ID:|Wall time:|Process exited with code|Process running with session ID|Original token count:|Exit code:|Total output lines:)/;
const OPAQUE_FAILURE_RE = /^(?:Error:|error:|apply_patch verification failed|Failed to (?:parse|apply|find))/;

function fromJson(text: string): CodexToolOutput | null {
  if (!text.startsWith('{"output"') && !text.startsWith('{"metadata"')) return null;
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return null;
  }
  if (!isObj(v) || typeof v.output !== 'string') return null;
  const meta = isObj(v.metadata) ? v.metadata : {};
  const code = typeof meta.exit_code === 'number' && Number.isFinite(meta.exit_code) ? meta.exit_code : null;
  return { exitCode: code, output: v.output, failed: code !== null && code !== 0 };
}

function fromHeader(text: string): CodexToolOutput | null {
  const lines = text.split('\n', MAX_HEADER_LINES + 1);
  let code: number | null = null;
  let offset = 0;
  for (let i = 0; i < Math.min(lines.length, MAX_HEADER_LINES); i++) {
    const line = lines[i].replace(/\r$/, '');
    offset += lines[i].length + 1;
    if (line === 'Output:') return { exitCode: code, output: text.slice(offset), failed: code !== null && code !== 0 };
    if (!HEADER_RE.test(line)) return null;
    const m = EXIT_RE.exec(line);
    if (m) code = Number(m[1]);
  }
  return null;
}

/** Read one tool output text (see the header). Never throws. */
export function readCodexToolOutput(raw: string): CodexToolOutput {
  const text = raw.length > MAX_CODEX_OUTPUT_CHARS ? raw.slice(0, MAX_CODEX_OUTPUT_CHARS) : raw;
  const t = text.trimStart();
  const known = fromJson(t) ?? fromHeader(t);
  if (known) return known;
  return { exitCode: null, output: text, failed: OPAQUE_FAILURE_RE.test(t) };
}

/** The text to sign for a failed output: `Exit code N` + the output (or the output alone). */
export function codexErrorText(o: CodexToolOutput): string {
  const body = o.output.trim();
  return o.exitCode !== null && o.exitCode !== 0 ? (body ? `Exit code ${o.exitCode}\n${body}` : `Exit code ${o.exitCode}`) : body;
}
