import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
let home: string;
let env: Record<string, string>;
let client: Client;

type ToolResult = { content: Array<{ type: string; text: string }>; isError?: boolean };

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ab-mcp-'));
  home = join(dir, 'home');
  const notes = join(dir, 'notes');
  mkdirSync(join(notes, 'pg'), { recursive: true });
  writeFileSync(join(notes, 'pg', 'pool-timeouts.md'), '# Postgres pool timeouts\n\n## Fix\n\nECONNRESET under load was fixed by raising the idle timeout of the connection pool to 30 seconds.\n');
  writeFileSync(join(notes, 'cats.md'), '# Cats\n\nThe cat sleeps on the sofa every afternoon and ignores the database entirely.\n');
  env = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() } as Record<string, string>;
  execFileSync(process.execPath, [cli, 'index', 'add', notes, '--region', 'notes', '--json'], { env, encoding: 'utf8' });
  client = new Client({ name: 'test', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp'], env, stderr: 'pipe' }));
}, 120_000);

afterAll(async () => {
  await client?.close();
});

describe('active-brain mcp (real stdio MCP server over a real store)', () => {
  it('lists the recall and search tools', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual(['recall', 'search']);
  });

  it('search finds the relevant note first; recall returns the full chunk and is logged', async () => {
    const s = (await client.callTool({ name: 'search', arguments: { query: 'connection pool ECONNRESET timeout', k: 3 } })) as ToolResult;
    expect(s.isError).toBeFalsy();
    const first = s.content[0].text.split('\n')[0];
    expect(first).toMatch(/pool-timeouts\.md#\d+/);
    const handle = /\d+\. (\S+)/.exec(first)![1];
    const r = (await client.callTool({ name: 'recall', arguments: { handle } })) as ToolResult;
    expect(r.isError).toBeFalsy();
    expect(r.content[0].text).toContain('raising the idle timeout');
    const recalls = readFileSync(join(home, 'logs', 'recalls.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(recalls.at(-1)).toMatchObject({ handle, via: 'mcp' });
  });

  it('an unknown handle is a tool error, not a crash (control: the server still answers)', async () => {
    const r = (await client.callTool({ name: 'recall', arguments: { handle: 'nope/missing.md#9' } })) as ToolResult;
    expect(r.isError).toBe(true);
    expect(r.content[0].text).toMatch(/unknown handle/);
    const { tools } = await client.listTools();
    expect(tools.length).toBe(2);
  });
});
