/**
 * The soak report's figures per channel, as pure functions of the log records that
 * ops/soak-report.ts read (hook.jsonl, daemon.jsonl). Every record is assigned to exactly one
 * channel by ops/channel-records.ts (no `channel` = prompt), or to none when it names an
 * unknown one; the gates (ops/soak-gates.ts) judge each channel on its own records.
 *
 * Would-fire rate, per mode:
 *   prompt — over exchanges: the daemon's final decision per exchange (channel prompt), fired
 *            when any decision on it (provisional or final) produced an offer; as before.
 *   tool   — over tool events: the hook's runs at PostToolUseFailure / PostToolUse (channel
 *            tool), one per tool call (session + tool_use_id; a run without an id counts on
 *            its own), fired when a run at that call printed or would have. The hook is the
 *            source, not the daemon: a Past fix is read by the hook from fixes/<sig>.json at
 *            the failure and has no daemon decision, and the hook runs at every tool call it
 *            is installed for. The daemon's tool-step decisions are reported beside it.
 */
import type { Channel, OfferType } from '../shared/vocabulary.js';
import { CHANNELS } from '../shared/vocabulary.js';
import type { HookFigures, ModeRate, SeatFigures } from './soak-gates.js';
import { byChannel, type DecisionLine, type HookLine } from './channel-records.js';

/** Hook reason codes that mean the hook itself failed (and fell back to silence). */
export const HOOK_ERROR_REASONS = new Set(['error', 'deadline']);
/** Hook outcomes a person would have seen (printed, or in soak would have been). */
export const SHOWN_OUTCOMES = new Set(['print', 'would-fire']);

export function hookFigures(records: readonly HookLine[]): HookFigures {
  const byOutcome: Record<string, number> = {};
  for (const r of records) byOutcome[r.outcome] = (byOutcome[r.outcome] ?? 0) + 1;
  return {
    runs: records.length,
    latencies: records.map((r) => r.latency_ms).filter((x) => typeof x === 'number'),
    boots: records.map((r) => r.boot_ms).filter((x) => typeof x === 'number'),
    nonZeroExits: records.filter((r) => r.exit !== 0).length,
    errors: records.filter((r) => HOOK_ERROR_REASONS.has(r.reason)).length,
    byOutcome,
  };
}

export interface HookByChannel {
  channels: Record<Channel, HookFigures>;
  /** Records naming a channel (or event) this version does not know: on no channel. */
  unknownChannel: number;
}

export function hookFiguresByChannel(records: readonly HookLine[]): HookByChannel {
  const g = byChannel(records);
  const channels = Object.fromEntries(CHANNELS.map((c) => [c, hookFigures(g.channels[c])])) as Record<Channel, HookFigures>;
  return { channels, unknownChannel: g.unknown.length };
}

export interface PromptFigures {
  rates: ModeRate[];
  /** Exchanges of interactive sessions (every mode, modes off included). */
  exchanges: number;
  wouldFire: number;
  seats: SeatFigures;
  byType: Record<string, number>;
  /** Handle → type and first time it was offered (for the recalled-after-offer figure). */
  offered: Map<string, { type: OfferType; ts: number }>;
}

function seatOf(d: DecisionLine): string {
  return d.worker ? 'worker' : d.sidechain ? 'subagent' : 'interactive';
}

/** The prompt channel's figures from the daemon's decision records (any channel given: only
 *  the prompt channel's are used). */
export function promptFigures(decisions: readonly DecisionLine[], mode?: string): PromptFigures {
  const all = byChannel(decisions).channels.prompt.filter((d) => d.type === 'decision' && !d.seed);
  // One exchange = its final decision; it would fire when any decision on it (provisional,
  // made while the reply was still open, or final) produced an offer.
  const exKey = (d: DecisionLine) => `${d.sessionId}\u0000${d.exchangeUuid}`;
  const fired = new Set(all.filter((d) => d.would_fire).map(exKey));
  const observed = all.filter((d) => !d.provisional);
  const interactive = observed.filter((d) => !d.worker && !d.sidechain);
  const rates = new Map<string, ModeRate>();
  for (const d of interactive) {
    // Sessions no mode applies to, and modes switched off, make no offers by design: they
    // have no would-fire rate to judge.
    if (d.mode === null || d.mode_state === 'off') continue;
    if (mode && d.mode !== mode) continue;
    const r = rates.get(d.mode) ?? { mode: d.mode, opportunities: 0, wouldFire: 0 };
    r.opportunities++;
    if (fired.has(exKey(d))) r.wouldFire++;
    rates.set(d.mode, r);
  }
  if (mode && !rates.has(mode)) rates.set(mode, { mode, opportunities: 0, wouldFire: 0 });

  const sessions = new Map<string, { seat: string; exchanges: number; promptOnly: boolean }>();
  for (const d of observed) {
    // A subagent file shares its parent's session id: keep the seats apart.
    const k = `${d.sessionId}\u0000${seatOf(d)}`;
    const s = sessions.get(k) ?? { seat: seatOf(d), exchanges: 0, promptOnly: true };
    s.exchanges++;
    if (!d.prompt_only) s.promptOnly = false;
    sessions.set(k, s);
  }
  const seats: SeatFigures['seats'] = {};
  for (const s of sessions.values()) {
    const f = (seats[s.seat] ??= { sessions: 0, exchanges: 0, promptOnlySessions: 0 });
    f.sessions++;
    f.exchanges += s.exchanges;
    if (s.promptOnly) f.promptOnlySessions++;
  }

  const byType: Record<string, number> = {};
  const offered = new Map<string, { type: OfferType; ts: number }>();
  for (const d of all) {
    if (d.worker || d.sidechain || !d.would_fire || !d.offer) continue;
    byType[d.offer.type] = (byType[d.offer.type] ?? 0) + 1;
    if (!offered.has(d.offer.handle)) offered.set(d.offer.handle, { type: d.offer.type, ts: d.ts });
  }
  return {
    rates: [...rates.values()],
    exchanges: interactive.length,
    wouldFire: interactive.filter((d) => fired.has(exKey(d))).length,
    seats: { seats },
    byType,
    offered,
  };
}

export interface ToolFigures {
  rates: ModeRate[];
  /** Tool events (one per tool call) in sessions of a mode whose tool channel is not off. */
  toolSteps: number;
  wouldFire: number;
  /** Cross-check: the daemon's tool-step decisions (final) and how many produced an offer. */
  daemonToolSteps: number;
  daemonWouldFire: number;
  byType: Record<string, number>;
  offered: Map<string, { type: OfferType; ts: number }>;
}

/** The tool channel's figures: the rate from the hook's tool-event records, the daemon's
 *  tool-step decisions beside it (records of other channels are ignored). */
export function toolFigures(hook: readonly HookLine[], decisions: readonly DecisionLine[], mode?: string): ToolFigures {
  const runs = byChannel(hook).channels.tool;
  // One tool call = one step, whatever number of hook runs met it (a hook registered at
  // user and project scope runs twice).
  const steps = new Map<string, { mode: string; fired: boolean }>();
  runs.forEach((r, i) => {
    if (r.mode === null || r.mode === undefined || r.mode_state === 'off' || r.reason === 'mode-off') return;
    if (mode && r.mode !== mode) return;
    const k = typeof r.tool_use_id === 'string' && r.tool_use_id ? `${r.session}\u0000${r.tool_use_id}` : `\u0001${i}`;
    const s = steps.get(k) ?? { mode: r.mode, fired: false };
    if (SHOWN_OUTCOMES.has(r.outcome)) s.fired = true;
    steps.set(k, s);
  });
  const rates = new Map<string, ModeRate>();
  for (const s of steps.values()) {
    const r = rates.get(s.mode) ?? { mode: s.mode, opportunities: 0, wouldFire: 0 };
    r.opportunities++;
    if (s.fired) r.wouldFire++;
    rates.set(s.mode, r);
  }
  if (mode && !rates.has(mode)) rates.set(mode, { mode, opportunities: 0, wouldFire: 0 });

  const byType: Record<string, number> = {};
  const offered = new Map<string, { type: OfferType; ts: number }>();
  for (const r of runs) {
    if (!SHOWN_OUTCOMES.has(r.outcome) || !r.type || typeof r.handle !== 'string') continue;
    if (mode && r.mode !== mode) continue;
    byType[r.type] = (byType[r.type] ?? 0) + 1;
    if (!offered.has(r.handle)) offered.set(r.handle, { type: r.type, ts: r.ts });
  }

  const daemon = byChannel(decisions).channels.tool.filter(
    (d) => d.type === 'decision' && !d.seed && !d.provisional && !d.worker && !d.sidechain && d.mode !== null && d.mode_state !== 'off' && (!mode || d.mode === mode),
  );
  const list = [...steps.values()];
  return {
    rates: [...rates.values()],
    toolSteps: list.length,
    wouldFire: list.filter((s) => s.fired).length,
    daemonToolSteps: daemon.length,
    daemonWouldFire: daemon.filter((d) => d.would_fire).length,
    byType,
    offered,
  };
}
