/**
 * The rollout gates of `active-brain soak report`, as pure functions of figures collected
 * from real logs and files by ops/soak-report.ts (per channel by ops/soak-figures.ts). Every
 * gate fails closed: no data is a fail with a figure that says so, never a pass.
 *
 * Gate names: the channel's own gates are prefixed with it (`prompt.hook-speed`,
 * `tool.would-fire-rate:default`, `tool.usefulness`); the shared gates (zero-store-writes,
 * liveness, honest-process-state, transcript-availability) have no prefix.
 */
import type { Config } from '../config/schema.js';
import type { Channel } from '../shared/vocabulary.js';
import { quantile } from './stats.js';
import { auditStoreWrites, type StoreWriteFigures } from './store-writes.js';

export type { StoreWriteFigures } from './store-writes.js';

export interface Gate {
  name: string;
  pass: boolean;
  figure: string;
}

export interface HookFigures {
  runs: number;
  /** The hook's own time per run (latency_ms: from its code's start to its log line). */
  latencies: number[];
  /** Node start-up before the hook's code ran (boot_ms), reported beside the gate. */
  boots?: number[];
  nonZeroExits: number;
  errors: number;
  byOutcome: Record<string, number>;
}

/** One mode's would-fire figures on one channel: offers a person would have seen, over the
 *  channel's opportunities to speak (exchanges, or tool events: see RateBand.unit). */
export interface ModeRate {
  mode: string;
  opportunities: number;
  wouldFire: number;
}

export interface LivenessFigures {
  running: boolean;
  canaryAgeS: number | null;
  cycleS: number;
  problem: string | null;
  lockPid: number | null;
  canaryPid: number | null;
}

export interface SeatFigures {
  /** interactive | worker | subagent → sessions, exchanges, prompt-only sessions. */
  seats: Record<string, { sessions: number; exchanges: number; promptOnlySessions: number }>;
}

export interface LabelFigures {
  n: number;
  useful: number;
}

/** Exchanges a mode needs before its prompt-channel would-fire rate means anything. */
export const MIN_EXCHANGES_FOR_RATE = 50;
/** Tool events a mode needs before its tool-channel rate means anything: at the band's
 *  floor (0.2 per 100) that is one expected offer, fewer cannot tell mute from quiet. The
 *  three real sessions of ../shared/eval/claude-code hold 578 tool calls (150–242 each), so
 *  this is two to three agentic sessions. */
export const MIN_TOOL_STEPS_FOR_RATE = 500;
/** The liveness gate allows this many cycles of canary age. */
export const LIVENESS_CYCLES = 3;

/** `prompt.hook-speed`, `tool.would-fire-rate:default`, … */
export function gateName(channel: Channel, base: string, mode?: string): string {
  return `${channel}.${base}${mode ? `:${mode}` : ''}`;
}

/** The hook events each channel's runs come from (for the figures that say "none yet"). */
const CHANNEL_EVENTS: Readonly<Record<Channel, string>> = { prompt: 'UserPromptSubmit', tool: 'PostToolUseFailure / PostToolUse' };

export function hookGate(h: HookFigures, soak: Config['soak'], channel: Channel): Gate[] {
  if (h.runs === 0) {
    const none = `no ${CHANNEL_EVENTS[channel]} hook runs logged yet`;
    return [
      { name: gateName(channel, 'hook-speed'), pass: false, figure: `${none} (is the hook installed for them? \`active-brain install\`)` },
      { name: gateName(channel, 'hook-clean-exit'), pass: false, figure: none },
    ];
  }
  const p50 = quantile(h.latencies, 0.5);
  const p99 = quantile(h.latencies, 0.99);
  return [
    {
      name: gateName(channel, 'hook-speed'),
      pass: p50 <= soak.hookP50Ms && p99 <= soak.hookP99Ms,
      figure: `own time p50 ${p50.toFixed(1)} ms (≤ ${soak.hookP50Ms}), p99 ${p99.toFixed(1)} ms (≤ ${soak.hookP99Ms}) over ${h.runs} runs${
        h.boots?.length ? `; Node start-up before it adds p50 ${quantile(h.boots, 0.5).toFixed(1)} ms` : ''
      }`,
    },
    {
      name: gateName(channel, 'hook-clean-exit'),
      pass: h.nonZeroExits === 0 && h.errors === 0,
      figure: `${h.runs} runs, ${h.nonZeroExits} non-zero exits, ${h.errors} internal errors (silenced)`,
    },
  ];
}

/** Which store changes are the indexer's: ops/store-writes.ts. */
export function storeWriteGate(s: StoreWriteFigures): Gate {
  return { name: 'zero-store-writes', ...auditStoreWrites(s) };
}

/** What a channel's would-fire rate is counted in, and the band it must lie in. */
export interface RateBand {
  /** Opportunities to speak: `exchanges` (prompt) or `tool events` (tool). */
  unit: string;
  minPer100: number;
  maxPer100: number;
  minOpportunities: number;
}

export function rateBand(channel: Channel, soak: Config['soak']): RateBand {
  return channel === 'prompt'
    ? { unit: 'exchanges', minPer100: soak.minWouldFirePer100, maxPer100: soak.maxWouldFirePer100, minOpportunities: MIN_EXCHANGES_FOR_RATE }
    : { unit: 'tool events', minPer100: soak.toolMinWouldFirePer100, maxPer100: soak.toolMaxWouldFirePer100, minOpportunities: MIN_TOOL_STEPS_FOR_RATE };
}

export function wouldFireGates(rates: ModeRate[], band: RateBand, channel: Channel): Gate[] {
  if (!rates.length) return [{ name: gateName(channel, 'would-fire-rate'), pass: false, figure: `no ${band.unit} observed yet` }];
  return rates.map((r) => {
    const per100 = r.opportunities ? (100 * r.wouldFire) / r.opportunities : 0;
    const enough = r.opportunities >= band.minOpportunities;
    const inBand = per100 >= band.minPer100 && per100 <= band.maxPer100;
    return {
      name: gateName(channel, 'would-fire-rate', r.mode),
      pass: enough && inBand,
      figure: `${per100.toFixed(1)} per 100 ${band.unit} (${r.wouldFire}/${r.opportunities}; band ${band.minPer100}–${band.maxPer100})${enough ? '' : `; needs ≥ ${band.minOpportunities} ${band.unit}`}`,
    };
  });
}

export function livenessGates(l: LivenessFigures): Gate[] {
  const fresh = l.canaryAgeS !== null && l.canaryAgeS <= LIVENESS_CYCLES * l.cycleS;
  return [
    {
      name: 'liveness',
      pass: l.running && fresh,
      figure: l.canaryAgeS === null ? 'no canary: the daemon has not run' : `canary ${l.canaryAgeS.toFixed(1)} s old (≤ ${(LIVENESS_CYCLES * l.cycleS).toFixed(0)} s)`,
    },
    {
      name: 'honest-process-state',
      pass: l.running && l.problem === null && l.lockPid !== null && l.lockPid === l.canaryPid,
      figure: l.running ? `lock pid ${l.lockPid} alive and equal to canary pid ${l.canaryPid}` : `not running${l.problem ? ` (${l.problem})` : ''}`,
    },
  ];
}

export function seatGate(s: SeatFigures): Gate {
  const parts = Object.entries(s.seats).map(([seat, f]) => `${seat}: ${f.sessions} sessions, ${f.exchanges} exchanges, ${f.promptOnlySessions} prompt-only`);
  const inter = s.seats.interactive;
  const visible = inter ? inter.sessions - inter.promptOnlySessions : 0;
  return {
    name: 'transcript-availability',
    pass: visible > 0,
    figure: parts.length ? `${parts.join('; ')}${visible > 0 ? '' : ' — no interactive session with assistant text visible'}` : 'no sessions observed',
  };
}

/** Wilson score interval (95%) for a proportion. */
export function wilson(successes: number, n: number, z = 1.96): [number, number] {
  if (n === 0) return [0, 1];
  const p = successes / n;
  const d = 1 + (z * z) / n;
  const c = p + (z * z) / (2 * n);
  const r = z * Math.sqrt((p * (1 - p)) / n + (z * z) / (4 * n * n));
  return [Math.max(0, (c - r) / d), Math.min(1, (c + r) / d)];
}

export function usefulnessGate(l: LabelFigures, soak: Config['soak'], channel: Channel, mode?: string): Gate {
  const share = l.n ? l.useful / l.n : 0;
  const [lo, hi] = wilson(l.useful, l.n);
  return {
    name: gateName(channel, 'usefulness', mode),
    pass: l.n >= soak.minLabels && share >= soak.minUsefulShare,
    figure: l.n
      ? `${(share * 100).toFixed(0)}% useful (${l.useful}/${l.n}, 95% CI ${(lo * 100).toFixed(0)}–${(hi * 100).toFixed(0)}%); needs ≥ ${soak.minUsefulShare * 100}% over ≥ ${soak.minLabels}`
      : `no ${channel}-channel labels yet (run \`active-brain label --channel ${channel}\`); needs ≥ ${soak.minUsefulShare * 100}% useful over ≥ ${soak.minLabels}`,
  };
}
