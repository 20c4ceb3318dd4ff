/**
 * `active-brain eval drift --tiage FILE`: the drift trigger over TIAGE dialogues
 * (eval/drift.ts) with the effective config's mode thresholds and session settings; prints
 * a table or, with --json, one JSON object. Reads the TIAGE file; writes only stdout.
 */
import { parseTiage, type TiageDialogue } from '../../../eval/tiage.js';
import { evaluateDrift, RANDOM_SEEDS, type DriftReport, type Scores } from '../../../eval/drift.js';
import { readDataset, runTriggerEval } from './trigger-eval-cmd.js';
import { round4 } from '../../../eval/metrics.js';
import type { Mode } from '../../../config/schema.js';

export const help = `usage: active-brain eval drift --tiage FILE [--json] [--model PATH] [--mode NAME] [--set key=value ...]

Topic-shift detection on TIAGE (a JSON object: dialogue id → [[utterance, "-1"|"0"|"1"], …]).
Each dialogue is replayed as one session through the daemon's session state and drift
trigger. Exchange i = utterance i as the prompt and utterance i+1 as its reply (the daemon
decides after the reply); a drift firing at exchange i predicts a shift at utterance i —
the same look-ahead as TextTiling's right-hand block (docs/TRIGGERS.md, "Alignment").
A firing silences the next session.cooldownTurns exchanges, as in the daemon. Scored
against the gold "1" labels: precision, recall, F1 (exact position) and Pk (window = half
the mean gold segment length, pooled over dialogues). Baselines in the same run:
random firing at the same rate (${RANDOM_SEEDS} seeds, averaged) and lexical TextTiling (block cosine of
term vectors, depth scores) at Hearst's cutoff and at the trigger's own firing rate, with 95%
bootstrap intervals (dialogues resampled) of the precision and of the F1 differences.
Also an ablation (not a baseline): the dialogue cue alone — fire on every prompt that asks
a question and does not answer one — to show what the similarity measures add.

Options:
  --tiage FILE      TIAGE annotations (e.g. ../shared/eval/tiage/anno_dev.json)
  --model PATH      a local transformers.js model folder (default: the configured model;
                    offline: .models/offline-glove-sif, built by \`npm run model:offline\`)
  --mode NAME       whose thresholds to use (default: "default", else the first mode)
  --json            one JSON object: {"dialogues","shifts","precision","recall","f1","pk",
                    "baselines": {"random","texttiling","texttiling_same_rate"},
                    "ablation_question_cue_only", "firings_by_cue",
                    "f1_minus_texttiling_same_rate_ci95", "f1_minus_random_ci95", …}
  --set key=value   config override, e.g. --set modes.default.driftZ=4 (stricter; driftQuestionBonus
                    must stay ≤ driftZ − 0.5)`;

function r(s: Scores): Record<string, number> {
  return { precision: round4(s.precision), recall: round4(s.recall), f1: round4(s.f1), pk: round4(s.pk), fired: round4(s.fired) };
}

export function reportJson(rep: DriftReport, modeName: string, mode: Mode): Record<string, unknown> {
  return {
    dialogues: rep.dialogues,
    shifts: rep.shifts,
    precision: round4(rep.precision),
    recall: round4(rep.recall),
    f1: round4(rep.f1),
    pk: round4(rep.pk),
    baselines: {
      random: { ...r(rep.baselines.random), seeds: rep.baselines.random.seeds },
      texttiling: r(rep.baselines.texttiling),
      texttiling_same_rate: r(rep.baselines.texttiling_same_rate),
    },
    ablation_question_cue_only: r(rep.baselines.question_cue),
    precision_minus_question_cue_ci95: rep.precisionVsQuestionCueCi95.map(round4),
    firings_by_cue: Object.fromEntries(
      Object.entries(rep.byCue).map(([k, v]) => [k, { fired: v.fired, hits: v.hits, precision: round4(v.fired ? v.hits / v.fired : 0) }]),
    ),
    precision_ci95: rep.precisionCi95.map(round4),
    precision_minus_texttiling_same_rate_ci95: rep.precisionVsTextTilingCi95.map(round4),
    f1_minus_texttiling_same_rate_ci95: rep.f1VsTextTilingCi95.map(round4),
    f1_minus_random_ci95: rep.f1VsRandomCi95.map(round4),
    fired: rep.fired,
    positions: rep.positions,
    fire_rate: round4(rep.positions ? rep.fired / rep.positions : 0),
    model: rep.model,
    mode: modeName,
    thresholds: {
      driftZ: mode.driftZ,
      driftMaxQuantile: mode.driftMaxQuantile,
      driftLexicalWeight: mode.driftLexicalWeight,
      driftQuestionBonus: mode.driftQuestionBonus,
      driftAnswerPenalty: mode.driftAnswerPenalty,
    },
    cooldown_turns: rep.cooldownTurns,
    exchange: rep.exchange,
  };
}

export function reportText(rep: DriftReport): string {
  const row = (name: string, s: { precision: number; recall: number; f1: number; pk: number; fired: number }) =>
    `${name.padEnd(24)} ${s.precision.toFixed(3).padStart(9)} ${s.recall.toFixed(3).padStart(7)} ${s.f1.toFixed(3).padStart(6)} ${s.pk.toFixed(3).padStart(6)} ${Math.round(s.fired).toString().padStart(6)}`;
  return [
    `TIAGE drift: ${rep.dialogues} dialogues, ${rep.shifts} gold shifts over ${rep.positions} positions (model ${rep.model})`,
    '',
    `${'detector'.padEnd(24)} ${'precision'.padStart(9)} ${'recall'.padStart(7)} ${'f1'.padStart(6)} ${'pk'.padStart(6)} ${'fired'.padStart(6)}`,
    row('drift trigger', rep),
    row('random, same rate', rep.baselines.random),
    row('texttiling (hearst)', rep.baselines.texttiling),
    row('texttiling, same rate', rep.baselines.texttiling_same_rate),
    row('ablation: question cue', rep.baselines.question_cue),
    '',
    `precision 95% interval (dialogues bootstrapped): ${rep.precisionCi95.map((x) => x.toFixed(3)).join(' – ')}; minus TextTiling same rate: ${rep.precisionVsTextTilingCi95.map((x) => x.toFixed(3)).join(' – ')}`,
    `F1 minus TextTiling same rate, 95% interval: ${rep.f1VsTextTilingCi95.map((x) => x.toFixed(3)).join(' – ')}; minus random same rate: ${rep.f1VsRandomCi95.map((x) => x.toFixed(3)).join(' – ')}`,
    `precision minus the question-cue ablation's, 95% interval: ${rep.precisionVsQuestionCueCi95.map((x) => x.toFixed(3)).join(' – ')}`,
    `firings by the prompt's cue (hits / fired): ${Object.entries(rep.byCue).map(([k, v]) => `${k.replace(/_/g, ' ')} ${v.hits}/${v.fired}`).join(', ')}`,
    'Pk: lower is better. Precision matters most (silence is the feature).',
  ].join('\n');
}

export function readTiage(path: string): TiageDialogue[] {
  return readDataset(path, 'a TIAGE', (raw) => parseTiage(JSON.parse(raw)));
}

export function run(argv: string[]): Promise<number> {
  return runTriggerEval(argv, {
    command: 'eval drift',
    help,
    flag: 'tiage',
    fileWhat: 'TIAGE annotations',
    unit: 'dialogues',
    unitOne: 'dialogue',
    read: readTiage,
    evaluate: (ds, embedder, mode, session, onItem) => evaluateDrift(ds, embedder, mode, session, onItem),
    json: reportJson,
    text: reportText,
  });
}
