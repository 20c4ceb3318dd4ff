/**
 * `active-brain soak report [--since DURATION] [--mode NAME] [--channel C] [--json]`: the
 * rollout gates with their figures, per channel, computed from the real logs and files
 * (ops/soak-report.ts). Exit 0 only when every gate passes.
 */
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { soakReport, parseDuration, type SoakReport } from '../../ops/soak-report.js';
import { parseChannelFlag } from '../../ops/channel-state.js';
import { CHANNELS } from '../../shared/vocabulary.js';

function human(r: SoakReport): string {
  const lines = [`soak report since ${r.since}`, ''];
  const row = (g: { pass: boolean; name: string; figure: string }) => `${g.pass ? 'PASS' : 'FAIL'}  ${g.name.padEnd(32)} ${g.figure}`;
  for (const c of CHANNELS) {
    const ch = r.channels[c];
    const states = Object.entries(ch.states).map(([m, s]) => `${m}=${s}`).join(', ');
    if (!ch.judged) {
      lines.push(`${c} channel (${states}): not judged — off in every mode`, '');
      continue;
    }
    lines.push(`${c} channel (${states}): ${ch.pass ? 'ready to go live' : 'not ready'}`);
    for (const g of ch.gates) lines.push(row(g));
    lines.push(`      rate counted over ${ch.rate.source}`);
    if (c === 'tool') lines.push(`      daemon tool-step decisions beside it: ${ch.rate.daemon_would_fire ?? 0} offers over ${ch.rate.daemon_tool_steps ?? 0} steps`);
    lines.push('');
  }
  lines.push('shared');
  for (const g of r.gates.filter((x) => r.shared.includes(x.name))) lines.push(row(g));
  const f = r.figures;
  lines.push('', `exchanges ${f.exchanges}, would-fire ${f.would_fire}; tool events ${f.tool_steps}, would-fire ${f.tool_would_fire}; by type ${JSON.stringify(f.by_type)}`);
  if (f.hook.unknown_channel) lines.push(`${f.hook.unknown_channel} hook record(s) name a channel this version does not know: counted on none`);
  const rec = Object.entries(f.recalled_after_offer).map(([t, v]) => `${t} ${v.recalled}/${v.offered}`).join(', ');
  if (rec) lines.push(`recalled after being offered (approximate "used" signal): ${rec}`);
  const u = f.uptake;
  lines.push(
    u.past_fix_offers
      ? `Past fixes confirmed by the session (ran the fix, then got through): ${u.confirmed_offers} of ${u.past_fix_offers} · ${u.steps_saved} tool step(s) between those offers and their success (an upper bound of what they could have saved)${u.unread ? ` · ${u.unread} not judged (transcript or fix gone)` : ''}`
      : 'Past fixes confirmed by the session: none shown yet',
  );
  const h = f.history;
  if (h) {
    const confirmed = h.past_fix_offers ? ` · Past fixes confirmed by the session ${h.confirmed_offers} of ${h.past_fix_offers} (${h.steps_saved} steps between, an upper bound)` : '';
    lines.push(
      `history (last backtest ${h.at}, not the live soak): ${h.sessions} sessions · prompt ${h.prompt_offers} offers over ${h.exchanges} exchanges (${h.prompt_per_100} per 100) · tool ${h.tool_offers} over ${h.tool_steps} steps (${h.tool_per_100} per 100)${confirmed} · labels ${h.labels.useful}/${h.labels.n} useful`,
    );
  }
  lines.push('', r.pass ? 'all gates pass' : 'not all gates pass');
  return lines.join('\n') + '\n';
}

export const command: Command = {
  name: 'soak',
  summary: 'soak report: rollout gates per channel with their figures',
  help: `usage: active-brain soak report [--since DURATION] [--mode NAME] [--channel prompt|tool] [--json]

Checks, from what the hook and daemon really wrote, for each channel (prompt: at the
prompt; tool: at a failed or looping tool call) on that channel's own records:
  <c>.hook-speed, <c>.hook-clean-exit  p50/p99 of the hook's own time; exits and internal errors
  <c>.would-fire-rate:<mode>           prompt: offers per 100 exchanges (daemon decisions);
                                       tool: offers per 100 tool events (the hook's runs at
                                       PostToolUseFailure / PostToolUse, one per tool call)
  <c>.usefulness                       ≥ 70% useful over ≥ 50 of that channel's labels
and once for both:
  zero-store-writes                    the store is what the indexer left (SHA-256)
  liveness, honest-process-state       canary age; lock pid alive and equal to the canary's pid
  transcript-availability              per seat (interactive / worker / subagent), prompt-only sessions
Log records without a channel (written before the tool channel) count as prompt.
A channel off in every mode is not judged unless --channel names it.
--since 7d|24h|90m   only records since then (default: since the soak began, <home>/soak.json)
--mode NAME          the would-fire and usefulness gates for one mode only
--channel C          judge one channel only
--json               {"gates":[{"name","pass","figure"}],"pass","shared":[…],"channels":{"prompt":{…},"tool":{…}},"figures":{…}}
                     figures.uptake: {"past_fix_offers","confirmed_offers","steps_saved","unread","rows"}
                     — each Past fix shown at a failure, and whether the session then ran that
                     fix and got the failing call's intent through (read from its transcript);
                     steps_saved: tool steps between those offers and their success, summed
                     (an upper bound). figures.history has the same three from the last backtest.
Exit 0 when all gates pass, 1 otherwise.`,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { since: { type: 'string' }, mode: { type: 'string' }, channel: { type: 'string' } });
    if (positionals[0] !== 'report') throw new UserError('expected `active-brain soak report`. Run `active-brain soak --help`.', EXIT.USAGE);
    const asked = parseChannelFlag(values.channel);
    if ('error' in asked) throw new UserError(`${asked.error}. Run \`active-brain soak --help\`.`, EXIT.USAGE);
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
    const r = soakReport(config, { sinceMs, mode: values.mode, channels: values.channel ? asked.channels : undefined });
    if (values.json) printJson(r);
    else process.stdout.write(human(r));
    return r.pass ? EXIT.OK : EXIT.FAIL;
  },
};
