/**
 * The texts the daemon embeds for one exchange: the whole exchange (prompt, reply, a few
 * de-duplicated tool-call summaries and the first lines of tool errors — tool noise reduced),
 * the user side and the assistant side, each cut to `embedding.maxChars`. Pure. Input is an
 * Exchange from transcript/exchanges.ts; output goes straight to the embedder, never to logs.
 */
import type { Exchange } from '../shared/types.js';

/** Tool-call summaries kept in the whole-exchange text (distinct ones, in order). */
export const MAX_TOOL_SUMMARIES = 6;
/** Tool errors kept, and characters of each (its first line only). */
export const MAX_TOOL_ERRORS = 3;
export const MAX_ERROR_CHARS = 200;

export interface ExchangeTexts {
  whole: string;
  /** Empty when the exchange has no human prompt. */
  user: string;
  /** Empty when no assistant text is visible. */
  assistant: string;
}

function cut(s: string, max: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length <= max ? t : t.slice(0, max);
}

export function exchangeTexts(ex: Pick<Exchange, 'user' | 'assistant' | 'toolCalls' | 'toolErrors'>, maxChars: number): ExchangeTexts {
  const tools = [...new Set(ex.toolCalls.map((c) => cut(c, 120)))].slice(0, MAX_TOOL_SUMMARIES);
  const errors = ex.toolErrors.slice(0, MAX_TOOL_ERRORS).map((e) => cut(e.split('\n', 1)[0] ?? '', MAX_ERROR_CHARS));
  const user = cut(ex.user, maxChars);
  const assistant = cut(ex.assistant, maxChars);
  // Budget: errors and tools are short and telling; the prompt and reply share the rest.
  const extras = [...errors, ...tools].join('\n');
  const room = Math.max(0, maxChars - extras.length - 2);
  const userPart = user.slice(0, Math.max(Math.ceil(room / 2), room - assistant.length));
  const assistantPart = assistant.slice(0, Math.max(0, room - userPart.length));
  const whole = cut([userPart, assistantPart, extras].filter(Boolean).join('\n'), maxChars);
  return { whole, user, assistant };
}
