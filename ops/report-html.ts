/**
 * The HTML report: one self-contained page (no network, no external script, style or font)
 * from a ReportModel (ops/report-model.ts builds it from the live logs, eval/backtest.ts from a
 * backtest). Pure: model in, HTML string out; every text escaped.
 *
 * Its first screen answers what a person asks first (issue 40), in this order:
 *   #said        what it would have said: every line printed (or that would have been, in
 *                soak) on both channels, with its text — one row each;
 *   #how-often   how often: offers per 100 prompts and per 100 tool steps;
 *   #right       was it right: for each Past fix, whether the session then confirmed it (ran
 *                that fix and got through: core/uptake.ts), and the labels so far.
 * The offers are listed once, there (a row's session links to its timeline). Then the soak
 * gates, and per-session timelines — prompts and tool steps along it, drift and stall scores
 * (from 0 up) against their thresholds, errors, offers — open for sessions with an offer, the
 * others folded. The page uses the window's whole width; a handle never wraps.
 *
 * Every decision drawn is one `<g class="mark">` in its session's SVG (tests count them),
 * carrying data-c (channel) / data-o (outcome) attributes and a <title> for the tooltip; an
 * error's mark has class f-err. Attribute names are short on purpose: 100 sessions ≤ 2 MB.
 */

export type MarkOutcome = 'printed' | 'would-fire' | 'held' | 'silent';

/** Did the session confirm an offered Past fix (core/uptake.ts)? */
export interface ReportUptake {
  confirmed: boolean;
  /** Tool steps between the offer and the success (null when not confirmed). */
  steps_between: number | null;
}

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
  offer: {
    type: string;
    confidence: number;
    handle: string;
    reason: string | null;
    /** The line the hook printed, or would have (null: the logs keep no text for it). */
    text?: string | null;
    /** A Past fix's uptake (absent: not judged). */
    uptake?: ReportUptake | null;
  } | null;
}

export interface ReportSession {
  id: string;
  label: string;
  marks: ReportMark[];
}

/** One line it said (printed) or would have (would-fire): a row of the first screen. */
export interface ReportOffer {
  session: string;
  channel: 'prompt' | 'tool';
  seq: number;
  type: string;
  confidence: number;
  handle: string;
  outcome: 'printed' | 'would-fire';
  /** The line printed, or that would have been (null: the logs keep no text for it). */
  text: string | null;
  /** The reason line (or a Past fix's fix) when there is no text. */
  reason: string | null;
  uptake: ReportUptake | null;
}

export interface ReportModel {
  title: string;
  /** Where the figures come from, said in the page header. */
  source: string;
  generatedAt: number;
  /** Sessions as the command's text output counts them: the header says the same numbers. */
  counts: { sessions: number; main: number; sidechain: number; transcripts: number | null };
  /** Offers past the hook's gates per channel, over what they are counted on. */
  rates: Array<{ channel: 'prompt' | 'tool'; offers: number; over: number; unit: string }>;
  /** Every offer printed or that would have been, both channels, in session order. */
  offers: ReportOffer[];
  /** Past fixes shown, confirmed by the session, steps between (sum; an upper bound of the
   *  steps saved); unread: not judged (transcript or fix gone). */
  uptake: { past_fix_offers: number; confirmed_offers: number; steps_saved: number; unread?: number };
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

/** Timeline geometry (px): drawn about 1:1 on a 1,400 px window. */
const W = 1360;
const H = 110;
const PAD_L = 30;
const PAD_R = 10;
const PAD_T = 14;
const PAD_B = 22;
/** The score axis spans 0 … this many robust z units (clamped beyond; a negative score —
 *  less than usual — is drawn on the axis, never below it). */
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
const per100 = (a: number, b: number) => (b ? ((100 * a) / b).toFixed(2) : '–');

function yOf(z: number): number {
  const c = Math.max(0, Math.min(Z_RANGE, z));
  return PAD_T + ((Z_RANGE - c) / Z_RANGE) * (H - PAD_T - PAD_B);
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
  out.push(`<svg class="timeline" viewBox="0 0 ${W} ${H}" width="100%" height="${H}" preserveAspectRatio="none" role="img" aria-label="timeline of ${esc(s.label)}">`);
  // Axis (z = 0) and thresholds.
  out.push(`<line x1="${PAD_L}" y1="${yOf(0)}" x2="${W - PAD_R}" y2="${yOf(0)}" class="axis"/>`);
  out.push(`<line x1="${PAD_L}" y1="${yOf(t.drift)}" x2="${W - PAD_R}" y2="${yOf(t.drift)}" class="bar drift"><title>drift threshold ${t.drift}</title></line>`);
  out.push(`<line x1="${PAD_L}" y1="${yOf(t.stall)}" x2="${W - PAD_R}" y2="${yOf(t.stall)}" class="bar stall"><title>stall threshold ${t.stall}</title></line>`);
  out.push(`<text x="2" y="${yOf(t.drift) + 4}" class="tick">${t.drift}</text><text x="2" y="${yOf(0) + 4}" class="tick">0</text>`);
  // Score lines (prompt channel only: that is where drift and stall are measured).
  for (const [key, cls] of [['driftZ', 'drift'], ['stallZ', 'stall']] as const) {
    const pts = s.marks.map((m, i) => (m[key] === null ? null : `${xOf(i).toFixed(0)},${yOf(m[key]!).toFixed(0)}`)).filter(Boolean);
    if (pts.length > 1) out.push(`<polyline points="${pts.join(' ')}" class="score ${cls}"/>`);
  }
  s.marks.forEach((m, i) => {
    // Whole pixels: the page is drawn about 1:1, and 100 sessions stay under 2 MB.
    const x = xOf(i).toFixed(0);
    const base = H - PAD_B + 10;
    // Colours come from the stylesheet (f-<outcome>, f-err): a few bytes a mark, not a colour each.
    const fill = m.channel === 'tool' && m.toolError ? 'f-err' : `f-${m.outcome}`;
    const shape =
      m.channel === 'prompt'
        ? `<circle cx="${x}" cy="${base}" r="${m.offer ? 5 : 3}" class="${fill}"/>`
        : `<rect x="${Number(x) - 1}" y="${base - (m.offer ? 8 : 4)}" width="3" height="${m.offer ? 12 : 8}" class="${fill}"/>`;
    const star = m.offer ? `<text x="${x}" y="${PAD_T - 2}" class="offer f-${m.outcome}" text-anchor="middle">★</text>` : '';
    out.push(`<g class="mark" data-c="${m.channel}" data-o="${m.outcome}"><title>${esc(markTitle(m))}</title>${shape}${star}</g>`);
  });
  out.push('</svg>');
  return out.join('');
}

function uptakeCell(u: ReportUptake | null | undefined, type: string): string {
  if (!u) return type === 'past-fix' ? '<td class="meta">not judged</td>' : '<td class="meta">–</td>';
  return u.confirmed
    ? `<td class="nw pass">✓ confirmed<br><span class="meta">${u.steps_between} step(s) between</span></td>`
    : '<td class="nw meta">not confirmed</td>';
}

/** The text cell: the line printed, else what the logs keep of it (the note that says so is
 *  the stylesheet's: a few bytes a row). */
function textCell(text: string | null | undefined, reason: string | null): string {
  if (text) return `<td class="said">${esc(text)}</td>`;
  if (reason) return `<td class="said ro">${esc(reason)}</td>`;
  return '<td class="said meta">(no text recorded for this offer)</td>';
}

const handleCell = (h: string) => `<td class="nw"><code class="handle">${esc(h)}</code></td>`;

function silences(s: ReportSession): string {
  const counts = new Map<string, number>();
  for (const m of s.marks) if (m.outcome === 'silent' && m.reason) counts.set(m.reason, (counts.get(m.reason) ?? 0) + 1);
  if (!counts.size) return '';
  const items = [...counts].sort((a, b) => b[1] - a[1]).map(([r, c]) => `${esc(r)} ${c}`).join(' · ');
  return `<p class="silences">silences: ${items}</p>`;
}

const CSS = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1f2328}
main{box-sizing:border-box;width:100%;padding:12px 16px}
h1{font-size:19px;margin:0 0 2px}h2{font-size:16px;margin:18px 0 6px}h3{font-size:14px;margin:14px 0 4px}
table{border-collapse:collapse;margin:4px 0;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
th{font-weight:600;color:#57606a;font-size:12px}
.answers{display:flex;gap:12px;margin:10px 0}.answer{flex:1;border:1px solid #d0d7de;border-radius:6px;padding:8px 12px}
.answer h2{margin:0 0 4px;font-size:14px;color:#57606a}.answer .big{font-size:20px;font-weight:600}
.ro::after{content:" (reason only: the line's text was not recorded)";color:#57606a}.nw{white-space:nowrap}.said{overflow-wrap:anywhere;width:100%;font-size:12.5px;line-height:1.35}code.handle{white-space:nowrap;font-size:11.5px}
.pass{color:#1a7f37}.fail{color:#cf222e}.info{color:#57606a}.axis{stroke:#d0d7de}.bar{stroke-dasharray:4 3;stroke-width:1}
.bar.drift,.score.drift{stroke:#8250df}.bar.stall,.score.stall{stroke:#bf8700}.score{fill:none;stroke-width:1.5}
.tick{font-size:9px;fill:#57606a}.offer{font-size:12px}.silences{color:#57606a;font-size:12px;margin:2px 0}
.legend span{margin-right:14px}.o-printed{color:#1a7f37}.o-would-fire{color:#0969da}.o-held{color:#9a6700}
code{font-size:12px}.meta{color:#57606a}summary{cursor:pointer;margin:10px 0}
.session{content-visibility:auto;contain-intrinsic-size:auto 220px}
.f-printed{fill:${OUTCOME_COLOR.printed}}.f-would-fire{fill:${OUTCOME_COLOR['would-fire']}}.f-held{fill:${OUTCOME_COLOR.held}}.f-silent{fill:${OUTCOME_COLOR.silent}}.f-err{fill:#cf222e}`;

/** The header's count of sessions: the words and numbers of the command's text output. */
export function sessionsLine(c: ReportModel['counts']): string {
  const files = c.transcripts === null ? '' : ` from ${c.transcripts} transcript(s)`;
  return `${c.sessions} session(s) (${c.main} main, ${c.sidechain} sidechain)${files}`;
}

function answers(m: ReportModel): string {
  const said = m.offers.length;
  const byCh = (c: string) => m.offers.filter((o) => o.channel === c).length;
  const rate = m.rates.map((r) => `<div><span class="big">${per100(r.offers, r.over)}</span> per 100 ${esc(r.unit)} <span class="meta">(${r.channel}: ${r.offers} of ${r.over})</span></div>`).join('');
  const u = m.uptake;
  const l = m.labels.find((x) => x.scope === 'all');
  const right = u.past_fix_offers
    ? `<div><span class="big">${u.confirmed_offers} of ${u.past_fix_offers}</span> Past fixes confirmed by the session <span class="meta">(it then ran that fix and got through; ${u.steps_saved} tool step(s) between — an upper bound of what they could have saved${u.unread ? `; ${u.unread} not judged: transcript or fix gone` : ''})</span></div>`
    : '<div class="meta">no Past fix was shown</div>';
  const labels = l ? `<div class="meta">labels: ${l.useful} useful of ${l.total}</div>` : '<div class="meta">no labels yet (active-brain label)</div>';
  return `<div class="answers">
<section class="answer" id="said-answer"><h2>What it would have said</h2><div><span class="big">${said}</span> line(s) <span class="meta">(${byCh('prompt')} at a prompt, ${byCh('tool')} at a tool failure; listed below${said > OPEN_OFFER_ROWS ? `: the first ${OPEN_OFFER_ROWS}, the rest folded under them` : ''})</span></div></section>
<section class="answer" id="how-often"><h2>How often</h2>${rate}</section>
<section class="answer" id="right"><h2>Was it right</h2>${right}${labels}</section>
</div>`;
}

/** Offer rows laid out open on the page; the rest are folded under them (a history with
 *  hundreds of lines still loads at once: a folded table is not laid out until opened). */
export const OPEN_OFFER_ROWS = 60;

function saidTable(m: ReportModel): string {
  if (!m.offers.length) return '<p class="meta" id="said">It would have said nothing: no offer passed the hook\'s gates.</p>';
  const index = new Map(m.sessions.map((s, i) => [s.id, i]));
  // The session's short id, a link to its timeline when the page draws it.
  const session = (id: string) => (index.has(id) ? `<a href="#s${index.get(id)}"><code>${esc(id.slice(0, 8))}</code></a>` : `<code>${esc(id.slice(0, 8))}</code>`);
  const row = (o: ReportOffer) =>
    `<tr><td class="nw">${session(o.session)}</td><td class="nw">${o.channel} ${o.seq}</td><td class="nw">${esc(o.type)} ${fmt(o.confidence)}</td>${handleCell(o.handle)}${textCell(o.text, o.reason)}<td class="nw o-${o.outcome}">${o.outcome}</td>${uptakeCell(o.uptake, o.type)}</tr>`;
  const head = '<thead><tr><th>session</th><th>at</th><th>type</th><th>handle</th><th>what it said (or would have)</th><th>hook</th><th>confirmed by the session?</th></tr></thead>';
  const open = `<table class="said-table" id="said">${head}<tbody>${m.offers.slice(0, OPEN_OFFER_ROWS).map(row).join('')}</tbody></table>`;
  const rest = m.offers.slice(OPEN_OFFER_ROWS);
  return rest.length
    ? `${open}<details class="more-said"><summary>${rest.length} more line(s)</summary><table class="said-table">${head}<tbody>${rest.map(row).join('')}</tbody></table></details>`
    : open;
}

export function renderReport(m: ReportModel): string {
  const gates = m.gates.length
    ? `<table class="gates"><tbody>${m.gates.map((g) => `<tr><td class="nw ${g.pass === null ? 'info' : g.pass ? 'pass' : 'fail'}">${g.pass === null ? 'figure' : g.pass ? 'pass' : 'FAIL'}</td><td class="nw">${esc(g.name)}</td><td>${esc(g.figure)}</td></tr>`).join('')}</tbody></table>`
    : '<p class="meta">no gates (no soak data yet)</p>';
  const labels = m.labels.length
    ? `<table class="labels"><tbody>${m.labels
        .map((l) => `<tr><td>${esc(l.scope)}</td><td>${l.useful} useful of ${l.total}</td><td>${l.low === null ? '' : `95% interval ${(100 * l.low).toFixed(0)}–${(100 * l.high!).toFixed(0)}%`}</td></tr>`)
        .join('')}</tbody></table>`
    : '<p class="meta">no labels yet (active-brain label)</p>';
  const index = new Map(m.sessions.map((s, i) => [s.id, i]));
  const section = (s: ReportSession) => {
    const offers = s.marks.filter((x) => x.offer).length;
    const said = offers ? ` · ${offers} offer(s): in the first table` : '';
    return `<section class="session" id="s${index.get(s.id)}" data-session="${esc(s.id)}"><h3>${esc(s.label)} <span class="meta">${s.marks.length} decision(s)${said}</span></h3>${timeline(s, m.thresholds)}${silences(s)}</section>`;
  };
  const withOffer = m.sessions.filter((s) => s.marks.some((x) => x.offer));
  const without = m.sessions.filter((s) => !s.marks.some((x) => x.offer));
  const folded = without.length
    ? `<details class="quiet"><summary>${without.length} session(s) without an offer (folded)</summary>\n${without.map(section).join('\n')}\n</details>`
    : '';
  const legend = `<p class="legend"><span>● prompt</span><span>▮ tool step (red: error)</span><span>★ offer</span><span style="color:${OUTCOME_COLOR.printed}">printed</span><span style="color:${OUTCOME_COLOR['would-fire']}">would fire (soak)</span><span style="color:${OUTCOME_COLOR.held}">held back by the hook</span><span style="color:${OUTCOME_COLOR.silent}">silent</span><span style="color:#8250df">— drift z</span><span style="color:#bf8700">— stall z</span> (dashed: thresholds; scores from 0 up)</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(m.title)}</title><style>${CSS}</style></head><body><main>
<h1>${esc(m.title)}</h1>
<p class="meta" id="header">${esc(m.source)} · ${esc(sessionsLine(m.counts))} · generated ${esc(new Date(m.generatedAt).toISOString().replace('T', ' ').slice(0, 19))} UTC</p>
${answers(m)}
${saidTable(m)}
<h2>Gates</h2>${gates}
<h2>Labels</h2>${labels}
<h2>Sessions with an offer</h2>${legend}
${withOffer.map(section).join('\n') || '<p class="meta">none</p>'}
${folded}${m.omittedSessions ? `<p class="meta">${m.omittedSessions} more session(s) left out of this page (it keeps the most active ones)</p>` : ''}
</main></body></html>
`;
}
