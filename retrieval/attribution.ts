/**
 * Attribution (docs/OFFERS.md "Attribution"): when the request names someone or something and
 * asks about a specific detail, is that detail the named subject's — or does memory hold it
 * for someone else? Input: the request's weighed terms (coverage.ts), the request's named
 * subjects (capitalised names, extract.ts kind `name`), and the term sets of the candidate and
 * of its rivals: the loaded candidates that are NOT about a named subject (novelty.ts
 * `namesSubject` false: a conversation turn by another speaker, a note naming none of them).
 * Output: a verdict per candidate. Pure.
 *
 * The trap it closes: "What does Tim write on the whiteboard?" when Tim never wrote on one but
 * John did. The subject rule drops John's turn; Tim's turn about writing and motivation then
 * holds most of the request's words and passes coverage — the detail that makes the question
 * what it is ("whiteboard") sits in John's turn. Rule: a candidate about the named subject must
 * hold MORE of the request's **content** (its weighed terms minus the subject names themselves,
 * which by construction only the subject's chunks hold) than every rival. When a rival holds as
 * much or more, memory does not tie what is asked to the named subject rather than to another
 * one, and the subject's chunk is a topical neighbour, not evidence of the answer. A rival
 * holding none of the content is no rival. No threshold: the candidate is compared with the
 * best rival.
 *
 * Abstains (keeps the candidate) when the request names no subject, or has no content term
 * left once the names are removed. On coding prompts a capitalised word is often no subject
 * ("Idk", "Tab"): the rule then asks that the offered chunk hold more of the request than every
 * loaded chunk lacking that word — measured on the real projects (docs/OFFERS.md).
 */
import { termsOf, type RequestWeights } from './coverage.js';

/** The request's weights without the terms of its named subjects (what it asks about them). */
export function contentWeights(weights: RequestWeights, subjects: readonly string[]): RequestWeights {
  const names = new Set(subjects.flatMap((s) => [...termsOf(s)]));
  const terms = weights.terms.filter((t) => !names.has(t.term));
  return { terms, total: terms.reduce((s, t) => s + t.idf, 0) };
}

/** Share of the content weight a term set holds, or null when there is nothing to judge. */
export function contentShare(content: RequestWeights, held: ReadonlySet<string>): number | null {
  if (content.terms.length === 0 || !(content.total > 0)) return null;
  let s = 0;
  for (const t of content.terms) if (held.has(t.term)) s += t.idf;
  return s / content.total;
}

/** The best content share among the rivals (0 when there is none). */
export function bestRivalShare(content: RequestWeights, rivals: Iterable<ReadonlySet<string>>): number {
  let best = 0;
  for (const r of rivals) best = Math.max(best, contentShare(content, r) ?? 0);
  return best;
}

/** Is what the request asks attributed to someone else? True when a rival holds at least as
 *  much of the request's content as the candidate (and some); false when there is nothing to
 *  judge. */
export function attributedElsewhere(own: number | null, rival: number): boolean {
  return own !== null && rival > 0 && rival >= own;
}
