/**
 * `active-brain soak report [--since DURATION] [--mode NAME] [--json]`: the rollout gates
 * with their figures, computed from the real logs and files (ops/soak-report.ts).
 * Exit 0 only when every gate passes.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { soakReport, parseDuration } from '../../ops/soak-report.js';

export const command: Command = {
  name: 'soak',
  summary: 'soak report: rollout gates with their figures',
  help: `usage: active-brain soak report [--since DURATION] [--mode NAME] [--json]

Checks, from what the hook and daemon really wrote:
  hook-speed, hook-clean-exit        p50/p99 of the hook's own time; exits and internal errors
  zero-store-writes                  the store is what the indexer left (SHA-256), never written by the daemon
  would-fire-rate:<mode>             offers per 100 exchanges, inside the configured band
  liveness, honest-process-state     canary age; lock pid alive and equal to the canary's pid
  transcript-availability            per seat (interactive / worker / subagent), prompt-only sessions
  usefulness                         ≥ 70% useful over ≥ 50 labels (\`active-brain label\`)
Also: offers per type, and (approximate) how many offered handles were later recalled.
--since 7d|24h|90m   only records since then (default: since the soak began, <home>/soak.json)
--mode NAME          the would-fire and usefulness gates for one mode only
Exit 0 when all gates pass, 1 otherwise.`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { since: { type: 'string' }, mode: { type: 'string' } });
    if (positionals[0] !== 'report') throw new UserError('expected `active-brain soak report`. Run `active-brain soak --help`.', EXIT.USAGE);
    const { config } = loadConfig({ flags: values.set });
    let sinceMs: number | undefined;
    if (values.since) {
      const d = parseDuration(values.since);
      if (d === null) throw new UserError(`--since expects a duration like 7d, 24h or 90m, got "${values.since}"`, EXIT.USAGE);
      sinceMs = Date.now() - d;
    }
    if (values.mode && !config.modes[values.mode]) {
      throw new UserError(`unknown mode "${values.mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    }
    const r = soakReport(config, { sinceMs, mode: values.mode });
    if (values.json) printJson(r);
    else {
      process.stdout.write(`soak report since ${r.since}\n\n`);
      for (const g of r.gates) process.stdout.write(`${g.pass ? 'PASS' : 'FAIL'}  ${g.name.padEnd(26)} ${g.figure}\n`);
      const f = r.figures;
      process.stdout.write(`\nexchanges ${f.exchanges}, would-fire ${f.would_fire}, by type ${JSON.stringify(f.by_type)}\n`);
      const rec = Object.entries(f.recalled_after_offer).map(([t, v]) => `${t} ${v.recalled}/${v.offered}`).join(', ');
      if (rec) process.stdout.write(`recalled after being offered (approximate "used" signal): ${rec}\n`);
      process.stdout.write(`\n${r.pass ? 'all gates pass' : 'not all gates pass'}\n`);
    }
    return r.pass ? EXIT.OK : EXIT.FAIL;
  },
};
