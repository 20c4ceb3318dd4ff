/** `active-brain disable <mode> [--off]`: back to soak (would-fire logging only), or off. */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { setModeState } from '../../ops/mode-state.js';

export const command: Command = {
  name: 'disable',
  summary: 'stop a mode printing (back to soak, or off)',
  help: `usage: active-brain disable <mode> [--off] [--json]

Sets modes.<mode>.state back to "soak": nothing is printed, would-fire decisions are still
logged. --off: "off" — no offers and no would-fire logging for that mode's sessions.
The hook sees the change on its next run. To silence everything at once: active-brain kill.`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { off: { type: 'boolean' } });
    const mode = positionals[0];
    if (!mode) throw new UserError('which mode? e.g. `active-brain disable default`', EXIT.USAGE);
    const { config } = loadConfig({ flags: values.set });
    if (!config.modes[mode]) throw new UserError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    const change = setModeState(mode, values.off ? 'off' : 'soak', { forced: false, gatesFailed: [] });
    if (values.json) printJson(change);
    else process.stdout.write(`mode "${mode}": ${change.from} → ${change.to}\n`);
    return EXIT.OK;
  },
};
