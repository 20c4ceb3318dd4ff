/**
 * The offer builder's typing step (retrieval/builder.ts, step 6): each candidate the region
 * rules kept gets an offer type (retrieval/offer-type.ts) and a confidence, or is dropped —
 * no type, a similarity offer about an unnamed subject, one that does not hold the request's
 * specific words (coverage.ts) or that another subject holds as well (attribution.ts), one
 * the session already holds (novelty.ts), or one whose own evidence misses the gate. The
 * drops are counted into the builder's figures. Pure over its inputs (the store was read
 * before).
 */
import type { ChunkRecord } from '../store/types.js';
import type { OfferRequest } from './types.js';
import { extractStrings, showsFailure, EXTRACT_MAX_INPUT_CHARS, type Extracted } from './extract.js';
import type { FusedCandidate } from './fuse.js';
import { evidenceFor, type Evidence, type SimilarityScale } from './sufficiency.js';
import type { RegionCandidate } from './regions.js';
import { classifyOffer, type TypeContext, type TypeEvidence } from './offer-type.js';
import { offerConfidence } from './confidence.js';
import { chunkAuthor, exchangeSeenText, namesSubject, novelty, shingles, type NoveltyVerdict } from './novelty.js';
import { attributedElsewhere, bestRivalShare, contentShare, contentWeights } from './attribution.js';
import { coverage, coversRequest, requestTerms, speakerTermsOf, termsOf, weighRequest, type RequestWeights } from './coverage.js';

/** Characters of each turn field considered (100 KB turns are cut here). */
export const TURN_FIELD_CHARS = EXTRACT_MAX_INPUT_CHARS;

/** The first n characters of a string field ('' for anything else). */
export function cut(s: unknown, n: number): string {
  return typeof s === 'string' ? (s.length > n ? s.slice(0, n) : s) : '';
}

/** A candidate that got a type: the heuristic offer it would make. */
export interface Typed {
  cand: RegionCandidate;
  chunk: ChunkRecord;
  type: TypeEvidence;
  evidence: Evidence;
  confidence: number;
  novelty: NoveltyVerdict;
  /** Share of the request's specific words the chunk holds (coverage.ts), null when unjudged. */
  coverage: number | null;
}

/** The current window: the recent exchanges and the newest one (last), without repeats. */
function windowOf(req: OfferRequest): OfferRequest['recent'] {
  const recent = Array.isArray(req.recent) ? req.recent : [];
  return recent.includes(req.exchange) || recent.some((e) => e.uuid === req.exchange.uuid) ? recent : [...recent, req.exchange];
}

export interface TypingInput {
  /** The candidates the region rules kept, in order. */
  set: RegionCandidate[];
  /** Every considered candidate (fused, filtered), best first: coverage and attribution weigh over them. */
  ranked: FusedCandidate[];
  byId: Map<number, FusedCandidate>;
  /** ranked[0]: the candidate the sufficiency gate measured. */
  leader: FusedCandidate;
  leaderEvidence: Evidence;
  chunks: Map<number, ChunkRecord>;
  /** The turn's fields, cut to TURN_FIELD_CHARS. */
  exchange: { user: string; assistant: string };
  toolCalls: string[];
  strings: Extracted[];
  req: OfferRequest;
  /** Region names of the cwd's project scopes. */
  sessionRegions: Set<string>;
  scale: SimilarityScale | null;
  minSufficiency: number;
  /** The builder's figures: the drop counts are added here. */
  figures: Record<string, number>;
}

export interface TypingResult {
  /** Per candidate of `set`: its typed offer, or null when dropped. */
  typed: Array<Typed | null>;
  /** The most confident typed offer, or null. */
  best: Typed | null;
  /** The turn as the reasoner reads it. */
  turnText: string;
  /** What the session already holds (novelty of a reasoner's pick). */
  seen: { has(h: number): boolean };
}

export function typeCandidates(input: TypingInput): TypingResult {
  const { set, ranked, byId, leader, leaderEvidence, chunks, exchange, toolCalls, strings, req, sessionRegions, scale, minSufficiency, figures } = input;
  const turnText = [exchange.user, exchange.assistant, toolCalls.join('\n')].join('\n');
  const window = windowOf(req);
  const windowErrors = extractStrings(window.flatMap((e) => (Array.isArray(e.toolErrors) ? e.toolErrors : []).slice(0, 8).map((t) => cut(t, TURN_FIELD_CHARS / 4))).join('\n'));
  const ctx: TypeContext = { strings, windowErrors, turnText, actionText: [exchange.user, toolCalls.join('\n')].join('\n'), sessionRegions, trigger: req.trigger };
  // Novelty: what the session already holds (earlier exchanges, the window) is no offer.
  const windowSeen = shingles(window.map((e) => exchangeSeenText({ user: cut(e.user, TURN_FIELD_CHARS), assistant: cut(e.assistant, TURN_FIELD_CHARS), toolCalls: e.toolCalls ?? [], toolErrors: e.toolErrors ?? [] })).join('\n'));
  const seen = { has: (h: number) => windowSeen.has(h) || (req.seen?.has(h) ?? false) };
  let heldDropped = 0;
  let restatesDropped = 0;
  let unnamedDropped = 0;
  let weakDropped = 0;
  // The request's named subjects: capitalised names in the prompt itself.
  const subjects = extractStrings(exchange.user).filter((x) => x.kind === 'name').map((x) => x.text);
  // Coverage: the request's specific words, weighed over the loaded candidates (once, lazily).
  // (each loaded chunk's terms read once: coverage weighs over all of them, attribution
  // reads them again for its rivals)
  const termsMemo = new Map<number, Set<string>>();
  const chunkTerms = (c: ChunkRecord) => termsMemo.get(c.id) ?? termsMemo.set(c.id, termsOf(`${c.title}\n${c.heading}\n${c.text}`)).get(c.id)!;
  let weights: RequestWeights | null = null;
  const requestWeights = (): RequestWeights =>
    (weights ??= weighRequest(
      requestTerms(exchange.user),
      ranked.map((f) => chunkTerms(chunks.get(f.chunkId)!)),
    ));
  let uncoveredDropped = 0;
  // Attribution: the best share of the request's content held by a loaded candidate about
  // another subject (once, lazily; only when the request names a subject).
  const saidTerms = (c: ChunkRecord) => (chunkAuthor(c.text) !== null ? speakerTermsOf(`${c.title}\n${c.heading}\n${c.text}`) : chunkTerms(c));
  let content: RequestWeights | null = null;
  const requestContent = (): RequestWeights => (content ??= contentWeights(requestWeights(), subjects));
  let rival: number | null = null;
  const rivalShare = (): number =>
    (rival ??= bestRivalShare(
      requestContent(),
      ranked.map((f) => chunks.get(f.chunkId)!).filter((c) => !namesSubject(c, subjects)).map(saidTerms),
    ));
  let misattributedDropped = 0;
  const typed: Array<Typed | null> = set.map((cand) => {
    const chunk = chunks.get(cand.chunkId)!;
    const f = byId.get(cand.chunkId)!;
    const type = classifyOffer(chunk, cand.wildcard, ctx);
    if (!type) return null;
    if (type.type !== 'past-fix' && !namesSubject(chunk, subjects)) {
      unnamedDropped++;
      return null;
    }
    // A similarity offer (analogous, tangent) must hold the request's specific words, not
    // only its topic; a Past fix and a Contradicts carry their own lexical evidence, and the
    // wander wildcard is a long shot by design (capped confidence).
    const judged = !cand.wildcard && (type.type === 'analogous' || type.type === 'tangent');
    // A turn of a conversation log by the request's named subject speaks for its author:
    // what it says about "your …" is the addressee's, not the subject's.
    const author = judged ? chunkAuthor(chunk.text) : null;
    const ownTerms = author !== null && subjects.some((n) => n.toLowerCase() === author.toLowerCase());
    const held = judged ? (ownTerms ? speakerTermsOf(`${chunk.title}\n${chunk.heading}\n${chunk.text}`) : chunkTerms(chunk)) : null;
    const share = held ? coverage(requestWeights(), held) : null;
    if (!coversRequest(share)) {
      uncoveredDropped++;
      return null;
    }
    // Attribution (attribution.ts): the request names a subject; a chunk about another one
    // that holds as much of what is asked means the detail is not tied to this subject.
    if (held && subjects.length > 0 && attributedElsewhere(contentShare(requestContent(), held), rivalShare())) {
      misattributedDropped++;
      return null;
    }
    const nov = novelty(chunk.text, seen, exchange.user);
    if (!nov.novel) {
      if (nov.why === 'already-held') heldDropped++;
      else restatesDropped++;
      return null;
    }
    const evidence = f === leader ? leaderEvidence : evidenceFor(f, leader, scale);
    // The gate passed on the leader's evidence: a candidate offered in its place (the leader
    // fit no type, was no news or about someone else) must pass it on its own. The wander
    // wildcard is the exception by design (capped confidence: docs/OFFERS.md).
    if (!cand.wildcard && evidence.score < minSufficiency) {
      weakDropped++;
      return null;
    }
    return { cand, chunk, type, evidence, confidence: offerConfidence(type.type, evidence, cand.wildcard), novelty: nov, coverage: share };
  });
  figures.alreadyHeldDropped = heldDropped;
  figures.restatesDropped = restatesDropped;
  figures.unnamedDropped = unnamedDropped;
  figures.weakDropped = weakDropped;
  figures.uncoveredDropped = uncoveredDropped;
  figures.misattributedDropped = misattributedDropped;
  figures.typed = typed.filter(Boolean).length;
  figures.failure = showsFailure(strings) ? 1 : 0;
  let best: Typed | null = null;
  for (const t of typed) if (t && (!best || t.confidence > best.confidence)) best = t;
  return { typed, best, turnText, seen };
}
