/**
 * The OfferBuilder (retrieval/types.ts): turns one trigger into one offer worth attention,
 * or into silence with a reason code. Called by the daemon's pipeline and by replay.
 *
 *   OfferRequest ─▶ extract strings ─▶ plan + run the small queries (store, read-only)
 *     ─▶ fuse (weighted RRF) ─▶ session dedup + scope re-check ─▶ sufficiency gate
 *     ─▶ region caps / dominant / cross-region / wander ─▶ types + confidence + reason
 *     ─▶ optional reasoner (bounded; any failure keeps the heuristic offer) ─▶ OfferDecision
 *
 * Side effects: store reads and the optional reasoner's HTTP call; nothing is written.
 * Silence reason codes: empty-store, model-mismatch, no-query, no-candidates,
 * insufficient-evidence, no-cross-region, no-offer-type, reasoner-declined, error.
 * Figures (numbers only, for the decision log) say why; never raw text.
 */
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import type { Offer, OfferType } from '../shared/types.js';
import type { ChunkRecord, StoreReader } from '../store/types.js';
import { scopeAllows } from '../shared/modes.js';
import { escapeField, cutCodePoints } from '../shared/escape.js';
import type { CandidateInfo, OfferBuilder, OfferDecision, OfferRequest, OfferTypeEvidence } from './types.js';
import { extractStrings } from './extract.js';
import { planQueries, runQueries, type QueryPlan } from './queries.js';
import { fuseQueries, STRING_CONFIDENCE, type FusedCandidate } from './fuse.js';
import { evidenceFor, similarityScale, sufficiency, type Evidence } from './sufficiency.js';
import { selectByRegion, type RegionCandidate } from './regions.js';
import { errorKey, type TypeEvidence } from './offer-type.js';
import { offerConfidence } from './confidence.js';
import { isoDate, reasonFor, REASON_MAX_CHARS } from './reason.js';
import { baselineCosines, createScaleSampler } from './scale.js';
import { REASONER_STATUS_CODE, type Reasoner, type ReasonerStatus } from './reasoner.js';
import { novelty } from './novelty.js';
import { cut, typeCandidates, TURN_FIELD_CHARS, type Typed } from './offer-typing.js';

export { TURN_FIELD_CHARS } from './offer-typing.js';

/** A chunk from the session being observed is the conversation itself: never an offer
 *  (a user who indexes ~/.claude/projects indexes the live session too). */
export function fromOwnSession(path: string, sessionId: string): boolean {
  if (!sessionId) return false;
  return path.endsWith(`/${sessionId}.jsonl`) || path.includes(`/${sessionId}/subagents/`);
}

/** …nor is a chunk of any session of its lineage (the session it was resumed or forked from,
 *  its copies: they share message uuids — store/lineage-sql.ts). */
export function fromOwnLineage(path: string, sessionId: string, lineage: readonly string[] = []): boolean {
  return fromOwnSession(path, sessionId) || lineage.some((s) => s !== sessionId && fromOwnSession(path, s));
}

/** Offer ids are stable for (session, exchange, chunk): a provisional and a final decision
 *  on the same exchange, or a replay, name the same offer; the hook never shows one twice. */
export function offerId(sessionId: string, exchangeUuid: string, chunkId: number): string {
  return createHash('sha256').update(`${sessionId}\u0000${exchangeUuid}\u0000${chunkId}`).digest('hex').slice(0, 24);
}

/** Fused chunks loaded and considered after fusion (caps, wander pool). */
export const CONSIDER_TOP = 60;
/** Snippet characters per candidate shown to the reasoner. */
const REASONER_SNIPPET_CHARS = 400;

export interface OfferBuilderDeps {
  store: StoreReader;
  /** The daemon's embedder: its model id and dimension must match the store's. */
  embedder: Pick<Embedder, 'modelId' | 'dim'>;
  config: Pick<Config, 'retrieval'>;
  /** Optional reasoner (retrieval/reasoner.ts createReasoner); null/undefined = off. */
  reasoner?: Reasoner | null;
}

function silence(code: string, figures: Record<string, number>, extra: Partial<OfferDecision> = {}): OfferDecision {
  return { offer: null, silence: code, sufficiency: 0, candidates: [], figures, ...extra };
}

function dot(a: Float32Array, b: Float32Array): number {
  if (a.length !== b.length) return Number.NaN;
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i] * b[i];
  return s;
}

/**
 * A keyword hit of an extracted string counts as exact evidence only when the chunk really
 * contains that string (an OR query also returns chunks sharing one word of a message):
 * the best STRING_CONFIDENCE among the strings the chunk's title, heading or text contains.
 */
export function verifiedStringConfidence(f: FusedCandidate, chunk: ChunkRecord, plan: QueryPlan): number | null {
  const hay = `${chunk.title}\n${chunk.heading}\n${chunk.text}`.toLowerCase();
  let best: number | null = null;
  for (const q of plan.keyword) {
    if (!q.kind || !f.lists.includes(`keyword:${q.id}`)) continue;
    const key = q.kind === 'error-message' ? errorKey({ kind: q.kind, text: q.original ?? q.text }) : q.kind === 'path' ? (q.original ?? q.text).split('/').pop()!.toLowerCase() : (q.original ?? q.text).toLowerCase();
    if (key.length < 3 || !hay.includes(key)) continue;
    const c = STRING_CONFIDENCE[q.kind];
    if (c > 0 && (best === null || c > best)) best = c;
  }
  return best;
}

export function createOfferBuilder(deps: OfferBuilderDeps): OfferBuilder {
  const { store, embedder, config } = deps;
  const rc = config.retrieval;
  const sampler = createScaleSampler(store);

  async function build(req: OfferRequest): Promise<OfferDecision> {
    const t0 = performance.now();
    const figures: Record<string, number> = { reasoner: REASONER_STATUS_CODE.off };
    const ms = () => Math.round((performance.now() - t0) * 100) / 100;

    // 1. The store must hold something, embedded by our model.
    const info = store.info();
    figures.storeChunks = info.chunks;
    if (info.chunks === 0) return silence('empty-store', { ...figures, ms: ms() });
    const dim = info.dim ?? embedder.dim;
    if (
      (info.model !== null && info.model !== embedder.modelId) ||
      dim !== embedder.dim ||
      req.exchangeVector.length !== dim ||
      (req.centroid.length !== 0 && req.centroid.length !== dim)
    ) {
      figures.storeDim = info.dim ?? -1;
      figures.modelDim = embedder.dim;
      figures.vectorDim = req.exchangeVector.length;
      return silence('model-mismatch', { ...figures, ms: ms() });
    }

    // 2. Strings and queries from the (bounded) turn.
    const ex = req.exchange;
    const exchange = {
      user: cut(ex.user, TURN_FIELD_CHARS),
      assistant: cut(ex.assistant, TURN_FIELD_CHARS),
      toolErrors: (Array.isArray(ex.toolErrors) ? ex.toolErrors : []).slice(0, 8).map((e) => cut(e, TURN_FIELD_CHARS / 4)),
    };
    const toolCalls = (Array.isArray(ex.toolCalls) ? ex.toolCalls : []).slice(0, 16).map((c) => cut(c, 400));
    const errorText = exchange.toolErrors.join('\n');
    const strings = extractStrings([errorText, exchange.user, toolCalls.join('\n'), exchange.assistant].join('\n'));
    figures.strings = strings.length;
    const plan = planQueries({ exchange, exchangeVector: req.exchangeVector, centroid: req.centroid, dim }, strings);
    const exclude = [...new Set(req.excludeChunkIds.filter((id) => Number.isInteger(id)))];
    const filter = { excludeChunkIds: exclude, cwd: req.cwd ?? null };
    const tq = performance.now();
    const results = runQueries(store, plan, rc.k, filter, rc.queryBudgetMs);
    figures.queryMs = Math.round((performance.now() - tq) * 100) / 100;
    figures.queries = results.queries;
    figures.queriesFailed = results.failed;
    figures.queriesSkipped = results.skipped;
    figures.lists = results.lists.filter((l) => l.hits.length > 0).length;
    const exchangeList = results.lists.find((l) => l.id === 'vector:exchange');
    figures.kthCos = exchangeList?.hits.length ? exchangeList.hits[exchangeList.hits.length - 1].score : -2;
    if (results.queries === 0) return silence('no-query', { ...figures, ms: ms() });

    // 3. Fusion, then session dedup and scope re-checked (before the gate and the caps).
    const excluded = new Set(exclude);
    const fusedAll = fuseQueries(results.lists, rc.rrfK);
    const top = fusedAll.filter((f) => !excluded.has(f.chunkId)).slice(0, CONSIDER_TOP);
    const chunks = new Map(store.getChunks(top.map((f) => f.chunkId)).map((c) => [c.id, c]));
    const ranked: FusedCandidate[] = [];
    let scopeDropped = 0;
    let ownDropped = 0;
    let lineageDropped = 0;
    let laterDropped = 0;
    for (const f of top) {
      const c = chunks.get(f.chunkId);
      if (!c) continue;
      if (req.asOf !== undefined && c.createdAt > req.asOf) {
        laterDropped++;
        continue;
      }
      if (!scopeAllows(c.regionScope, req.cwd)) {
        scopeDropped++;
        continue;
      }
      if (fromOwnSession(c.path, req.sessionId)) {
        ownDropped++;
        continue;
      }
      if (fromOwnLineage(c.path, req.sessionId, req.lineage)) {
        lineageDropped++;
        continue;
      }
      if (f.bestString !== null) f.bestString = verifiedStringConfidence(f, c, plan);
      ranked.push(f);
    }
    figures.fused = fusedAll.length;
    figures.scopeDropped = scopeDropped;
    figures.ownSessionDropped = ownDropped;
    figures.lineageDropped = lineageDropped;
    figures.laterDropped = laterDropped;
    figures.considered = ranked.length;
    if (ranked.length === 0) return silence('no-candidates', { ...figures, ms: ms() });

    // Absolute cosine for leading chunks that no vector query returned (keyword/name only).
    const queryVectors = plan.vector.map((v) => v.vector);
    for (const f of ranked.slice(0, rc.candidates + 1)) {
      if (f.bestCos !== null || queryVectors.length === 0) continue;
      const v = store.chunkVector(f.chunkId);
      if (!v) continue;
      const best = Math.max(...queryVectors.map((q) => dot(q, v)));
      if (Number.isFinite(best)) f.bestCos = best;
    }

    figures.fuseLoadMs = Math.round((performance.now() - tq) * 100) / 100 - figures.queryMs;

    // 4. Evidence sufficiency.
    const scale = similarityScale(baselineCosines(sampler.sample(dim, info), queryVectors));
    const suff = sufficiency(ranked, scale);
    Object.assign(figures, {
      sufficiency: suff.score,
      suffSupport: suff.support,
      suffMargin: suff.margin,
      suffSimilarity: suff.similarity,
      suffExact: suff.exact,
      topSupport: ranked[0].support,
      topCos: ranked[0].bestCos ?? -2,
      scaleMedian: scale?.median ?? -2,
      scaleSpread: scale?.spread ?? -1,
      minSufficiency: rc.minSufficiency,
    });
    const infoOf = (c: RegionCandidate): CandidateInfo => ({ chunkId: c.chunkId, region: c.region, fused: c.fused, support: c.support, wildcard: c.wildcard });
    const regionRanked: RegionCandidate[] = ranked.map((f) => ({ chunkId: f.chunkId, region: chunks.get(f.chunkId)!.region, fused: f.fused, support: f.support, rank: f.rank, wildcard: false }));
    if (suff.score < rc.minSufficiency) {
      return silence('insufficient-evidence', { ...figures, ms: ms() }, { sufficiency: suff.score, candidates: regionRanked.slice(0, rc.candidates).map(infoOf) });
    }

    // 5. Regions: caps, dominant region, cross-region rule, wander.
    // Regions in scope that hold anything: an emptied region is no "outside" to draw from.
    const eligibleRegions = store.regions().filter((r) => scopeAllows(r.scope, req.cwd) && (r.chunks ?? 1) > 0).length;
    figures.eligibleRegions = eligibleRegions;
    const regions = selectByRegion(regionRanked, { ...rc, eligibleRegions }, req.rng);
    figures.regionsSeen = new Set(regionRanked.map((c) => c.region)).size;
    if (!regions.ok) {
      return silence(regions.silence, { ...figures, ms: ms() }, { sufficiency: suff.score, candidates: regions.set.map(infoOf) });
    }
    figures.setSize = regions.set.length;
    figures.wildcard = regions.wildcard ? 1 : 0;
    const candidates = regions.set.map(infoOf);

    // 6. Types, confidence, reason (heuristic).
    const byId = new Map(ranked.map((f) => [f.chunkId, f]));
    const leader = ranked[0];
    const { typed, best, turnText, seen } = typeCandidates({
      set: regions.set,
      ranked,
      byId,
      leader,
      chunks,
      exchange,
      toolCalls,
      strings,
      req,
      sessionRegions: new Set(store.regions().filter((r) => r.scope.startsWith('project:') && scopeAllows(r.scope, req.cwd)).map((r) => r.name)),
      leaderEvidence: suff,
      scale,
      minSufficiency: rc.minSufficiency,
      figures,
    });

    // 7. Optional reasoner: one bounded call; any failure keeps the heuristic choice.
    let chosen: { t: Typed | { cand: RegionCandidate; chunk: ChunkRecord; evidence: Evidence }; type: OfferType; reason: string; confidence: number; reasoned: boolean; why: TypeEvidence } | null = best
      ? { t: best, type: best.type.type, reason: reasonFor(best.chunk, best.type), confidence: best.confidence, reasoned: false, why: best.type }
      : null;
    if (deps.reasoner) {
      const r = await deps.reasoner.decide({
        trigger: req.trigger,
        turn: turnText,
        candidates: regions.set.map((cand, i) => {
          const chunk = chunks.get(cand.chunkId)!;
          return {
            handle: chunk.handle,
            region: chunk.region,
            title: chunk.title,
            kind: chunk.kind,
            date: isoDate(chunk.createdAt),
            heuristicType: typed[i]?.type.type ?? null,
            wildcard: cand.wildcard,
            snippet: chunk.text.slice(0, REASONER_SNIPPET_CHARS),
          };
        }),
      });
      const status: ReasonerStatus = r.status;
      figures.reasoner = REASONER_STATUS_CODE[status];
      figures.reasonerMs = Math.round(r.ms);
      figures.reasonerBytes = r.bytes;
      if (status === 'ok' && r.answer) {
        if (r.answer.choice === null) {
          return silence('reasoner-declined', { ...figures, ms: ms() }, { sufficiency: suff.score, candidates });
        }
        const cand = regions.set[r.answer.choice];
        const chunk = chunks.get(cand.chunkId)!;
        const f = byId.get(cand.chunkId)!;
        const evidence = f === leader ? suff : evidenceFor(f, leader, scale);
        const reason = cutCodePoints(escapeField(r.answer.reason), REASON_MAX_CHARS);
        // The reasoner picks and phrases; confidence stays our own measure of the evidence.
        chosen = {
          t: { cand, chunk, evidence },
          type: r.answer.type,
          reason: reason || reasonFor(chunk, { type: r.answer.type }),
          confidence: offerConfidence(r.answer.type, evidence, cand.wildcard),
          reasoned: true,
          why: { type: r.answer.type, rule: 'reasoner' },
        };
      }
    }
    if (!chosen) return silence('no-offer-type', { ...figures, ms: ms() }, { sufficiency: suff.score, candidates });

    // Defensive re-checks right before the offer leaves: dedup and scope.
    const { cand, chunk } = chosen.t;
    if (excluded.has(chunk.id) || !scopeAllows(chunk.regionScope, req.cwd)) {
      return silence('error', { ...figures, ms: ms() }, { sufficiency: suff.score, candidates });
    }
    const offer: Offer = {
      id: offerId(req.sessionId, ex.uuid, chunk.id),
      chunkId: chunk.id,
      handle: chunk.handle,
      type: chosen.type,
      confidence: chosen.confidence,
      reason: chosen.reason,
      region: chunk.region,
      wildcard: cand.wildcard,
      trigger: req.trigger,
      reasoned: chosen.reasoned,
    };
    figures.confidence = offer.confidence;
    figures.ms = ms();
    const nov = 'novelty' in chosen.t ? chosen.t.novelty : novelty(chunk.text, seen, exchange.user);
    const typeEvidence: OfferTypeEvidence = {
      rule: chosen.why.rule ?? null,
      detail: chosen.why.detail ?? null,
      heldShare: nov.held,
      restatesShare: nov.restates,
      coverage: 'coverage' in chosen.t ? chosen.t.coverage : null,
    };
    return { offer, silence: null, sufficiency: suff.score, candidates, figures, typeEvidence };
  }

  return {
    async build(req: OfferRequest): Promise<OfferDecision> {
      try {
        return await build(req);
      } catch {
        return silence('error', {});
      }
    },
  };
}
