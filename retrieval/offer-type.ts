/**
 * Which kind of offer a candidate chunk would be, from the turn and the chunk's metadata.
 * Input: the chunk (store/types ChunkRecord), whether it is the wander wildcard, and the
 * turn context (extracted strings, the errors of the current window, what the turn asks and
 * does, the session's own project regions, the trigger). Output: the type and the evidence
 * behind it (`rule` names it), or null — the chunk fits no type and is not offered: silence
 * beats a type that does not mean what it says (docs/OFFERS.md). Pure. In order of precedence:
 *
 *  past-fix     a fix that applies to an error in the current window: a tool error of the
 *               window (not an error quoted in a prompt or a reply) gives an error string
 *               (code / message / HTTP status / exit code) AND the chunk is a resolved
 *               transcript chunk (an episode with its fix, or an exchange that ended resolved)
 *               whose text contains that string.
 *  contradicts  an explicit conflict: the chunk says "don't / do not / never / avoid / stop
 *               using / should not / must not / no longer use / instead of X" and what the
 *               turn asks or does (the prompt and the tool calls — not the assistant's prose)
 *               contains X, without itself advising against X. X is a backticked span or a
 *               content word of ≥ 4 characters (3-letter words matched almost anything).
 *  tangent      a genuinely adjacent note: the wander wildcard, or any chunk on a drift trigger —
 *               but never an error (an episode or an exchange that failed): an old error is no
 *               side thread.
 *  analogous    similar past work with its outcome, from outside the session's own project
 *               regions: a note (written knowledge), or a transcript chunk that ended with a
 *               verdict (resolved, or the reply reports success or failure) — never an error
 *               that was not resolved, nor an error episode (it serves the Past fix of its
 *               own error; elsewhere it is a loosely topical old error sharing words, not a fix).
 */
import type { ChunkRecord } from '../store/types.js';
import type { OfferType } from '../shared/types.js';
import type { TriggerKind } from './types.js';
import { ERROR_KINDS, type Extracted } from './extract.js';
import { STOP_WORDS } from '../store/stopwords.js';
import { escapeRegExp } from '../shared/regexp.js';

export interface TypeContext {
  strings: readonly Extracted[];
  /** Error strings extracted from the tool errors of the current window (the newest exchange
   *  and the recent ones): the errors a Past fix may apply to. Default: the error kinds of
   *  `strings` (callers that cannot tell where a string came from). */
  windowErrors?: readonly Extracted[];
  /** Prompt + reply + tool calls of the newest exchange (bounded by the caller). */
  turnText: string;
  /** What the turn asks and does: its prompt and tool calls (default: turnText). */
  actionText?: string;
  /** Regions that are the session's own project (scope `project:<glob>` matching the cwd). */
  sessionRegions: ReadonlySet<string>;
  trigger: TriggerKind;
}

/** The rule that made a type (replay and backtest report it with each offer). */
export const TYPE_RULES = ['shared-window-error', 'advised-against', 'wildcard', 'drift-adjacent', 'other-region-outcome', 'reasoner'] as const;
export type TypeRule = (typeof TYPE_RULES)[number];

export interface TypeEvidence {
  type: OfferType;
  /** Which rule made it this type (absent on evidence built elsewhere, e.g. tests). */
  rule?: TypeRule;
  /** The kind of the error string (past-fix), or of chunk that carried the outcome (analogous). */
  detail?: string;
  /** The error string shared with a resolved past session (past-fix). */
  sharedError?: string;
  /** The thing the note advises against that the turn does (contradicts). */
  contradictTerm?: string;
}

/** Error message prefix compared with the chunk (messages carry run-specific tails). */
const ERROR_PREFIX_CHARS = 48;
const MIN_TERM_CHARS = 3;
/** An unticked advised-against term must be this long: 3-letter words ("new", "all", "add")
 *  matched almost every turn on the real projects. */
const MIN_BARE_TERM_CHARS = 4;
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


/** The term a chunk advises against that the turn does, or null. */
function advisedAgainst(text: string): Array<{ term: string; ticked: boolean }> {
  const out: Array<{ term: string; ticked: boolean }> = [];
  NEGATION.lastIndex = 0;
  let m: RegExpExecArray | null;
  while ((m = NEGATION.exec(text)) !== null) {
    const raw = m[1];
    const ticked = raw.startsWith('`');
    const term = (ticked ? raw.slice(1, -1) : raw.replace(/[.,;:!?]+$/, '')).trim().toLowerCase();
    if (term.length < (ticked ? MIN_TERM_CHARS : MIN_BARE_TERM_CHARS) || STOP_WORDS.has(term) || WEAK_TERMS.has(term)) continue;
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
    const found = ticked ? turn.includes(term) : new RegExp(`(?:^|[^\\w])${escapeRegExp(term)}(?:$|[^\\w])`).test(turn);
    if (found) return term;
  }
  return null;
}

/** Success and failure reports at the end of a reply (as the indexer reads them). */
const VERDICT =
  /\b(fixed|resolved|works now|now works|working now|now pass(?:es)?|tests? pass(?:es|ed)?|passing|succeeded|successfully|done|completed?|still (?:fail|fails|failing|broken)|doesn'?t work|didn'?t work|not working|unable to|gave up|failed)\b/i;
/** Characters at the end of a chunk where its verdict is looked for. */
const VERDICT_TAIL_CHARS = 400;

/** Does the chunk carry an outcome (similar work *with its outcome*)? */
export function hasOutcome(chunk: Pick<ChunkRecord, 'kind' | 'hasError' | 'resolved' | 'text' | 'chunkKind'>): boolean {
  if (chunk.kind === 'notes') return true;
  if (chunk.hasError) return chunk.resolved;
  return VERDICT.test(chunk.text.slice(-VERDICT_TAIL_CHARS));
}

/** An old error: an episode chunk, or an exchange that failed. */
function isErrorChunk(chunk: Pick<ChunkRecord, 'hasError' | 'chunkKind'>): boolean {
  return chunk.chunkKind === 'episode' || chunk.hasError;
}

/** Classify one candidate; null when it fits no offer type. */
export function classifyOffer(chunk: ChunkRecord, wildcard: boolean, ctx: TypeContext): TypeEvidence | null {
  const windowErrors = (ctx.windowErrors ?? ctx.strings).filter((s) => ERROR_KINDS.has(s.kind));
  if (windowErrors.length && chunk.kind === 'transcripts' && chunk.hasError && chunk.resolved) {
    const shared = sharedErrorString(windowErrors, chunk.text);
    if (shared) return { type: 'past-fix', rule: 'shared-window-error', sharedError: shared, detail: windowErrors.find((s) => s.text === shared)?.kind };
  }
  const term = contradictedTerm(chunk.text, ctx.actionText ?? ctx.turnText);
  if (term) return { type: 'contradicts', rule: 'advised-against', contradictTerm: term };
  if ((wildcard || ctx.trigger === 'drift') && !isErrorChunk(chunk)) return { type: 'tangent', rule: wildcard ? 'wildcard' : 'drift-adjacent' };
  // An error episode that is no Past fix for this window is a loosely topical old error.
  if (!ctx.sessionRegions.has(chunk.region) && chunk.chunkKind !== 'episode' && hasOutcome(chunk)) {
    return { type: 'analogous', rule: 'other-region-outcome', detail: chunk.kind === 'notes' ? 'note' : chunk.hasError ? 'resolved-error' : 'verdict' };
  }
  return null;
}
