/**
 * The HTML report: one self-contained page (no network, no external script, style or font)
 * from a ReportModel (ops/report-model.ts builds it from the live logs or from a backtest):
 * the soak gates with their figures, label counts with the usefulness interval, and for each
 * session a timeline — prompts and tool steps along it, drift and stall scores against their
 * thresholds, tool errors, triggers, offers (type, confidence, handle, reason) and silences
 * by reason — drawn as inline SVG. Pure: model in, HTML string out; every text escaped.
 *
 * Every decision drawn is one `<g class="mark">` in its session's SVG (tests count them),
 * carrying data-c (channel) / data-o (outcome) attributes and a <title> for the tooltip; an
 * error's mark has class f-err. Attribute names are short on purpose: 100 sessions ≤ 2 MB.
 */

export type MarkOutcome = 'printed' | 'would-fire' | 'held' | 'silent';

export interface ReportMark {
  channel: 'prompt' | 'tool';
  /** Turn (prompt channel) or 1-based tool step (tool channel). */
  seq: number;
  /** Epoch ms when known. */
  at: number | null;
  driftZ: number | null;
  stallZ: number | null;
  toolError: boolean;
  trigger: string | null;
  outcome: MarkOutcome;
  /** Silence reason, or the hook's reason for holding an offer back. */
  reason: string | null;
  offer: { type: string; confidence: number; handle: string; reason: string | null } | null;
}

export interface ReportSession {
  id: string;
  label: string;
  marks: ReportMark[];
}

export interface ReportModel {
  title: string;
  /** Where the figures come from, said in the page header. */
  source: string;
  generatedAt: number;
  /** pass true / false: a gate and its verdict; null: a figure shown beside them, measured
   *  but judged by no gate (a backtest's offer counts) — never drawn as a pass. */
  gates: Array<{ name: string; pass: boolean | null; figure: string }>;
  labels: Array<{ scope: string; useful: number; total: number; low: number | null; high: number | null }>;
  /** Drift / stall thresholds drawn as dashed lines (the default mode's). */
  thresholds: { drift: number; stall: number };
  sessions: ReportSession[];
  /** Sessions left out of the page (it keeps the most active ones). */
  omittedSessions: number;
}

/** Timeline geometry (px). */
const W = 900;
const H = 120;
const PAD_L = 36;
const PAD_R = 10;
const PAD_T = 10;
const PAD_B = 22;
/** The score axis spans ±this many robust z units (clamped beyond). */
const Z_RANGE = 6;

const OUTCOME_COLOR: Record<MarkOutcome, string> = { printed: '#1a7f37', 'would-fire': '#0969da', held: '#9a6700', silent: '#8c959f' };

export function esc(s: unknown): string {
  return String(s ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;')
    // Control characters have no place in the page (a transcript could hold any).
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '');
}

const fmt = (x: number | null, d = 2) => (x === null || !Number.isFinite(x) ? '–' : x.toFixed(d));

function yOf(z: number): number {
  const c = Math.max(-Z_RANGE, Math.min(Z_RANGE, z));
  return PAD_T + ((Z_RANGE - c) / (2 * Z_RANGE)) * (H - PAD_T - PAD_B);
}

function markTitle(m: ReportMark): string {
  const parts = [`${m.channel === 'prompt' ? 'turn' : 'tool step'} ${m.seq}`];
  // A quiet decision says only where it was and why it stayed quiet (keeps the page small).
  if (!m.offer && !m.trigger && !m.toolError) return `${parts[0]} · ${m.outcome}${m.reason ? ` (${m.reason})` : ''}`;
  if (m.at !== null && m.offer) parts.push(new Date(m.at).toISOString().replace('T', ' ').slice(0, 19));
  if (m.driftZ !== null) parts.push(`drift ${fmt(m.driftZ)}`);
  if (m.stallZ !== null) parts.push(`stall ${fmt(m.stallZ)}`);
  if (m.toolError) parts.push('tool error');
  if (m.trigger) parts.push(`trigger ${m.trigger}`);
  // The reason line is in the session's offers table below the timeline, not repeated here.
  if (m.offer) parts.push(`${m.offer.type} ${fmt(m.offer.confidence)} ${m.offer.handle}`);
  parts.push(m.outcome + (m.reason ? ` (${m.reason})` : ''));
  return parts.join(' · ');
}

function timeline(s: ReportSession, t: ReportModel['thresholds']): string {
  const n = Math.max(1, s.marks.length);
  const xOf = (i: number) => PAD_L + (n === 1 ? 0.5 : i / (n - 1)) * (W - PAD_L - PAD_R);
  const out: string[] = [];
  out.push(`<svg class="timeline" viewBox="0 0 ${W} ${H}" width="100%" height="${H}" role="img" aria-label="timeline of ${esc(s.label)}">`);
  // Axes and thresholds.
  out.push(`<line x1="${PAD_L}" y1="${yOf(0)}" x2="${W - PAD_R}" y2="${yOf(0)}" class="axis"/>`);
  out.push(`<line x1="${PAD_L}" y1="${yOf(t.drift)}" x2="${W - PAD_R}" y2="${yOf(t.drift)}" class="bar drift"><title>drift threshold ${t.drift}</title></line>`);
  out.push(`<line x1="${PAD_L}" y1="${yOf(t.stall)}" x2="${W - PAD_R}" y2="${yOf(t.stall)}" class="bar stall"><title>stall threshold ${t.stall}</title></line>`);
  out.push(`<text x="2" y="${yOf(t.drift) + 4}" class="tick">${t.drift}</text><text x="2" y="${yOf(0) + 4}" class="tick">0</text>`);
  // Score lines (prompt channel only: that is where drift and stall are measured).
  for (const [key, cls] of [['driftZ', 'drift'], ['stallZ', 'stall']] as const) {
    const pts = s.marks.map((m, i) => (m[key] === null ? null : `${xOf(i).toFixed(1)},${yOf(m[key]!).toFixed(1)}`)).filter(Boolean);
    if (pts.length > 1) out.push(`<polyline points="${pts.join(' ')}" class="score ${cls}"/>`);
  }
  s.marks.forEach((m, i) => {
    const x = xOf(i).toFixed(1);
    const base = H - PAD_B + 6;
    // Colours come from the stylesheet (f-<outcome>, f-err): a few bytes a mark, not a colour each.
    const fill = m.channel === 'tool' && m.toolError ? 'f-err' : `f-${m.outcome}`;
    const shape =
      m.channel === 'prompt'
        ? `<circle cx="${x}" cy="${base}" r="${m.offer ? 5 : 3}" class="${fill}"/>`
        : `<rect x="${(Number(x) - 1.5).toFixed(1)}" y="${base - (m.offer ? 8 : 4)}" width="3" height="${m.offer ? 12 : 8}" class="${fill}"/>`;
    const star = m.offer ? `<text x="${x}" y="${PAD_T + 8}" class="offer f-${m.outcome}" text-anchor="middle">★</text>` : '';
    out.push(`<g class="mark" data-c="${m.channel}" data-o="${m.outcome}"><title>${esc(markTitle(m))}</title>${shape}${star}</g>`);
  });
  out.push('</svg>');
  return out.join('');
}

function offersTable(s: ReportSession): string {
  const rows = s.marks.filter((m) => m.offer);
  if (!rows.length) return '';
  const tr = rows
    .map((m) => `<tr><td>${m.channel}</td><td>${m.seq}</td><td>${esc(m.offer!.type)}</td><td>${fmt(m.offer!.confidence)}</td><td><code>${esc(m.offer!.handle)}</code></td><td>${esc(m.offer!.reason ?? '')}</td><td class="o-${m.outcome}">${m.outcome}${m.reason ? ` (${esc(m.reason)})` : ''}</td></tr>`)
    .join('');
  return `<table class="offers"><thead><tr><th>channel</th><th>turn/step</th><th>type</th><th>conf.</th><th>handle</th><th>reason</th><th>hook</th></tr></thead><tbody>${tr}</tbody></table>`;
}

function silences(s: ReportSession): string {
  const counts = new Map<string, number>();
  for (const m of s.marks) if (m.outcome === 'silent' && m.reason) counts.set(m.reason, (counts.get(m.reason) ?? 0) + 1);
  if (!counts.size) return '';
  const items = [...counts].sort((a, b) => b[1] - a[1]).map(([r, c]) => `${esc(r)} ${c}`).join(' · ');
  return `<p class="silences">silences: ${items}</p>`;
}

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1f2328;max-width:980px}
h1{font-size:20px}h2{font-size:16px;margin-top:28px}h3{font-size:14px;margin:18px 0 4px}
table{border-collapse:collapse;margin:6px 0}td,th{border-bottom:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
.pass{color:#1a7f37}.fail{color:#cf222e}.info{color:#57606a}.axis{stroke:#d0d7de}.bar{stroke-dasharray:4 3;stroke-width:1}
.bar.drift,.score.drift{stroke:#8250df}.bar.stall,.score.stall{stroke:#bf8700}.score{fill:none;stroke-width:1.5}
.tick{font-size:9px;fill:#57606a}.offer{font-size:12px}.silences{color:#57606a;font-size:12px;margin:2px 0}
.legend span{margin-right:14px}.o-printed{color:#1a7f37}.o-would-fire{color:#0969da}.o-held{color:#9a6700}
code{font-size:12px}.meta{color:#57606a}
.session{content-visibility:auto;contain-intrinsic-size:auto 260px}
.f-printed{fill:${OUTCOME_COLOR.printed}}.f-would-fire{fill:${OUTCOME_COLOR['would-fire']}}.f-held{fill:${OUTCOME_COLOR.held}}.f-silent{fill:${OUTCOME_COLOR.silent}}.f-err{fill:#cf222e}`;

export function renderReport(m: ReportModel): string {
  const gates = m.gates.length
    ? `<table class="gates"><tbody>${m.gates.map((g) => `<tr><td class="${g.pass === null ? 'info' : g.pass ? 'pass' : 'fail'}">${g.pass === null ? 'figure' : g.pass ? 'pass' : 'FAIL'}</td><td>${esc(g.name)}</td><td>${esc(g.figure)}</td></tr>`).join('')}</tbody></table>`
    : '<p class="meta">no gates (no soak data yet)</p>';
  const labels = m.labels.length
    ? `<table class="labels"><tbody>${m.labels
        .map((l) => `<tr><td>${esc(l.scope)}</td><td>${l.useful} useful of ${l.total}</td><td>${l.low === null ? '' : `95% interval ${(100 * l.low).toFixed(0)}–${(100 * l.high!).toFixed(0)}%`}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p class="meta">no labels yet (active-brain label)</p>';
  const sessions = m.sessions
    .map((s) => `<section class="session" data-session="${esc(s.id)}"><h3>${esc(s.label)} <span class="meta">${s.marks.length} decision(s)</span></h3>${timeline(s, m.thresholds)}${silences(s)}${offersTable(s)}</section>`)
    .join('\n');
  const legend = `<p class="legend"><span>● prompt</span><span>▮ tool step (red: error)</span><span>★ offer</span><span style="color:${OUTCOME_COLOR.printed}">printed</span><span style="color:${OUTCOME_COLOR['would-fire']}">would fire (soak)</span><span style="color:${OUTCOME_COLOR.held}">held back by the hook</span><span style="color:${OUTCOME_COLOR.silent}">silent</span><span style="color:#8250df">— drift z</span><span style="color:#bf8700">— stall z</span> (dashed: thresholds)</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(m.title)}</title><style>${CSS}</style></head><body>
<h1>${esc(m.title)}</h1>
<p class="meta">${esc(m.source)} · generated ${esc(new Date(m.generatedAt).toISOString().replace('T', ' ').slice(0, 19))} UTC · ${m.sessions.length} session(s)${m.omittedSessions ? ` (${m.omittedSessions} more left out)` : ''}</p>
<h2>Soak gates</h2>${gates}
<h2>Labels</h2>${labels}
<h2>Sessions</h2>${legend}
${sessions || '<p class="meta">no sessions</p>'}
</body></html>
`;
}
