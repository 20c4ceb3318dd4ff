/**
 * Which kind of offer a candidate chunk would be, from the turn and the chunk's metadata.
 * Input: the chunk (store/types ChunkRecord), whether it is the wander wildcard, and the
 * turn context (extracted strings, what the turn does, the session's own project regions,
 * the trigger). Output: the type and the evidence behind it, or null (the chunk fits no
 * type and is not offered). Pure. In order of precedence:
 *
 *  past-fix     the turn shows a failure (an extracted error code / message / HTTP status /
 *               exit code) AND the chunk is a transcript chunk with hasError && resolved
 *               AND its text contains one of those error strings.
 *  contradicts  a conservative lexical heuristic: the chunk says "don't / do not / never /
 *               avoid / stop using / should not / must not / no longer use / instead of X"
 *               and the turn does X — X is the backticked span or the first content word after
 *               the marker (≥ 3 chars, not a stop word), matched in the turn's prompt, reply
 *               and tool calls as a whole word (backticked: as a substring). It misses
 *               paraphrase and never sees irony; the reasoner can pick this type too.
 *  tangent      the chunk is the wander wildcard, or the trigger is drift.
 *  analogous    the chunk's region is not one of the session's own project regions
 *               (project-scoped regions whose glob matches the session cwd).
 */
import type { ChunkRecord } from '../store/types.js';
import type { OfferType } from '../shared/types.js';
import type { TriggerKind } from './types.js';
import { ERROR_KINDS, type Extracted } from './extract.js';
import { STOP_WORDS } from '../store/stopwords.js';

export interface TypeContext {
  strings: readonly Extracted[];
  /** Prompt + reply + tool calls of the newest exchange (bounded by the caller). */
  turnText: string;
  /** Regions that are the session's own project (scope `project:<glob>` matching the cwd). */
  sessionRegions: ReadonlySet<string>;
  trigger: TriggerKind;
}

export interface TypeEvidence {
  type: OfferType;
  /** The error string shared with a resolved past session (past-fix). */
  sharedError?: string;
  /** The thing the note advises against that the turn does (contradicts). */
  contradictTerm?: string;
}

/** Error message prefix compared with the chunk (messages carry run-specific tails). */
const ERROR_PREFIX_CHARS = 48;
const MIN_TERM_CHARS = 3;
/** Characters of a chunk scanned for advice markers. */
const CONTRADICT_SCAN_CHARS = 4000;

const NEGATION =
  /\b(?:don['’]t|do not|never|avoid|stop using|shouldn['’]t|should not|must not|mustn['’]t|no longer use|instead of|not recommended:?)\s+(?:(?:use|using|run|running|call|calling|set|setting|add|adding|rely on|enable|enabling|put|the|a|an)\s+){0,2}(`[^`\n]{2,60}`|[\w.@/+-]{3,60})/gi;

/** Words too common to be "the thing" a note advises against. */
const WEAK_TERMS = new Set(['this', 'that', 'it', 'them', 'anything', 'everything', 'something', 'things', 'thing', 'code', 'work', 'here', 'there', 'again', 'more', 'other', 'which', 'when']);

/** Comparable form of an error string for matching against chunk text. */
export function errorKey(s: Extracted): string {
  if (s.kind === 'error-message') {
    const cut = s.text.split(/['"(\[{]/)[0].trim();
    return cut.slice(0, ERROR_PREFIX_CHARS).toLowerCase();
  }
  return s.text.toLowerCase();
}

/** The first error string of the turn found in the chunk text, or null. */
export function sharedErrorString(strings: readonly Extracted[], chunkText: string): string | null {
  const hay = chunkText.toLowerCase();
  for (const s of strings) {
    if (!ERROR_KINDS.has(s.kind)) continue;
    const key = errorKey(s);
    if (key.length >= MIN_TERM_CHARS && hay.includes(key)) return s.text;
  }
  return null;
}

function escapeRe(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The term a chunk advises against that the turn does, or null. */
function advisedAgainst(text: string): Array<{ term: string; ticked: boolean }> {
  const out: Array<{ term: string; ticked: boolean }> = [];
  NEGATION.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NEGATION.exec(text)) !== null) {
    const raw = m[1];
    const ticked = raw.startsWith('`');
    const term = (ticked ? raw.slice(1, -1) : raw.replace(/[.,;:!?]+$/, '')).trim().toLowerCase();
    if (term.length < MIN_TERM_CHARS || STOP_WORDS.has(term) || WEAK_TERMS.has(term)) continue;
    out.push({ term, ticked });
  }
  return out;
}

/**
 * The term a chunk advises against that the turn does, or null. When the turn itself
 * advises against the same term (agreement, not contradiction) it does not count.
 */
export function contradictedTerm(chunkText: string, turnText: string): string | null {
  const turn = turnText.toLowerCase();
  const turnAvoids = new Set(advisedAgainst(turnText.slice(0, CONTRADICT_SCAN_CHARS)).map((t) => t.term));
  for (const { term, ticked } of advisedAgainst(chunkText.slice(0, CONTRADICT_SCAN_CHARS))) {
    if (turnAvoids.has(term)) continue;
    const found = ticked ? turn.includes(term) : new RegExp(`(?:^|[^\\w])${escapeRe(term)}(?:$|[^\\w])`).test(turn);
    if (found) return term;
  }
  return null;
}

/** Classify one candidate; null when it fits no offer type. */
export function classifyOffer(chunk: ChunkRecord, wildcard: boolean, ctx: TypeContext): TypeEvidence | null {
  const failure = ctx.strings.some((s) => ERROR_KINDS.has(s.kind));
  if (failure && chunk.kind === 'transcripts' && chunk.hasError && chunk.resolved) {
    const shared = sharedErrorString(ctx.strings, chunk.text);
    if (shared) return { type: 'past-fix', sharedError: shared };
  }
  const term = contradictedTerm(chunk.text, ctx.turnText);
  if (term) return { type: 'contradicts', contradictTerm: term };
  if (wildcard || ctx.trigger === 'drift') return { type: 'tangent' };
  if (!ctx.sessionRegions.has(chunk.region)) return { type: 'analogous' };
  return null;
}
