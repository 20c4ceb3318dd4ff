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
import type { MarkOutcome, ReportMark, ReportModel, ReportSession } from './report-html.js';

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

/** Keep the most active sessions and the newest marks of each; say how many were left out. */
export function boundSessions(all: ReportSession[]): { sessions: ReportSession[]; omitted: number } {
  const sorted = [...all].sort((a, b) => b.marks.length - a.marks.length || (a.id < b.id ? -1 : 1));
  const kept = sorted.slice(0, MAX_REPORT_SESSIONS).map((s) => ({ ...s, marks: s.marks.filter(drawn).slice(-MAX_MARKS_PER_SESSION) }));
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
  const hook = readJsonlFiles<HookLine>(hookLogs(dir)).records;
  const hookByOffer = new Map<string, HookLine[]>();
  for (const h of hook) {
    if (!h.offer_id) continue;
    const list = hookByOffer.get(h.offer_id);
    if (list) list.push(h);
    else hookByOffer.set(h.offer_id, [h]);
  }
  const bySession = new Map<string, ReportMark[]>();
  for (const d of readJsonlFiles<DecisionLine>(daemonLogs(dir)).records) {
    if (d.type !== 'decision' || d.seed || d.provisional) continue;
    const list = bySession.get(d.sessionId) ?? [];
    list.push(markFromDecision(d, hookByOffer));
    bySession.set(d.sessionId, list);
  }
  const all: ReportSession[] = [...bySession].map(([id, marks]) => ({ id, label: `session ${id}`, marks: marks.sort((a, b) => (a.at ?? 0) - (b.at ?? 0)) }));
  const { sessions, omitted } = boundSessions(all);
  const mode = config.modes.default ?? Object.values(config.modes)[0];
  return {
    title: 'active-brain — what it saw and said',
    source: `live logs in ${dir} since ${soak.since}`,
    generatedAt: now,
    gates: soak.gates.map((g) => ({ name: g.name, pass: g.pass, figure: String(g.figure) })),
    labels: labelRows(readLabels(env) as Array<{ useful: boolean; channel?: string }>),
    thresholds: { drift: mode?.driftZ ?? 3, stall: mode?.stallZ ?? 3 },
    sessions,
    omittedSessions: omitted,
  };
}
