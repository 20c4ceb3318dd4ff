/**
 * The trigger decision for one exchange: drift (the conversation moved away from where it
 * was), stall (the last exchanges keep repeating themselves), the flow-repair guard (the
 * human restating an unmet instruction is not a stall) and error (a tool error this session
 * has not shown before: a Past-fix opportunity). Pure: reads the session state as it was
 * before the exchange (core/session-state.ts) and the exchange's features, returns the
 * decision with every figure and reason code for the decision log. The daemon pipeline,
 * replay and the evals (eval/drift.ts, eval/stall.ts) call this one function.
 *
 * Drift (docs/TRIGGERS.md): the newest exchange (prompt + reply) against the prompts of the
 * last DRIFT_WINDOW exchanges, by mean cosine and by lexical cohesion, each as a robust z
 * against this session's own history, plus the dialogue cues (a prompt that asks a question
 * lowers the bar, one that answers the other side's question raises it); the score must
 * clear mode.driftZ.
 *
 * Scale: every vector statistic is compared with the session's *own* recent values (robust
 * z with median/MAD, plus a quantile cap), never with one fixed cosine, so the same mode
 * thresholds hold on MiniLM (cosines ~0.1–0.9) and on the offline GloVe-SIF model.
 */
import { isPromptOnly, type ExchangeFeatures, type SessionConfig, type SessionState } from './session-state.js';
import { measureExchange, type Measures } from './trigger-measures.js';
import { quantileAbove, quantileBelow, robustZ } from './robust.js';
import type { TriggerKind } from '../retrieval/types.js';

/** The mode keys the triggers read (config/schema.ts ModeSchema). */
export interface TriggerThresholds {
  driftZ: number;
  driftMaxQuantile: number;
  driftLexicalWeight: number;
  driftQuestionBonus: number;
  driftAnswerPenalty: number;
  stallZ: number;
  stallMaxQuantile: number;
  stallWindow: number;
}

export type TriggerConfig = Pick<SessionConfig, 'warmupExchanges' | 'cooldownTurns' | 'cooldownSeconds'>;

/** A statistic needs at least this many past values of its own before it is trusted. */
export const MIN_CALIBRATION = 3;
/** Flow-repair guard: the assistant side may repeat at most this share as strongly (in robust z) as the user side. */
export const GUARD_Z_RATIO = 0.5;
/** Cosines this close count as equal (float32 rounding of identical vectors). */
export const SIM_TIE_TOLERANCE = 1e-5;
/** Window similarities (stall, guard) are smoother and climb early in a session: they need more. */
export const MIN_WINDOW_CALIBRATION = 5;
/** Prompt-only sessions: the vector stall evidence must clear stallZ × this factor. */
export const PROMPT_ONLY_Z_FACTOR = 1.5;

export type { TriggerKind };

export interface TriggerResult {
  kind: TriggerKind | null;
  /** Exchange index this was decided for. */
  turn: number;
  drift: { cos: number | null; affinity: number | null; cohesion: number | null; novelty: number | null; asks: boolean; followsQuestion: boolean; z: number | null; quantile: number | null; fired: boolean };
  stall: { meanSim: number | null; minSim: number | null; z: number | null; quantile: number | null; toolRepeat: number; fired: boolean; promptOnly: boolean };
  guard: { flowRepair: boolean; userSim: number | null; assistantSim: number | null; userZ: number | null; assistantZ: number | null };
  error: { fired: boolean; newErrors: number };
  cooldown: { blocked: boolean };
  /** Reason codes (stable strings for logs), e.g. `warmup`, `drift`, `stall:tool-repeat`, `guard:flow-repair`. */
  reasons: string[];
  /** The raw measurements, to be recorded into the state with recordExchange(). */
  measures: Measures;
}

function zIfCalibrated(history: readonly number[], x: number | null, min = MIN_CALIBRATION): number | null {
  if (x === null || history.length < min) return null;
  return robustZ(history, x);
}

/**
 * Decide for the newest exchange. `state` must not yet contain it; afterwards call
 * recordExchange(state, newest, result.measures, cfg) and, when a candidate is built,
 * markBuild(state, newest.timestamp).
 */
export function evaluateTriggers(state: SessionState, newest: ExchangeFeatures, mode: TriggerThresholds, cfg: TriggerConfig): TriggerResult {
  const m = measureExchange(state, newest, mode.stallWindow);
  const cal = state.calibration;
  const reasons: string[] = [];
  const turn = state.turns;
  const warm = turn >= cfg.warmupExchanges;
  if (!warm) reasons.push('warmup');

  // Drift: the newest exchange resembles the last few prompts unusually little for this
  // session, by vectors and by shared content words (a causal TextTiling block comparison),
  // and the prompt opens something (asks a question) rather than answers one. The cues are
  // constants added to a sum of z-scores, so the score stays scale-free.
  const affZ = zIfCalibrated(cal.affinity, m.affinity);
  const cohZ = zIfCalibrated(cal.cohesion, m.cohesion);
  const cue = (m.asks ? mode.driftQuestionBonus : 0) - (m.followsQuestion ? mode.driftAnswerPenalty : 0);
  const driftZ = affZ === null ? null : -affZ - mode.driftLexicalWeight * (cohZ ?? 0) + cue;
  const driftQ = m.affinity === null || cal.affinity.length < MIN_CALIBRATION ? null : quantileBelow(cal.affinity, m.affinity);
  const driftFired = warm && driftZ !== null && driftQ !== null && driftZ >= mode.driftZ && driftQ <= mode.driftMaxQuantile;
  if (driftFired) reasons.push('drift');

  // Stall: every pair in the window is unusually similar (vectors), or the same tool calls repeat.
  const promptOnly = isPromptOnly(state) && !newest.assistantVisible;
  const stallZ = zIfCalibrated(cal.windowSim, m.windowSim, MIN_WINDOW_CALIBRATION);
  const stallQ = m.windowSim === null || cal.windowSim.length < MIN_WINDOW_CALIBRATION ? null : quantileAbove(cal.windowSim, m.windowSim);
  const zNeeded = promptOnly ? mode.stallZ * PROMPT_ONLY_Z_FACTOR : mode.stallZ;
  const vectorStall = stallZ !== null && stallQ !== null && stallZ >= zNeeded && stallQ <= mode.stallMaxQuantile;
  const toolStall = m.toolRepeat >= mode.stallWindow;
  let stallFired = warm && (vectorStall || toolStall);

  // Flow-repair guard: the human side repeats (its window similarity clears stallZ against
  // its own history) while the assistant side does not, and the assistant is not repeating
  // its tool calls → the agent has not met an instruction yet. The assistant side "repeats"
  // when it clears the same bar AND repeats about as strongly as the human: at least
  // GUARD_Z_RATIO of the human's z, or as tight in raw cosine (replies to one instruction
  // share its topic, so some rise is expected). Comparing the two sides' cosines is
  // scale-free: one model's affine cosine scale moves both alike.
  const userZ = zIfCalibrated(cal.userSim, m.userSim, MIN_WINDOW_CALIBRATION);
  const assistantZ = zIfCalibrated(cal.assistantSim, m.assistantSim, MIN_WINDOW_CALIBRATION);
  let flowRepair = false;
  if (userZ !== null && assistantZ !== null && m.userSim !== null && m.assistantSim !== null && userZ >= mode.stallZ && !toolStall) {
    const assistantRepeats =
      assistantZ >= mode.stallZ && (assistantZ >= GUARD_Z_RATIO * userZ || m.assistantSim >= m.userSim - SIM_TIE_TOLERANCE);
    flowRepair = !assistantRepeats;
  }
  if (stallFired) {
    if (flowRepair) {
      reasons.push('guard:flow-repair');
      stallFired = false;
    } else {
      reasons.push(toolStall ? 'stall:tool-repeat' : 'stall:vector');
      if (promptOnly) reasons.push('stall:prompt-only');
    }
  }

  const errorFired = warm && m.newErrors > 0;
  if (errorFired) reasons.push('error:new');

  let blocked = false;
  if (state.lastBuildTurn !== null && (errorFired || stallFired || driftFired)) {
    if (turn - state.lastBuildTurn <= cfg.cooldownTurns) {
      blocked = true;
      reasons.push('cooldown:turns');
    } else if (state.lastBuildAt !== null && newest.timestamp - state.lastBuildAt < cfg.cooldownSeconds * 1000) {
      blocked = true;
      reasons.push('cooldown:seconds');
    }
  }

  // Precedence: concrete evidence first (a new error), then being stuck, then moving on.
  const kind: TriggerKind | null = blocked ? null : errorFired ? 'error' : stallFired ? 'stall' : driftFired ? 'drift' : null;

  return {
    kind,
    turn,
    drift: { cos: m.cosToAnchor, affinity: m.affinity, cohesion: m.cohesion, novelty: m.novelty, asks: m.asks, followsQuestion: m.followsQuestion, z: driftZ, quantile: driftQ, fired: driftFired },
    stall: { meanSim: m.windowMeanSim, minSim: m.windowSim, z: stallZ, quantile: stallQ, toolRepeat: m.toolRepeat, fired: stallFired, promptOnly },
    guard: { flowRepair, userSim: m.userSim, assistantSim: m.assistantSim, userZ, assistantZ },
    error: { fired: errorFired, newErrors: m.newErrors },
    cooldown: { blocked },
    reasons,
    measures: m,
  };
}
