/**
 * What the pipeline decides, as records: the prompt channel's Decision and the tool channel's
 * ToolDecision (ids, codes and figures only: no exchange text reaches them), the base Decision
 * every exit of the prompt channel starts from, and the flat number maps the decision log
 * carries (trigger figures, the builder's timings and evidence). Pure; written to the log by
 * daemon/logs.ts and read back by the replays.
 */
import type { ModeState, Exchange, Offer } from '../shared/types.js';
import type { OfferTypeEvidence, TriggerKind } from '../retrieval/types.js';
import type { TriggerResult } from './triggers.js';
import type { WorkerReason } from './workers.js';

export interface Gate {
  gate: string;
  pass: boolean;
  reason: string | null;
}

export interface Decision {
  sessionId: string;
  path: string;
  turn: number;
  exchangeUuid: string;
  /** Transcript byte offset just past the exchange. */
  offset: number;
  mode: string | null;
  modeState: ModeState | null;
  worker: WorkerReason | null;
  sidechain: boolean;
  seed: boolean;
  promptOnly: boolean;
  injected: boolean;
  trigger: TriggerKind | null;
  triggerValues: Record<string, number>;
  gates: Gate[];
  offer: Offer | null;
  /** Reason code for silence; null when an offer was made. */
  silence: string | null;
  sufficiency: number | null;
  candidates: number;
  latency: Record<string, number>;
  /** This exchange opened a new session in memory. */
  newSession: boolean;
  /** Whether the hook may be told about this decision (an offer cache for this session). */
  cacheable: boolean;
  /** Decided on an open exchange (see PipelineInput.provisional). */
  provisional: boolean;
  /** With an offer: the rule behind its type and its novelty figures (retrieval/types.ts). */
  typeEvidence?: OfferTypeEvidence;
}

/** The tool channel's decision on one step: ids, codes and figures only (no text). */
export interface ToolDecision {
  channel: 'tool';
  sessionId: string;
  path: string;
  /** 1-based ordinal of the tool call among the session's main-lane tool calls. */
  step: number;
  toolUseId: string | null;
  /** Transcript byte offset just past the step's result. */
  offset: number;
  mode: string | null;
  /** The mode's tool-channel state. */
  modeState: ModeState | null;
  worker: WorkerReason | null;
  seed: boolean;
  trigger: TriggerKind | null;
  /** Signature of the step's error (null when it is no error or has nothing informative). */
  sig: string | null;
  match: string | null;
  offer: Offer | null;
  silence: string | null;
  triggerValues: Record<string, number>;
  latency: Record<string, number>;
  cacheable: boolean;
  /** This step opened a new session in memory (its first decision was on a tool step). */
  newSession: boolean;
}

/** The parts of a prompt-channel Decision known before any gate: who, where, which mode. */
export interface DecisionBase {
  exchange: Exchange;
  path: string;
  mode: { name: string; state: ModeState } | null;
  worker: WorkerReason | null;
  seed: boolean;
  promptOnly: boolean;
  newSession: boolean;
  provisional: boolean;
}

/** A Decision with no trigger, gate, offer or figure yet: every exit of the prompt channel
 *  (an exchange with no vectors included) fills in from here. */
export function baseDecision(b: DecisionBase): Decision {
  const ex = b.exchange;
  return {
    sessionId: ex.sessionId,
    path: b.path,
    turn: ex.index,
    exchangeUuid: ex.uuid,
    offset: ex.endOffset,
    mode: b.mode?.name ?? null,
    modeState: b.mode?.state ?? null,
    worker: b.worker,
    sidechain: ex.isSidechain,
    seed: b.seed,
    promptOnly: b.promptOnly,
    injected: ex.injected,
    trigger: null,
    triggerValues: {},
    gates: [],
    offer: null,
    silence: null,
    sufficiency: null,
    candidates: 0,
    latency: {},
    newSession: b.newSession,
    cacheable: !b.worker && !ex.isSidechain && !b.seed,
    provisional: b.provisional,
  };
}

/** Numbers kept for the log: finite numbers to 4 decimals, booleans as 1/0, the rest dropped. */
export function numbersOnly(o: Record<string, unknown> | undefined): Record<string, number> {
  const out: Record<string, number> = {};
  if (!o) return out;
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'number' && Number.isFinite(v)) out[k] = Math.round(v * 10000) / 10000;
    else if (typeof v === 'boolean') out[k] = v ? 1 : 0;
  }
  return out;
}

/** Reason code when no trigger fired: the most telling of the trigger's reasons. */
export function triggerSilence(tr: TriggerResult): string {
  if (tr.reasons.includes('warmup')) return 'warmup';
  const guard = tr.reasons.find((r) => r.startsWith('guard:'));
  return guard ?? 'no-trigger';
}

/** Trigger figures for the decision log: numbers only, flat names. */
export function triggerValues(tr: TriggerResult): Record<string, number> {
  return numbersOnly({
    drift_cos: tr.drift.cos,
    drift_affinity: tr.drift.affinity,
    drift_cohesion: tr.drift.cohesion,
    drift_novelty: tr.drift.novelty,
    drift_asks: tr.drift.asks,
    drift_follows_question: tr.drift.followsQuestion,
    drift_z: tr.drift.z,
    drift_quantile: tr.drift.quantile,
    drift_fired: tr.drift.fired,
    stall_sim: tr.stall.meanSim,
    stall_z: tr.stall.z,
    stall_quantile: tr.stall.quantile,
    stall_tool_repeat: tr.stall.toolRepeat,
    stall_fired: tr.stall.fired,
    stall_prompt_only: tr.stall.promptOnly,
    guard_flow_repair: tr.guard.flowRepair,
    guard_user_sim: tr.guard.userSim,
    guard_assistant_sim: tr.guard.assistantSim,
    guard_user_z: tr.guard.userZ,
    guard_assistant_z: tr.guard.assistantZ,
    error_new: tr.error.newErrors,
    error_fired: tr.error.fired,
    cooldown_blocked: tr.cooldown.blocked,
  });
}

/** The builder's figures split for the decision record, names prefixed `build_`: timings
 *  (`…ms`, non-negative) for latency, every other finite number for trigger_values. */
export function buildFigures(figures: Record<string, number>): { timings: Record<string, number>; evidence: Record<string, number> } {
  const timings: Record<string, number> = {};
  const evidence: Record<string, number> = {};
  for (const [k, v] of Object.entries(figures)) {
    if (!Number.isFinite(v)) continue;
    if (/ms$/i.test(k)) {
      if (v >= 0) timings[`build_${k}`] = v;
    } else evidence[`build_${k}`] = v;
  }
  return { timings, evidence };
}
