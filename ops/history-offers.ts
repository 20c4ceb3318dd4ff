/**
 * Offers found in the user's own history by `active-brain backtest`: the offers the hook would
 * have shown (printed live, or would-fire in soak) on either channel, kept so that `label` can
 * offer them for labeling (marked as from history) and `soak report` can show the history's
 * own figures beside the live soak's. One snapshot per backtest run, written atomically:
 *   <home>/logs/backtest-offers.jsonl   one HistoryOffer a line
 *   <home>/logs/backtest-summary.json   the run's figures (HistorySummary)
 * Ids and codes, and each offer's own reason line (what it would have printed; like the
 * decision log's): no conversation text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ensureDir, writeFileAtomic, writeJsonAtomic } from '../shared/atomic.js';
import { logsDir } from '../shared/paths.js';
import type { Channel, OfferType, TriggerKind } from '../shared/vocabulary.js';
import { oneLog, readJsonlFiles } from '../daemon/jsonl-read.js';

export interface HistoryOffer {
  ts: number;
  channel: Channel;
  offer_id: string;
  session: string;
  /** The transcript the offer was found in (labels show the turns around it from there). */
  path: string;
  handle: string;
  type: OfferType;
  confidence: number;
  mode: string | null;
  trigger: TriggerKind | null;
  turn: number;
  /** The offer's reason line, as the hook would have printed it after type and confidence. */
  reason?: string;
  /** Prompt channel: transcript offset just past the exchange. */
  offset?: number;
  step?: number;
  tool_use_id?: string;
  /** A Past fix: whether the session then ran it and got the failing intent through
   *  (core/uptake.ts), and the tool steps in between (null when not confirmed). */
  confirmed?: boolean;
  steps_saved?: number | null;
}

export interface HistorySummary {
  ts: number;
  since_ms: number | null;
  sessions: number;
  exchanges: number;
  prompt_offers: number;
  tool_steps: number;
  tool_offers: number;
  /** Past fixes shown in main sessions, those the session confirmed, and the steps between
   *  each confirmed one and its success, summed (an upper bound of what they could save).
   *  Absent in a summary written before uptake was measured. */
  past_fix_offers?: number;
  confirmed_offers?: number;
  steps_saved?: number;
}

export const historyOffersPath = (env: NodeJS.ProcessEnv = process.env) => join(logsDir(env), 'backtest-offers.jsonl');
export const historySummaryPath = (env: NodeJS.ProcessEnv = process.env) => join(logsDir(env), 'backtest-summary.json');

/** Replace the history snapshot with this run's offers and figures. */
export function writeHistory(offers: readonly HistoryOffer[], summary: HistorySummary, env: NodeJS.ProcessEnv = process.env): void {
  ensureDir(logsDir(env));
  writeFileAtomic(historyOffersPath(env), offers.map((o) => JSON.stringify(o)).join('\n') + (offers.length ? '\n' : ''));
  writeJsonAtomic(historySummaryPath(env), summary);
}

export function readHistoryOffers(env: NodeJS.ProcessEnv = process.env): HistoryOffer[] {
  return readJsonlFiles<HistoryOffer>(oneLog(historyOffersPath(env))).records.filter(
    (o) => typeof o.offer_id === 'string' && typeof o.session === 'string' && typeof o.handle === 'string' && (o.channel === 'prompt' || o.channel === 'tool'),
  );
}

export function readHistorySummary(env: NodeJS.ProcessEnv = process.env): HistorySummary | null {
  try {
    const v = JSON.parse(readFileSync(historySummaryPath(env), 'utf8')) as HistorySummary;
    return typeof v.ts === 'number' && typeof v.exchanges === 'number' ? v : null;
  } catch {
    return null;
  }
}
