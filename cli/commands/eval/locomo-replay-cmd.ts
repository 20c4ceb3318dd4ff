/**
 * `active-brain eval locomo-replay --locomo FILE`: LoCoMo conversations replayed as live
 * sessions through the daemon's pipeline (eval/locomo-replay.ts), the store holding earlier
 * sessions only. Reads the LoCoMo file; writes only temp stores (deleted) and stdout.
 */
import { readDataset } from '../../../eval/dataset-file.js';
import { resolve } from 'node:path';
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import { loadConfig } from '../../../config/load.js';
import { createEmbedder } from '../../../embed/embedder.js';
import { parseLocomo } from '../../../eval/locomo.js';
import { DEFAULT_LINK_WINDOW, replayLocomo, type LocomoReplayReport } from '../../../eval/locomo-replay.js';
import { speakersA } from '../../../eval/locomo-exchanges.js';
import { createProgress } from '../../../eval/progress.js';

/** Default rng seed (wander step). */
export const DEFAULT_SEED = 1;

export const help = `usage: active-brain eval locomo-replay --locomo FILE [--json] [--conversations N] [--model PATH] [--seed N] [--window N] [--set key=value ...]

LoCoMo conversations replayed as live sessions through the daemon's own pipeline (session
state, triggers, retrieval, offer) and the hook's gates. Per conversation, sessions are fed
in order; speaker A's turns are prompts and speaker B's following turns the reply (one
exchange). The knowledge store holds the EARLIER sessions only (one chunk per turn, one
region per session). After each conversation its category-5 (adversarial) questions are
fed as prompts, one per fresh session warmed with the last session: silence is right. As
their control, the answerable questions (categories 1–4, with evidence) are fed the same way.

Figures:
  fire_rate          offers the daemon would make (would-fire) over exchanges (target ≤ 0.15)
  linked_share       offers whose chunk shares a QA item's evidence with a turn of the
                     current window (the last --window turns, default ${DEFAULT_LINK_WINDOW})
  linked_share_random  the same share for a random store chunk at each offer (chance level)
  adversarial        questions fed, offers made (decided by the daemon; target 0), confident
                     (at or above the hook's confidence gate), shown (through the hook's
                     gates at the person's next prompt: what they would see), built
                     (reached the offer builder)
  answerable         the same for answerable questions, plus evidence_hits: offers whose
                     chunk is one of the question's gold evidence turns (and the chance share;
                     shown_evidence_hits among the shown ones)
  question_offers    each offer on a question: ids, type, confidence, coverage, evidence hit,
                     the hook's verdict

Options:
  --locomo FILE        the LoCoMo JSON file (e.g. ../shared/eval/locomo/locomo-dev.json)
  --conversations N    only the first N conversations
  --model PATH         a local transformers.js model folder (default: the configured model;
                       offline: .models/offline-glove-sif, built by \`npm run model:offline\`)
  --seed N             rng seed (default ${DEFAULT_SEED})
  --window N           turns in the current window (default ${DEFAULT_LINK_WINDOW})
  --json               one JSON object: {"conversations","exchanges","would_fire","fire_rate",
                       "linked_share","adversarial":{"questions","offers",…},
                       "answerable":{"questions","offers","evidence_hits",…}, …}
  --set key=value      config override (e.g. modes.default.driftZ=4: stricter drift)`;

function positiveInt(name: string, raw: string | undefined, min = 1): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UserError(`--${name} must be an integer ≥ ${min} (got "${raw}")`, EXIT.USAGE);
  return n;
}

export function reportText(r: LocomoReplayReport): string {
  const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
  return [
    `LoCoMo live replay: ${r.conversations} conversations, ${r.exchanges} exchanges (model ${r.model}, seed ${r.seed})`,
    `would fire: ${r.would_fire} (fire rate ${pct(r.fire_rate)}; target ≤ 15%) · past the hook's gates: ${r.printed}`,
    `gold-linked to the last ${r.window} turns: ${r.linked} of ${r.would_fire} offers (${pct(r.linked_share)}; a random store chunk: ${pct(r.linked_share_random)})`,
    `by type: ${Object.entries(r.by_type).map(([k, v]) => `${k} ${v}`).join(', ')}`,
    `triggers: ${Object.entries(r.by_trigger).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `silence: ${Object.entries(r.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}`,
    `adversarial questions: ${r.adversarial.questions}, offers ${r.adversarial.offers} (target 0; ${r.adversarial.confident} at or above the hook's confidence gate, ${r.adversarial.shown} shown), reached the builder ${r.adversarial.built}`,
    `answerable questions (control): ${r.answerable.questions}, offers ${r.answerable.offers} (${r.answerable.confident} confident, ${r.answerable.shown} shown, ${r.answerable.shown_evidence_hits} of them an evidence turn), reached the builder ${r.answerable.built}; ` +
      `offered one of the question's evidence turns: ${r.answerable.evidence_hits} (${pct(r.answerable.evidence_hit_share)} of offers; a random store chunk: ${pct(r.answerable.evidence_hit_chance)})`,
  ].join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values } = parseFlags(
    argv,
    { locomo: { type: 'string' }, model: { type: 'string' }, conversations: { type: 'string' }, seed: { type: 'string' }, window: { type: 'string' } },
    false,
  );
  if (values.help) {
    process.stdout.write(help + '\n');
    return EXIT.OK;
  }
  if (!values.locomo) throw new UserError('eval locomo-replay needs --locomo FILE (a LoCoMo JSON file). Run with --help for usage.', EXIT.USAGE);
  const limit = positiveInt('conversations', values.conversations);
  const seed = positiveInt('seed', values.seed, 0) ?? DEFAULT_SEED;
  const window = positiveInt('window', values.window) ?? DEFAULT_LINK_WINDOW;
  const { json, convs } = readDataset(values.locomo, 'a LoCoMo', (raw) => {
    const parsed: unknown = JSON.parse(raw);
    return { json: parsed, convs: parseLocomo(parsed) };
  });
  let list = speakersA(json, convs);
  if (limit !== undefined) list = list.slice(0, limit);
  if (list.every((c) => c.conv.turns.length === 0)) throw new UserError(`${values.locomo} has no conversation turns to replay`, EXIT.FAIL);

  const { config } = loadConfig({ flags: values.set });
  const embedding = values.model ? { ...config.embedding, url: undefined, localModelPath: resolve(values.model) } : config.embedding;
  const embedder = await createEmbedder(embedding);
  try {
    const progress = createProgress('conversations', list.length);
    const report = await replayLocomo(list, { config: { ...config, embedding }, embedder, seed, window, onConversation: (n) => progress.update(n) });
    progress.done();
    if (values.json) printJson(report);
    else process.stdout.write(reportText(report) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}
