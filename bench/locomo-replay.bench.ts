/**
 * LoCoMo live-replay benchmark (issues 4 and 7): `${evalDir}/locomo/locomo-dev.json` replayed
 * through the daemon's pipeline and the hook's gates as live sessions, the store holding
 * earlier sessions only (eval/locomo-replay.ts). Figures: fire rate (target ≤ 15% of
 * exchanges), the share of offers gold-linked to the current window (next to its chance
 * level), and offers on category-5 (adversarial) questions (target 0) against answerable ones
 * (issue 25: adversarial rate ≤ half the answerable one, evidence share ≥ 35%), both as decided
 * by the daemon and as shown past the hook's gates. Quick: 2 conversations.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { parseLocomo } from '../eval/locomo.js';
import { replayLocomo, DEFAULT_LINK_WINDOW } from '../eval/locomo-replay.js';
import { speakersA } from '../eval/locomo-exchanges.js';

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
      { metric: 'offer rate (decided): adversarial vs answerable questions', value: `${pct(r.adversarial.offers, r.adversarial.questions)} vs ${pct(r.answerable.offers, r.answerable.questions)}` },
      // Issue 25: adversarial questions get at most half the offers answerable ones get.
      { metric: 'adversarial offer rate / answerable offer rate (decided)', value: Math.round(advOverAns * 1000) / 1000, target: `≤ ${MAX_ADVERSARIAL_RATIO}`, pass: advOverAns <= MAX_ADVERSARIAL_RATIO },
      { metric: "answerable offers (decided) that are one of the question's evidence turns", value: `${r.answerable.evidence_hits} (${(r.answerable.evidence_hit_share * 100).toFixed(1)}%; chance ${(r.answerable.evidence_hit_chance * 100).toFixed(1)}%)`, target: `≥ ${MIN_EVIDENCE_SHARE * 100}%`, pass: r.answerable.evidence_hit_share >= MIN_EVIDENCE_SHARE },
      // What the person is shown: the offer on a question passes the hook's gates at their next
      // prompt, as a live mode with the default gates would print it.
      {
        metric: "offers shown (past the hook's gates at the next prompt): adversarial vs answerable",
        value: `${r.adversarial.shown} of ${r.adversarial.questions} (${pct(r.adversarial.shown, r.adversarial.questions)}) vs ${r.answerable.shown} of ${r.answerable.questions} (${pct(r.answerable.shown, r.answerable.questions)})`,
      },
      { metric: "answerable offers shown that are one of the question's evidence turns", value: `${r.answerable.shown_evidence_hits} of ${r.answerable.shown}` },
      { metric: 'offers by type', value: Object.entries(r.by_type).map(([k, v]) => `${k} ${v}`).join(', ') },
      { metric: 'replay time', value: Math.round(seconds * 10) / 10, unit: 's' },
    ];
    const notes = [
      `${file}${opts.quick ? ` (quick: first ${QUICK_CONVERSATIONS} conversations)` : ''}; model ${r.model}; seed ${SEED}; default config (every mode in soak).`,
      "Speaker A's turns are prompts, speaker B's following turns the reply; each LoCoMo session is a live session (own warm-up); the store grows by one region per replayed session (one chunk per turn).",
      `Gold link: the offered turn and a turn of the current window (last ${DEFAULT_LINK_WINDOW} turns) share a QA item's evidence list. Chance = the same share for a uniformly random store chunk at each offer. About 1 in 10 LoCoMo turns has such a link to an earlier session at all.`,
      `Triggers: ${Object.entries(r.by_trigger).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}; silence: ${Object.entries(r.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
      `Adversarial silence reasons: ${Object.entries(r.adversarial.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
      "Decided = the daemon's offer on a question (what it writes to the session cache; shown wherever a mode's confidence gate is at or below its confidence). Shown = that offer through the hook's own gates (confidence, budget, gap, …) at the person's next prompt, with the default gates (soak: would-fire). The issue's ratio target is read on decided offers: shown ones are a handful at the default confidence gate (before issue 25's coverage rule: 1 adversarial vs 9 answerable shown, 3 of the 9 evidence turns), too few for a rate ratio — their counts and evidence hits are reported as they are (docs/OFFERS.md, Coverage).",
      'Before the coverage rule (main at b881a77, same harness): decided offers 22 of 272 adversarial (8.1%) vs 81 of 883 answerable (9.2%), ratio 0.882; evidence share 42.0%.',
      'Before the attribution rule (main at 4b7a2d8, same harness): decided offers 10 of 272 adversarial (3.7%) vs 56 of 883 answerable (6.3%), ratio 0.580; evidence share 57.1% (32 of 56); shown 1 adversarial vs 3 answerable (2 evidence turns). docs/OFFERS.md, Attribution: the variants tried.',
    ];
    return { ...base, figures, notes };
  } finally {
    await embedder.dispose();
  }
}
