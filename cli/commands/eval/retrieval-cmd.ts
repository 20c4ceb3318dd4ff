/**
 * `active-brain eval retrieval --locomo FILE`: for each LoCoMo conversation, a temp store
 * (eval/temp-store.ts) with one chunk per turn, every question with evidence asked through
 * the keyword, vector and hybrid arms (search/search.ts via eval/arms.ts), Recall@5,
 * Recall@10 and nDCG@10 of its evidence turns. Reads the LoCoMo file; writes only temp
 * dirs (deleted after) and stdout. Category 5 (adversarial) questions are not scored.
 */
import { readDataset } from '../../../eval/dataset-file.js';
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import type { Embedder } from '../../../embed/types.js';
import { parseLocomo, scoredQuestions, ADVERSARIAL_CATEGORY, type LocomoConversation } from '../../../eval/locomo.js';
import { buildTempStore, checkStoreUrl } from '../../../eval/temp-store.js';
import { collectArmLists, collectDepth, perQueryScores, meanScores, LOCOMO_METRICS, type ArmScores, type EvalQuery } from '../../../eval/arms.js';
import { loadEmbedder } from '../../../eval/load-embedder.js';
import { createProgress } from '../../../eval/progress.js';
import { round4 } from '../../../eval/metrics.js';
import { HYBRID_DEFAULTS } from '../../../search/fusion.js';
import type { Arm, HybridFusion } from '../../../search/search.js';
import { armsTable } from './arms-table.js';

export const help = `usage: active-brain eval retrieval --locomo FILE [--json] [--model PATH] [--conversations N] [--store-url URL]

Retrieval quality on LoCoMo (a JSON list of conversations): for each conversation, every
turn is indexed into a temporary store (one chunk per turn: speaker, session date, text,
image caption), every question with evidence is asked, and its evidence turns are scored:
Recall@5, Recall@10 and nDCG@10 for the keyword, vector and hybrid arms.
Adversarial questions (category 5) and evidence ids that point at no turn are skipped.

Options:
  --locomo FILE        the LoCoMo JSON file (e.g. ../shared/eval/locomo/locomo-dev.json)
  --model PATH         a local transformers.js model folder (default: the configured model;
                       offline: .models/offline-glove-sif, built by \`npm run model:offline\`)
  --conversations N    only the first N conversations
  --store-url URL      an administrator's postgres:// URL: each temporary store is a fresh
                       schema on that server (created, then dropped, with its roles), so
                       the figures are the team store's (PostgreSQL full text) ranking
  --json               one JSON object: {"questions", "recall@5": {"keyword","vector","hybrid"},
                       "recall@10": {…}, "ndcg@10": {…}, …}
  --set key=value      config override (e.g. embedding.batchSize=64)`;

export interface ConversationFigures {
  id: string;
  turns: number;
  questions: number;
  scores: ArmScores;
}

export interface LocomoReport {
  questions: number;
  conversations: number;
  skipped: { adversarial: number; noEvidence: number; missingEvidenceIds: number };
  model: string;
  /** Where the temporary stores were built. */
  backend: 'sqlite' | 'postgres';
  fusion: HybridFusion;
  scores: ArmScores;
  perConversation: ConversationFigures[];
}

/** Run the evaluation over parsed conversations (also used by bench/retrieval.bench.ts). */
export async function evaluateLocomo(
  convs: LocomoConversation[],
  embedder: Embedder,
  opts: { fusion?: Partial<HybridFusion>; onConversation?: (done: number) => void; storeUrl?: string } = {},
): Promise<LocomoReport> {
  const fusion: HybridFusion = { ...HYBRID_DEFAULTS, ...opts.fusion };
  const depth = collectDepth(LOCOMO_METRICS, fusion);
  const all: Record<string, Record<Arm, number[]>> = {};
  for (const m of LOCOMO_METRICS) all[m.name] = { keyword: [], vector: [], hybrid: [] };
  const perConversation: ConversationFigures[] = [];
  const skipped = { adversarial: 0, noEvidence: 0, missingEvidenceIds: 0 };
  let done = 0;
  for (const conv of convs) {
    for (const q of conv.questions) {
      if (q.category === ADVERSARIAL_CATEGORY) skipped.adversarial++;
      else if (q.evidence.length === 0) skipped.noEvidence++;
      skipped.missingEvidenceIds += q.missingEvidence.length;
    }
    const queries: EvalQuery[] = scoredQuestions(conv).map((q, i) => ({
      id: `${conv.id}#${i}`,
      text: q.question,
      qrels: new Map(q.evidence.map((e) => [e, 1])),
    }));
    if (queries.length > 0 && conv.turns.length > 0) {
      const sessions = new Map<number, typeof conv.turns>();
      for (const t of conv.turns) {
        const list = sessions.get(t.session) ?? [];
        list.push(t);
        sessions.set(t.session, list);
      }
      const store = await buildTempStore(
        embedder,
        [...sessions].map(([n, turns]) => ({ name: `${conv.id}-session-${n}`, title: '', items: turns.map((t) => ({ id: t.diaId, heading: '', text: t.text })) })),
        { storeUrl: opts.storeUrl },
      );
      try {
        const lists = await collectArmLists(store.reader, embedder, queries, depth);
        const per = perQueryScores(queries, lists, store.idOf, LOCOMO_METRICS, fusion);
        for (const [name, arms] of Object.entries(per)) for (const arm of Object.keys(arms) as Arm[]) all[name][arm].push(...arms[arm]);
        perConversation.push({ id: conv.id, turns: conv.turns.length, questions: queries.length, scores: roundScores(meanScores(per)) });
      } finally {
        store.dispose();
      }
    }
    opts.onConversation?.(++done);
  }
  return {
    questions: perConversation.reduce((s, c) => s + c.questions, 0),
    conversations: perConversation.length,
    skipped,
    model: embedder.modelId,
    backend: opts.storeUrl ? 'postgres' : 'sqlite',
    fusion,
    scores: roundScores(meanScores(all)),
    perConversation,
  };
}

function roundScores(s: ArmScores): ArmScores {
  const out: ArmScores = {};
  for (const [name, arms] of Object.entries(s)) out[name] = { keyword: round4(arms.keyword), vector: round4(arms.vector), hybrid: round4(arms.hybrid) };
  return out;
}

/** The JSON object printed by --json (keys fixed by DESIGN.md, extras after them). */
export function reportJson(r: LocomoReport): Record<string, unknown> {
  return {
    questions: r.questions,
    ...r.scores,
    conversations: r.conversations,
    skipped: r.skipped,
    model: r.model,
    backend: r.backend,
    fusion: r.fusion,
    per_conversation: r.perConversation.map((c) => ({ id: c.id, turns: c.turns, questions: c.questions, ...c.scores })),
  };
}

/** Human-readable table of a report. */
export function reportText(r: LocomoReport): string {
  const lines = [
    `LoCoMo retrieval: ${r.questions} questions over ${r.conversations} conversations (model ${r.model}, store ${r.backend})`,
    `skipped: ${r.skipped.adversarial} adversarial, ${r.skipped.noEvidence} without usable evidence, ${r.skipped.missingEvidenceIds} evidence ids with no turn`,
    `hybrid fusion: ${r.fusion.method}, keyword ${r.fusion.keywordWeight} / vector ${r.fusion.vectorWeight}, ${r.fusion.candidates} candidates per arm`,
    '',
    ...armsTable(r.scores),
  ];
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags(argv, { locomo: { type: 'string' }, model: { type: 'string' }, conversations: { type: 'string' }, 'store-url': { type: 'string' } }, false);
  if (values.help) {
    process.stdout.write(help + '\n');
    return EXIT.OK;
  }
  if (!values.locomo) throw new UserError('eval retrieval needs --locomo FILE (a LoCoMo JSON file). Run with --help for usage.', EXIT.USAGE);
  let limit: number | undefined;
  if (values.conversations !== undefined) {
    limit = Number(values.conversations);
    if (!Number.isInteger(limit) || limit < 1) throw new UserError(`--conversations must be a positive integer (got "${values.conversations}")`, EXIT.USAGE);
  }
  const storeUrl = checkStoreUrl(values['store-url']);
  let convs = readDataset(values.locomo, 'a LoCoMo', (raw) => parseLocomo(JSON.parse(raw)));
  if (limit !== undefined) convs = convs.slice(0, limit);
  if (convs.every((c) => scoredQuestions(c).length === 0)) {
    throw new UserError(`${values.locomo} has no question with evidence to score`, EXIT.FAIL);
  }
  const embedder = await loadEmbedder(values.model, values.set);
  try {
    const progress = createProgress('conversations', convs.length);
    const report = await evaluateLocomo(convs, embedder, { onConversation: (n) => progress.update(n), storeUrl });
    progress.done();
    if (values.json) printJson(reportJson(report));
    else process.stdout.write(reportText(report) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}
