/**
 * The MCP server as the plugin declares it: plugin.json's `mcpServers.active-brain` with
 * `${CLAUDE_PLUGIN_ROOT}` substituted the way Claude Code substitutes it (inline, and exported
 * to the server's environment), `node` from PATH. A real MCP client connects over stdio and
 * lists the two tools; a search on an empty state dir answers with a tool result, not a crash.
 */
import { describe, it, expect, afterAll } from 'vitest';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

const plugin = JSON.parse(readFileSync(join(repoRoot, '.claude-plugin', 'plugin.json'), 'utf8')) as { mcpServers: Record<string, { command: string; args: string[] }> };
const sub = (s: string) => s.replaceAll('${CLAUDE_PLUGIN_ROOT}', repoRoot);
let client: Client | null = null;
const dir = mkdtempSync(join(tmpdir(), 'ab-plugin-mcp-'));
afterAll(async () => {
  await client?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('plugin MCP server', () => {
  it('starts from the declaration and lists recall and search', async () => {
    const decl = plugin.mcpServers['active-brain'];
    const home = join(dir, 'home');
    const env = { ...process.env, CLAUDE_PLUGIN_ROOT: repoRoot, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() } as Record<string, string>;
    client = new Client({ name: 'plugin-test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: decl.command, args: decl.args.map(sub), env, stderr: 'pipe' }));
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['recall', 'search']);
    const r = (await client.callTool({ name: 'search', arguments: { query: 'anything', k: 1 } })) as { content: Array<{ text: string }> };
    expect(r.content[0].text.length).toBeGreaterThan(0);
  });
});
