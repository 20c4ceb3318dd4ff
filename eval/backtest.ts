/**
 * `active-brain backtest`: the daemon's pipeline over the user's own history — the replay
 * code (eval/replay.ts: both channels, the hook's gates, the fixes files the daemon would
 * write) over the transcripts under the configured root, with the configured store and
 * modes. A session is never offered its own transcript (the offer builder drops chunks of
 * the observed session, and a Past fix never comes from the session it is offered to).
 * Files are replayed one at a time (memory bounded by the largest file, not the history).
 * The offers the hook would have shown are kept (ops/history-offers.ts) for `label` and
 * `soak report`; a report page can be drawn from the rows (ops/report-html.ts).
 */
import { toolErrorsText } from './tool-error-kinds.js';
import { existsSync, statSync } from 'node:fs';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import type { StoreReader } from '../store/types.js';
import { modeFor } from '../shared/modes.js';
import type { HistoryOffer, HistorySummary } from '../ops/history-offers.js';
import type { ReportMark, ReportModel, ReportSession } from '../ops/report-html.js';
import { boundSessions, offerText, shownOffers } from '../ops/report-model.js';
import { findTranscripts, type TranscriptFile } from './replay-read.js';
import { offersOf, replayTranscripts, type ReplayOffer, type ReplayResult } from './replay.js';
import { hookShows, type ReplayRow } from './replay-rows.js';
import { backtestUptake, uptakeFigures, type RowUptake, type UptakeFigures } from './backtest-uptake.js';

export interface BacktestOptions {
  config: Config;
  embedder: Embedder;
  store: StoreReader | null;
  noStoreReason?: string;
  root: string;
  /** More roots replayed with it (Codex CLI's sessions root: docs/CODEX.md); a missing one is skipped. */
  extraRoots?: string[];
  /** Only transcripts written within this many ms before `now` (null: all). */
  sinceMs: number | null;
  now: number;
  home: string;
  seed: number;
  onFile?: (done: number, total: number) => void;
}

export interface BacktestResult extends ReplayResult {
  files: TranscriptFile[];
  history: { offers: HistoryOffer[]; summary: HistorySummary };
  /** Per shown Past fix of a main session: did the session confirm it (eval/backtest-uptake.ts). */
  uptake: Map<ReplayRow, RowUptake>;
  uptakeFigures: UptakeFigures;
}

/** The transcripts under root written within the window (subagent files included: they are
 *  replayed as sidechain sessions, never offered to). */
export function historyFiles(root: string, sinceMs: number | null, now: number, extraRoots: string[] = []): TranscriptFile[] {
  // The main root must exist unless another one does (a Codex-only user has no Claude root).
  const extra = extraRoots.filter((r) => existsSync(r));
  const all = [...(extra.length && !existsSync(root) ? [] : findTranscripts(root)), ...extra.flatMap((r) => findTranscripts(r))];
  if (sinceMs === null) return all;
  return all.filter((f) => {
    try {
      return statSync(f.path).mtimeMs >= now - sinceMs;
    } catch {
      return false;
    }
  });
}

export async function runBacktest(o: BacktestOptions): Promise<BacktestResult> {
  const files = historyFiles(o.root, o.sinceMs, o.now, o.extraRoots);
  const result = await replayTranscripts(files, {
    config: o.config,
    embedder: o.embedder,
    store: o.store,
    noStoreReason: o.noStoreReason,
    seed: o.seed,
    settleMs: o.config.daemon.settleMs,
    home: o.home,
    onFile: (n) => o.onFile?.(n, files.length),
  });
  const pathOf = new Map(files.map((f) => [f.rel, f.path]));
  const uptake = await backtestUptake(result.rows, files, o.store ? o.store.fixEpisodes() : []);
  const figures = uptakeFigures(result.rows, uptake);
  const modes = Object.entries(o.config.modes).map(([name, m]) => ({ ...m, name }));
  const offers: HistoryOffer[] = result.rows
    .filter((r) => r.offer && hookShows(r.hook) && !r.sidechain)
    .map((r) => ({
      ts: o.now,
      channel: r.channel,
      offer_id: r.channel === 'tool' ? `fix-${r.offer!.chunkId}-${r.step}` : `history-${r.file}-${r.turn}-${r.offer!.chunkId}`,
      session: r.session,
      path: pathOf.get(r.file) ?? r.file,
      handle: r.offer!.handle,
      type: r.offer!.type,
      confidence: r.offer!.confidence,
      mode: modeFor(modes, null)?.name ?? null,
      trigger: (r.trigger as HistoryOffer['trigger']) ?? null,
      turn: r.turn,
      ...(result.reasons.has(r) ? { reason: result.reasons.get(r) } : {}),
      ...(r.channel === 'prompt' ? { offset: r.offset } : { step: r.step ?? undefined, ...(r.tool_use_id ? { tool_use_id: r.tool_use_id } : {}) }),
      ...(uptake.has(r) ? { confirmed: uptake.get(r)!.confirmed, steps_saved: uptake.get(r)!.steps_between } : {}),
    }));
  const s = result.summary;
  return {
    ...result,
    files,
    uptake,
    uptakeFigures: figures,
    history: {
      offers,
      summary: {
        ts: o.now,
        since_ms: o.sinceMs,
        sessions: s.main_sessions,
        exchanges: s.main_exchanges,
        prompt_offers: s.printed,
        tool_steps: s.tool_steps,
        tool_offers: s.tool_would_fire,
        ...figures,
      },
    },
  };
}

/** backtest --json's offers: replay's, each shown Past fix with whether the session confirmed
 *  it and the steps between (null for the offers uptake does not judge). */
export function backtestOffers(b: Pick<BacktestResult, 'rows' | 'uptake'>): Array<ReplayOffer & { confirmed: boolean | null; steps_saved: number | null }> {
  const rows = b.rows.filter((r) => r.offer);
  return offersOf(rows).map((o, i) => {
    const u = b.uptake.get(rows[i]);
    return { ...o, confirmed: u ? u.confirmed : null, steps_saved: u ? u.steps_between : null };
  });
}

function markOf(r: ReplayRow, reason: string | null, uptake: RowUptake | undefined, config: Config): ReportMark {
  // A Past fix's reason is its printed line's; without it, the fix the store holds is shown.
  const shownReason = reason ?? (uptake?.fix ? `offered fix: ${uptake.fix}` : null);
  return {
    channel: r.channel,
    seq: r.channel === 'tool' ? r.step ?? 0 : r.turn,
    at: null,
    driftZ: r.driftZ ?? null,
    stallZ: r.stallZ ?? null,
    toolError: r.tool_error,
    trigger: r.trigger,
    outcome: r.offer ? (r.hook === 'printed' ? 'printed' : r.hook === 'would-fire' ? 'would-fire' : 'held') : 'silent',
    reason: r.offer ? (hookShows(r.hook) ? null : r.hook) : r.silence,
    offer: r.offer
      ? {
          type: r.offer.type, confidence: r.offer.confidence, handle: r.offer.handle, reason: shownReason,
          text: reason ? offerText({ ...r.offer, reason }, config) : null,
          uptake: uptake ? { confirmed: uptake.confirmed, steps_between: uptake.steps_between } : null,
        }
      : null,
  };
}

/** The report page's model from a backtest: its first screen (every line the hook would have
 *  shown, the rates, the Past fixes the sessions confirmed), then one timeline per replayed
 *  main session. */
export function backtestReportModel(b: BacktestResult, config: Config, now: number): ReportModel {
  const bySession = new Map<string, { label: string; marks: ReportMark[] }>();
  for (const r of b.rows) {
    // A provisional look is drawn only when the hook showed its offer (the line that was said).
    if (r.sidechain || (r.provisional && !(r.offer && hookShows(r.hook)))) continue;
    // Tool steps that neither erred nor offered are the agent working: not drawn.
    if (r.channel === 'tool' && !r.tool_error && !r.offer) continue;
    const s = bySession.get(r.session) ?? { label: `session ${r.session} (${r.file})`, marks: [] };
    s.marks.push(markOf(r, b.reasons.get(r) ?? null, b.uptake.get(r), config));
    bySession.set(r.session, s);
  }
  const all: ReportSession[] = [...bySession].map(([id, s]) => ({ id, label: s.label, marks: s.marks }));
  const offers = shownOffers(all);
  const { sessions, omitted } = boundSessions(all);
  const mode = config.modes.default ?? Object.values(config.modes)[0];
  const s = b.summary;
  return {
    title: 'active-brain — what it would have said on your history',
    source: `backtest: ${s.main_exchanges} exchanges, ${s.tool_steps} tool steps`,
    generatedAt: now,
    // The words and numbers of the text output's "replayed N sessions (M main, K sidechain)".
    counts: { sessions: s.sessions, main: s.main_sessions, sidechain: s.sidechain_sessions, transcripts: b.files.length },
    rates: [
      { channel: 'prompt', offers: s.printed, over: s.main_exchanges, unit: 'prompts' },
      { channel: 'tool', offers: s.tool_would_fire, over: s.tool_steps, unit: 'tool steps' },
    ],
    offers,
    uptake: b.uptakeFigures,
    gates: [
      // Counts, not verdicts: no gate judges a history's offer rate (the soak's bands apply to
      // live traffic), so they are shown as figures — never a "pass" with nothing measured.
      { name: 'history.prompt-offers', pass: null, figure: `${s.printed} past the hook's gates over ${s.main_exchanges} exchanges` },
      { name: 'history.tool-offers', pass: null, figure: `${s.tool_would_fire} past the hook's gates over ${s.tool_steps} tool steps (${s.tool_offers_per_100_steps} per 100); ${toolErrorsText(s)}` },
      { name: 'history.sidechain-offers', pass: s.sidechain_offers === 0, figure: `${s.sidechain_offers} (target 0)` },
    ],
    labels: [],
    thresholds: { drift: mode?.driftZ ?? 3, stall: mode?.stallZ ?? 3 },
    sessions,
    omittedSessions: omitted,
  };
}
