/**
 * Which hook event the real Claude Code fires for which tool outcome (issue 23 item 14), and
 * so where the hook is registered. A recording hook (a shell command saving each payload) is
 * registered for PostToolUse (every tool) and PostToolUseFailure; the scripted model calls:
 *   Bash that succeeds ×3, Bash that exits non-zero, an MCP tool whose successful response
 *   carries isError: true, an MCP tool that succeeds.
 * Seen with 2.1.332: both failures (the Bash exit code and the MCP isError result) arrive at
 * PostToolUseFailure, never at PostToolUse — so PostToolUse can help nowhere in Claude Code
 * and install does not register it (ops/hook-install.ts CLAUDE_EVENTS). Then `active-brain
 * install` as shipped: only the prompt and the two failures start the hook.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli } from '../daemon/helpers.js';
import { hookRecords } from '../daemon/hook-process.js';
import { repoRoot } from '../helpers/model.js';
import { requireHost } from './hosts.js';
import { sinceLastAnswer, type Step } from '../../bench/host-model-server.js';
import { hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
let w: HostWorld;

const MCP = join(repoRoot, 'test', 'host', 'fixtures', 'mcp-tools.mjs');
const SCRIPT: Step[] = [
  ...[1, 2, 3].map((i) => ({ tool: 'Bash', input: { command: `echo step-${i}`, description: 'Echo' } })),
  { tool: 'Bash', input: { command: 'ls ./no-such-folder', description: 'List' } },
  { tool: 'mcp__tools__broken', input: {} },
  { tool: 'mcp__tools__ok', input: {} },
  { text: 'Done.' },
];

function mcpConfig(w: HostWorld): string {
  const p = join(w.base, 'mcp.json');
  writeFileSync(p, JSON.stringify({ mcpServers: { tools: { command: process.execPath, args: [MCP] } } }));
  return p;
}
const TOOLS = 'Bash,mcp__tools__broken,mcp__tools__ok';

describe.skipIf(!!host.skip)('hook events as the real Claude Code fires them', () => {
  beforeAll(() => {
    w = hostWorld(host.bin, 'ab-host-events-');
  });
  afterAll(() => w?.cleanup());

  it('a failing Bash call and an MCP isError result fire PostToolUseFailure only; successes fire PostToolUse', async () => {
    const rec = join(w.base, 'events');
    mkdirSync(rec);
    const save = { type: 'command', command: `cat > "${rec}/$(date +%s%N)-$$.json"`, timeout: 5 };
    mkdirSync(join(w.userHome, '.claude'), { recursive: true });
    writeFileSync(join(w.userHome, '.claude', 'settings.json'), JSON.stringify({ hooks: { PostToolUse: [{ hooks: [save] }], PostToolUseFailure: [{ hooks: [save] }] } }));
    const cwd = join(w.base, 'work');
    const { run, model } = await w.claude(SCRIPT, { cwd, tools: TOOLS, extra: ['--mcp-config', mcpConfig(w)] });
    expect(run.code, run.stderr).toBe(0);
    expect(model.agentRequests()).toHaveLength(SCRIPT.length);
    // The MCP tool really ran and its error reached the model.
    expect(sinceLastAnswer(model.agentRequests()[5])).toContain('ECONNREFUSED 127.0.0.1:5432');
    const seen = readdirSync(rec).sort().map((n) => JSON.parse(readFileSync(join(rec, n), 'utf8')) as Record<string, unknown>);
    const summary = seen.map((p) => `${String(p.hook_event_name)} ${String(p.tool_name)}`);
    expect(summary).toEqual([
      'PostToolUse Bash',
      'PostToolUse Bash',
      'PostToolUse Bash',
      'PostToolUseFailure Bash',
      'PostToolUseFailure mcp__tools__broken',
      'PostToolUse mcp__tools__ok',
    ]);
    // The failures' text is the payload's `error` (what the hook signs), for MCP too.
    expect(seen[3].error).toMatch(/^Exit code 2\n.*No such file or directory/s);
    expect(String(seen[4].error)).toContain('ECONNREFUSED 127.0.0.1:5432');
  });

  it('installed as shipped: no hook process on a successful call; the prompt and the two failures start it', async () => {
    writeFileSync(join(w.userHome, '.claude', 'settings.json'), '{}\n');
    const ins = cli(w, ['install']);
    expect(ins.code, ins.stderr + ins.stdout).toBe(0);
    const settings = JSON.parse(readFileSync(join(w.userHome, '.claude', 'settings.json'), 'utf8')) as { hooks: Record<string, Array<{ matcher?: string }>> };
    expect(Object.keys(settings.hooks).sort()).toEqual(['PostToolUseFailure', 'UserPromptSubmit']);
    const before = hookRecords(w).length;
    const cwd = join(w.base, 'work2');
    const { run } = await w.claude(SCRIPT, { cwd, tools: TOOLS, extra: ['--mcp-config', mcpConfig(w)] });
    expect(run.code, run.stderr).toBe(0);
    const runs = hookRecords(w).slice(before).map((r) => r.event);
    expect(runs).toEqual(['UserPromptSubmit', 'PostToolUseFailure', 'PostToolUseFailure']);
  });
});
