/**
 * `active-brain eval beir --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv`:
 * the standard BEIR file format (eval/beir.ts) indexed into a temp store (one chunk per
 * document: title as heading, text as body), every judged query asked through the keyword,
 * vector and hybrid arms, nDCG@10 and Recall@100 reported. Reads the three files; writes
 * only a temp dir (deleted after) and stdout.
 */
import { readFileSync } from 'node:fs';
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import type { Embedder } from '../../../embed/types.js';
import { parseBeir, type BeirData } from '../../../eval/beir.js';
import { buildTempStore, checkStoreUrl } from '../../../eval/temp-store.js';
import { collectArmLists, collectDepth, perQueryScores, meanScores, BEIR_METRICS, type ArmScores } from '../../../eval/arms.js';
import { loadEmbedder } from '../../../eval/load-embedder.js';
import { createProgress } from '../../../eval/progress.js';
import { round4 } from '../../../eval/metrics.js';
import { HYBRID_DEFAULTS } from '../../../search/fusion.js';
import type { HybridFusion } from '../../../search/search.js';
import { armsTable } from './arms-table.js';

export const help = `usage: active-brain eval beir --corpus corpus.jsonl --queries queries.jsonl --qrels qrels.tsv [--json] [--model PATH]

Retrieval quality on a BEIR-format data set: every corpus document becomes one chunk of a
temporary store (title as heading, text as body), every query with a relevant judged
document is asked, and nDCG@10 (graded) and Recall@100 are reported for the keyword, vector
and hybrid arms. Malformed lines are counted and skipped.

Files:
  --corpus FILE    JSON lines {"_id", "title", "text"}
  --queries FILE   JSON lines {"_id", "text"}
  --qrels FILE     TSV with a header: query-id <TAB> corpus-id <TAB> score
Options:
  --model PATH     a local transformers.js model folder (default: the configured model)
  --store-url URL  an administrator's postgres:// URL: the temporary store is a fresh schema
                   on that server (created, then dropped, with its roles): the team store's ranking
  --json           one JSON object: {"queries", "ndcg@10": {"keyword","vector","hybrid"}, "recall@100": {…}, …}
  --set key=value  config override`;

export interface BeirReport {
  queries: number;
  documents: number;
  unjudged: number;
  skipped: BeirData['skipped'];
  model: string;
  /** Where the temporary store was built. */
  backend: 'sqlite' | 'postgres';
  fusion: HybridFusion;
  scores: ArmScores;
}

/** Index the corpus into a temp store and score every query (also used by the retrieval bench). */
export async function evaluateBeir(
  data: BeirData,
  embedder: Embedder,
  opts: { fusion?: Partial<HybridFusion>; onProgress?: (phase: 'index' | 'query', done: number) => void; storeUrl?: string } = {},
): Promise<BeirReport> {
  const fusion: HybridFusion = { ...HYBRID_DEFAULTS, ...opts.fusion };
  const store = await buildTempStore(
    embedder,
    [{ name: 'corpus', title: '', items: data.docs.map((d) => ({ id: d.id, heading: d.title, text: d.text })) }],
    { onProgress: (n) => opts.onProgress?.('index', n), storeUrl: opts.storeUrl },
  );
  try {
    const lists = await collectArmLists(store.reader, embedder, data.queries, collectDepth(BEIR_METRICS, fusion), (n) => opts.onProgress?.('query', n));
    const scores = meanScores(perQueryScores(data.queries, lists, store.idOf, BEIR_METRICS, fusion));
    const rounded: ArmScores = {};
    for (const [name, a] of Object.entries(scores)) rounded[name] = { keyword: round4(a.keyword), vector: round4(a.vector), hybrid: round4(a.hybrid) };
    return { queries: data.queries.length, documents: data.docs.length, unjudged: data.unjudged, skipped: data.skipped, model: embedder.modelId, backend: opts.storeUrl ? 'postgres' : 'sqlite', fusion, scores: rounded };
  } finally {
    store.dispose();
  }
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (e) {
    throw new UserError(`cannot read the ${what} file ${path}: ${(e as Error).message}`, EXIT.ENV);
  }
}

export function reportJson(r: BeirReport): Record<string, unknown> {
  return { queries: r.queries, ...r.scores, documents: r.documents, unjudged_queries: r.unjudged, skipped_lines: r.skipped, model: r.model, backend: r.backend, fusion: r.fusion };
}

export function reportText(r: BeirReport): string {
  const lines = [
    `BEIR retrieval: ${r.queries} queries over ${r.documents} documents (model ${r.model}, store ${r.backend})`,
    `not scored: ${r.unjudged} queries without a relevant judged document; skipped lines: corpus ${r.skipped.corpus}, queries ${r.skipped.queries}, qrels ${r.skipped.qrels}`,
    `hybrid fusion: ${r.fusion.method}, keyword ${r.fusion.keywordWeight} / vector ${r.fusion.vectorWeight}`,
    '',
    ...armsTable(r.scores),
  ];
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { corpus: { type: 'string' }, queries: { type: 'string' }, qrels: { type: 'string' }, model: { type: 'string' }, 'store-url': { type: 'string' } }, false);
  if (values.help) {
    process.stdout.write(help + '\n');
    return EXIT.OK;
  }
  const missing = (['corpus', 'queries', 'qrels'] as const).filter((k) => !values[k]);
  if (missing.length > 0) throw new UserError(`eval beir needs ${missing.map((m) => `--${m} FILE`).join(', ')}. Run with --help for usage.`, EXIT.USAGE);
  const storeUrl = checkStoreUrl(values['store-url']);
  let data: BeirData;
  try {
    data = parseBeir(readText(values.corpus!, 'corpus'), readText(values.queries!, 'queries'), readText(values.qrels!, 'qrels'));
  } catch (e) {
    if (e instanceof UserError) throw e;
    throw new UserError((e as Error).message, EXIT.USAGE);
  }
  if (data.queries.length === 0) throw new UserError('no query has a relevant judged document in the corpus: check that the qrels ids match the corpus and queries', EXIT.FAIL);
  const embedder = await loadEmbedder(values.model, values.set);
  try {
    const bars = { index: createProgress('documents indexed', data.docs.length), query: createProgress('queries', data.queries.length) };
    let phase: 'index' | 'query' = 'index';
    const report = await evaluateBeir(data, embedder, {
      onProgress: (p, n) => {
        if (p !== phase) {
          bars[phase].done();
          phase = p;
        }
        bars[p].update(n);
      },
      storeUrl,
    });
    bars[phase].done();
    if (values.json) printJson(reportJson(report));
    else process.stdout.write(reportText(report) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}
