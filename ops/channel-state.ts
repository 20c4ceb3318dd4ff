/**
 * A mode's rollout state per channel, read from the effective config: the prompt channel is
 * `modes.<m>.state`, the tool channel `modes.<m>.tool.state` (config/schema.ts). The one
 * place that maps a channel to its config key, for enable / disable, status, config and the
 * soak report. Pure.
 */
import type { Config, Mode } from '../config/schema.js';
import { CHANNELS, isOneOf, type Channel, type ModeState } from '../shared/vocabulary.js';

/** The config key (under `modes.<m>`) that holds each channel's state. */
export const CHANNEL_STATE_KEY: Readonly<Record<Channel, string>> = { prompt: 'state', tool: 'tool.state' };

export function channelState(mode: Mode, channel: Channel): ModeState {
  return channel === 'prompt' ? mode.state : mode.tool.state;
}

/** mode → channel → state, for every configured mode. */
export function rolloutStates(config: Config): Record<string, Record<Channel, ModeState>> {
  const out: Record<string, Record<Channel, ModeState>> = {};
  for (const [name, m] of Object.entries(config.modes)) {
    out[name] = Object.fromEntries(CHANNELS.map((c) => [c, channelState(m, c)])) as Record<Channel, ModeState>;
  }
  return out;
}

/** The common state of every channel of every mode, or `mixed` (null: no modes). */
export function commonState(states: Record<string, Record<Channel, ModeState>>): ModeState | 'mixed' | null {
  const all = new Set(Object.values(states).flatMap((s) => Object.values(s)));
  return all.size === 0 ? null : all.size === 1 ? [...all][0] : 'mixed';
}

/** `--channel` → the channels asked for (every channel when absent); an error message for
 *  anything else. */
export function parseChannelFlag(v: string | undefined): { channels: Channel[] } | { error: string } {
  if (v === undefined) return { channels: [...CHANNELS] };
  if (isOneOf(CHANNELS, v)) return { channels: [v] };
  return { error: `unknown channel "${v}"; channels: ${CHANNELS.join(', ')}` };
}

/** Channels a report judges: the ones asked for, or by default every channel that is not
 *  off in every mode considered (an off channel makes no offers: nothing to judge). */
export function judgedChannels(config: Config, opts: { channels?: readonly Channel[]; mode?: string } = {}): Channel[] {
  if (opts.channels) return [...opts.channels];
  const modes = Object.entries(config.modes).filter(([n]) => !opts.mode || n === opts.mode).map(([, m]) => m);
  return CHANNELS.filter((c) => modes.some((m) => channelState(m, c) !== 'off'));
}

/** "prompt=soak tool=live" */
export function formatStates(s: Record<Channel, ModeState>): string {
  return CHANNELS.map((c) => `${c}=${s[c]}`).join(' ');
}
