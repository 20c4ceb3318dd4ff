/**
 * Retrieval quality benchmark (issue 2 / issue 4 target: hybrid Recall@10 ≥ the better single
 * arm on LoCoMo): runs `eval retrieval` (cli/commands/eval/retrieval-cmd.ts evaluateLocomo) over
 * ${evalDir}/locomo/locomo-dev.json with the offline model and reports every figure, plus
 * the same check on a second, BEIR-format corpus built from the file's extracted
 * observations (eval/locomo.ts observationsAsBeir → cli/commands/eval/beir-cmd.ts evaluateBeir).
 * Skipped, with the reason, when the eval data is absent.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { parseLocomo, observationsAsBeir } from '../eval/locomo.js';
import { evaluateLocomo } from '../cli/commands/eval/retrieval-cmd.js';
import { evaluateBeir } from '../cli/commands/eval/beir-cmd.js';
import { parseBeir } from '../eval/beir.js';
import type { ArmScores } from '../eval/arms.js';

/** Conversations evaluated in a quick run. */
const QUICK_CONVERSATIONS = 2;

function armFigures(prefix: string, scores: ArmScores): Figure[] {
  const out: Figure[] = [];
  for (const [metric, arms] of Object.entries(scores)) {
    out.push({ metric: `${prefix} ${metric} keyword / vector / hybrid`, value: `${arms.keyword.toFixed(4)} / ${arms.vector.toFixed(4)} / ${arms.hybrid.toFixed(4)}` });
  }
  return out;
}

function targetFigure(prefix: string, metric: string, scores: ArmScores): Figure {
  const a = scores[metric];
  const best = Math.max(a.keyword, a.vector);
  return {
    metric: `${prefix} hybrid ${metric} − best single arm`,
    value: Math.round((a.hybrid - best) * 1e4) / 1e4,
    target: '≥ 0',
    pass: a.hybrid >= best,
  };
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const file = opts.evalDir ? join(opts.evalDir, 'locomo', 'locomo-dev.json') : null;
  const base = { name: 'retrieval', about: 'issues 2 and 4 — LoCoMo retrieval per arm; hybrid Recall@10 ≥ the better single arm' };
  if (!file || !existsSync(file)) {
    return { ...base, figures: [], notes: [], skipped: `LoCoMo data not found (${file ?? 'no eval dir: set ACTIVE_BRAIN_EVAL_DIR or pass --eval-dir'})` };
  }
  const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  let convs = parseLocomo(json);
  if (opts.quick) convs = convs.slice(0, QUICK_CONVERSATIONS);
  const embedder = await createEmbedder(ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } }).embedding);
  try {
    const t0 = Date.now();
    const turns = await evaluateLocomo(convs, embedder);
    const turnsS = (Date.now() - t0) / 1000;
    const figures: Figure[] = [
      { metric: 'LoCoMo questions scored', value: turns.questions },
      ...armFigures('LoCoMo turns', turns.scores),
      targetFigure('LoCoMo turns', 'recall@10', turns.scores),
      targetFigure('LoCoMo turns', 'recall@5', turns.scores),
      targetFigure('LoCoMo turns', 'ndcg@10', turns.scores),
    ];
    const notes = [
      `${turns.conversations} conversations of ${file}, one chunk per turn (speaker, session date, text, image caption); ${turns.skipped.adversarial} adversarial questions not scored; ${turnsS.toFixed(1)} s.`,
      `Hybrid fusion: ${turns.fusion.method}, keyword ${turns.fusion.keywordWeight} / vector ${turns.fusion.vectorWeight}, ${turns.fusion.candidates} candidates per arm (docs/SEARCH.md).`,
      `Per conversation Recall@10 keyword → hybrid: ${turns.perConversation.map((c) => `${c.id} ${c.scores['recall@10'].keyword.toFixed(3)}→${c.scores['recall@10'].hybrid.toFixed(3)}`).join(', ')}.`,
    ];
    if (!opts.quick) {
      const beirFiles = observationsAsBeir(json);
      const data = parseBeir(beirFiles.corpus, beirFiles.queries, beirFiles.qrels);
      const obs = await evaluateBeir(data, embedder);
      figures.push(...armFigures('LoCoMo observations (BEIR format)', obs.scores), targetFigure('LoCoMo observations (BEIR format)', 'ndcg@10', obs.scores));
      notes.push(`Observations: ${obs.documents} extracted facts of all conversations in one store, ${obs.queries} questions; a fact is relevant when its source turn is evidence.`);
    }
    return { ...base, figures, notes };
  } finally {
    await embedder.dispose();
  }
}
