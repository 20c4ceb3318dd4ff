/**
 * Labels: a person's verdict on an offer the hook showed (or, in soak, would have shown),
 * on either channel, appended to <home>/labels.jsonl with the channel it was offered on
 * (labels written before the tool channel existed carry none: prompt). Only explicit useful
 * / not-useful verdicts count — never a region match or a non-empty hypothesis.
 *
 * Where the offers come from (logs/hook.jsonl and logs/daemon.jsonl, ops/channel-records.ts):
 *   prompt — the daemon's decision records whose offer the hook printed or logged as
 *            would-fire at a prompt (the decision gives the exchange: turn, offset, trigger);
 *   tool   — the hook's own tool-event records that printed or would have (a Past fix the
 *            hook read from fixes/<sig>.json has no daemon decision at all); a daemon tool
 *            decision with the same offer id adds its trigger.
 * One offer is one (session, offer id): a Past fix keeps its id across sessions.
 */
import { readFileSync } from 'node:fs';
import { fixPath, homeDir, labelsPath, logsDir } from '../shared/paths.js';
import type { FixFile } from '../shared/types.js';
import { appendNoFollow, ensureDir } from '../shared/atomic.js';
import { CHANNELS, type Channel, type OfferType, type TriggerKind } from '../shared/vocabulary.js';
import { daemonLogs, hookLogs, oneLog, readJsonlFiles } from '../daemon/jsonl-read.js';
import { byChannel, channelOf, type DecisionLine, type HookLine } from './channel-records.js';
import { readHistoryOffers, type HistoryOffer } from './history-offers.js';

export interface LabelRecord {
  ts: number;
  offer_id: string;
  session: string;
  handle: string;
  type: OfferType;
  mode: string | null;
  useful: boolean;
  /** The channel the offer was shown on (absent in older labels: prompt). */
  channel?: Channel;
  /** Tool channel: the failing step, its tool call id and error signature. */
  step?: number;
  tool_use_id?: string;
  sig?: string;
  /** The offer came from `active-brain backtest` (the user's history), not the live soak. */
  history?: boolean;
}

/** One offer a person would have seen, on either channel. */
export interface OfferSample {
  channel: Channel;
  offerId: string;
  session: string;
  handle: string;
  type: OfferType;
  confidence: number;
  mode: string | null;
  trigger: TriggerKind | null;
  ts: number;
  /** Prompt channel: the exchange's number and the transcript offset just past it. */
  turn?: number;
  offset?: number;
  /** Tool channel: the step (as the hook counted it), the tool call id, the signature. */
  step?: number;
  toolUseId?: string;
  sig?: string;
  /** From `active-brain backtest` (ops/history-offers.ts): the transcript it was found in. */
  history?: boolean;
  path?: string;
  /** The offer's reason line, as printed after type and confidence (absent: not recorded —
   *  logs written before decisions kept it, or a fixes file rebuilt since). */
  reason?: string;
}

const SHOWN = new Set(['print', 'would-fire']);
const key = (session: string, offerId: string) => `${session}\u0000${offerId}`;

export function readLabels(env: NodeJS.ProcessEnv = process.env): LabelRecord[] {
  return readJsonlFiles<LabelRecord>(oneLog(labelsPath(env))).records.filter(
    (l) => typeof l.offer_id === 'string' && typeof l.useful === 'boolean' && channelOf(l) !== null,
  );
}

export function appendLabel(l: LabelRecord, env: NodeJS.ProcessEnv = process.env): void {
  ensureDir(homeDir(env));
  appendNoFollow(labelsPath(env), JSON.stringify(l) + '\n');
}

export function labelFor(s: OfferSample, useful: boolean, ts = Date.now()): LabelRecord {
  const l: LabelRecord = { ts, offer_id: s.offerId, session: s.session, handle: s.handle, type: s.type, mode: s.mode, useful, channel: s.channel, ...(s.history ? { history: true } : {}) };
  if (s.channel === 'tool') {
    if (s.step !== undefined) l.step = s.step;
    if (s.toolUseId !== undefined) l.tool_use_id = s.toolUseId;
    if (s.sig !== undefined) l.sig = s.sig;
  }
  return l;
}

const reasonOf = (r: unknown): { reason?: string } => (typeof r === 'string' && r ? { reason: r } : {});

/** A Past fix's reason from its fixes file (`fix-<key>-<chunk>` → fixes/<key>.json), for a
 *  tool offer the hook read there (no daemon decision carries it); undefined when gone. */
export function fixFileReason(offerId: string, env: NodeJS.ProcessEnv = process.env): string | undefined {
  const m = /^fix-([0-9a-f]{14})-\d+$/.exec(offerId);
  const path = m ? fixPath(m[1], env) : null;
  if (!path) return undefined;
  try {
    const file = JSON.parse(readFileSync(path, 'utf8')) as Partial<FixFile>;
    const hit = Array.isArray(file.fixes) ? file.fixes.find((f) => f?.offer?.id === offerId) : undefined;
    return typeof hit?.offer?.reason === 'string' && hit.offer.reason ? hit.offer.reason : undefined;
  } catch {
    return undefined;
  }
}

function isDecision(d: DecisionLine): boolean {
  return d.type === 'decision' && d.would_fire && !!d.offer && !d.worker && !d.sidechain && !d.seed;
}

/** Offers a person would have seen, from hook and decision records already read. Pure. */
export function offerSamples(hook: readonly HookLine[], decisions: readonly DecisionLine[]): OfferSample[] {
  const h = byChannel(hook).channels;
  const d = byChannel(decisions).channels;
  const out: OfferSample[] = [];

  const promptShown = new Set(h.prompt.filter((r) => SHOWN.has(r.outcome) && typeof r.offer_id === 'string').map((r) => r.offer_id!));
  const seen = new Set<string>();
  for (const x of d.prompt) {
    if (!isDecision(x) || seen.has(x.offer!.id) || !promptShown.has(x.offer!.id)) continue;
    seen.add(x.offer!.id);
    out.push({
      channel: 'prompt', offerId: x.offer!.id, session: x.sessionId, handle: x.offer!.handle, type: x.offer!.type,
      confidence: x.offer!.confidence, mode: x.mode, trigger: x.trigger, ts: x.ts, turn: x.turn, offset: x.offset,
      ...reasonOf(x.offer!.reason),
    });
  }

  const toolDecisions = new Map<string, DecisionLine>();
  for (const x of d.tool) if (isDecision(x) && !toolDecisions.has(x.offer!.id)) toolDecisions.set(x.offer!.id, x);
  const seenTool = new Set<string>();
  for (const r of h.tool) {
    if (!SHOWN.has(r.outcome) || typeof r.offer_id !== 'string' || typeof r.session !== 'string' || typeof r.handle !== 'string' || !r.type) continue;
    const k = key(r.session, r.offer_id);
    if (seenTool.has(k)) continue;
    seenTool.add(k);
    const s: OfferSample = {
      channel: 'tool', offerId: r.offer_id, session: r.session, handle: r.handle, type: r.type,
      confidence: typeof r.confidence === 'number' ? r.confidence : 0, mode: r.mode, trigger: toolDecisions.get(r.offer_id)?.trigger ?? null, ts: r.ts,
      ...reasonOf(toolDecisions.get(r.offer_id)?.offer?.reason),
    };
    if (typeof r.step === 'number') s.step = r.step;
    if (typeof r.tool_use_id === 'string') s.toolUseId = r.tool_use_id;
    if (typeof r.sig === 'string') s.sig = r.sig;
    out.push(s);
  }
  return out;
}

/** Would-fire offers the hook did not let through, with the hook's reason when it logged
 *  one (`not-seen`: no hook run on that channel ever met the offer). They are not labeled;
 *  this says why, where `soak report` counts every would-fire. Pure. */
export function withheldFrom(hook: readonly HookLine[], decisions: readonly DecisionLine[]): Array<{ id: string; channel: Channel; reason: string }> {
  const h = byChannel(hook).channels;
  const d = byChannel(decisions).channels;
  const out: Array<{ id: string; channel: Channel; reason: string }> = [];
  for (const channel of CHANNELS) {
    // Prompt offer ids are unique; a Past fix keeps its id across sessions, so the tool
    // channel tells its offers apart by session too.
    const k = (session: string | null, id: string) => (channel === 'tool' ? key(session ?? '', id) : id);
    const held = new Map<string, { id: string; reason: string }>();
    const shown = new Set<string>();
    for (const r of h[channel]) {
      if (typeof r.offer_id !== 'string') continue;
      if (SHOWN.has(r.outcome)) shown.add(k(r.session, r.offer_id));
      else held.set(k(r.session, r.offer_id), { id: r.offer_id, reason: r.reason });
    }
    const seen = new Set<string>();
    // The daemon's would-fire decisions first (they are what the hook could have met) …
    for (const x of d[channel]) {
      if (!isDecision(x)) continue;
      const id = k(x.sessionId, x.offer!.id);
      if (shown.has(id) || seen.has(id)) continue;
      seen.add(id);
      out.push({ id: x.offer!.id, channel, reason: held.get(id)?.reason ?? 'not-seen' });
    }
    // … then, on the tool channel, offers the hook met in a fixes file and held back.
    if (channel === 'tool') {
      for (const [id, w] of held) {
        if (shown.has(id) || seen.has(id)) continue;
        seen.add(id);
        out.push({ id: w.id, channel, reason: w.reason });
      }
    }
  }
  return out;
}

function readLogs(env: NodeJS.ProcessEnv, sinceMs: number): { hook: HookLine[]; decisions: DecisionLine[] } {
  return {
    hook: readJsonlFiles<HookLine>(hookLogs(logsDir(env)), sinceMs).records,
    decisions: readJsonlFiles<DecisionLine>(daemonLogs(logsDir(env)), sinceMs).records,
  };
}

/** The offers `backtest` found in the history, as samples (marked history). Pure. */
export function historySamples(offers: readonly HistoryOffer[]): OfferSample[] {
  return offers.map((o) => ({
    channel: o.channel, offerId: o.offer_id, session: o.session, handle: o.handle, type: o.type, confidence: o.confidence,
    mode: o.mode, trigger: o.trigger, ts: o.ts, turn: o.turn, history: true, path: o.path, ...reasonOf(o.reason),
    ...(o.offset !== undefined ? { offset: o.offset } : {}), ...(o.step !== undefined ? { step: o.step } : {}), ...(o.tool_use_id ? { toolUseId: o.tool_use_id } : {}),
  }));
}

/** Offers a person would have seen on either channel: the live logs', then the history's
 *  (the last backtest's), which a live offer with the same session and id replaces. */
export function offeredSamples(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): OfferSample[] {
  const { hook, decisions } = readLogs(env, sinceMs);
  const live = offerSamples(hook, decisions).map((s) => (s.reason || s.channel !== 'tool' ? s : { ...s, ...reasonOf(fixFileReason(s.offerId, env)) }));
  const seen = new Set(live.map((s) => key(s.session, s.offerId)));
  return [...live, ...historySamples(readHistoryOffers(env)).filter((s) => !seen.has(key(s.session, s.offerId)))];
}

export function withheldOffers(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): Array<{ id: string; channel: Channel; reason: string }> {
  const { hook, decisions } = readLogs(env, sinceMs);
  return withheldFrom(hook, decisions);
}

/** "3 low-confidence, 1 not-seen" */
export function reasonSummary(xs: ReadonlyArray<{ reason: string }>): string {
  const c = new Map<string, number>();
  for (const x of xs) c.set(x.reason, (c.get(x.reason) ?? 0) + 1);
  return [...c].map(([r, n]) => `${n} ${r}`).join(', ');
}

export interface LabelFilter {
  mode?: string;
  channel?: Channel;
}

/** Unlabeled offers in a seeded random order (Fisher–Yates with a small LCG), so a sample
 *  is spread over the whole soak rather than the most recent day. */
export function sampleUnlabeled(offers: readonly OfferSample[], labels: readonly LabelRecord[], seed: number, f: LabelFilter = {}): OfferSample[] {
  const done = new Set(labels.map((l) => key(l.session, l.offer_id)));
  const pool = offers.filter((o) => !done.has(key(o.session, o.offerId)) && (!f.mode || o.mode === f.mode) && (!f.channel || o.channel === f.channel));
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool;
}

export function labelCounts(labels: readonly LabelRecord[], f: LabelFilter = {}): { n: number; useful: number } {
  // The latest verdict per offer wins (a person may change their mind).
  const latest = new Map<string, LabelRecord>();
  for (const l of labels) {
    if (f.mode && l.mode !== f.mode) continue;
    if (f.channel && channelOf(l) !== f.channel) continue;
    latest.set(key(l.session, l.offer_id), l);
  }
  const vs = [...latest.values()];
  return { n: vs.length, useful: vs.filter((l) => l.useful).length };
}
