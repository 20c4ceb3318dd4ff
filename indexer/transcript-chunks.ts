/**
 * Past Claude Code sessions → chunks (pure: exchanges in, chunks out). The exchanges come
 * from transcript/ (one user prompt + the assistant's reply, tool calls and tool errors);
 * the indexer embeds the chunks and writes them to the store, where "Past fix" offers
 * find them.
 *
 * An exchange whose tools failed is kept together with what resolved it: it is joined with
 * the following exchange(s) until the error stops recurring or the assistant reports
 * success, bounded by `maxJoinExchanges` and `maxChunkChars`. Such chunks carry
 * `hasError`, and `resolved` when the fix is in the chunk. Other exchanges become one
 * chunk each (tiny ones merged into the next). Text = prompt + assistant summary (the end
 * of the reply, where its verdict is) + tool names + error lines; tool output noise (stack
 * frames, dumps) is left out. A reply too long for its chunk continues in "(reply, cont.)"
 * chunks so a long agent turn stays searchable. Sidechain (subagent) exchanges are worker
 * traffic and are dropped. Success/failure is read from English phrasing of the reply.
 *
 * Error episodes (indexer/episodes.ts) become chunks of their own (`episode` set: the store
 * gives them kind `episode` and finds them by signature), placed in transcript order after
 * the exchange chunk their failure belongs to, so a transcript that grows keeps the
 * ordinals — and handles — of everything it already had.
 */
import type { Exchange } from '../shared/types.js';
import type { EpisodeInput } from '../store/types.js';
import type { Episode } from './episodes.js';
import { commandKey } from './episodes.js';
import { splitBlock } from './split.js';

export interface TranscriptChunkLimits {
  maxChunkChars: number;
  minChunkChars: number;
  /** At most this many exchanges in one error-and-fix chunk. */
  maxJoinExchanges: number;
  /** Title length (the session's first prompt, truncated). */
  titleChars: number;
}

export interface TranscriptChunk {
  heading: string;
  text: string;
  createdAt: number;
  hasError: boolean;
  resolved: boolean;
  /** Byte offset where its content starts in the file (orders exchange and episode chunks). */
  startOffset: number;
  /** Set on an error episode's chunk. */
  episode?: EpisodeInput;
}

export interface ChunkedTranscript {
  title: string;
  chunks: TranscriptChunk[];
}

/** Shares of a chunk's characters per exchange part (prompt / errors; the rest is the reply). */
const PROMPT_SHARE = 0.35;
const ERROR_SHARE = 0.3;
/** Error lines kept per exchange, and characters per error line. */
const MAX_ERROR_LINES = 6;
const ERROR_LINES_PER_RESULT = 2;
const MAX_ERROR_LINE_CHARS = 200;
/** Characters of the assistant's last words examined for a success/failure report. */
const VERDICT_TAIL_CHARS = 400;
/** Tool-name list cap, smallest reply worth showing, and the reply's label. */
const MAX_TOOLS_CHARS = 200;
const MIN_REPLY_CHARS = 20;
const REPLY_LABEL = 'Assistant: ';
/** Continuation chunks repeat this much of the prompt for context. */
const CONTINUATION_PROMPT_CHARS = 120;

const SUCCESS =
  /\b(fixed|resolved|works now|now works|working now|now passes|now pass|tests? pass(?:es|ed)?|all (?:\d+ )?tests pass|passing|succeeded|successfully|build(?:s)? (?:cleanly|succeeds)|compiles? (?:cleanly|now)|is running|started successfully|done)\b/i;
const FAILURE =
  /\b(still (?:fail|fails|failing|broken|error|erroring|not)|same error|doesn'?t work|didn'?t work|not working|unable to|can(?:no|')t (?:get|make|fix|find)|(?:fails|failed|failing) (?:again|with)|gave up)\b/i;
/** A line of tool output that states a problem. */
const ERROR_LINE =
  /(error|exception|failed|failure|fatal|panic|traceback|denied|not found|no such|cannot|can't|undefined|refused|timed? ?out|exit code [1-9]|\*\* \()/i;
/** errno-style codes (ECONNRESET, ENOENT): case matters. */
const ERRNO = /\bE[A-Z]{3,}\b/;
/** A tool result that starts with only its exit status (the detail follows). */
const EXIT_CODE_ONLY = /^exit code \d+$/i;
/** Stack frames and similar traceback noise. */
const FRAME_LINE = /^(at\s|File ".*", line \d+|\.\.\.\s*\d+ more|Traceback \(most recent call last\):)/;

/** Did the assistant end by reporting success? (looked for in its last words). */
export function reportsSuccess(assistant: string): boolean {
  const tail = assistant.slice(-VERDICT_TAIL_CHARS);
  return SUCCESS.test(tail) && !FAILURE.test(tail);
}

/** Did the assistant (or the person) say the problem is still there? */
export function reportsFailure(text: string): boolean {
  return FAILURE.test(text.slice(-VERDICT_TAIL_CHARS));
}

function truncate(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= max) return t;
  if (max <= 1) return t.slice(0, Math.max(0, max));
  return t.slice(0, max - 1).trimEnd() + '…';
}

/** Whitespace collapsed to single spaces (tool output and replies are ragged). */
function squash(s: string): string {
  return s.replace(/\s+/g, ' ').trim();
}

/** Keep the end of a text (the assistant's conclusion is usually last); also return the cut-off head. */
function keepEnd(s: string, max: number): { shown: string; hidden: string } {
  const t = squash(s);
  if (t.length <= max) return { shown: t, hidden: '' };
  const cut = t.length - Math.max(0, max - 1);
  return { shown: '…' + t.slice(cut).trimStart(), hidden: t.slice(0, cut).trimEnd() };
}

/** Tool names with counts, in first-use order: `Bash×3, Edit, Read`. */
export function toolNames(toolCalls: string[]): string {
  const counts = new Map<string, number>();
  for (const c of toolCalls) {
    const name = (c.split(':', 1)[0] || c).trim();
    if (name) counts.set(name, (counts.get(name) ?? 0) + 1);
  }
  return [...counts].map(([n, k]) => (k > 1 ? `${n}×${k}` : n)).join(', ');
}

/** The informative lines of tool errors (problem statements, not whole dumps), deduplicated. */
export function errorLines(toolErrors: string[]): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const err of toolErrors) {
    // Some tools report JSON-escaped output: a literal `\n` is a line break too.
    const lines = err.replace(/\\n/g, '\n').split(/\r?\n/).map((l) => l.trim()).filter(Boolean);
    const informative = lines.filter((l) => !FRAME_LINE.test(l));
    // A header line (ending in ':' or a bare "Exit code N") introduces the detail on the
    // next line: keep them together as one line.
    const merged: string[] = [];
    for (let i = 0; i < informative.length; i++) {
      const l = informative[i];
      const header = l.endsWith(':') || EXIT_CODE_ONLY.test(l);
      if (header && i + 1 < informative.length) {
        merged.push(`${l.replace(/:$/, '')}: ${informative[i + 1]}`);
        i++;
      } else merged.push(l);
    }
    const picked = merged.filter((l) => ERROR_LINE.test(l) || ERRNO.test(l));
    for (const l of (picked.length ? picked : merged).slice(0, ERROR_LINES_PER_RESULT)) {
      const line = truncate(l.replace(/<\/?tool_use_error>/g, ''), MAX_ERROR_LINE_CHARS);
      const key = line.toLowerCase();
      if (line && !seen.has(key)) {
        seen.add(key);
        out.push(line);
      }
      if (out.length >= MAX_ERROR_LINES) return out;
    }
  }
  return out;
}

/** Text of one exchange within `budget` characters, and the part of the reply left out. */
export function exchangeParts(ex: Exchange, budget: number): { text: string; hiddenReply: string } {
  const tools = toolNames(ex.toolCalls);
  const errs = errorLines(ex.toolErrors);
  const parts: string[] = [];
  const promptMax = Math.max(20, Math.floor(budget * PROMPT_SHARE));
  if (ex.user.trim()) parts.push(`Prompt: ${truncate(ex.user, promptMax)}`);
  if (tools) parts.push(`Tools: ${truncate(tools, MAX_TOOLS_CHARS)}`);
  if (errs.length) {
    const errMax = Math.max(40, Math.floor(budget * ERROR_SHARE));
    parts.push(`Errors: ${truncate(errs.join(' | '), errMax)}`);
  }
  const used = parts.reduce((n, p) => n + p.length + 1, 0);
  const replyMax = budget - used - REPLY_LABEL.length;
  let hiddenReply = squash(ex.assistant);
  if (hiddenReply && replyMax > MIN_REPLY_CHARS) {
    const { shown, hidden } = keepEnd(ex.assistant, replyMax);
    parts.push(`${REPLY_LABEL}${shown}`);
    hiddenReply = hidden;
  }
  return { text: parts.join('\n'), hiddenReply };
}

/** Text of one exchange within a budget of `budget` characters. */
export function exchangeText(ex: Exchange, budget: number): string {
  return exchangeParts(ex, budget).text;
}

/** Is there anything worth indexing in this exchange? */
function hasContent(ex: Exchange): boolean {
  return Boolean(ex.user.trim() || ex.assistant.trim() || ex.toolCalls.length || ex.toolErrors.length);
}

function heading(group: Exchange[]): string {
  const first = group[0];
  const last = group[group.length - 1];
  const day = Number.isFinite(first.timestamp) && first.timestamp > 0 ? new Date(first.timestamp).toISOString().slice(0, 10) : '';
  const span = first.index === last.index ? `exchange ${first.index + 1}` : `exchanges ${first.index + 1}–${last.index + 1}`;
  return day ? `${day} ${span}` : span;
}

/** Text of a group of exchanges, each given an equal share of the size limit, and the
 *  reply text each left out (for continuation chunks). */
function groupParts(group: Exchange[], max: number): { text: string; hidden: string[] } {
  const sep = '\n---\n';
  const budget = Math.floor((max - sep.length * (group.length - 1)) / group.length);
  const parts = group.map((ex) => exchangeParts(ex, budget));
  const text = parts.map((p) => p.text).join(sep);
  return { text: text.length <= max ? text : text.slice(0, max), hidden: parts.map((p) => p.hiddenReply) };
}

type Group = { group: Exchange[]; hasError: boolean; resolved: boolean };

/**
 * Chunks of one group: the main chunk (prompt, tools, errors, the reply's end) and, when a
 * long reply did not fit, continuation chunks with the rest of it (prompt repeated briefly
 * for context) so the narrative of a long agent turn stays searchable.
 */
function groupChunks(g: Group, limits: TranscriptChunkLimits): TranscriptChunk[] {
  const { text, hidden } = groupParts(g.group, limits.maxChunkChars);
  const main: TranscriptChunk = {
    heading: heading(g.group),
    text,
    createdAt: g.group[0].timestamp,
    hasError: g.hasError,
    resolved: g.hasError && g.resolved,
    startOffset: g.group[0].startOffset,
  };
  const out = [main];
  g.group.forEach((ex, i) => {
    if (!hidden[i]) return;
    const prefix = ex.user.trim() ? `Prompt: ${truncate(ex.user, CONTINUATION_PROMPT_CHARS)}\n${REPLY_LABEL}` : REPLY_LABEL;
    const room = limits.maxChunkChars - prefix.length;
    for (const piece of splitBlock(hidden[i], room)) {
      out.push({ heading: `${heading([ex])} (reply, cont.)`, text: prefix + piece, createdAt: ex.timestamp, hasError: false, resolved: false, startOffset: g.group[0].startOffset });
    }
  });
  return out;
}

/**
 * Group exchanges: an exchange with tool errors plus the following ones until resolved.
 * Returns the groups and, per group, hasError/resolved.
 */
export function groupExchanges(exchanges: Exchange[], limits: TranscriptChunkLimits): Group[] {
  const xs = exchanges.filter((e) => !e.isSidechain && hasContent(e));
  const out: Group[] = [];
  for (let i = 0; i < xs.length; i++) {
    const ex = xs[i];
    if (ex.toolErrors.length === 0) {
      out.push({ group: [ex], hasError: false, resolved: false });
      continue;
    }
    const group = [ex];
    let resolved = reportsSuccess(ex.assistant);
    while (!resolved && group.length < limits.maxJoinExchanges && i + 1 < xs.length) {
      const next = xs[i + 1];
      group.push(next);
      i++;
      const stillFailing = reportsFailure(next.user) || reportsFailure(next.assistant);
      if (reportsSuccess(next.assistant) && !reportsFailure(next.user)) resolved = true;
      else if (next.toolErrors.length === 0 && !stillFailing) {
        // Work without errors after the failure is the fix; a reply with no tool work
        // means the conversation moved on without one.
        resolved = next.toolCalls.length > 0;
        break;
      }
    }
    out.push({ group, hasError: true, resolved });
  }
  return out;
}

const OUTCOME_TEXT = { succeeded: 'resolved', 'error-changed': 'resolved (the error went away)', unresolved: 'not resolved' } as const;
/** "Tried" steps shown in an episode chunk. */
const EPISODE_TRIED_SHOWN = 6;

/** The readable text of an episode's chunk: error head, what was tried, what fixed it. */
export function episodeText(ep: Episode, maxChars: number): string {
  const lines = [
    `Error episode (${OUTCOME_TEXT[ep.outcome]}${ep.attempts > 1 ? `, ${ep.attempts} attempts` : ''}): ${ep.action}`,
    `Error: ${ep.errorLines.join(' | ')}`,
  ];
  if (ep.tried.length) lines.push(`Tried: ${ep.tried.slice(0, EPISODE_TRIED_SHOWN).join(' · ')}${ep.tried.length > EPISODE_TRIED_SHOWN ? ' · …' : ''}`);
  if (ep.fix) lines.push(`Fix: ${ep.fix}`);
  if (ep.note) lines.push(`Why: ${ep.note}`);
  const text = lines.map((l) => l.replace(/\s+/g, ' ').trim()).join('\n');
  return text.length <= maxChars ? text : `${text.slice(0, maxChars - 1).trimEnd()}…`;
}

/** An episode's chunk: text, heading (`2026-02-10 error: git push`) and its store record. */
export function episodeChunk(ep: Episode, fallbackSessionId: string, fallbackAt: number, limits: Pick<TranscriptChunkLimits, 'maxChunkChars'>): TranscriptChunk {
  const at = ep.at !== null && Number.isFinite(ep.at) && ep.at > 0 ? ep.at : fallbackAt;
  const day = at > 0 ? new Date(at).toISOString().slice(0, 10) : '';
  const what = (ep.tool === 'Bash' ? commandKey(ep.action.replace(/^Bash:\s*/, '')) : '') || ep.action;
  return {
    heading: truncate(`${day ? `${day} ` : ''}error at step ${ep.step}: ${what}`, 120),
    text: episodeText(ep, limits.maxChunkChars),
    createdAt: at,
    hasError: true,
    resolved: ep.resolved,
    startOffset: ep.startOffset,
    episode: {
      sig: ep.sig.sig,
      head: ep.sig.lines,
      words: ep.sig.words,
      sessionId: ep.sessionId ?? fallbackSessionId,
      tool: ep.tool,
      action: ep.action,
      fix: ep.fix,
      resolved: ep.resolved,
      at,
      outcome: ep.outcome,
      attempts: ep.attempts,
      note: ep.note,
    },
  };
}

/** Chunk one session's exchanges, with its error episodes (if any) in transcript order. */
export function chunkTranscript(
  exchanges: Exchange[],
  limits: TranscriptChunkLimits,
  episodes: readonly Episode[] = [],
  /** For episodes whose records carry no session id or time: the file's session id and mtime. */
  fallback: { sessionId: string; at: number } = { sessionId: '', at: 0 },
): ChunkedTranscript {
  const firstPrompt = exchanges.find((e) => !e.isSidechain && !e.injected && e.user.trim()) ?? exchanges.find((e) => !e.isSidechain && e.user.trim());
  const title = firstPrompt ? truncate(firstPrompt.user, limits.titleChars) : '';
  const chunks: TranscriptChunk[] = [];
  let carry: Group | null = null;
  for (const g of groupExchanges(exchanges, limits)) {
    let cur = g;
    if (carry) {
      // A tiny exchange before this one: keep it with this one when both fit.
      const merged: Group = { group: [...carry.group, ...g.group], hasError: carry.hasError || g.hasError, resolved: g.resolved };
      // Only when nothing of either gets cut by sharing the size limit.
      const fits = merged.group.length <= limits.maxJoinExchanges + 1 && groupParts(merged.group, limits.maxChunkChars).hidden.every((h) => !h);
      if (fits) cur = merged;
      else chunks.push(...groupChunks(carry, limits));
      carry = null;
    }
    if (!cur.hasError && cur.group.length === 1 && exchangeText(cur.group[0], limits.maxChunkChars).length < limits.minChunkChars) carry = cur;
    else chunks.push(...groupChunks(cur, limits));
  }
  if (carry) chunks.push(...groupChunks(carry, limits));
  if (episodes.length) {
    // Stable: an episode goes after every exchange chunk that starts before its failure.
    const eps = episodes.map((e) => episodeChunk(e, fallback.sessionId, fallback.at, limits));
    const merged: TranscriptChunk[] = [];
    let k = 0;
    for (const c of chunks) {
      while (k < eps.length && eps[k].startOffset < c.startOffset) merged.push(eps[k++]);
      merged.push(c);
    }
    merged.push(...eps.slice(k));
    return { title, chunks: merged };
  }
  return { title, chunks };
}
