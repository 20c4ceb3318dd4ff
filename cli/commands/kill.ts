/**
 * `active-brain kill [--reason TEXT]`: create the global kill file. The hook goes silent at
 * once; a running daemon notices within one cycle, clears its caches and exits.
 */
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { kill } from '../../ops/kill-switch.js';

export const command: Command = {
  name: 'kill',
  summary: 'the global kill switch: silence the hook, stop the daemon',
  help: `usage: active-brain kill [--reason TEXT] [--json]

Creates $ACTIVE_BRAIN_HOME/KILL (the same as \`touch ~/.active-brain/KILL\`).
While it exists the hook prints nothing, and the daemon stops producing offers, clears
its offer caches and exits. Undo with \`active-brain unkill\`.`,
  async run(argv) {
    const { values } = parseFlags(argv, { reason: { type: 'string' } }, false);
    const s = kill(values.reason ?? null);
    if (values.json) printJson(s);
    else process.stdout.write(`killed: ${s.path} exists; the hook is silent and the daemon will stop. Undo: active-brain unkill\n`);
    return EXIT.OK;
  },
};
