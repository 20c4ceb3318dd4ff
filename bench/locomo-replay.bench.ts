/**
 * LoCoMo live-replay benchmark (issues 4 and 7): `${evalDir}/locomo/locomo-dev.json` replayed
 * through the daemon's pipeline and the hook's gates as live sessions, the store holding
 * earlier sessions only (eval/locomo-replay.ts). Figures: fire rate (target ≤ 15% of
 * exchanges), the share of offers gold-linked to the current window (next to its chance
 * level), and offers on category-5 (adversarial) questions (target 0). Quick: 2 conversations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { parseLocomo } from '../eval/locomo.js';
import { replayLocomo, speakersA, DEFAULT_LINK_WINDOW } from '../eval/locomo-replay.js';

/** Target: would-fire offers over exchanges. */
export const MAX_FIRE_RATE = 0.15;
const SEED = 1;
/** Issue 25 targets: adversarial offer rate at most half the answerable one; at least this
 *  share of answerable offers is one of the question's evidence turns. */
export const MAX_ADVERSARIAL_RATIO = 0.5;
export const MIN_EVIDENCE_SHARE = 0.35;
const QUICK_CONVERSATIONS = 2;

const pct = (n: number, of: number) => (of > 0 ? `${((n / of) * 100).toFixed(1)}%` : 'n/a');

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const base = { name: 'locomo-replay', about: 'issues 4 and 7: LoCoMo conversations replayed as live sessions (store = earlier sessions)' };
  const file = opts.evalDir ? join(opts.evalDir, 'locomo', 'locomo-dev.json') : null;
  if (!file || !existsSync(file)) {
    return { ...base, figures: [], notes: [], skipped: `LoCoMo data not found (${file ?? 'no eval dir: set ACTIVE_BRAIN_EVAL_DIR or pass --eval-dir'})` };
  }
  const json = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  let convs = speakersA(json, parseLocomo(json));
  if (opts.quick) convs = convs.slice(0, QUICK_CONVERSATIONS);
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  try {
    const t0 = performance.now();
    const r = await replayLocomo(convs, { config, embedder, seed: SEED, parent: opts.workDir });
    const seconds = (performance.now() - t0) / 1000;
    const rate = (n: number, of: number) => (of > 0 ? n / of : 0);
    const ansRate = rate(r.answerable.offers, r.answerable.questions);
    const advOverAns = ansRate > 0 ? rate(r.adversarial.offers, r.adversarial.questions) / ansRate : Number.POSITIVE_INFINITY;
    const figures: Figure[] = [
      { metric: 'conversations / exchanges', value: `${r.conversations} / ${r.exchanges}` },
      { metric: 'would-fire offers', value: r.would_fire },
      { metric: 'fire rate (would-fire / exchanges)', value: r.fire_rate, target: `≤ ${MAX_FIRE_RATE}`, pass: r.fire_rate <= MAX_FIRE_RATE },
      { metric: `offers gold-linked to the last ${r.window} turns (share of offers)`, value: r.linked_share, target: `report (chance ${r.linked_share_random})` },
      { metric: 'gold-linked offers (count)', value: r.linked },
      { metric: "offers past the hook's gates (soak: would-fire)", value: r.printed },
      { metric: 'adversarial (category 5) questions fed', value: r.adversarial.questions },
      { metric: 'offers on adversarial questions', value: r.adversarial.offers, target: '0 (silence is right)', pass: r.adversarial.offers === 0 },
      { metric: "offers on adversarial questions at or above the hook's confidence gate", value: r.adversarial.confident },
      { metric: 'adversarial questions that reached the offer builder', value: r.adversarial.built },
      { metric: 'control: answerable questions fed / offers / confident / reached the builder', value: `${r.answerable.questions} / ${r.answerable.offers} / ${r.answerable.confident} / ${r.answerable.built}` },
      { metric: 'offer rate: adversarial vs answerable questions', value: `${pct(r.adversarial.offers, r.adversarial.questions)} vs ${pct(r.answerable.offers, r.answerable.questions)}` },
      // Issue 25: adversarial questions get at most half the offers answerable ones get.
      { metric: 'adversarial offer rate / answerable offer rate', value: Math.round(advOverAns * 1000) / 1000, target: `≤ ${MAX_ADVERSARIAL_RATIO}`, pass: advOverAns <= MAX_ADVERSARIAL_RATIO },
      { metric: "answerable offers that are one of the question's evidence turns", value: `${r.answerable.evidence_hits} (${(r.answerable.evidence_hit_share * 100).toFixed(1)}%; chance ${(r.answerable.evidence_hit_chance * 100).toFixed(1)}%)`, target: `≥ ${MIN_EVIDENCE_SHARE * 100}%`, pass: r.answerable.evidence_hit_share >= MIN_EVIDENCE_SHARE },
      { metric: 'offers by type', value: Object.entries(r.by_type).map(([k, v]) => `${k} ${v}`).join(', ') },
      { metric: 'replay time', value: Math.round(seconds * 10) / 10, unit: 's' },
    ];
    const notes = [
      `${file}${opts.quick ? ` (quick: first ${QUICK_CONVERSATIONS} conversations)` : ''}; model ${r.model}; seed ${SEED}; default config (every mode in soak).`,
      "Speaker A's turns are prompts, speaker B's following turns the reply; each LoCoMo session is a live session (own warm-up); the store grows by one region per replayed session (one chunk per turn).",
      `Gold link: the offered turn and a turn of the current window (last ${DEFAULT_LINK_WINDOW} turns) share a QA item's evidence list. Chance = the same share for a uniformly random store chunk at each offer. About 1 in 10 LoCoMo turns has such a link to an earlier session at all.`,
      `Triggers: ${Object.entries(r.by_trigger).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; silence: ${Object.entries(r.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
      `Adversarial silence reasons: ${Object.entries(r.adversarial.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
    ];
    return { ...base, figures, notes };
  } finally {
    await embedder.dispose();
  }
}
