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
  /** The session's lineage (docs/OFFERS.md): other session ids that share message uuids with
   *  it — the session it was resumed, forked or continued from, and its copies. Their chunks
   *  are the session's own past and never an offer, like the session's own. */
  lineage?: string[];
  /** What the session has already seen (shingle hashes of its earlier exchanges:
   *  retrieval/novelty.ts SessionShingles); the window is added by the builder. */
  seen?: { has(h: number): boolean };
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

/** Why the offer has its type, and how new it is to the session (codes and figures, no text):
 *  replay and backtest report it with each offer. */
export interface OfferTypeEvidence {
  /** retrieval/offer-type.ts TYPE_RULES, or null when unknown. */
  rule: string | null;
  /** The error string's kind (past-fix), what carried the outcome (analogous), or null. */
  detail: string | null;
  /** Share of the chunk's shingles the session already held / found in the current prompt
   *  (null: too short to judge). Both are below the novelty thresholds for an offer. */
  heldShare: number | null;
  restatesShare: number | null;
  /** Share of the request's specific words the chunk holds (retrieval/coverage.ts; at least
   *  MIN_COVERAGE for an analogous or tangent offer), null when not judged. */
  coverage?: number | null;
}

export interface OfferDecision {
  offer: Offer | null;
  /** Reason code for silence (e.g. `empty-store`, `insufficient-evidence`), null when offered. */
  silence: string | null;
  sufficiency: number;
  candidates: CandidateInfo[];
  /** Timing and counts for the decision log (ms, numbers only). */
  figures: Record<string, number>;
  /** Set with an offer. */
  typeEvidence?: OfferTypeEvidence;
}

export interface OfferBuilder {
  build(req: OfferRequest): Promise<OfferDecision>;
}
