/**
 * Novelty (docs/OFFERS.md "Novelty"): an offer must bring the session something it does not
 * already hold. Two rules, over word shingles (pure):
 *
 *   already-held  the chunk's text is largely present in what the session has seen — its
 *                 earlier exchanges (prompts, replies, tool calls and errors, kept by the
 *                 pipeline as a bounded set of shingle hashes: SessionShingles) and the window;
 *   restates      the chunk mostly repeats the user's current request (a past session that
 *                 was given the same prompt, and added little to it).
 *
 * And one rule of subject: when the current request names someone or something (capitalised
 * names extracted from the prompt: retrieval/extract.ts kind `name`), an offer must be about
 * one of them (`namesSubject`): a chunk that speaks for an author (a conversation log's
 * `Name (date): …` or `Name: …` line) must be by one of them; any other chunk must name one.
 * A chunk about the same activity of another person or component only shares the topic. A
 * Past fix is exempt: the shared error is its subject. The indexer's own labels (`Prompt:`,
 * `Assistant:`, `Error:` …) are no authors, so transcript chunks are judged by what they name.
 *
 * A shingle is SHINGLE_WORDS consecutive words (lowercased letters and digits) hashed to 32
 * bits; a chunk with fewer than MIN_SHINGLES shingles is too short to judge and passes.
 * How the thresholds were chosen: docs/OFFERS.md.
 */
import { escapeRegExp } from '../shared/regexp.js';

/** Words per shingle: 4 consecutive words rarely repeat by chance between two texts on the
 *  same topic, yet survive the small edits a copied plan or report goes through. */
export const SHINGLE_WORDS = 4;
/** A chunk with fewer shingles than this is not judged (too short to be "largely present"). */
export const MIN_SHINGLES = 8;
/** Share of a chunk's shingles the session already holds from which it is no news. */
export const HELD_SHARE = 0.5;
/** Share of a chunk's shingles found in the current prompt from which it only restates it. */
export const RESTATES_SHARE = 0.5;
/** Shingles a session remembers (oldest dropped first). A real agentic exchange of this
 *  project's transcripts yields a few hundred to a few thousand; 60k keeps dozens of them for
 *  ~3 MB per session in memory (Set + order array), times daemon.maxSessions at worst. */
export const SESSION_SHINGLES_CAP = 60_000;
/** Characters of one text shingled (longer tool output is cut: the head says what it is). */
const TEXT_CHARS = 20_000;

const WORD = /[\p{L}\p{N}_]+/gu;

/** 32-bit FNV-1a of a string. */
function fnv(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** The distinct shingle hashes of a text. */
export function shingles(text: string): Set<number> {
  const words = (text.slice(0, TEXT_CHARS).toLowerCase().match(WORD) ?? []);
  const out = new Set<number>();
  for (let i = 0; i + SHINGLE_WORDS <= words.length; i++) out.add(fnv(words.slice(i, i + SHINGLE_WORDS).join(' ')));
  return out;
}

/** Share of `chunk`'s shingles that `held` contains, or null when the chunk is too short to judge. */
export function heldShare(chunk: ReadonlySet<number>, held: { has(h: number): boolean }): number | null {
  if (chunk.size < MIN_SHINGLES) return null;
  let n = 0;
  for (const h of chunk) if (held.has(h)) n++;
  return n / chunk.size;
}

/** What a session has already seen, as shingle hashes, bounded (oldest forgotten first). */
export class SessionShingles {
  private readonly set = new Set<number>();
  private readonly order: number[] = [];

  constructor(private readonly cap: number = SESSION_SHINGLES_CAP) {}

  add(text: string): void {
    for (const h of shingles(text)) {
      if (this.set.has(h)) continue;
      this.set.add(h);
      this.order.push(h);
    }
    if (this.order.length > this.cap) {
      for (const h of this.order.splice(0, this.order.length - this.cap)) this.set.delete(h);
    }
  }

  has(h: number): boolean {
    return this.set.has(h);
  }

  get size(): number {
    return this.set.size;
  }
}

/** Text of an exchange as the session saw it (prompt, reply, tool calls, tool errors). */
export function exchangeSeenText(ex: { user: string; assistant: string; toolCalls: readonly string[]; toolErrors: readonly string[] }): string {
  return [ex.user, ex.assistant, ...ex.toolCalls, ...ex.toolErrors].join('\n');
}

export type NoveltyVerdict = { novel: true; held: number | null; restates: number | null } | { novel: false; why: 'already-held' | 'restates'; held: number | null; restates: number | null };

/**
 * Is the chunk news to the session? `held`: what the session has seen (earlier exchanges and
 * the window, the current exchange included); `prompt`: the user's current request.
 */
export function novelty(chunkText: string, held: { has(h: number): boolean }, prompt: string): NoveltyVerdict {
  const c = shingles(chunkText);
  const h = heldShare(c, held);
  const r = heldShare(c, shingles(prompt));
  if (h !== null && h >= HELD_SHARE) return { novel: false, why: 'already-held', held: h, restates: r };
  if (r !== null && r >= RESTATES_SHARE) return { novel: false, why: 'restates', held: h, restates: r };
  return { novel: true, held: h, restates: r };
}


/** Line labels the indexer writes into chunks (indexer/transcript-chunks.ts): not authors. */
export const CHUNK_LABELS: ReadonlySet<string> = new Set(['prompt', 'assistant', 'tools', 'errors', 'error', 'tried', 'fix', 'why', 'error episode']);
/** A leading author label: one or two capitalised words, an optional parenthesised time, a colon. */
const AUTHOR_LABEL = /^([A-Z][\p{L}'’-]{1,30}(?: [A-Z][\p{L}'’-]{1,30})?)\s*(?:\([^)\n]{1,60}\))?:\s/u;

/** The author a chunk speaks for (a conversation log's leading `Name (…):`), or null. */
export function chunkAuthor(text: string): string | null {
  const m = AUTHOR_LABEL.exec(text);
  if (!m || CHUNK_LABELS.has(m[1].toLowerCase())) return null;
  return m[1];
}

/** Is the chunk about at least one of the request's named subjects? (true when it names none). */
export function namesSubject(chunk: { title: string; heading: string; text: string }, names: readonly string[]): boolean {
  if (names.length === 0) return true;
  const word = (n: string) => new RegExp(`(?:^|[^\\p{L}\\p{N}_])${escapeRegExp(n)}(?:$|[^\\p{L}\\p{N}_])`, 'iu');
  const author = chunkAuthor(chunk.text);
  if (author !== null) return names.some((n) => word(n).test(author));
  const hay = `${chunk.title}\n${chunk.heading}\n${chunk.text}`;
  return names.some((n) => word(n).test(hay));
}
