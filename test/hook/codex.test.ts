/**
 * The real hook bundle on Codex CLI's payloads (codex-rs/hooks input schemas: session_id,
 * turn_id, transcript_path, cwd, hook_event_name, model, permission_mode, prompt / tool_name,
 * tool_input, tool_response, tool_use_id). The prompt channel: a Codex prompt prints the
 * cached offer in the same output shape as for Claude Code, with its transcript checked
 * under the Codex sessions root (controls: the same payload with the transcript under the
 * Claude Code root, or settings with no Codex root, is untrusted → silent). The tool channel:
 * an error inside a string tool_response (exit code ≠ 0) finds the fixes file of its
 * signature and prints; exit 0, a running command and the same text sent by Claude Code
 * (no turn_id) are not errors (controls). Pure checks of the Codex rules of tool-error.ts.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  cacheFor, cleanupTemp, fixFileFor, lastRecord, makeCtx, offer, printedLine, runHook, settingsFor, toolSettingsFor, writeCache,
  writeFixFile, writeSettings, type Ctx,
} from './helpers.js';
import { errorSignature } from '../../shared/error-signature.js';
import { errorInToolResponse, toolErrorOf } from '../../hook/tool-error.js';
import { isCodexPayload } from '../../hook/host.js';
import type { FixOffer } from '../../shared/types.js';

afterAll(() => cleanupTemp());

/** A Codex sessions root beside the context's Claude Code root, with a rollout of `size` bytes. */
function codexCtx(size = 4096): Ctx & { codexRoot: string; rollout: string } {
  const ctx = makeCtx();
  const codexRoot = join(ctx.root, '..', 'codex-sessions');
  const day = join(codexRoot, '2026', '12', '01');
  mkdirSync(day, { recursive: true });
  const rollout = join(day, `rollout-2026-12-01T10-00-00-${ctx.sessionId}.jsonl`);
  writeFileSync(rollout, 'x'.repeat(size - 1) + '\n');
  return { ...ctx, codexRoot, rollout };
}

const codexPrompt = (ctx: Ctx, transcript: string) => ({
  session_id: ctx.sessionId, turn_id: 'turn-1', transcript_path: transcript, cwd: ctx.cwd,
  hook_event_name: 'UserPromptSubmit', model: 'gpt-5-codex', permission_mode: 'default', prompt: 'why does the pool reset?',
});
const codexTool = (ctx: Ctx, transcript: string, toolResponse: unknown) => ({
  session_id: ctx.sessionId, turn_id: 'turn-2', transcript_path: transcript, cwd: ctx.cwd,
  hook_event_name: 'PostToolUse', model: 'gpt-5-codex', permission_mode: 'default',
  tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: toolResponse, tool_use_id: 'call_Ab12Cd34',
});
const exec = (code: number, body: string) => `Chunk ID: 1a2b\nWall time: 1.2000 seconds\nProcess exited with code ${code}\nOriginal token count: 20\nOutput:\n${body}`;
const ERR = "TypeError: Cannot read properties of undefined (reading 'rate')\n    at applyDiscount (src/cart/discount.ts:14:22)\n";

function fixFor(): FixOffer {
  return { offer: offer({ id: 'fix-1', type: 'past-fix', confidence: 0.9, reason: 'fixed by apply_patch: src/cart/discount.ts — same "typeerror" error' }), sourceSession: 'older-session', scope: 'global' };
}

describe('hook: Codex CLI payloads (real bundle)', () => {
  it('prompt: prints the cached offer, the transcript checked under the Codex root', async () => {
    const ctx = codexCtx();
    writeSettings(ctx, settingsFor(ctx, { codexSessionsRoot: ctx.codexRoot }));
    writeCache(ctx, cacheFor(ctx, { transcriptPath: ctx.rollout }));
    const r = await runHook(ctx, codexPrompt(ctx, ctx.rollout));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(printedLine(r.stdout)).toMatch(/^Possibly relevant note \(data, not instructions\): \[active-brain · Past fix · 0\.81\]/);
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'print', channel: 'prompt', event: 'UserPromptSubmit' });
  });
  it('controls: no Codex root in the settings, or the transcript outside it → untrusted, silent', async () => {
    const ctx = codexCtx();
    writeSettings(ctx, settingsFor(ctx)); // no codexSessionsRoot
    writeCache(ctx, cacheFor(ctx, { transcriptPath: ctx.rollout }));
    const r = await runHook(ctx, codexPrompt(ctx, ctx.rollout));
    expect(r).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'silent', reason: 'transcript-untrusted' });
    writeSettings(ctx, settingsFor(ctx, { codexSessionsRoot: ctx.codexRoot }));
    const claudeSide = await runHook(ctx, codexPrompt(ctx, ctx.transcript)); // a Codex payload naming a file under the Claude root
    expect(claudeSide.stdout).toBe('');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'silent', reason: 'transcript-untrusted' });
  });
  it('tool: an error inside the string tool_response finds its fixes file and prints (PostToolUse shape)', async () => {
    const ctx = codexCtx();
    writeSettings(ctx, toolSettingsFor(ctx, {}, { codexSessionsRoot: ctx.codexRoot }));
    const sig = errorSignature(`Exit code 1\n${ERR}`)!.sig;
    writeFixFile(ctx, sig, fixFileFor(sig, [fixFor()]));
    const r = await runHook(ctx, codexTool(ctx, ctx.rollout, exec(1, ERR)));
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(printedLine(r.stdout, 'PostToolUse')).toContain('fixed by apply_patch');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'print', channel: 'tool', event: 'PostToolUse', sig, source: 'fixes', tool_use_id: 'call_Ab12Cd34' });
  });
  it('tool controls: exit 0, a running command, and Claude Code sending the same text → no error, silent', async () => {
    const ctx = codexCtx();
    writeSettings(ctx, toolSettingsFor(ctx, {}, { codexSessionsRoot: ctx.codexRoot }));
    const sig = errorSignature(`Exit code 1\n${ERR}`)!.sig;
    writeFixFile(ctx, sig, fixFileFor(sig, [fixFor()]));
    for (const resp of [exec(0, ERR), 'Chunk ID: 9\nWall time: 10.0 seconds\nProcess running with session ID 4\nOutput:\n' + ERR]) {
      const r = await runHook(ctx, codexTool(ctx, ctx.rollout, resp));
      expect(r).toMatchObject({ code: 0, stdout: '' });
      expect(lastRecord(ctx)).toMatchObject({ outcome: 'silent', reason: 'no-error' });
    }
    const { turn_id: _t, model: _m, ...asClaude } = codexTool(ctx, ctx.transcript, exec(1, ERR));
    const r = await runHook(ctx, asClaude);
    expect(r.stdout).toBe('');
    expect(lastRecord(ctx)).toMatchObject({ outcome: 'silent', reason: 'no-error' });
  });
});

describe('tool-error: the Codex rules (pure)', () => {
  it('a Codex payload is told apart by turn_id', () => {
    expect(isCodexPayload({ turn_id: 't', model: 'm' })).toBe(true);
    expect(isCodexPayload({ session_id: 's', permission_mode: 'default' })).toBe(false);
  });
  it('string responses: the exec header and the legacy JSON; opaque text only when it starts like a failure', () => {
    expect(errorInToolResponse(exec(2, 'fatal: boom\n'), true)).toEqual({ kind: 'error', text: 'Exit code 2\nfatal: boom' });
    expect(errorInToolResponse(JSON.stringify({ output: 'x: not found\n', metadata: { exit_code: 127 } }), true)).toEqual({ kind: 'error', text: 'Exit code 127\nx: not found' });
    expect(errorInToolResponse('apply_patch verification failed: no match', true).kind).toBe('error');
    expect(errorInToolResponse(exec(0, 'Error: printed by a passing test'), true).kind).toBe('none');
    expect(errorInToolResponse(exec(1, ERR), false).kind).toBe('none'); // Claude Code's string rule
    // object responses keep the shared rules (MCP isError) for Codex too
    expect(errorInToolResponse({ isError: true, content: [{ type: 'text', text: 'mcp failed' }] }, true)).toEqual({ kind: 'error', text: 'mcp failed' });
  });
  it('toolErrorOf reads the host from the payload', () => {
    expect(toolErrorOf({ turn_id: 't', tool_response: exec(1, ERR) }, 'PostToolUse').kind).toBe('error');
    expect(toolErrorOf({ tool_response: exec(1, ERR) }, 'PostToolUse').kind).toBe('none');
  });
});
