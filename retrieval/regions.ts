/**
 * Region rules of a candidate build. Input: the fused ranking (after session dedup and
 * scope), each chunk labelled with its region. Output: the candidate set the offer is
 * chosen from, or the reason there is none. Pure; randomness only through the rng passed in.
 *
 *  - per-region cap: walking the ranking best first, at most `perRegionCap` chunks of one
 *    region enter the set, which holds at most `candidates` chunks;
 *  - dominant region: the region with the most support summed over the whole ranking
 *    (ties: the one whose best chunk ranks higher);
 *  - cross-region rule: the set must hold at least one non-wildcard chunk from outside the
 *    dominant region, else silence (`no-cross-region`) — waived when the session has only one
 *    region in scope (nothing lies outside it). Decision (docs/OFFERS.md): the rule
 *    is about the *candidate set* — the evidence must not be one region echoing itself —
 *    the offer itself may come from any region of the set (the best-supported chunk often
 *    is in the dominant region);
 *  - wander: with probability `wanderProbability` one wildcard from the lower ranks (not in
 *    the set) of a region other than the dominant one is appended, marked `wildcard`. It
 *    never counts toward the cross-region rule (that check runs before and ignores it).
 */

export interface RegionCandidate {
  chunkId: number;
  region: string;
  fused: number;
  support: number;
  rank: number;
  wildcard: boolean;
}

export interface RegionOptions {
  perRegionCap: number;
  candidates: number;
  wanderProbability: number;
  /** Regions in scope for this session. With fewer than 2 there is no "outside" to draw
   *  from, so the cross-region rule is waived (a store of one notes folder still works);
   *  default 2 (the rule applies). */
  eligibleRegions?: number;
}

export type RegionOutcome =
  | { ok: true; set: RegionCandidate[]; dominant: string; wildcard: RegionCandidate | null }
  | { ok: false; silence: 'no-candidates' | 'no-cross-region'; dominant: string | null; set: RegionCandidate[] };

/** Lower ranks considered for the wander wildcard (after the set), at most this many. */
export const WANDER_POOL = 20;

/** Apply the per-region cap and the set size, best first. */
export function capByRegion<T extends { region: string }>(ranked: readonly T[], perRegionCap: number, candidates: number): T[] {
  const perRegion = new Map<string, number>();
  const out: T[] = [];
  for (const c of ranked) {
    if (out.length >= candidates) break;
    const n = perRegion.get(c.region) ?? 0;
    if (n >= perRegionCap) continue;
    perRegion.set(c.region, n + 1);
    out.push(c);
  }
  return out;
}

/** The region with the most support over the ranking; null when empty. */
export function dominantRegion(ranked: readonly Pick<RegionCandidate, 'region' | 'support'>[]): string | null {
  const sum = new Map<string, { support: number; first: number }>();
  ranked.forEach((c, i) => {
    const s = sum.get(c.region);
    if (s) s.support += c.support;
    else sum.set(c.region, { support: c.support, first: i });
  });
  let best: string | null = null;
  let bestS = { support: -1, first: Infinity };
  for (const [region, s] of sum) {
    if (s.support > bestS.support || (s.support === bestS.support && s.first < bestS.first)) {
      best = region;
      bestS = s;
    }
  }
  return best;
}

/** True when the set holds a non-wildcard chunk outside the dominant region. */
export function hasCrossRegion(set: readonly Pick<RegionCandidate, 'region' | 'wildcard'>[], dominant: string): boolean {
  return set.some((c) => !c.wildcard && c.region !== dominant);
}

/** Maybe pick one wildcard from lower ranks of another region (uses rng only when eligible). */
export function wander(ranked: readonly RegionCandidate[], set: readonly RegionCandidate[], dominant: string, p: number, rng: () => number): RegionCandidate | null {
  if (!(p > 0)) return null;
  const inSet = new Set(set.map((c) => c.chunkId));
  const pool = ranked.filter((c) => !inSet.has(c.chunkId) && c.region !== dominant).slice(0, WANDER_POOL);
  if (pool.length === 0) return null;
  if (!(rng() < p)) return null;
  const pick = Math.min(pool.length - 1, Math.floor(Math.max(0, rng()) * pool.length));
  return { ...pool[pick], wildcard: true };
}

/** The region rules in order: caps → dominant → cross-region → wander. */
export function selectByRegion(ranked: readonly RegionCandidate[], opts: RegionOptions, rng: () => number): RegionOutcome {
  const plain = ranked.map((c) => ({ ...c, wildcard: false }));
  const set = capByRegion(plain, Math.max(1, opts.perRegionCap), Math.max(1, opts.candidates));
  const dominant = dominantRegion(plain);
  if (set.length === 0 || dominant === null) return { ok: false, silence: 'no-candidates', dominant, set };
  const ruleApplies = (opts.eligibleRegions ?? 2) >= 2;
  if (ruleApplies && !hasCrossRegion(set, dominant)) return { ok: false, silence: 'no-cross-region', dominant, set };
  const wildcard = wander(plain, set, dominant, opts.wanderProbability, rng);
  return { ok: true, set: wildcard ? [...set, wildcard] : set, dominant, wildcard };
}
