/**
 * `active-brain soak report`: collects figures from what the running system really wrote —
 * hook log, daemon decision log, index runs, the store file, lock + canary, labels, recalls —
 * and evaluates the rollout gates (ops/soak-gates.ts): each channel's own gates on that
 * channel's records (ops/soak-figures.ts), the shared gates once.
 *
 *   logs/hook.jsonl* ──┐                    ┌─ prompt.* gates ─┐
 *   logs/daemon.jsonl*─┼─▶ figures per ─────┼─ tool.* gates ───┼─▶ {gates:[{name,pass,figure}],
 *   labels, recalls ───┤   channel          └─ shared gates ───┘    pass, channels:{…}, …}
 *   store + soak.json ─┤
 *   lock + canary ─────┘
 */
import { join } from 'node:path';
import type { Config } from '../config/schema.js';
import { daemonStatus } from '../daemon/status.js';
import { defaultStorePath, defaultTranscriptsRoot, logsDir } from '../shared/paths.js';
import type { Channel, ModeState, OfferType } from '../shared/vocabulary.js';
import { daemonLogs, hookLogs, oneLog, readJsonlFiles } from '../daemon/jsonl-read.js';
import { storeFingerprint } from '../daemon/store-fingerprint.js';
import { indexerRunning, readIndexLog } from '../daemon/index-runs.js';
import { ensureSoakBaseline, readSoakBaseline } from '../daemon/soak-baseline.js';
import { readLabels, labelCounts, type LabelRecord } from './labels.js';
import { readHistorySummary, type HistorySummary } from './history-offers.js';
import { hookGate, livenessGates, rateBand, seatGate, storeWriteGate, usefulnessGate, wouldFireGates, type Gate } from './soak-gates.js';
import { hookFigures, hookFiguresByChannel, promptFigures, toolFigures } from './soak-figures.js';
import type { DecisionLine, HookLine } from './channel-records.js';
import { channelState, judgedChannels } from './channel-state.js';
import { liveUptake, type LiveUptake } from './live-uptake.js';

export { HOOK_ERROR_REASONS } from './soak-figures.js';

/** Where each channel's would-fire rate is counted (printed in the report and its JSON). */
export const RATE_SOURCE: Readonly<Record<Channel, string>> = {
  prompt: 'daemon decision records (channel prompt, or none): one per exchange',
  tool: 'hook runs at PostToolUseFailure / PostToolUse (channel tool): one per tool call (session + tool_use_id)',
};

export interface ChannelReport {
  /** False when the channel is off in every mode considered and nobody asked for it. */
  judged: boolean;
  /** Its own gates and the shared gates all pass (false when not judged). */
  pass: boolean;
  /** mode → this channel's rollout state (the same config `status` shows). */
  states: Record<string, ModeState>;
  /** This channel's own gates (the shared ones are in the report's `gates` only). */
  gates: Gate[];
  hook: { runs: number; by_outcome: Record<string, number> };
  rate: { unit: string; source: string; opportunities: number; would_fire: number; daemon_tool_steps?: number; daemon_would_fire?: number };
  labels: { n: number; useful: number };
  by_type: Record<string, number>;
}

export interface SoakReport {
  since: string;
  /** Every gate: the judged channels' own (`prompt.…`, `tool.…`) and the shared ones. */
  gates: Gate[];
  pass: boolean;
  /** Names of the shared gates (no channel prefix). */
  shared: string[];
  channels: Record<Channel, ChannelReport>;
  figures: {
    /** Every hook run, whatever its channel. */
    hook: { runs: number; by_outcome: Record<string, number>; unknown_channel: number };
    /** Prompt channel. */
    exchanges: number;
    would_fire: number;
    /** Tool channel. */
    tool_steps: number;
    tool_would_fire: number;
    by_type: Record<string, number>;
    /** Approximate: offers whose handle was recalled (CLI or MCP) after being offered. */
    recalled_after_offer: Record<string, { offered: number; recalled: number }>;
    labels: { n: number; useful: number };
    /** The tool channel's Past fixes shown (printed, or would-fire) and whether each session
     *  then ran the fix and got through (ops/live-uptake.ts): a usefulness figure before any
     *  label. `steps_saved`: tool steps between those offers and their success, summed (an
     *  upper bound of what they could have saved). */
    uptake: LiveUptake;
    /** The last `backtest` over the user's history (not the live soak; null: never run). */
    history: HistoryFigures | null;
    bad_log_lines: number;
  };
}

interface RecallRecord { ts: number; handle: string; via: string }

export interface SoakReportOptions {
  sinceMs?: number;
  mode?: string;
  /** Judge only these channels (default: every channel not off in every mode considered). */
  channels?: readonly Channel[];
  env?: NodeJS.ProcessEnv;
  now?: number;
}

function earliestRecord(dir: string): number | null {
  let min: number | null = null;
  for (const files of [daemonLogs(dir), hookLogs(dir)]) {
    const first = readJsonlFiles<{ ts?: number }>(files.slice(0, 1)).records.find((r) => typeof r.ts === 'number');
    if (first && (min === null || first.ts! < min)) min = first.ts!;
  }
  return min;
}

function sumCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const out = { ...a };
  for (const [k, v] of Object.entries(b)) out[k] = (out[k] ?? 0) + v;
  return out;
}

export function soakReport(config: Config, opts: SoakReportOptions = {}): SoakReport {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now();
  const storePath = config.store.path ?? defaultStorePath(env);
  const dir = logsDir(env);
  // The daemon records the baseline when it first starts; when it has not (an older state
  // dir), the soak began with the earliest record in the logs.
  const baseline = readSoakBaseline(env) ?? ensureSoakBaseline(storePath, env, earliestRecord(dir) ?? now);
  const since = opts.sinceMs ?? baseline.startedAt;

  const hook = readJsonlFiles<HookLine>(hookLogs(dir), since);
  const decisions = readJsonlFiles<DecisionLine>(daemonLogs(dir), since);
  const hookBy = hookFiguresByChannel(hook.records);
  const prompt = promptFigures(decisions.records, opts.mode);
  const tool = toolFigures(hook.records, decisions.records, opts.mode);
  const labels = readLabels(env);
  const judged = new Set(judgedChannels(config, { channels: opts.channels, mode: opts.mode }));

  // The shared gates, once.
  const shared: Gate[] = [];
  const current = storeFingerprint(storePath);
  shared.push(storeWriteGate({
    baseline: { takenAt: baseline.takenAt ?? baseline.startedAt, sha256: baseline.store.sha256 },
    records: readIndexLog(env).filter((r) => r.store === storePath),
    current: current.sha256,
    alive: (pid) => indexerRunning(pid, env),
  }));
  const st = daemonStatus(config, { path: storePath, present: current.exists }, env, now);
  shared.push(...livenessGates({
    running: st.running,
    canaryAgeS: st.canary_age_s,
    cycleS: config.daemon.cycleMs / 1000,
    problem: st.problem,
    lockPid: st.pid,
    canaryPid: st.running ? st.pid : null,
  }));
  // Seats are read from the exchanges (prompt decisions): a session whose assistant text is
  // invisible shows no tool calls either.
  shared.push(seatGate(prompt.seats));
  const sharedPass = shared.every((g) => g.pass);

  const channels = {} as Record<Channel, ChannelReport>;
  const gates: Gate[] = [];
  for (const c of ['prompt', 'tool'] as const) {
    const f = c === 'prompt' ? prompt : tool;
    const h = hookBy.channels[c];
    const l = labelCounts(labels, { channel: c, mode: opts.mode });
    const own = judged.has(c)
      ? [
          ...hookGate(h, config.soak, c),
          ...wouldFireGates(f.rates, rateBand(c, config.soak), c),
          withLabelSources(usefulnessGate(l, config.soak, c, opts.mode), labels, c, opts.mode),
        ]
      : [];
    gates.push(...own);
    const states: Record<string, ModeState> = {};
    for (const [name, m] of Object.entries(config.modes)) if (!opts.mode || name === opts.mode) states[name] = channelState(m, c);
    channels[c] = {
      judged: judged.has(c),
      pass: judged.has(c) && sharedPass && own.every((g) => g.pass),
      states,
      gates: own,
      hook: { runs: h.runs, by_outcome: h.byOutcome },
      rate: {
        unit: rateBand(c, config.soak).unit,
        source: RATE_SOURCE[c],
        opportunities: c === 'prompt' ? prompt.exchanges : tool.toolSteps,
        would_fire: f.wouldFire,
        ...(c === 'tool' ? { daemon_tool_steps: tool.daemonToolSteps, daemon_would_fire: tool.daemonWouldFire } : {}),
      },
      labels: l,
      by_type: f.byType,
    };
  }
  gates.push(...shared);

  // Recalls of offered handles, over both channels.
  const offered = new Map<string, { type: OfferType; ts: number }>(prompt.offered);
  for (const [handle, o] of tool.offered) {
    const p = offered.get(handle);
    if (!p || o.ts < p.ts) offered.set(handle, o);
  }
  const recalls = readJsonlFiles<RecallRecord>(oneLog(join(dir, 'recalls.jsonl')), since).records;
  const recalled: Record<string, { offered: number; recalled: number }> = {};
  for (const [handle, o] of offered) {
    const r = (recalled[o.type] ??= { offered: 0, recalled: 0 });
    r.offered++;
    if (recalls.some((x) => x.handle === handle && x.ts >= o.ts)) r.recalled++;
  }

  // Every run of the hook log, those naming an unknown channel included.
  const allOutcomes = hookFigures(hook.records).byOutcome;
  return {
    since: new Date(since).toISOString(),
    gates,
    pass: judged.size > 0 && gates.every((g) => g.pass),
    shared: shared.map((g) => g.name),
    channels,
    figures: {
      hook: { runs: hook.records.length, by_outcome: allOutcomes, unknown_channel: hookBy.unknownChannel },
      exchanges: prompt.exchanges,
      would_fire: prompt.wouldFire,
      tool_steps: tool.toolSteps,
      tool_would_fire: tool.wouldFire,
      by_type: sumCounts(prompt.byType, tool.byType),
      recalled_after_offer: recalled,
      labels: labelCounts(labels, { mode: opts.mode }),
      uptake: liveUptake(hook.records.filter((r) => !opts.mode || r.mode === opts.mode), config.transcriptsRoot ?? defaultTranscriptsRoot(env), env),
      history: historyFigures(readHistorySummary(env), labels),
      bad_log_lines: hook.badLines + decisions.badLines + hookBy.unknownChannel,
    },
  };
}

/** `7d`, `24h`, `90m`, `30s` → milliseconds; null when malformed. */
export interface HistoryFigures {
  at: string;
  sessions: number;
  exchanges: number;
  prompt_offers: number;
  /** Offers past the hook's gates per 100 exchanges / per 100 tool steps of the history. */
  prompt_per_100: number;
  tool_steps: number;
  tool_offers: number;
  tool_per_100: number;
  /** Shown Past fixes the session then confirmed (ran the fix, got through: core/uptake.ts),
   *  and the tool steps between those offers and their success (an upper bound); null when
   *  the backtest predates the figure. */
  past_fix_offers: number | null;
  confirmed_offers: number | null;
  steps_saved: number | null;
  labels: { n: number; useful: number };
}

const per100 = (a: number, b: number) => (b ? Math.round((10000 * a) / b) / 100 : 0);

/** The history's own figures, named apart from the live soak's. */
export function historyFigures(h: HistorySummary | null, labels: readonly LabelRecord[]): HistoryFigures | null {
  if (!h) return null;
  const hl = labels.filter((l) => l.history);
  return {
    at: new Date(h.ts).toISOString(),
    sessions: h.sessions,
    exchanges: h.exchanges,
    prompt_offers: h.prompt_offers,
    prompt_per_100: per100(h.prompt_offers, h.exchanges),
    tool_steps: h.tool_steps,
    tool_offers: h.tool_offers,
    tool_per_100: per100(h.tool_offers, h.tool_steps),
    past_fix_offers: h.past_fix_offers ?? null,
    confirmed_offers: h.confirmed_offers ?? null,
    steps_saved: h.steps_saved ?? null,
    labels: { n: hl.length, useful: hl.filter((l) => l.useful).length },
  };
}

/** The usefulness gate counts labels of live and history offers alike; say how many of each. */
export function withLabelSources(g: Gate, labels: readonly LabelRecord[], channel: Channel, mode?: string): Gate {
  const mine = labels.filter((l) => (l.channel ?? 'prompt') === channel && (!mode || l.mode === mode));
  const hist = mine.filter((l) => l.history).length;
  if (!mine.length) return g;
  return { ...g, figure: `${g.figure} — ${mine.length - hist} live, ${hist} from history (backtest)` };
}

export function parseDuration(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(s.trim());
  if (!m) return null;
  const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}
