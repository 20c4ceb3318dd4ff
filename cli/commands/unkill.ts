/** `active-brain unkill`: remove the global kill file (the daemon must be started again). */
import { parseFlags, printJson, EXIT, type Command } from '../command.js';
import { unkill } from '../../ops/kill-switch.js';

export const command: Command = {
  name: 'unkill',
  summary: 'remove the global kill file',
  help: `usage: active-brain unkill [--json]

Removes $ACTIVE_BRAIN_HOME/KILL. The hook resumes its normal checks at once; a daemon that
exited on the kill file must be started again (\`active-brain start --detach\`, or the
service restarts it).`,
  async run(argv) {
    const { values } = parseFlags(argv, {}, false);
    const r = unkill();
    if (values.json) printJson(r);
    else process.stdout.write(r.removed ? `unkilled: removed ${r.path}. Start the daemon again if it stopped: active-brain start --detach\n` : `not killed: ${r.path} does not exist\n`);
    return EXIT.OK;
  },
};
