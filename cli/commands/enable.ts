/**
 * `active-brain enable <mode> [--force]`: switch a mode from soak to live — only when its
 * soak report and usefulness gates pass (ops/soak-report.ts); otherwise it names the failing
 * gates and changes nothing. `--force` switches anyway and is logged (logs/ops.jsonl).
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { soakReport } from '../../ops/soak-report.js';
import { setModeState } from '../../ops/mode-state.js';

export const command: Command = {
  name: 'enable',
  summary: 'let a mode print offers (after its soak gates pass)',
  help: `usage: active-brain enable <mode> [--force] [--json]

Sets modes.<mode>.state = "live" in $ACTIVE_BRAIN_HOME/config.json and refreshes the hook's
settings, after checking \`active-brain soak report --mode <mode>\` (every gate, including
≥ 70% useful over ≥ 50 labels). When a gate fails it says which, changes nothing, exits 1.
--force   enable anyway (recorded in logs/ops.jsonl with the failing gates).`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { force: { type: 'boolean' } });
    const mode = positionals[0];
    if (!mode) throw new UserError('which mode? e.g. `active-brain enable default` (modes: see `active-brain config`)', EXIT.USAGE);
    const { config } = loadConfig({ flags: values.set });
    if (!config.modes[mode]) throw new UserError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    const report = soakReport(config, { mode });
    const failed = report.gates.filter((g) => !g.pass);
    if (failed.length && !values.force) {
      if (values.json) printJson({ mode, enabled: false, failed });
      else {
        process.stdout.write(`not enabling "${mode}": ${failed.length} gate(s) fail\n`);
        for (const g of failed) process.stdout.write(`  FAIL ${g.name}: ${g.figure}\n`);
        process.stdout.write('Keep soaking and labeling (`active-brain label`), or use --force (logged).\n');
      }
      return EXIT.FAIL;
    }
    const change = setModeState(mode, 'live', { forced: failed.length > 0, gatesFailed: failed.map((g) => g.name) });
    if (values.json) printJson({ enabled: true, ...change });
    else process.stdout.write(`mode "${mode}": ${change.from} → live${change.forced ? ' (FORCED past failing gates; logged)' : ''}. \`active-brain kill\` silences everything at once.\n`);
    return EXIT.OK;
  },
};
