/**
 * `active-brain mcp`: a stdio MCP server exposing the knowledge store to an agent that asks
 * for it — `recall(handle)` (the full chunk behind an offer) and `search(query, k)`.
 *
 *   Claude Code ──stdio JSON-RPC──▶ McpServer ──▶ store (read-only) + search/search.ts
 *                                              └─▶ logs/recalls.jsonl (handle, via "mcp")
 *
 * The store is opened read-only; the embedder loads lazily on the first vector search and
 * a model that cannot load degrades search to the keyword arm (said in the answer).
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';
import { readFileSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { StoreReader } from '../store/types.js';
import type { Embedder } from '../embed/types.js';
import { openStoreReader, missingStoreMessage } from '../store/sqlite-store.js';
import { storeLocation, storePresent } from '../store/location.js';
import { createEmbedder } from '../embed/embedder.js';
import { search } from '../search/search.js';
import { logRecall } from '../shared/recall-log.js';

/** Largest k a client may ask for. */
export const MCP_MAX_K = 50;
/** Characters of chunk text returned per search hit (recall returns the whole chunk). */
export const MCP_SNIPPET_CHARS = 400;

function packageVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }).version;
  } catch {
    return '0.0.0';
  }
}

export interface McpDeps {
  config: Config;
  env?: NodeJS.ProcessEnv;
}

export function createMcpServer({ config, env = process.env }: McpDeps): McpServer {
  const storePath = storeLocation(config, env);
  let store: StoreReader | null = null;
  let embedder: Promise<Embedder | null> | null = null;
  const openStore = (): StoreReader => {
    if (store) return store;
    if (!storePresent(storePath)) throw new Error(missingStoreMessage(storePath));
    store = openStoreReader(storePath);
    // A long-lived reader: the keyword index fills in the background (FTS5 answers until then).
    store.warm?.().catch(() => undefined);
    return store;
  };
  const getEmbedder = () => (embedder ??= createEmbedder(config.embedding, env).catch(() => null));

  const server = new McpServer({ name: 'active-brain', version: packageVersion() });
  const text = (t: string, isError = false) => ({ content: [{ type: 'text' as const, text: t }], isError });

  server.registerTool(
    'recall',
    {
      description: 'The full note or past-session chunk behind an active-brain offer handle (e.g. notes/pg/pool.md#2).',
      inputSchema: { handle: z.string().min(1).max(1000) },
    },
    async ({ handle }) => {
      try {
        const c = openStore().chunkByHandle(handle);
        if (!c) return text(`unknown handle: ${handle}. Use the search tool to find chunks.`, true);
        logRecall(handle, 'mcp', env);
        const date = new Date(c.createdAt).toISOString().slice(0, 10);
        return text(`${c.handle}\nregion: ${c.region} · source: ${c.path} · date: ${date}\n${c.heading ? `section: ${c.heading}\n` : ''}\n${c.text}`);
      } catch (e) {
        return text((e as Error).message, true);
      }
    },
  );

  server.registerTool(
    'search',
    {
      description: "Search the user's knowledge store (notes and past Claude Code sessions): hybrid keyword + vector.",
      inputSchema: { query: z.string().min(1).max(4000), k: z.number().int().min(1).max(MCP_MAX_K).optional() },
    },
    async ({ query, k }) => {
      try {
        const s = openStore();
        const emb = await getEmbedder();
        const r = await search(s, emb, query, { k: k ?? 5, arm: emb ? 'hybrid' : 'keyword' });
        if (!r.hits.length) return text('no matches');
        const lines = r.hits.map((h, i) => {
          const snippet = h.chunk.text.replace(/\s+/g, ' ').slice(0, MCP_SNIPPET_CHARS);
          return `${i + 1}. ${h.chunk.handle} (${h.chunk.region}, score ${h.score.toFixed(3)})\n   ${snippet}`;
        });
        const note = emb ? '' : '\n(keyword search only: the embedding model could not be loaded)';
        return text(lines.join('\n') + note);
      } catch (e) {
        return text((e as Error).message, true);
      }
    },
  );
  return server;
}

export async function runMcpServer(deps: McpDeps): Promise<void> {
  const server = createMcpServer(deps);
  await server.connect(new StdioServerTransport());
}
