/** `active-brain mcp`: the stdio MCP server (recall, search). See ops/mcp-server.ts. */
import { parseFlags, EXIT, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';

export const command: Command = {
  name: 'mcp',
  summary: 'stdio MCP server with recall and search tools',
  help: `usage: active-brain mcp

Runs a Model Context Protocol server on stdin/stdout with two tools:
  recall(handle)     the full chunk behind an offer's handle
  search(query, k)   hybrid search over the knowledge store (read-only)
Register it with Claude Code:
  claude mcp add active-brain -- active-brain mcp
Recalls are logged (handle only) so \`soak report\` can tell which offers were used.`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    const { config } = loadConfig({ flags: values.set });
    const { runMcpServer } = await import('../../ops/mcp-server.js');
    await runMcpServer({ config });
    return EXIT.OK;
  },
};
