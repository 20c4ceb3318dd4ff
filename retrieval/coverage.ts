/**
 * Request coverage (docs/OFFERS.md "Coverage"): does a candidate hold the specific words of
 * what the person asks, or only the topic around them? Input: the user's current prompt, the
 * texts of the chunks the build loaded (the fused candidates: the reference the words'
 * specificity is measured on) and one candidate's text. Output: the share of the request's
 * specific weight the candidate contains (0–1), or null when the request has no content word
 * to judge by. Pure.
 *
 * Terms: the prompt's content words (letters and digits, ≥ MIN_TERM_CHARS, not a stop-word nor
 * a question word), names included — a place or a tool named in the request is among its most
 * specific words — folded by one inflectional suffix and a final `e` (`motivates` / `motivated`
 * → one term). Specificity of a term: its inverse document frequency over the loaded
 * candidates, idf = ln((n + 1) / (df + 0.5)) — a word most candidates share is the topic they
 * were found by; a word few of them hold is what this request is specifically about. A word
 * none of them holds ("Barcelona" when the store only knows a trip to Rome — or merely "going",
 * a word the store's notes never use) counts only when long (MIN_UNSEEN_TERM_CHARS: Zipf's law
 * of abbreviation), and with the idf of the request's rarest known word, never more. At most
 * MAX_TERMS terms count, the most specific first, so a long pasted prompt is judged by its
 * rarest words.
 *
 *   coverage = Σ idf(terms the candidate holds) / Σ idf(all counted terms)
 *
 * A candidate below MIN_COVERAGE holds less than half of what the request specifically asks:
 * it shares words, not the answer. Only the similarity types (analogous, tangent) are judged
 * by it; a Past fix has its shared error and a Contradicts its conflicting term as evidence.
 * In a conversation log, a turn by the request's named subject is judged on the words its
 * speaker says about themselves (speakerTermsOf): "your new hair color" is the addressee's.
 * Rank and lexical evidence only: no cosine, so it means the same on every embedding model.
 */
import { STOP_WORDS } from '../store/stopwords.js';

/** Shorter words ("to", "go", "js") are no evidence of a specific subject. */
export const MIN_TERM_CHARS = 3;
/** Terms of a request judged (the most specific first); the keyword query takes as many. */
export const MAX_TERMS = 8;
/** Share of the request's specific weight a similarity offer must hold: more of what the
 *  request specifically asks is in the chunk than missing from it. */
export const MIN_COVERAGE = 0.5;
/** A request word none of the loaded candidates holds counts only from this length (folded). */
export const MIN_UNSEEN_TERM_CHARS = 8;
/** Characters of a text scanned for terms (long chunks and prompts are cut: bounded work). */
const TEXT_CHARS = 20_000;

/** Question words and question frames ("how many times", "how long", "what kind of") that
 *  say nothing about the subject of a request. */
export const REQUEST_FILLER: ReadonlySet<string> = new Set(
  'what which who whom whose when where why how many much long often times kind sort type thing things something anything mention mentioned tell please want need'.split(' '),
);

const WORD = /[\p{L}\p{N}]+/gu;
/** Suffixes folded so that inflections of one word are one term (longest first). */
const SUFFIXES = ['ations', 'ation', 'ings', 'ing', 'ies', 'ied', 'ers', 'er', 'ed', 'es', 's', 'ly'] as const;
/** A folded term keeps at least this many characters (short words stay whole). */
const MIN_STEM = 4;

/** A word folded to its term: lower case, one inflectional suffix removed, then a final `e`
 *  (`language` / `languages`, `realize` / `realizing` → one term). Pure. */
export function termOf(word: string): string {
  let w = word.toLowerCase();
  for (const s of SUFFIXES) {
    if (w.endsWith(s) && w.length - s.length >= MIN_STEM) {
      w = w.slice(0, -s.length);
      break;
    }
  }
  return w.endsWith('e') && w.length - 1 >= MIN_STEM ? w.slice(0, -1) : w;
}

/** The distinct terms of a text (every word ≥ MIN_TERM_CHARS, folded). */
export function termsOf(text: string): Set<string> {
  const out = new Set<string>();
  for (const w of text.slice(0, TEXT_CHARS).match(WORD) ?? []) if (w.length >= MIN_TERM_CHARS) out.add(termOf(w));
  return out;
}

/** Words after a second-person possessive that belong to the addressee ("your new hair color"). */
export const ADDRESSEE_WINDOW = 3;
const SECOND_PERSON = new Set(['your', 'yours']);

/**
 * The terms of a turn a speaker says about themselves: every term of `termsOf`, except those
 * that occur only within ADDRESSEE_WINDOW words after "your" — in a conversation log, what
 * Joanna says about "your new hair color" is the other person's hair, not hers.
 */
export function speakerTermsOf(text: string): Set<string> {
  const words = text.slice(0, TEXT_CHARS).match(WORD) ?? [];
  const own = new Set<string>();
  let addressee = 0;
  for (const w of words) {
    const l = w.toLowerCase();
    if (SECOND_PERSON.has(l)) {
      addressee = ADDRESSEE_WINDOW;
      continue;
    }
    if (addressee > 0) {
      addressee--;
      continue;
    }
    if (w.length >= MIN_TERM_CHARS) own.add(termOf(w));
  }
  return own;
}

/** The request's content terms (stop-words and question words left out), in prompt order. */
export function requestTerms(prompt: string): string[] {
  const out = new Set<string>();
  for (const w of prompt.slice(0, TEXT_CHARS).match(WORD) ?? []) {
    const l = w.toLowerCase();
    if (w.length < MIN_TERM_CHARS || STOP_WORDS.has(l) || REQUEST_FILLER.has(l)) continue;
    out.add(termOf(l));
  }
  return [...out];
}

export interface RequestWeights {
  /** The counted terms (most specific first) and their idf. */
  terms: Array<{ term: string; idf: number }>;
  total: number;
}

/** Weigh the request's terms by their specificity over the reference texts (the loaded
 *  candidates); keep the MAX_TERMS most specific. Ties keep the prompt's order. */
export function weighRequest(terms: readonly string[], reference: ReadonlyArray<ReadonlySet<string>>): RequestWeights {
  const n = reference.length;
  const idf = (df: number) => Math.log((n + 1) / (df + 0.5));
  const dfs = terms.map((term) => {
    let df = 0;
    for (const r of reference) if (r.has(term)) df++;
    return df;
  });
  // A word no loaded candidate holds is either what the store does not know ("whiteboard",
  // "Barcelona") or a common word its texts happen not to use ("keeps", "going"): the store
  // gives no measure of how specific it is. It counts only when long (Zipf's law of
  // abbreviation: long words are the rare ones), and as much as the request's rarest word
  // the store does hold — never more (in a small store an unseen word would outweigh all).
  const known = dfs.filter((df) => df > 0);
  const unseenIdf = known.length ? idf(Math.min(...known)) : idf(0);
  const weighed = terms.flatMap((term, i) =>
    dfs[i] > 0 ? [{ term, idf: idf(dfs[i]), i }] : term.length >= MIN_UNSEEN_TERM_CHARS ? [{ term, idf: unseenIdf, i }] : [],
  );
  weighed.sort((a, b) => b.idf - a.idf || a.i - b.i);
  const kept = weighed.slice(0, MAX_TERMS).map(({ term, idf }) => ({ term, idf }));
  return { terms: kept, total: kept.reduce((s, t) => s + t.idf, 0) };
}

/** Share of the request's weight the candidate's terms hold; null when there is nothing to judge. */
export function coverage(weights: RequestWeights, candidate: ReadonlySet<string>): number | null {
  if (weights.terms.length === 0 || !(weights.total > 0)) return null;
  let held = 0;
  for (const t of weights.terms) if (candidate.has(t.term)) held += t.idf;
  return held / weights.total;
}

/** Does the candidate answer the request's specific words? (true when there is nothing to judge). */
export function coversRequest(share: number | null): boolean {
  return share === null || share >= MIN_COVERAGE;
}
