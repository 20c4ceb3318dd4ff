/**
 * Dialogue-act cues for the drift trigger: does a text ask a question, and does it end by
 * asking one. Pure; input is one side's text of an exchange (the prompt, or the reply),
 * output booleans that enter ExchangeFeatures (daemon/exchange-features.ts) — no text kept.
 *
 * Why (docs/TRIGGERS.md, "Dialogue cues"): in conversation a new topic is most often opened
 * by a question that is not itself an answer — on TIAGE train 55% of topic shifts carry a
 * question mark against 22% of other turns, and a turn that answers the other side's
 * question continues its topic. In a coding session the same cue marks a new information
 * need: the user asking something the recent prompts did not, which is when a memory helps.
 *
 * Code is not prose: fenced blocks, inline code spans and URLs are removed first, and a `?`
 * counts only where a sentence can end (followed by whitespace, a closing quote or bracket,
 * or the end) — so `a ? b : c`, `x?.y` and `?page=2` never count.
 */

/** Only this many final characters of a reply count for "ends by asking" (long replies
 *  ask their follow-up question at the end; a rhetorical `?` mid-answer is not one). */
export const REPLY_QUESTION_TAIL_CHARS = 300;

const FENCED = /```[\s\S]*?(?:```|$)|~~~[\s\S]*?(?:~~~|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;
const URL = /\b(?:https?|ftp|file):\/\/\S+/gi;
/** A `?` where a sentence can end, after a word, a closing bracket or quote, or a space (tokenized text: "tonight ?"). */
const SENTENCE_QUESTION = /[\p{L}\p{N})\]"'’”\s]\?+(?=[\s"'’”)\]]|$)/u;
/** A ternary `cond ? a : b` written in prose: a spaced `?` with a `:` later on the same line. */
const TERNARY = /\s\?\s[^\n?]*\s:\s/g;

/** The text with code and URLs removed (what the cues read). */
export function proseOf(text: string): string {
  return text.replace(FENCED, ' ').replace(INLINE_CODE, ' ').replace(URL, ' ').replace(TERNARY, ' ');
}

/** True when the text asks a question somewhere in its prose. */
export function asksQuestion(text: string): boolean {
  if (!text.includes('?')) return false;
  return SENTENCE_QUESTION.test(proseOf(text));
}

/** True when the text's last REPLY_QUESTION_TAIL_CHARS characters of prose ask a question. */
export function endsAskingQuestion(text: string): boolean {
  if (!text.includes('?')) return false;
  const prose = proseOf(text).trimEnd();
  return SENTENCE_QUESTION.test(prose.slice(-REPLY_QUESTION_TAIL_CHARS));
}
