/**
 * What a replay produces, per exchange and per tool step (eval/replay-session.ts makes them;
 * `replay`, `backtest`, the evals and the report read them): the rows — ids, codes and
 * figures, no conversation text —, the offer on a row with the evidence behind its type, the
 * hook's verdict at each prompt, and the deterministic offer ids. Pure types and helpers.
 */
import { createHash } from 'node:crypto';
import type { Exchange, OfferType } from '../shared/types.js';
import type { Channel } from '../shared/vocabulary.js';
import type { Decision as HookDecision } from '../hook/gates.js';
import type { ToolErrorKind } from './tool-error-kinds.js';

/** An exchange as the replay feeds it. */
export interface TimedExchange {
  exchange: Exchange & { agentId?: string | null };
  /** Epoch ms when the daemon would have seen it complete (its last record). */
  settledAt: number;
  /** True when a prompt was submitted for it (the hook fires at its start). */
  hookFires: boolean;
  /** History fed to warm the session state only: never offered (daemon "seed"). */
  seed?: boolean;
  /** A copy of a still-open exchange decided at a settle point (daemon.settleMs). */
  provisional?: boolean;
}

/** Hook outcome attached to an offer: a hook reason code, or why the hook never saw it. */
export type HookVerdict = HookDecision['reason'] | 'no-next-prompt' | 'overwritten' | 'not-at-failure';

export interface RowOffer {
  type: OfferType;
  confidence: number;
  handle: string;
  region: string;
  chunkId: number;
  wildcard: boolean;
  /** Why it has its type (retrieval/offer-type.ts rule, or the tool channel's signature
   *  match) and the novelty figures the gate saw; codes and figures, no text. */
  evidence?: OfferEvidence;
}

/** The evidence that made an offer its type (replay / backtest JSON, per offer). */
export interface OfferEvidence {
  rule: string | null;
  detail: string | null;
  held_share: number | null;
  restates_share: number | null;
  /** Share of the request's specific words the chunk holds (retrieval/coverage.ts), when judged. */
  coverage?: number | null;
}

/** One exchange's decision, without text (ids, codes and figures only). */
export interface ReplayRow {
  session: string;
  /** Transcript file (relative to the replay target) or a synthetic session name. */
  file: string;
  /** prompt: a decision on an exchange; tool: a decision on a tool step. */
  channel: Channel;
  /** The exchange (prompt channel), or the exchange the tool step belongs to. */
  turn: number;
  /** Tool channel: 1-based ordinal of the tool call among the session's main-lane calls. */
  step: number | null;
  tool_use_id: string | null;
  /** Tool channel: the step's result was an error. */
  tool_error: boolean;
  /** Tool channel: which kind of error (eval/tool-error-kinds.ts), null when none. */
  tool_error_kind?: ToolErrorKind | null;
  /** Transcript byte offset just past the exchange (prompt) or the step's result (tool). */
  offset: number;
  /** Prompt channel: the drift and stall scores (robust z) the triggers measured, when they did. */
  driftZ?: number | null;
  stallZ?: number | null;


  /** A worker / sidechain / subagent session: never observed for offers. */
  sidechain: boolean;
  worker: string | null;
  seed: boolean;
  /** Decided on a still-open exchange (the final decision for the same turn follows). */
  provisional: boolean;
  trigger: string | null;
  /** Reason code for silence; null when the daemon would fire. */
  silence: string | null;
  offer: RowOffer | null;
  /** For offers: what the hook would have done with it (null until known). */
  hook: HookVerdict | null;
  sufficiency: number | null;
  /** For offers, the audit (eval/offer-audit.ts): the chunk is from the session's own lineage /
   *  its text was largely present in the session already. */
  self_lineage?: boolean;
  already_in_session?: boolean;
}

/** The hook at one prompt: its reason code, the offer it met (shown or not), the line it would
 *  print, and the daemon's last prompt-channel decision before it (what filled the cache). */
export interface PromptVerdict {
  /** The prompt record's uuid. */
  uuid: string;
  at: number;
  reason: HookDecision['reason'];
  offer: { handle: string; chunkId: number; type: OfferType; confidence: number } | null;
  line: string | null;
  daemon: { silence: string | null; trigger: string | null; handle: string | null } | null;
}

/** The chunk id in a Past fix offer id (`fix-<sig>-<chunkId>`), or -1. */
export function chunkIdOf(id: string): number {
  const m = /^fix-[0-9a-f]{14}-(\d+)$/.exec(id);
  return m ? Number(m[1]) : -1;
}

/** Outcomes that reach the person (live) or the soak log (would-fire). */
export function hookShows(v: HookVerdict | null): boolean {
  return v === 'printed' || v === 'would-fire';
}

/** A deterministic offer id. */
export function replayOfferId(salt: string, session: string, turn: number, chunkId: number): string {
  return `replay-${createHash('sha256').update(`${salt}\u0000${session}\u0000${turn}\u0000${chunkId}`).digest('hex').slice(0, 16)}`;
}
