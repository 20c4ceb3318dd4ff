/**
 * Stall trigger evaluation on OpenHands trajectories (eval/openhands.ts): each trajectory is
 * replayed as one session through the daemon's own session state and trigger
 * (core/session-state.ts, core/triggers.ts) — one exchange per agent step: the action
 * (thought + tool call) as the assistant side, its observation as part of the exchange text,
 * no human text — and the stall firings are scored against the gold loops.
 *
 * Scoring: a firing at a step inside a gold run, or within STALL_MATCH_SLACK steps after its
 * end, hits that run; each run counts once (further firings in a hit run are neither TP nor
 * FP, they are reported as `redundant`). precision = hit runs / (hit runs + firings outside
 * every run); recall = hit runs / runs. The same run is repeated with tool-call evidence
 * withheld (`vector_only`), so the figure of the embedding part alone is visible too.
 * Also: constructed flow-repair cases (eval/flow-repair-cases.ts) through the same code.
 */
import type { Embedder } from '../embed/types.js';
import { createSessionState, markBuild, recordExchange, type SessionConfig } from '../core/session-state.js';
import { evaluateTriggers, type TriggerResult, type TriggerThresholds } from '../core/triggers.js';
import { exchangeFeatures, type ExchangeText } from '../core/exchange-features.js';
import { goldRuns, type GoldRun, type Trajectory } from './openhands.js';
import { flowRepairCases, type FlowRepairCase } from './flow-repair-cases.js';

/** A firing this many steps after a gold run's last step still hits it. */
export const STALL_MATCH_SLACK = 1;
/** Synthetic time between agent steps (ms): trajectories carry no usable clock here. */
const STEP_GAP_MS = 60_000;

export interface StallScores {
  runs: number;
  hit: number;
  firings: number;
  falseFirings: number;
  redundant: number;
  precision: number;
  recall: number;
  f1: number;
}

export interface FlowRepairFigures {
  cases: number;
  /** Restating cases with no stall firing (the guard held or nothing fired). */
  guard_held: number;
  /** Restating cases where the guard itself engaged (flowRepair true while stall evidence was there). */
  guard_engaged: number;
  /** Controls (the assistant repeats too) where the stall did fire. */
  control_fired: number;
}

export interface StallReport extends StallScores {
  trajectories: number;
  steps: number;
  vector_only: StallScores;
  flow_repair: FlowRepairFigures;
  model: string;
}


/** Replay exchanges (with their vectors) as one session; the trigger result of each. */
export function replaySession(
  id: string,
  exchanges: readonly { ex: ExchangeText; vec: Float32Array; userVec: Float32Array | null; assistantVec: Float32Array | null }[],
  mode: TriggerThresholds,
  session: SessionConfig,
): TriggerResult[] {
  const state = createSessionState(id);
  return exchanges.map(({ ex, vec, userVec, assistantVec }) => {
    const f = exchangeFeatures(ex, { vec, userVec, assistantVec });
    const r = evaluateTriggers(state, f, mode, session);
    recordExchange(state, f, r.measures, session);
    if (r.kind) markBuild(state, f.timestamp);
    return r;
  });
}

/** Stall firing per step of one trajectory (a fired stall that the cooldown did not block). */
export async function stallFirings(t: Trajectory, embedder: Embedder, mode: TriggerThresholds, session: SessionConfig, withToolCalls = true): Promise<boolean[]> {
  const acts = t.steps.map((s) => `${s.thought}\n${s.toolCall}`);
  const whole = t.steps.map((s, i) => `${acts[i]}\n${s.observation}`);
  const vecs = (await embedder.embed([...whole, ...acts]));
  const n = t.steps.length;
  const results = replaySession(
    t.id,
    t.steps.map((s, i) => ({
      ex: {
        user: '',
        assistant: acts[i],
        toolCalls: withToolCalls ? [s.toolCall] : [],
        toolErrors: s.isError ? [s.observation] : [],
        assistantVisible: true,
        timestamp: i * STEP_GAP_MS,
      },
      vec: vecs[i],
      userVec: null,
      assistantVec: vecs[n + i],
    })),
    mode,
    session,
  );
  return results.map((r) => r.stall.fired && !r.cooldown.blocked);
}

/** Score firings against gold runs (see the module comment). */
export function scoreStall(runsPer: readonly GoldRun[][], firedPer: readonly boolean[][]): StallScores {
  let runs = 0;
  let hit = 0;
  let firings = 0;
  let falseFirings = 0;
  let redundant = 0;
  runsPer.forEach((rs, ti) => {
    runs += rs.length;
    const hitRun = new Array<boolean>(rs.length).fill(false);
    firedPer[ti].forEach((f, step) => {
      if (!f) return;
      firings++;
      const k = rs.findIndex((r) => step >= r.start && step <= r.end + STALL_MATCH_SLACK);
      if (k < 0) falseFirings++;
      else if (hitRun[k]) redundant++;
      else hitRun[k] = true;
    });
    hit += hitRun.filter(Boolean).length;
  });
  const precision = hit + falseFirings > 0 ? hit / (hit + falseFirings) : 0;
  const recall = runs > 0 ? hit / runs : 0;
  const f1 = precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
  return { runs, hit, firings, falseFirings, redundant, precision, recall, f1 };
}

async function embedCase(c: FlowRepairCase, embedder: Embedder, repeatAssistant: boolean) {
  const turns = c.turns(repeatAssistant);
  const whole = turns.map((t) => `${t.user}\n${t.assistant}\n${t.toolCalls.join('\n')}`);
  const vecs = (await embedder.embed([...whole, ...turns.map((t) => t.user), ...turns.map((t) => t.assistant)]));
  const n = turns.length;
  return turns.map((t, i) => ({
    ex: { user: t.user, assistant: t.assistant, toolCalls: t.toolCalls, toolErrors: [], assistantVisible: true, timestamp: i * STEP_GAP_MS },
    vec: vecs[i],
    userVec: vecs[n + i],
    assistantVec: vecs[2 * n + i],
  }));
}

/** Constructed flow-repair cases: the guard must hold on restating, and the control must still fire. */
export async function evaluateFlowRepair(embedder: Embedder, mode: TriggerThresholds, session: SessionConfig): Promise<FlowRepairFigures> {
  const out: FlowRepairFigures = { cases: 0, guard_held: 0, guard_engaged: 0, control_fired: 0 };
  for (const c of flowRepairCases()) {
    out.cases++;
    const restate = replaySession(`${c.name}-restate`, await embedCase(c, embedder, false), mode, session).slice(c.repeatFrom);
    if (!restate.some((r) => r.stall.fired)) out.guard_held++;
    if (restate.some((r) => r.guard.flowRepair)) out.guard_engaged++;
    const control = replaySession(`${c.name}-control`, await embedCase(c, embedder, true), mode, session).slice(c.repeatFrom);
    if (control.some((r) => r.stall.fired)) out.control_fired++;
  }
  return out;
}

export async function evaluateStall(
  trajectories: readonly Trajectory[],
  embedder: Embedder,
  mode: TriggerThresholds,
  session: SessionConfig,
  onTrajectory?: (done: number) => void,
): Promise<StallReport> {
  const runsPer = trajectories.map((t) => goldRuns(t.steps));
  const fired: boolean[][] = [];
  const firedVector: boolean[][] = [];
  for (const t of trajectories) {
    fired.push(await stallFirings(t, embedder, mode, session, true));
    firedVector.push(await stallFirings(t, embedder, mode, session, false));
    onTrajectory?.(fired.length);
  }
  return {
    trajectories: trajectories.length,
    steps: trajectories.reduce((s, t) => s + t.steps.length, 0),
    ...scoreStall(runsPer, fired),
    vector_only: scoreStall(runsPer, firedVector),
    flow_repair: await evaluateFlowRepair(embedder, mode, session),
    model: embedder.modelId,
  };
}
