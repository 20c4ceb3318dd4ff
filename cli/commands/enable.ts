/**
 * `active-brain enable <mode> [--channel prompt|tool] [--force]`: switch a mode's channels
 * from soak to live — each only when its own gates and the shared gates of the soak report
 * pass (ops/soak-report.ts); a channel whose gates fail stays as it is and the output says
 * which gates and why. Without --channel, every channel. `--force` switches anyway and is
 * logged (logs/ops.jsonl). One write of config.json and hook-settings.json for all changes.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { soakReport } from '../../ops/soak-report.js';
import { setChannelStates, type ChannelChangeRequest } from '../../ops/mode-state.js';
import { channelState, parseChannelFlag } from '../../ops/channel-state.js';
import type { Channel, ModeState } from '../../shared/vocabulary.js';
import type { Gate } from '../../ops/soak-gates.js';

interface ChannelResult {
  from: ModeState;
  to: ModeState;
  /** Live after this command. */
  live: boolean;
  forced: boolean;
  /** The gates that failed (whether or not they were forced past). */
  failed: Gate[];
}

export const command: Command = {
  name: 'enable',
  summary: 'let a mode print offers, per channel (after its soak gates pass)',
  help: `usage: active-brain enable <mode> [--channel prompt|tool] [--force] [--json]

Sets the channel's state to "live" in $ACTIVE_BRAIN_HOME/config.json —
modes.<mode>.state (prompt: at the prompt) or modes.<mode>.tool.state (tool: at a failed or
looping tool call) — and refreshes the hook's settings, after checking that channel's gates
in \`active-brain soak report --mode <mode> --channel <channel>\`: its hook speed and clean
exit, its would-fire rate, ≥ 70% useful over ≥ 50 of its labels, and the shared gates.
Without --channel, every channel, each against its own gates: a channel whose gates fail
stays as it is, the output names the gates; exit 1 when any channel asked for is not live.
--channel C  prompt or tool only
--force      enable anyway (recorded in logs/ops.jsonl with the failing gates)
--json       {"mode","enabled","channels":{"prompt":{"from","to","live","forced","failed":[…]},…}}`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { force: { type: 'boolean' }, channel: { type: 'string' } });
    const asked = parseChannelFlag(values.channel);
    if ('error' in asked) throw new UserError(`${asked.error}. Run \`active-brain enable --help\`.`, EXIT.USAGE);
    const mode = positionals[0];
    if (!mode) throw new UserError('which mode? e.g. `active-brain enable default` (modes: see `active-brain config`)', EXIT.USAGE);
    const { config } = loadConfig({ flags: values.set });
    const m = config.modes[mode];
    if (!m) throw new UserError(`unknown mode "${mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    const report = soakReport(config, { mode, channels: asked.channels });

    const results = {} as Partial<Record<Channel, ChannelResult>>;
    const changes: ChannelChangeRequest[] = [];
    for (const c of asked.channels) {
      const from = channelState(m, c);
      // Every gate this channel depends on: its own and the shared ones.
      const failed = report.gates.filter((g) => !g.pass && (g.name.startsWith(`${c}.`) || report.shared.includes(g.name)));
      if (from === 'live') {
        results[c] = { from, to: 'live', live: true, forced: false, failed };
        continue;
      }
      const go = failed.length === 0 || Boolean(values.force);
      results[c] = { from, to: go ? 'live' : from, live: go, forced: go && failed.length > 0, failed };
      if (go) changes.push({ channel: c, to: 'live', forced: failed.length > 0, gatesFailed: failed.map((g) => g.name) });
    }
    setChannelStates(mode, changes);
    const allLive = asked.channels.every((c) => results[c]!.live);

    if (values.json) printJson({ mode, enabled: allLive, channels: results });
    else {
      const out = process.stdout;
      out.write(`mode "${mode}":\n`);
      for (const c of asked.channels) {
        const r = results[c]!;
        if (r.from === 'live') out.write(`  ${c.padEnd(6)} already live\n`);
        else if (r.live) out.write(`  ${c.padEnd(6)} ${r.from} → live${r.forced ? ` (FORCED past ${r.failed.length} failing gate(s); logged)` : ''}\n`);
        else {
          out.write(`  ${c.padEnd(6)} stays ${r.from}: ${r.failed.length} gate(s) fail\n`);
          for (const g of r.failed) out.write(`           FAIL ${g.name}: ${g.figure}\n`);
        }
      }
      const held = asked.channels.filter((c) => !results[c]!.live);
      if (held.length) {
        out.write(`Keep soaking and labeling (\`active-brain label --channel ${held[0]}\`), or use --force (logged).\n`);
      } else out.write('`active-brain kill` silences everything at once; `active-brain disable` goes back to soak.\n');
    }
    return allLive ? EXIT.OK : EXIT.FAIL;
  },
};
