/**
 * The report's model (ops/report-html.ts ReportModel) from the live logs: the daemon's
 * decisions (logs/daemon.jsonl: prompt-channel exchanges and tool-channel steps), what the
 * hook did with each offer (logs/hook.jsonl, by offer id), the soak gates (ops/soak-report.ts)
 * and the labels (ops/labels.ts). Read-only. The backtest builds the same model from its
 * replayed rows (eval/backtest.ts), so both pages read alike.
 */
import type { Config } from '../config/schema.js';
import { logsDir } from '../shared/paths.js';
import { daemonLogs, hookLogs, readJsonlFiles } from '../daemon/jsonl-read.js';
import { soakReport } from './soak-report.js';
import { readLabels } from './labels.js';
import { wilson } from './soak-gates.js';
import { formatOfferLine } from '../shared/offer-format.js';
import { defaultTranscriptsRoot } from '../shared/paths.js';
import { byChannel, type HookLine as ToolHookLine } from './channel-records.js';
import { SHOWN_OUTCOMES } from './soak-figures.js';
import type { MarkOutcome, ReportMark, ReportModel, ReportOffer, ReportSession } from './report-html.js';

/** Sessions drawn on one page (the most active first): keeps a report of months small. */
export const MAX_REPORT_SESSIONS = 200;
/** Decisions drawn per session (the newest): a session of thousands of steps stays readable
 *  and 100 sessions stay under 2 MB (bench/report.bench.ts). */
export const MAX_MARKS_PER_SESSION = 100;

/** What a timeline draws: every prompt-channel decision, and the tool steps that matter (an
 *  error, a trigger or an offer) — a successful call is the agent working, not a decision. */
export function drawn(m: ReportMark): boolean {
  return m.channel === 'prompt' || m.toolError || m.offer !== null || m.trigger !== null;
}

interface DecisionLine {
  type: string;
  ts: number;
  channel?: string;
  sessionId: string;
  worker?: boolean | string | null;
  sidechain?: boolean;
  turn?: number;
  step?: number;
  seed?: boolean;
  provisional?: boolean;
  trigger: string | null;
  trigger_values?: Record<string, number>;
  silence: string | null;
  offer: { id: string; handle: string; type: string; confidence: number; reason?: unknown } | null;
}

interface HookLine {
  ts: number;
  outcome: string;
  reason: string;
  offer_id?: string;
}

/** What the hook did with an offer: the most telling of its records (shown beats held). */
export function offerOutcome(records: readonly HookLine[] | undefined): { outcome: MarkOutcome; reason: string | null } {
  if (!records?.length) return { outcome: 'held', reason: 'no-hook-event' };
  if (records.some((r) => r.outcome === 'print')) return { outcome: 'printed', reason: null };
  if (records.some((r) => r.outcome === 'would-fire')) return { outcome: 'would-fire', reason: null };
  return { outcome: 'held', reason: records[records.length - 1].reason };
}

export function markFromDecision(d: DecisionLine, hookByOffer: ReadonlyMap<string, HookLine[]>): ReportMark {
  const tool = d.channel === 'tool';
  const tv = d.trigger_values ?? {};
  const o = d.offer ? offerOutcome(hookByOffer.get(d.offer.id)) : { outcome: 'silent' as const, reason: d.silence };
  return {
    channel: tool ? 'tool' : 'prompt',
    seq: (tool ? d.step : d.turn) ?? 0,
    at: typeof d.ts === 'number' ? d.ts : null,
    driftZ: tool || typeof tv.drift_z !== 'number' ? null : tv.drift_z,
    stallZ: tool || typeof tv.stall_z !== 'number' ? null : tv.stall_z,
    toolError: tool ? tv.tool_error === 1 : (tv.error_new ?? 0) > 0,
    trigger: d.trigger,
    outcome: o.outcome,
    reason: o.reason,
    offer: d.offer ? { type: d.offer.type, confidence: d.offer.confidence, handle: d.offer.handle, reason: typeof d.offer.reason === 'string' ? d.offer.reason : null } : null,
  };
}

/** The line the hook prints for an offer (shared/offer-format.ts, the hook's caps), or null
 *  when its reason is not known (the line would then not be the one printed). */
export function offerText(o: { type: string; handle: string; confidence: number; reason: string | null }, config: Pick<Config, 'hook'>): string | null {
  if (!o.reason) return null;
  return formatOfferLine({ type: o.type as never, handle: o.handle, confidence: o.confidence, reason: o.reason }, { maxBytes: config.hook.maxBytes, maxTokens: config.hook.tokenCeiling })?.text ?? null;
}

/** The first screen's rows from the sessions' marks: every offer printed or that would have been. */
export function shownOffers(sessions: ReadonlyArray<{ id: string; marks: readonly ReportMark[] }>): ReportOffer[] {
  const out: ReportOffer[] = [];
  for (const s of sessions) {
    for (const m of s.marks) {
      if (!m.offer || (m.outcome !== 'printed' && m.outcome !== 'would-fire')) continue;
      out.push({ session: s.id, channel: m.channel, seq: m.seq, type: m.offer.type, confidence: m.offer.confidence, handle: m.offer.handle, outcome: m.outcome, text: m.offer.text ?? null, reason: m.offer.reason, uptake: m.offer.uptake ?? null });
    }
  }
  return out;
}

/** Keep the sessions with an offer first, then the most active, and the newest marks of each
 *  (an offer's mark always kept); say how many were left out. */
export function boundSessions(all: ReportSession[]): { sessions: ReportSession[]; omitted: number } {
  const offered = (s: ReportSession) => (s.marks.some((m) => m.offer) ? 1 : 0);
  const sorted = [...all].sort((a, b) => offered(b) - offered(a) || b.marks.length - a.marks.length || (a.id < b.id ? -1 : 1));
  const kept = sorted.slice(0, MAX_REPORT_SESSIONS).map((s) => {
    const marks = s.marks.filter(drawn);
    if (marks.length <= MAX_MARKS_PER_SESSION) return { ...s, marks };
    // The newest marks, and every offer's mark before them.
    const cut = marks.length - MAX_MARKS_PER_SESSION;
    return { ...s, marks: [...marks.slice(0, cut).filter((m) => m.offer), ...marks.slice(cut)] };
  });
  return { sessions: kept, omitted: Math.max(0, all.length - kept.length) };
}

export function labelRows(labels: ReadonlyArray<{ useful: boolean; channel?: string }>): ReportModel['labels'] {
  const scopes = new Map<string, { useful: number; total: number }>();
  for (const l of labels) {
    for (const scope of ['all', l.channel ?? 'prompt']) {
      const s = scopes.get(scope) ?? { useful: 0, total: 0 };
      s.total++;
      if (l.useful) s.useful++;
      scopes.set(scope, s);
    }
  }
  return [...scopes].map(([scope, s]) => {
    const [low, high] = s.total ? wilson(s.useful, s.total) : [null, null];
    return { scope, useful: s.useful, total: s.total, low, high };
  });
}

/** The model of the live system: everything since the soak began. */
export function liveReportModel(config: Config, env: NodeJS.ProcessEnv = process.env, now = Date.now()): ReportModel {
  const dir = logsDir(env);
  const soak = soakReport(config, { env, now });
  const hook = readJsonlFiles<HookLine & ToolHookLine>(hookLogs(dir)).records;
  const hookByOffer = new Map<string, HookLine[]>();
  for (const h of hook) {
    if (!h.offer_id) continue;
    const list = hookByOffer.get(h.offer_id);
    if (list) list.push(h);
    else hookByOffer.set(h.offer_id, [h]);
  }
  const bySession = new Map<string, ReportMark[]>();
  const side = new Map<string, boolean>();
  /** Offers the daemon decided (their marks come from the decision). */
  const decided = new Set<string>();
  for (const d of readJsonlFiles<DecisionLine>(daemonLogs(dir)).records) {
    if (d.type !== 'decision' || d.seed || d.provisional) continue;
    const list = bySession.get(d.sessionId) ?? [];
    const m = markFromDecision(d, hookByOffer);
    const sidechain = Boolean(d.worker) || Boolean(d.sidechain);
    side.set(d.sessionId, (side.get(d.sessionId) ?? true) && sidechain);
    // The line the hook printed, when the decision keeps the offer's reason.
    if (m.offer) m.offer.text = offerText(m.offer, config);
    list.push(m);
    if (d.offer) decided.add(d.offer.id);
    bySession.set(d.sessionId, list);
  }
  // The tool channel's Past fixes come from the fixes files, not from a daemon decision: their
  // marks from the hook's records (one per call), with their text and uptake (ops/live-uptake.ts).
  const uptakeOf = new Map(soak.figures.uptake.rows.map((r) => [`${r.session}\u0000${r.tool_use_id ?? r.step}`, r]));
  const calls = new Set<string>();
  for (const h of byChannel(hook).channels.tool) {
    if (!SHOWN_OUTCOMES.has(h.outcome) || !h.session || !h.handle || !h.type) continue;
    const call = `${h.session}\u0000${h.tool_use_id ?? h.step}`;
    if (calls.has(call) || (h.offer_id && decided.has(h.offer_id))) continue;
    calls.add(call);
    const u = uptakeOf.get(call);
    const offer = { type: h.type, confidence: h.confidence ?? 0, handle: h.handle, reason: u?.reason ?? null };
    const list = bySession.get(h.session) ?? [];
    list.push({
      channel: 'tool', seq: h.step ?? 0, at: h.ts, driftZ: null, stallZ: null, toolError: true, trigger: 'error',
      outcome: h.outcome === 'print' ? 'printed' : 'would-fire', reason: null,
      offer: { ...offer, text: offerText(offer, config), uptake: u && !u.unread ? { confirmed: u.confirmed, steps_between: u.steps_between } : null },
    });
    if (!side.has(h.session)) side.set(h.session, false);
    bySession.set(h.session, list);
  }
  const all: ReportSession[] = [...bySession].map(([id, marks]) => ({ id, label: `session ${id}`, marks: marks.sort((a, b) => (a.at ?? 0) - (b.at ?? 0)) }));
  const main = all.filter((s) => !side.get(s.id));
  const offers = shownOffers(main);
  const { sessions, omitted } = boundSessions(all);
  const mode = config.modes.default ?? Object.values(config.modes)[0];
  const u = soak.figures.uptake;
  const f = soak.figures;
  return {
    title: 'active-brain — what it saw and said',
    source: `live logs in ${dir} since ${soak.since}`,
    generatedAt: now,
    counts: { sessions: all.length, main: main.length, sidechain: all.length - main.length, transcripts: null },
    rates: [
      { channel: 'prompt', offers: f.would_fire, over: f.exchanges, unit: 'prompts' },
      { channel: 'tool', offers: f.tool_would_fire, over: f.tool_steps, unit: 'tool steps' },
    ],
    offers,
    uptake: { past_fix_offers: u.past_fix_offers, confirmed_offers: u.confirmed_offers, steps_saved: u.steps_saved, unread: u.unread },
    gates: soak.gates.map((g) => ({ name: g.name, pass: g.pass, figure: String(g.figure) })),
    labels: labelRows(readLabels(env) as Array<{ useful: boolean; channel?: string }>),
    thresholds: { drift: mode?.driftZ ?? 3, stall: mode?.stallZ ?? 3 },
    sessions,
    omittedSessions: omitted,
  };
}
