/**
 * Drift trigger evaluation on TIAGE (eval/tiage.ts): every dialogue is replayed as one
 * session through the daemon's own session state and trigger (core/session-state.ts,
 * core/triggers.ts), and the drift firings are scored against the gold topic shifts
 * (precision, recall, F1, Pk), next to two baselines run on the same dialogues: random
 * firing at the same rate (seeded, averaged) and a lexical TextTiling detector
 * (eval/textiling.ts) — at Hearst's cutoff and at the trigger's own firing rate.
 *
 * Exchange mapping (documented in the help text): utterance i is the prompt of exchange i
 * and utterance i + 1 its reply — the daemon decides once the reply is in, so a shift at
 * utterance i is judged with one utterance of look-ahead, like the TextTiling baseline's
 * right-hand block. The last utterance has no reply (assistant side null). The alignment
 * check on train and the figures are in docs/TRIGGERS.md.
 */
import type { Embedder } from '../embed/types.js';
import type { TiageDialogue } from './tiage.js';
import { createSessionState, markBuild, recordExchange, type SessionConfig } from '../core/session-state.js';
import { evaluateTriggers, type TriggerThresholds } from '../core/triggers.js';
import { exchangeFeatures } from '../core/exchange-features.js';
import { addCounts, countBoundaries, pkCounts, prf, type BoundaryCounts, type PRF } from './segmentation.js';
import { textTiling, textTilingDepths } from './textiling.js';
import { seededRandom } from '../shared/prng.js';
import { asksQuestion, endsAskingQuestion } from '../core/dialogue-cues.js';
export { seededRandom };

/** Seeds averaged for the random baseline. */
export const RANDOM_SEEDS = 20;
/** Bootstrap resamples (of whole dialogues) for the precision and F1-difference intervals. */
export const BOOTSTRAP_SAMPLES = 500;
/** Synthetic time between utterances (ms): TIAGE has no timestamps; larger than any sane cooldownSeconds. */
const UTTERANCE_GAP_MS = 5 * 60_000;

export interface Scores extends PRF {
  pk: number;
  fired: number;
}

export interface DriftReport {
  dialogues: number;
  shifts: number;
  /** Positions where a shift could be predicted (every utterance but the first). */
  positions: number;
  fired: number;
  precision: number;
  recall: number;
  f1: number;
  pk: number;
  /** 95% bootstrap interval (dialogues resampled) of the trigger's precision and of its
   *  precision minus TextTiling's at the same rate: how much the figures can be trusted. */
  precisionCi95: [number, number];
  precisionVsTextTilingCi95: [number, number];
  /** 95% bootstrap interval of the trigger's F1 minus TextTiling's (same rate) and minus
   *  random firing's (same rate, mean over the seeds), dialogues resampled. */
  f1VsTextTilingCi95: [number, number];
  f1VsRandomCi95: [number, number];
  /** 95% bootstrap interval of the trigger's precision minus the question-cue ablation's (each
   *  at its own rate): what the similarity part adds to the cue's precision. */
  precisionVsQuestionCueCi95: [number, number];
  baselines: {
    random: Scores & { seeds: number };
    texttiling: Scores;
    texttiling_same_rate: Scores;
    /** Ablation, not a baseline: the dialogue cue alone — fire at every warm exchange whose
     *  prompt asks a question and does not answer one (cooldown as above). What the
     *  similarity measures add on top of the cue is the difference to the trigger. */
    question_cue: Scores;
  };
  /** The trigger's firings split by the prompt's cue: it opens a question, it asks while
   *  answering one, or it is a statement — with how many of each hit a gold shift. */
  byCue: Record<'opens_question' | 'answers_with_question' | 'statement', { fired: number; hits: number }>;
  model: string;
  exchange: string;
  /** session.cooldownTurns in effect: after a firing, the next this-many exchanges stay silent (as in the daemon). */
  cooldownTurns: number;
}



/** Drift firings (per utterance) of the real trigger over one dialogue. */
export type ExchangeMapping = 'pair' | 'single';

export async function driftFirings(d: TiageDialogue, embedder: Embedder, mode: TriggerThresholds, session: SessionConfig, mapping: ExchangeMapping = 'pair'): Promise<boolean[]> {
  const n = d.utterances.length;
  const withReply = (i: number) => mapping === 'pair' && i + 1 < n;
  const pairs = d.utterances.map((u, i) => (withReply(i) ? `${u}\n${d.utterances[i + 1]}` : u));
  const vecs = (await embedder.embed([...pairs, ...d.utterances]));
  const state = createSessionState(`tiage-${d.id}`);
  const fired: boolean[] = [];
  for (let i = 0; i < n; i++) {
    const reply = withReply(i) ? d.utterances[i + 1] : '';
    const f = {
      ...exchangeFeatures(
        { user: d.utterances[i], assistant: reply, toolCalls: [], toolErrors: [], assistantVisible: withReply(i), timestamp: i * UTTERANCE_GAP_MS },
        { vec: vecs[i], userVec: vecs[n + i], assistantVec: withReply(i) ? vecs[n + i + 1] : null },
      ),
      // The exchanges overlap (exchange i−1's reply is this prompt), so the ring cannot say
      // whether the other side's last words asked: they are utterance i − 1.
      followsQuestion: i > 0 && endsAskingQuestion(d.utterances[i - 1]),
    };
    const r = evaluateTriggers(state, f, mode, session);
    recordExchange(state, f, r.measures, session);
    fired.push(r.kind === 'drift');
    if (r.kind) markBuild(state, f.timestamp);
  }
  return fired;
}

/** The question-cue ablation over one dialogue: warm, asks, does not answer, out of cooldown. */
export function questionCueFirings(d: TiageDialogue, session: Pick<SessionConfig, 'warmupExchanges' | 'cooldownTurns'>): boolean[] {
  let last = -Infinity;
  return d.utterances.map((u, i) => {
    const fire = i >= session.warmupExchanges && asksQuestion(u) && !endsAskingQuestion(d.utterances[i - 1]) && i - last > session.cooldownTurns;
    if (fire) last = i;
    return fire;
  });
}

function score(golds: boolean[][], hyps: boolean[][]): Scores {
  let c: BoundaryCounts = { tp: 0, fp: 0, fn: 0 };
  let errors = 0;
  let comparisons = 0;
  let fired = 0;
  golds.forEach((g, i) => {
    c = addCounts(c, countBoundaries(g, hyps[i]));
    const pk = pkCounts(g, hyps[i]);
    errors += pk.errors;
    comparisons += pk.comparisons;
    fired += hyps[i].slice(1).filter(Boolean).length;
  });
  return { ...prf(c), pk: comparisons > 0 ? errors / comparisons : 0, fired };
}

function interval95(xs: number[]): [number, number] {
  if (xs.length === 0) return [NaN, NaN];
  const s = [...xs].sort((a, b) => a - b);
  return [s[Math.floor(0.025 * (s.length - 1))], s[Math.ceil(0.975 * (s.length - 1))]];
}

function meanScores(xs: Scores[]): Scores {
  const m = (k: keyof Scores) => xs.reduce((s, x) => s + x[k], 0) / xs.length;
  return { precision: m('precision'), recall: m('recall'), f1: m('f1'), pk: m('pk'), fired: m('fired') };
}

/** TextTiling with one global depth threshold chosen so that it fires `target` times. */
function textTilingAtCount(dialogues: readonly TiageDialogue[], target: number): boolean[][] {
  const depths = dialogues.map((d) => (d.utterances.length >= 3 ? textTilingDepths(d.utterances) : []));
  const all = depths.flat().sort((a, b) => b - a);
  const cut = target > 0 && all.length > 0 ? all[Math.min(target, all.length) - 1] : Infinity;
  let budget = target;
  return dialogues.map((d, di) => {
    const out = new Array<boolean>(d.utterances.length).fill(false);
    depths[di].forEach((x, i) => {
      // ties at the cut are taken in order until the budget is spent
      if (x > 0 && x >= cut && budget > 0) {
        out[i + 1] = true;
        budget--;
      }
    });
    return out;
  });
}

export async function evaluateDrift(
  dialogues: readonly TiageDialogue[],
  embedder: Embedder,
  mode: TriggerThresholds,
  session: SessionConfig,
  onDialogue?: (done: number) => void,
  mapping: ExchangeMapping = 'pair',
): Promise<DriftReport> {
  const golds = dialogues.map((d) => d.shifts);
  const hyps: boolean[][] = [];
  for (const d of dialogues) {
    hyps.push(await driftFirings(d, embedder, mode, session, mapping));
    onDialogue?.(hyps.length);
  }
  const main = score(golds, hyps);
  const byCue: DriftReport['byCue'] = { opens_question: { fired: 0, hits: 0 }, answers_with_question: { fired: 0, hits: 0 }, statement: { fired: 0, hits: 0 } };
  dialogues.forEach((d, di) =>
    hyps[di].forEach((fired, i) => {
      if (!fired || i === 0) return;
      const key = !asksQuestion(d.utterances[i]) ? 'statement' : endsAskingQuestion(d.utterances[i - 1]) ? 'answers_with_question' : 'opens_question';
      byCue[key].fired++;
      if (d.shifts[i]) byCue[key].hits++;
    }),
  );
  const positions = dialogues.reduce((s, d) => s + Math.max(0, d.utterances.length - 1), 0);
  const rate = positions > 0 ? main.fired / positions : 0;

  const randomHyps: boolean[][][] = [];
  for (let seed = 1; seed <= RANDOM_SEEDS; seed++) {
    const rnd = seededRandom(seed);
    randomHyps.push(dialogues.map((d) => d.utterances.map((_, i) => i > 0 && rnd() < rate)));
  }
  const randomRuns = randomHyps.map((h) => score(golds, h));
  const tts = textTilingAtCount(dialogues, main.fired);
  const cueHyps = dialogues.map((d) => questionCueFirings(d, session));
  // Bootstrap over whole dialogues from per-dialogue counts (cheap: sums of small integers).
  const perDialogue = (hs: boolean[][]) => golds.map((g, i) => countBoundaries(g, hs[i]));
  const ours = perDialogue(hyps);
  const tiling = perDialogue(tts);
  const randoms = randomHyps.map(perDialogue);
  const cue = perDialogue(cueHyps);
  const rnd = seededRandom(RANDOM_SEEDS + 1);
  const ps: number[] = [];
  const dP: number[] = [];
  const dF1tt: number[] = [];
  const dF1rnd: number[] = [];
  const dPcue: number[] = [];
  const sum = (cs: BoundaryCounts[], pick: number[]) => prf(pick.reduce((c, i) => addCounts(c, cs[i]), { tp: 0, fp: 0, fn: 0 }));
  for (let b = 0; b < BOOTSTRAP_SAMPLES && dialogues.length > 0; b++) {
    const pick = dialogues.map(() => Math.floor(rnd() * dialogues.length));
    const o = sum(ours, pick);
    const t = sum(tiling, pick);
    ps.push(o.precision);
    dP.push(o.precision - t.precision);
    dF1tt.push(o.f1 - t.f1);
    dPcue.push(o.precision - sum(cue, pick).precision);
    dF1rnd.push(o.f1 - randoms.reduce((s, r) => s + sum(r, pick).f1, 0) / randoms.length);
  }
  return {
    precisionCi95: interval95(ps),
    precisionVsTextTilingCi95: interval95(dP),
    f1VsTextTilingCi95: interval95(dF1tt),
    f1VsRandomCi95: interval95(dF1rnd),
    precisionVsQuestionCueCi95: interval95(dPcue),
    dialogues: dialogues.length,
    shifts: golds.reduce((s, g) => s + g.filter(Boolean).length, 0),
    positions,
    fired: main.fired,
    precision: main.precision,
    recall: main.recall,
    f1: main.f1,
    pk: main.pk,
    baselines: {
      random: { ...meanScores(randomRuns), seeds: RANDOM_SEEDS },
      texttiling: score(golds, dialogues.map((d) => textTiling(d.utterances))),
      texttiling_same_rate: score(golds, tts),
      question_cue: score(golds, cueHyps),
    },
    byCue,
    model: embedder.modelId,
    cooldownTurns: session.cooldownTurns,
    exchange: mapping === 'pair' ? 'utterance i as prompt + utterance i+1 as reply' : 'utterance i alone',
  };
}
