/**
 * The channel of a log record, for the rollout reports. Hook records (logs/hook.jsonl,
 * hook/log.ts) and the daemon's decision records (logs/daemon.jsonl, daemon/logs.ts) carry
 * `channel: 'prompt' | 'tool'`; records written before the tool channel existed carry none
 * and are the prompt channel's. A hook record without `channel` but with a known `event`
 * takes the event's channel (shared/vocabulary.ts EVENT_CHANNEL). A record whose channel is
 * present but not a known one belongs to no channel (counted apart as malformed): a record
 * is never counted on two channels. Pure.
 */
import type { HookRecord } from '../hook/log.js';
import type { DecisionRecord } from '../daemon/logs.js';
import { CHANNELS, EVENT_CHANNEL, HOOK_EVENTS, isOneOf, type Channel, type HookEvent } from '../shared/vocabulary.js';

/** A hook log line as the rollout reads it: the record plus the tool channel's fields. */
export type HookLine = HookRecord & {
  channel?: Channel;
  /** The hook event name (UserPromptSubmit, PostToolUseFailure, PostToolUse). */
  event?: HookEvent;
  /** Tool events: the error's signature, the tool call's id and its step in the session. */
  sig?: string;
  tool_use_id?: string;
  step?: number;
};

/** A daemon decision line: a prompt-channel decision per exchange, or (channel 'tool') a
 *  decision at one tool step, with that step's ordinal, tool call id and error signature. */
export type DecisionLine = DecisionRecord & {
  channel?: Channel;
  step?: number;
  tool_use_id?: string | null;
  sig?: string | null;
};

/** The channel of any record: its `channel` when known, else its hook event's, else prompt
 *  when it names neither; null when it names a channel or event we do not know. */
export function channelOf(r: { channel?: unknown; event?: unknown }): Channel | null {
  if (r.channel !== undefined && r.channel !== null) return isOneOf(CHANNELS, r.channel) ? r.channel : null;
  if (r.event !== undefined && r.event !== null) return isOneOf(HOOK_EVENTS, r.event) ? EVENT_CHANNEL[r.event] : null;
  return 'prompt';
}

/** Records grouped by channel; those of no known channel apart. Each record lands once. */
export function byChannel<T extends { channel?: unknown; event?: unknown }>(records: readonly T[]): { channels: Record<Channel, T[]>; unknown: T[] } {
  const channels = Object.fromEntries(CHANNELS.map((c) => [c, [] as T[]])) as Record<Channel, T[]>;
  const unknown: T[] = [];
  for (const r of records) {
    const c = channelOf(r);
    if (c) channels[c].push(r);
    else unknown.push(r);
  }
  return { channels, unknown };
}
