/**
 * `active-brain disable <mode> [--channel prompt|tool] [--off]`: a mode's channels back to
 * soak (would-fire logging only), or off. Without --channel, every channel. One write of
 * config.json and hook-settings.json (ops/mode-state.ts).
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { setChannelStates } from '../../ops/mode-state.js';
import { channelState, parseChannelFlag } from '../../ops/channel-state.js';
import type { Channel, ModeState } from '../../shared/vocabulary.js';

export const command: Command = {
  name: 'disable',
  summary: 'stop a mode printing, per channel (back to soak, or off)',
  help: `usage: active-brain disable <mode> [--channel prompt|tool] [--off] [--json]

Sets the channel's state back to "soak" (modes.<mode>.state for prompt,
modes.<mode>.tool.state for tool): nothing is printed there, would-fire decisions are still
logged. Without --channel, every channel.
--off   "off" — no offers and no would-fire logging on that channel for the mode's sessions
--json  {"mode","channels":{"prompt":{"from","to"},…}}
The hook sees the change on its next run. To silence everything at once: active-brain kill.`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { off: { type: 'boolean' }, channel: { type: 'string' } });
    const asked = parseChannelFlag(values.channel);
    if ('error' in asked) throw new UserError(`${asked.error}. Run \`active-brain disable --help\`.`, EXIT.USAGE);
    const mode = positionals[0];
    if (!mode) throw new UserError('which mode? e.g. `active-brain disable default`', EXIT.USAGE);
    const { config } = loadConfig({ flags: values.set });
    const m = config.modes[mode];
    if (!m) throw new UserError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    const to: ModeState = values.off ? 'off' : 'soak';
    const results = {} as Partial<Record<Channel, { from: ModeState; to: ModeState }>>;
    for (const c of asked.channels) results[c] = { from: channelState(m, c), to };
    setChannelStates(mode, asked.channels.filter((c) => results[c]!.from !== to).map((c) => ({ channel: c, to, forced: false, gatesFailed: [] })));
    if (values.json) printJson({ mode, channels: results });
    else for (const c of asked.channels) process.stdout.write(`mode "${mode}" ${c}: ${results[c]!.from} → ${to}\n`);
    return EXIT.OK;
  },
};
