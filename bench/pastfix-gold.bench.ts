/**
 * Past fix on other people's projects, scored against a judged gold (issue 21): for every
 * project of <eval>/claude-code-real/projects that has a gold/<project>.json, the same
 * procedure as `active-brain eval pastfix <project> --gold <gold> --json` (eval/pastfix.ts:
 * sessions in time order, each replayed live through the daemon's pipeline and the hook's
 * gates against a store of only the earlier sessions, indexed by the real indexer) with the
 * default config and the offline model. Figures per project against the targets:
 * recall at the failure, precision of judged shown offers, offers per 100 tool steps, offers
 * at user rejections, in subagent or worker sessions and from the session's own lineage.
 * Reads the eval set; writes only its work dir. Skipped (with a note) when the set is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { evalPastfix } from '../eval/pastfix.js';
import { parseGold } from '../eval/pastfix-gold.js';

/** Issue 37's targets: precision over every shown offer (right ÷ shown: unjudged, unconfirmed
 *  and generic offers count against it), recall at the failure, shown offers per 100 tool steps. */
const TARGET_RECALL = 0.6;
const TARGET_PRECISION = 0.9;
const TARGET_PER_100 = 1.0;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const about = 'issue 37: Past fix on real projects of other people, scored against a judged gold (eval pastfix --gold)';
  const base = opts.evalDir ? join(opts.evalDir, 'claude-code-real') : null;
  if (!base || !existsSync(join(base, 'gold'))) {
    return { name: 'pastfix-gold', about, figures: [], notes: [], skipped: 'claude-code-real absent (set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)' };
  }
  const golds = readdirSync(join(base, 'gold')).filter((f) => f.endsWith('.json')).sort();
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    for (const g of golds) {
      const gold = parseGold(readFileSync(join(base, 'gold', g), 'utf8'), g);
      const dir = join(base, 'projects', gold.project);
      if (!existsSync(dir)) {
        notes.push(`${gold.project}: no transcripts folder, skipped`);
        continue;
      }
      const t0 = performance.now();
      const r = await evalPastfix(dir, { config, embedder, seed: 1, gold, workParent: opts.workDir });
      const s = r.gold!;
      const p = gold.project;
      figures.push(
        { metric: `${p}: sessions / tool steps / judged items / hookable recurrences`, value: `${r.sessions} / ${r.tool_steps} / ${s.items} / ${s.hookable_recurrences}` },
        { metric: `${p}: recall at the failure (hit / late / miss)`, value: `${s.recall_at_failure} (${s.hits} / ${s.late} / ${s.misses})`, target: `≥ ${TARGET_RECALL}`, pass: s.recall_at_failure >= TARGET_RECALL },
        {
          metric: `${p}: precision over every shown offer (right / shown; wrong, generic, unconfirmed, unjudged)`,
          value: `${s.shown_offers ? Math.round((10000 * s.right_offers) / s.shown_offers) / 10000 : 1} (${s.right_offers} / ${s.shown_offers}; ${s.wrong_offers}, ${s.generic_offers}, ${s.unconfirmed_offers}, ${s.unjudged_offers})`,
          target: `≥ ${TARGET_PRECISION}`, pass: !s.shown_offers || s.right_offers / s.shown_offers >= TARGET_PRECISION,
        },
        { metric: `${p}: precision of judged shown offers (right / wrong / generic)`, value: `${s.precision} (${s.right_offers} / ${s.wrong_offers} / ${s.generic_offers})` },
        { metric: `${p}: shown offers per 100 tool steps (unconfirmed / unjudged)`, value: `${s.offers_per_100_steps} (${s.unconfirmed_offers} / ${s.unjudged_offers})`, target: `≤ ${TARGET_PER_100}`, pass: s.offers_per_100_steps <= TARGET_PER_100 },
        { metric: `${p}: offers at user rejections / in subagent or worker sessions / from the own lineage`, value: `${s.rejection_offers} / ${r.sidechain_offers} / ${r.self_lineage_offers}`, target: '0 / 0 / 0', pass: s.rejection_offers === 0 && r.sidechain_offers === 0 && r.self_lineage_offers === 0 },
        { metric: `${p}: whole run`, value: Math.round(performance.now() - t0), unit: 'ms' },
      );
    }
  } finally {
    await embedder.dispose();
  }
  notes.push(
    'Procedure: each session replayed as live against a store of only the earlier ones (what a user who installed it on day one would have got); the gold README (claude-code-real/README.md) gives the scoring. Reproduce one: active-brain eval pastfix <eval>/claude-code-real/projects/<p> --gold <eval>/claude-code-real/gold/<p>.json --json --model .models/offline-glove-sif',
    'The golds are samples of a reviewer\'s judgement (-home-anthony: 200 of 641 candidates): unjudged offers are not wrong, and a small count (4 hookable recurrences in the Windows project) is a count, not a rate.',
  );
  return { name: 'pastfix-gold', about, figures, notes };
}
