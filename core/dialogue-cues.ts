/**
 * Dialogue-act cues for the drift trigger: does a text ask a question, and does it end by
 * asking one. Pure; input is one side's text of an exchange (the prompt, or the reply),
 * output booleans that enter ExchangeFeatures (core/exchange-features.ts) — no text kept.
 *
 * Why (docs/TRIGGERS.md, "Dialogue cues"): in conversation a new topic is most often opened
 * by a question that is not itself an answer — on TIAGE train 55% of topic shifts carry a
 * question mark against 22% of other turns, and a turn that answers the other side's
 * question continues its topic. In a coding session the same cue marks a new information
 * need: the user asking something the recent prompts did not, which is when a memory helps.
 *
 * Code is not prose: fenced blocks, inline code spans, URLs and code-like marks (`a ?? b`,
 * SQL `= ?`, ternaries, "Did you mean 'x'?") are removed first, and a `?` counts only where a
 * sentence can end — so `x?.y` and `?page=2` never count. Examples: test/core/dialogue-cues.test.ts.
 */

/** Only this many final characters of a reply count for "ends by asking" (long replies
 *  ask their follow-up question at the end; a rhetorical `?` mid-answer is not one). */
export const REPLY_QUESTION_TAIL_CHARS = 300;

/** Fenced code: a ``` or ~~~ line, up to the same fence or the end (an unclosed fence runs on). */
const FENCED = /(?:^|\n)[ \t]*(`{3,}|~{3,})[^\n]*[\s\S]*?(?:\n[ \t]*\1[ \t]*(?=\n|$)|$)/g;
const INLINE_CODE = /`[^`\n]*`/g;
/** A URL, ending before trailing punctuation ("…/issues/12?" keeps its question mark). */
const URL = /\b(?:https?|ftp|file):\/\/[^\s<>"'`]*[^\s<>"'`?!.,;:)\]}]/gi;
/** Code written as prose: `a ?? b` / `??=`, SQL placeholders (`= ?`, `(?, ?)`), ternaries
 *  (`cond ? a : b`, `cond? a : b`), and a compiler's quoted suggestion ("Did you mean 'x'?"). */
const CODE_MARKS = [
  /\s\?\?=?(?=\s)/g,
  /[=(,]\s*\?(?=\s*[,)]|\s|$)/g,
  /\?\s[^\n?]*?\s:\s/g,
  /\bdid you mean:?\s*['"`‘“][^'"`’”\n]*['"`’”]\s*\?/gi,
];
/**
 * A `?` where a sentence can end — after a word, a closing bracket or quote, emphasis, an
 * ellipsis or a space (French typography and tokenized text: "tonight ?") — and before
 * whitespace, a closing quote or bracket, `!`, emphasis or the end; or a full-width `？` or
 * Arabic `؟` anywhere.
 */
const SENTENCE_QUESTION = /[\p{L}\p{N})\]"'’”*_…\s]\?+(?=[\s"'’”)\]!*_…]|$)|[？؟]/u;
const QUESTION_MARKS = /[?？؟]/;

/** The text with code, code-like marks and URLs removed (what the cues read). */
export function proseOf(text: string): string {
  let out = text.replace(FENCED, ' ').replace(INLINE_CODE, ' ').replace(URL, ' ');
  for (const re of CODE_MARKS) out = out.replace(re, ' ');
  return out;
}

/** True when the text asks a question somewhere in its prose. */
export function asksQuestion(text: string): boolean {
  if (!QUESTION_MARKS.test(text)) return false;
  return SENTENCE_QUESTION.test(proseOf(text));
}

/** True when the text's last REPLY_QUESTION_TAIL_CHARS characters of prose ask a question. */
export function endsAskingQuestion(text: string): boolean {
  if (!QUESTION_MARKS.test(text)) return false;
  const prose = proseOf(text).trimEnd();
  return SENTENCE_QUESTION.test(prose.slice(-REPLY_QUESTION_TAIL_CHARS));
}
