/**
 * The Past fix's rules and chosen values, measured (issue 37): for every project of
 * <eval>/claude-code-real with a judged gold, the same run as `eval pastfix --gold` (a) with
 * every rule, (b) with each rule of shared/pastfix-rules.ts turned off alone (its ablation:
 * what the rule does), and (c) with each chosen value at each of its candidates, the value then
 * chosen leave-one-project-out — on the other projects pooled, by F0.5 of precision over all
 * shown offers and recall at the failure — and reported on the project left out. A rule or a
 * value is kept only when it does not help one project and hurt another (docs/PASTFIX.md).
 * Reads the eval set; writes only its work dir. Skipped (with a note) when the set is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { evalPastfix } from '../eval/pastfix.js';
import { parseGold, type PastfixGold } from '../eval/pastfix-gold.js';
import { PASTFIX_RULES, PASTFIX_VALUES, ablateRules, varyValues, type PastfixValueId } from '../shared/pastfix-rules.js';
import type { Embedder } from '../embed/types.js';

/** What one run gives on one project. */
interface Score {
  hits: number;
  hookable: number;
  right: number;
  shown: number;
  wrong: number;
  steps: number;
}

const recall = (s: Score) => (s.hookable ? s.hits / s.hookable : 0);
const precision = (s: Score) => (s.shown ? s.right / s.shown : 1);
const per100 = (s: Score) => (s.steps ? (100 * s.shown) / s.steps : 0);
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** F0.5 of precision over all shown offers and recall at the failure, pooled over projects:
 *  precision weighs twice recall (a wrong offer is worse than none). */
export function choiceScore(scores: readonly Score[]): number {
  const sum = (k: keyof Score) => scores.reduce((n, s) => n + s[k], 0);
  const p = sum('shown') ? sum('right') / sum('shown') : 1;
  const r = sum('hookable') ? sum('hits') / sum('hookable') : 0;
  return p + r === 0 ? 0 : (1.25 * p * r) / (0.25 * p + r);
}

const show = (s: Score) => `R ${r3(recall(s))} (${s.hits}/${s.hookable}) · P ${r3(precision(s))} (${s.right}/${s.shown}) · ${r3(per100(s))}/100`;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const about = 'issue 37: each Past-fix rule ablated, each chosen value chosen leave-one-project-out (eval pastfix --gold --ablate / --vary)';
  const base = opts.evalDir ? join(opts.evalDir, 'claude-code-real') : null;
  if (!base || !existsSync(join(base, 'gold'))) {
    return { name: 'pastfix-lopo', about, figures: [], notes: [], skipped: 'claude-code-real absent (set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)' };
  }
  const golds: PastfixGold[] = readdirSync(join(base, 'gold')).filter((f) => f.endsWith('.json')).sort()
    .map((g) => parseGold(readFileSync(join(base, 'gold', g), 'utf8'), g))
    .filter((g) => existsSync(join(base, 'projects', g.project)));
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder: Embedder = await createEmbedder(config.embedding);
  const figures: Figure[] = [];
  const notes: string[] = [];
  const scoreOf = async (gold: PastfixGold): Promise<Score> => {
    const r = await evalPastfix(join(base, 'projects', gold.project), { config, embedder, seed: 1, gold, workParent: opts.workDir });
    const g = r.gold!;
    return { hits: g.hits, hookable: g.hookable_recurrences, right: g.right_offers, shown: g.shown_offers, wrong: g.wrong_offers + g.generic_offers, steps: r.tool_steps };
  };
  const all = async (): Promise<Score[]> => {
    const out: Score[] = [];
    for (const g of golds) out.push(await scoreOf(g));
    return out;
  };
  try {
    ablateRules([]);
    varyValues([]);
    const full = await all();
    golds.forEach((g, i) => figures.push({ metric: `every rule: ${g.project}`, value: show(full[i]) }));
    // (b) each rule off alone.
    for (const rule of PASTFIX_RULES) {
      ablateRules([rule.id]);
      const off = await all();
      const parts = golds.map((g, i) => {
        const dr = off[i].hits - full[i].hits;
        const dw = off[i].shown - off[i].right - (full[i].shown - full[i].right);
        return `${g.project.slice(0, 12)} ${dr >= 0 ? '+' : ''}${dr} hits, ${dw >= 0 ? '+' : ''}${dw} not right (P ${r3(precision(off[i]))})`;
      });
      figures.push({ metric: `without ${rule.id}`, value: parts.join(' · ') });
    }
    ablateRules([]);
    // (c) each chosen value: every candidate on every project, chosen on the others.
    for (const [id, v] of Object.entries(PASTFIX_VALUES) as Array<[PastfixValueId, (typeof PASTFIX_VALUES)[PastfixValueId]]>) {
      const byCandidate = new Map<number, Score[]>();
      for (const c of v.candidates) {
        varyValues([[id, c]]);
        byCandidate.set(c, c === v.value ? full : await all());
      }
      varyValues([]);
      golds.forEach((g, left) => {
        // Ties keep the default (a value the projects cannot tell apart is not chosen by them).
        let best: number = v.value;
        let bestScore = choiceScore(byCandidate.get(v.value)!.filter((_x, i) => i !== left));
        for (const c of v.candidates) {
          const s = choiceScore(byCandidate.get(c)!.filter((_x, i) => i !== left));
          if (s > bestScore + 1e-9) {
            best = c;
            bestScore = s;
          }
        }
        figures.push({
          metric: `${id} chosen without ${g.project}`,
          value: `${best} (default ${v.value}) → on ${g.project}: ${show(byCandidate.get(best)![left])}`,
          pass: best === v.value,
        });
      });
      for (const c of v.candidates) figures.push({ metric: `${id} = ${c}`, value: golds.map((g, i) => `${g.project.slice(0, 12)} ${show(byCandidate.get(c)![i])}`).join(' · ') });
    }
  } finally {
    ablateRules([]);
    varyValues([]);
    await embedder.dispose();
  }
  notes.push(
    'Each run is `active-brain eval pastfix <project> --gold <gold> [--ablate RULE] [--vary NAME=N] --json --model .models/offline-glove-sif` (sessions in time order against a store of only the earlier ones).',
    '"not right" counts every shown offer that is not a hit (wrong, generic, unconfirmed, unjudged): precision here is right ÷ shown, as issue 37 scores it.',
    'A value is chosen on the other projects pooled by F0.5 (precision twice recall); "pass" says the chosen value is the default, i.e. the default survives leaving that project out.',
  );
  return { name: 'pastfix-lopo', about, figures, notes };
}
