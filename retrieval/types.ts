/**
 * The contract between the daemon's pipeline (core/pipeline.ts) and offer building
 * (retrieval/). The daemon decides *when* (triggers); retrieval decides *what*, or silence.
 */
import type { Exchange, Offer } from '../shared/types.js';

export type { TriggerKind } from '../shared/vocabulary.js';
import type { TriggerKind } from '../shared/vocabulary.js';

export interface OfferRequest {
  sessionId: string;
  cwd: string | null;
  /** The newest exchange and a window of recent ones (oldest first, newest last). */
  exchange: Exchange;
  recent: Exchange[];
  exchangeVector: Float32Array;
  centroid: Float32Array;
  trigger: TriggerKind;
  /** Session FIFO: chunks offered recently, excluded before gates and caps. */
  excludeChunkIds: number[];
  /** Deterministic randomness (wander), seeded per session in replay. */
  rng: () => number;
  /** Replays of history (backtest, replay): only chunks created at or before this time (ms)
   *  may be offered — the store may hold sessions and notes written after the exchange
   *  replayed. The daemon leaves it unset (everything stored is in the past). */
  asOf?: number;
}

export interface CandidateInfo {
  chunkId: number;
  region: string;
  fused: number;
  support: number;
  wildcard: boolean;
}

export interface OfferDecision {
  offer: Offer | null;
  /** Reason code for silence (e.g. `empty-store`, `insufficient-evidence`), null when offered. */
  silence: string | null;
  sufficiency: number;
  candidates: CandidateInfo[];
  /** Timing and counts for the decision log (ms, numbers only). */
  figures: Record<string, number>;
}

export interface OfferBuilder {
  build(req: OfferRequest): Promise<OfferDecision>;
}
