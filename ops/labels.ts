/**
 * Labels: a person's verdict on a would-fire (or printed) offer, appended to
 * <home>/labels.jsonl. Only explicit useful / not-useful verdicts count — never a region
 * match or a non-empty hypothesis. Sampling picks unlabeled offers that the hook showed (or,
 * in soak, would have shown), joined to their decision records by offer id.
 */
import { appendFileSync } from 'node:fs';
import { homeDir, labelsPath, logsDir } from '../shared/paths.js';
import { ensureDir } from '../shared/atomic.js';
import type { OfferType } from '../shared/types.js';
import type { DecisionRecord } from '../daemon/logs.js';
import { daemonLogs, hookLogs, oneLog, readJsonlFiles } from './jsonl-read.js';
import type { HookRecord } from '../hook/log.js';

export interface LabelRecord {
  ts: number;
  offer_id: string;
  session: string;
  handle: string;
  type: OfferType;
  mode: string | null;
  useful: boolean;
}

export function readLabels(env: NodeJS.ProcessEnv = process.env): LabelRecord[] {
  return readJsonlFiles<LabelRecord>(oneLog(labelsPath(env))).records.filter(
    (l) => typeof l.offer_id === 'string' && typeof l.useful === 'boolean',
  );
}

export function appendLabel(l: LabelRecord, env: NodeJS.ProcessEnv = process.env): void {
  ensureDir(homeDir(env));
  appendFileSync(labelsPath(env), JSON.stringify(l) + '\n', { mode: 0o600 });
}

/** Offer ids the hook printed or (in soak) would have printed: what a person would have seen. */
export function shownOfferIds(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): Set<string> {
  const ids = new Set<string>();
  for (const r of readJsonlFiles<HookRecord>(hookLogs(logsDir(env)), sinceMs).records) {
    if ((r.outcome === 'print' || r.outcome === 'would-fire') && typeof r.offer_id === 'string') ids.add(r.offer_id);
  }
  return ids;
}

/** Offers a person would have seen — decided by the daemon AND let through by the hook's
 *  gates (confidence, budget, gap) — newest last; one per offer id. Offers the hook would
 *  have silenced are not labeled: they say nothing about what users get. */
export function offeredDecisions(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): DecisionRecord[] {
  const shown = shownOfferIds(env, sinceMs);
  const seen = new Set<string>();
  const out: DecisionRecord[] = [];
  for (const d of readJsonlFiles<DecisionRecord>(daemonLogs(logsDir(env)), sinceMs).records) {
    if (d.type !== 'decision' || !d.would_fire || !d.offer || seen.has(d.offer.id) || !shown.has(d.offer.id)) continue;
    if (d.worker || d.sidechain || d.seed) continue;
    seen.add(d.offer.id);
    out.push(d);
  }
  return out;
}

/** Would-fire offers the hook did not let through, one per id, with the hook's reason when it
 *  logged one (`not-seen` when no prompt came after the offer). They are not labeled; this
 *  says why, where `soak report` counts every would-fire. */
export function withheldOffers(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): Array<{ id: string; reason: string }> {
  const reasons = new Map<string, string>();
  const shown = new Set<string>();
  for (const r of readJsonlFiles<HookRecord>(hookLogs(logsDir(env)), sinceMs).records) {
    if (typeof r.offer_id !== 'string') continue;
    if (r.outcome === 'print' || r.outcome === 'would-fire') shown.add(r.offer_id);
    else reasons.set(r.offer_id, r.reason);
  }
  const out: Array<{ id: string; reason: string }> = [];
  const seen = new Set<string>();
  for (const d of readJsonlFiles<DecisionRecord>(daemonLogs(logsDir(env)), sinceMs).records) {
    if (d.type !== 'decision' || !d.would_fire || !d.offer || d.worker || d.sidechain || d.seed) continue;
    if (shown.has(d.offer.id) || seen.has(d.offer.id)) continue;
    seen.add(d.offer.id);
    out.push({ id: d.offer.id, reason: reasons.get(d.offer.id) ?? 'not-seen' });
  }
  return out;
}

/** "3 low-confidence, 1 not-seen" */
export function reasonSummary(xs: ReadonlyArray<{ reason: string }>): string {
  const c = new Map<string, number>();
  for (const x of xs) c.set(x.reason, (c.get(x.reason) ?? 0) + 1);
  return [...c].map(([r, n]) => `${n} ${r}`).join(', ');
}

/** Unlabeled offers in a seeded random order (Fisher–Yates with a small LCG), so a sample
 *  is spread over the whole soak rather than the most recent day. */
export function sampleUnlabeled(offers: DecisionRecord[], labels: LabelRecord[], seed: number, mode?: string): DecisionRecord[] {
  const done = new Set(labels.map((l) => l.offer_id));
  const pool = offers.filter((o) => !done.has(o.offer!.id) && (!mode || o.mode === mode));
  let s = seed >>> 0 || 1;
  const rnd = () => ((s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32);
  for (let i = pool.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [pool[i], pool[j]] = [pool[j], pool[i]];
  }
  return pool;
}

export function labelCounts(labels: LabelRecord[], mode?: string): { n: number; useful: number } {
  // The latest verdict per offer wins (a person may change their mind).
  const latest = new Map<string, LabelRecord>();
  for (const l of labels) if (!mode || l.mode === mode) latest.set(l.offer_id, l);
  const vs = [...latest.values()];
  return { n: vs.length, useful: vs.filter((l) => l.useful).length };
}
