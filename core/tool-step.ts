/**
 * The tool channel's decision on one tool step (transcript/tool-steps.ts ToolStep) of an
 * observed session: a failed call → the Past fix looked up by the error's signature (exact,
 * then near by signature words, with BM25 over the error's head as a second arm), or a loop
 * inside the turn (the same failing or identical action repeated) → a stall. No warmup:
 * decided by the error, not by the centroid. Pure but for the store reads it is handed
 * (store/types.ts EpisodeReader + keywordSearch); called by core/pipeline.ts processToolStep,
 * which the daemon and replay share. The result becomes the session's tool cache through
 * core/publish.ts publishToolDecision.
 */
import type { Config, Mode } from '../config/schema.js';
import type { EpisodeReader, EpisodeRecord, StoreReader } from '../store/types.js';
import type { Offer } from '../shared/types.js';
import type { TriggerKind } from '../shared/vocabulary.js';
import { stepErrorText, type ToolStep } from '../transcript/tool-steps.js';
import { errorSignature, wordOverlap, type ErrorSignature } from '../shared/error-signature.js';
import { genericKind } from '../shared/error-class.js';
import { builtinRedactor, type Redactor } from '../shared/redact.js';
import { NEAR_MIN_OVERLAP, exactFixes, fixOffer, rankEpisodes, type MatchKind } from './fixes.js';

/** Results that are consequences of another failure or of the person, not errors to fix. */
export const CASCADE_RE = /^(Sibling tool call errored|The user doesn't want to proceed with this tool use|The user doesn't want to take this action|\[Request interrupted by user)/;
/** Tool steps remembered per session for loop detection. */
export const LOOP_RING = 8;
/** Hits taken from the BM25 arm over the error head. */
export const KEYWORD_K = 8;
/** A BM25 hit on an episode counts as a (weak) near match from this word overlap. */
export const KEYWORD_MIN_OVERLAP = 0.3;

export type EpisodeLookup = EpisodeReader & Pick<StoreReader, 'keywordSearch' | 'lineage'>;

export interface ToolStepContext {
  sessionId: string;
  cwd: string | null;
  mode: (Mode & { name: string }) | null;
  store: EpisodeLookup | null;
  /** Chunk ids already offered in this session (its FIFO, shared with the prompt channel). */
  offered: readonly number[];
  /** This session's recent steps, oldest first (updated by the caller after the decision). */
  ring: readonly LoopEntry[];
  config: Pick<Config, 'retrieval'>;
  /** Replays of history: only episodes met before this time (epoch ms) may be offered. */
  asOf?: number;
  /** The session's lineage (other session ids sharing its message uuids): their episodes are
   *  the session's own past, never a Past fix (docs/OFFERS.md "Lineage"). */
  lineage?: readonly string[];
  /** The configured redaction (the indexer's rules: user patterns included); default the
   *  built-in rules. */
  redactor?: Redactor;
}

export interface LoopEntry {
  /** Normalized action: tool name and its summary with variable parts as placeholders. */
  action: string;
  isError: boolean;
  sig: string | null;
}

export interface ToolStepResult {
  trigger: TriggerKind | null;
  sig: ErrorSignature | null;
  match: MatchKind | 'keyword' | null;
  offer: Offer | null;
  /** Silence code when offer is null. */
  silence: string | null;
  figures: Record<string, number>;
}

/** An action's identity for loops: its summary without line:column suffixes and spacing
 *  (paths and arguments stay: reading two files is not a loop). */
export function actionKey(name: string, summary: string): string {
  return `${name}|${summary.toLowerCase().replace(/(:\d+)+\b/g, '').replace(/\s+/g, ' ').trim()}`;
}

/** The loop-ring entry of a step. */
export function loopEntry(step: ToolStep, sig: ErrorSignature | null): LoopEntry {
  return { action: actionKey(step.name, step.summary), isError: step.isError, sig: sig?.sig ?? null };
}

/** The same action `window` times in a row, every time failing (or every time identical). */
export function isLoop(ring: readonly LoopEntry[], next: LoopEntry, window: number): boolean {
  if (window < 2 || ring.length < window - 1) return false;
  const last = [...ring.slice(-(window - 1)), next];
  if (!last.every((e) => e.action === last[0].action)) return false;
  if (last.every((e) => e.isError)) return last.every((e) => e.sig === last[0].sig);
  return last.every((e) => !e.isError);
}

/** Is the episode from this session or its lineage (either side may know the link: the
 *  session's lineage from its own uuids, the episode's from the store)? */
export function ownLineage(e: Pick<EpisodeRecord, 'sessionId' | 'lineage'>, sessionId: string, lineage: readonly string[] = []): boolean {
  if (!e.sessionId) return false;
  return e.sessionId === sessionId || lineage.includes(e.sessionId) || (e.lineage ?? []).includes(sessionId);
}

function usable(sessionId: string, asOf: number | undefined, lineage: readonly string[] = []) {
  return (e: Pick<EpisodeRecord, 'sessionId' | 'at' | 'lineage'>) => !ownLineage(e, sessionId, lineage) && (asOf === undefined || e.at <= asOf);
}

/** Past fix for an error signature: exact first, then near (signature words), then BM25. */
export function findPastFix(
  sig: ErrorSignature,
  ctx: Pick<ToolStepContext, 'sessionId' | 'cwd' | 'store' | 'offered' | 'asOf' | 'lineage'>,
): { offer: Offer | null; match: MatchKind | 'keyword' | null; figures: Record<string, number>; silence: string | null } {
  const store = ctx.store!;
  const filter = { cwd: ctx.cwd, excludeChunkIds: [...ctx.offered] };
  const figures: Record<string, number> = {};
  const ok = usable(ctx.sessionId, ctx.asOf, ctx.lineage);
  const exact = store.episodesBySignature([sig.sig], filter).filter(ok);
  figures.pastfix_exact = exact.length;
  const fixes = exactFixes(sig.sig, exact);
  if (fixes.length) return { offer: fixes[0].offer, match: 'exact', figures, silence: null };

  // Near: signature words of every episode (small, in memory in the reader).
  let best: { sig: string; overlap: number } | null = null;
  for (const e of store.episodeIndex()) {
    if (ownLineage(e, ctx.sessionId, ctx.lineage) || !e.resolved || e.sig === sig.sig) continue;
    const o = wordOverlap(sig.words, e.words);
    if (o >= NEAR_MIN_OVERLAP && (!best || o > best.overlap)) best = { sig: e.sig, overlap: o };
  }
  if (best) {
    const near = rankEpisodes(store.episodesBySignature([best.sig], filter).filter(ok));
    figures.pastfix_near_overlap = best.overlap;
    if (near.length) return { offer: fixOffer(sig.sig, near[0], 'near', best.overlap, 0), match: 'near', figures, silence: null };
  }

  // Second arm: BM25 over the error's head; an episode it finds with some word overlap.
  const query = sig.words.join(' ');
  if (query) {
    const hits = store.keywordSearch(query, KEYWORD_K, filter);
    figures.pastfix_keyword_hits = hits.length;
    const index = new Map(store.episodeIndex().map((e) => [e.chunkId, e]));
    for (const h of hits) {
      const e = index.get(h.chunkId);
      if (!e || ownLineage(e, ctx.sessionId, ctx.lineage) || !e.resolved) continue;
      const o = wordOverlap(sig.words, e.words);
      if (o < KEYWORD_MIN_OVERLAP) continue;
      const full = store.episodesBySignature([e.sig], filter).find((x) => x.chunkId === e.chunkId);
      if (!full || !ok(full)) continue;
      figures.pastfix_keyword_overlap = o;
      return { offer: fixOffer(sig.sig, full, 'near', o, 0), match: 'keyword', figures, silence: null };
    }
  }
  return { offer: null, match: null, figures, silence: exact.length ? 'unresolved-episode' : 'first-seen-error' };
}

/** Decide on one tool step of an observed session whose mode's tool channel is not off. */
export function decideToolStep(step: ToolStep, ctx: ToolStepContext, stallWindow: number): ToolStepResult & { entry: LoopEntry } {
  // Signed as the indexer stored it: with its secrets as markers (shared/redact.ts) and the
  // folder it ran in marked (shared/here-mark.ts).
  const sig = step.isError && !CASCADE_RE.test(step.resultText.trimStart()) ? errorSignature(stepErrorText(step, (ctx.redactor ?? builtinRedactor()).redact(step.resultText))) : null;
  const entry = loopEntry(step, sig);
  const loop = isLoop(ctx.ring, entry, stallWindow);
  const figures: Record<string, number> = { tool_error: step.isError ? 1 : 0, tool_loop: loop ? 1 : 0 };
  const out = (r: Partial<ToolStepResult>): ToolStepResult & { entry: LoopEntry } => ({
    trigger: null, sig, match: null, offer: null, silence: null, ...r, figures: { ...figures, ...r.figures }, entry,
  });
  if (!step.isError && !loop) return out({ silence: 'no-error' });
  if (step.isError && !sig) return out({ silence: CASCADE_RE.test(step.resultText.trimStart()) ? 'cascade' : 'no-signature' });
  const trigger: TriggerKind = loop ? 'stall' : 'error';
  if (!ctx.store) return out({ trigger, silence: 'no-store' });
  if (!sig) return out({ trigger, silence: 'loop-without-error' });
  // The hook's rule (shared/error-class.ts): no Past fix for a generic error.
  if (genericKind(step.resultText, sig.lines)) return out({ trigger, silence: 'generic-error' });
  const r = findPastFix(sig, ctx);
  return out({ trigger, match: r.match, offer: r.offer, silence: r.silence, figures: r.figures });
}
