/**
 * `active-brain search "<query>"`: keyword, vector or hybrid search over the knowledge store
 * (search/search.ts), for people to try what the daemon would find. Reads the store
 * (read-only) and, for the vector and hybrid arms, embeds the query with the configured
 * model; writes only stdout.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { isAppError } from '../../shared/errors.js';
import { openStoreReader } from '../../store/sqlite-store.js';
import { storeLocation } from '../../store/location.js';
import type { StoreReader } from '../../store/types.js';
import { createEmbedder } from '../../embed/embedder.js';
import type { Embedder } from '../../embed/types.js';
import { search, needsVector, ARMS, DEFAULT_K, type Arm, type SearchResult } from '../../search/search.js';
import { snippet } from '../../search/snippet.js';
import { sanitizeLine } from '../../shared/escape.js';

/** Largest --k accepted. */
export const MAX_K = 100;

const HELP = `usage: active-brain search "<query>" [--k N] [--arm keyword|vector|hybrid] [--region NAME ...] [--json]

Searches the knowledge store the way the daemon does and prints the best chunks:
rank, score, handle, region and a one-line snippet. \`active-brain recall <handle>\` shows
a whole chunk.

Options:
  --k N            number of results (default ${DEFAULT_K}, at most ${MAX_K})
  --arm ARM        keyword (SQLite FTS5 BM25), vector (cosine over embeddings) or
                   hybrid (both, score-fused; the default)
  --region NAME    only this region (repeatable)
  --json           one JSON object: {query, arm, hits: [{handle, region, score, title, heading, snippet}]}
  --set key=value  config override (e.g. store.path=/tmp/store.sqlite)

Exit codes: 0 results printed (possibly none) · 2 usage · 3 no store / empty store /
model unavailable or not the model the store was built with.`;

function parseK(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_K;
  const k = Number(raw);
  if (!Number.isInteger(k) || k < 1 || k > MAX_K) throw new UserError(`--k must be an integer from 1 to ${MAX_K} (got "${raw}")`, EXIT.USAGE);
  return k;
}

function parseArm(raw: string | undefined): Arm {
  if (raw === undefined) return 'hybrid';
  if (!(ARMS as readonly string[]).includes(raw)) throw new UserError(`--arm must be one of ${ARMS.join(', ')} (got "${raw}")`, EXIT.USAGE);
  return raw as Arm;
}

export function toJson(r: SearchResult): Record<string, unknown> {
  return {
    query: r.query,
    arm: r.arm,
    hits: r.hits.map((h) => ({
      handle: h.chunk.handle,
      region: h.chunk.region,
      score: Number(h.score.toFixed(6)),
      title: h.chunk.title,
      heading: h.chunk.heading,
      snippet: snippet(h.chunk.text, r.query),
    })),
  };
}

/** What the score column means, per arm (printed above the hits). */
export const SCORE_MEANING: Record<SearchResult['arm'], string> = {
  keyword: 'BM25 relevance (higher is better; not bounded, not comparable across queries)',
  vector: 'cosine similarity to the query (−1…1)',
  hybrid: 'fused score 0–1 (each arm min-max scaled over these candidates: 1 = best here, 0 = weakest here)',
};

export function toText(r: SearchResult): string {
  if (r.hits.length === 0) return `no results for "${sanitizeLine(r.query)}" (${r.arm})`;
  const lines: string[] = [`score: ${SCORE_MEANING[r.arm]}`];
  for (const h of r.hits) {
    lines.push(`${String(h.rank).padStart(2)}. ${h.score.toFixed(3)}  ${sanitizeLine(h.chunk.handle)}  [${sanitizeLine(h.chunk.region)}]`);
    lines.push(`    ${snippet(h.chunk.text, r.query)}`);
  }
  return lines.join('\n');
}

export const command: Command = {
  name: 'search',
  summary: 'search the knowledge store (keyword / vector / hybrid)',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { k: { type: 'string' }, arm: { type: 'string' }, region: { type: 'string', multiple: true } });
    const query = positionals.join(' ').trim();
    if (!query) throw new UserError('search needs a query: active-brain search "<query>". Run with --help for usage.', EXIT.USAGE);
    const k = parseK(values.k);
    const arm = parseArm(values.arm);
    const { config } = loadConfig({ flags: values.set });
    const storePath = storeLocation(config);

    let store: StoreReader | null = null;
    let embedder: Embedder | null = null;
    try {
      store = openStoreReader(storePath);
      if (store.info().chunks === 0) {
        throw new UserError(store.emptyAdvice(), EXIT.ENV);
      }
      const regions = values.region ?? [];
      if (regions.length > 0) {
        const known = new Set(store.regions().map((r) => r.name));
        const unknown = regions.filter((r) => !known.has(r));
        if (unknown.length > 0) throw new UserError(`no region ${unknown.map((u) => `"${u}"`).join(', ')} in the store; regions: ${[...known].join(', ') || '(none)'}`, EXIT.USAGE);
      }
      // search() checks the store was built with this model (a mismatch says to re-index).
      if (needsVector(arm)) embedder = await createEmbedder(config.embedding);
      const result = await search(store, embedder, query, { k, arm, filter: regions.length > 0 ? { regions } : undefined });
      if (values.json) printJson(toJson(result));
      else process.stdout.write(toText(result) + '\n');
      return EXIT.OK;
    } catch (e) {
      if (!(e instanceof UserError) && isAppError(e)) throw new UserError(e.message, e.exitCode);
      throw e;
    } finally {
      store?.close();
      await embedder?.dispose();
    }
  },
};
