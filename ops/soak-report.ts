/**
 * `active-brain soak report`: collects figures from what the running system really wrote —
 * hook log, daemon decision log, index runs, the store file, lock + canary, labels, recalls —
 * and evaluates the rollout gates (ops/soak-gates.ts).
 *
 *   logs/hook.jsonl* ──┐
 *   logs/daemon.jsonl*─┼─▶ figures ─▶ gates ─▶ {gates:[{name,pass,figure}], pass, …}
 *   store + soak.json ─┤
 *   lock + canary ─────┤
 *   labels, recalls ───┘
 */
import type { Config } from '../config/schema.js';
import type { HookRecord } from '../hook/log.js';
import type { DecisionRecord } from '../daemon/logs.js';
import { daemonStatus } from '../daemon/status.js';
import { defaultStorePath, logsDir } from '../shared/paths.js';
import { daemonLogs, hookLogs, oneLog, readJsonlFiles } from './jsonl-read.js';
import { storeFingerprint } from './store-fingerprint.js';
import { indexerRunning, readIndexLog } from './index-runs.js';
import { ensureSoakBaseline, readSoakBaseline } from './soak-baseline.js';
import { readLabels, labelCounts } from './labels.js';
import { hookGate, livenessGates, seatGate, storeWriteGate, usefulnessGate, wouldFireGates, type Gate, type ModeRate } from './soak-gates.js';
import { join } from 'node:path';

/** Hook reason codes that mean the hook itself failed (and fell back to silence). */
export const HOOK_ERROR_REASONS = new Set(['error', 'deadline']);

export interface SoakReport {
  since: string;
  gates: Gate[];
  pass: boolean;
  figures: {
    hook: { runs: number; by_outcome: Record<string, number> };
    exchanges: number;
    would_fire: number;
    by_type: Record<string, number>;
    /** Approximate: offers whose handle was recalled (CLI or MCP) after being offered. */
    recalled_after_offer: Record<string, { offered: number; recalled: number }>;
    labels: { n: number; useful: number };
    bad_log_lines: number;
  };
}

interface RecallRecord { ts: number; handle: string; via: string }

function earliestRecord(dir: string): number | null {
  let min: number | null = null;
  for (const files of [daemonLogs(dir), hookLogs(dir)]) {
    const first = readJsonlFiles<{ ts?: number }>(files.slice(0, 1)).records.find((r) => typeof r.ts === 'number');
    if (first && (min === null || first.ts! < min)) min = first.ts!;
  }
  return min;
}

function seatOf(d: DecisionRecord): string {
  return d.worker ? 'worker' : d.sidechain ? 'subagent' : 'interactive';
}

export function soakReport(config: Config, opts: { sinceMs?: number; mode?: string; env?: NodeJS.ProcessEnv; now?: number } = {}): SoakReport {
  const env = opts.env ?? process.env;
  const now = opts.now ?? Date.now();
  const storePath = config.store.path ?? defaultStorePath(env);
  const dir = logsDir(env);
  // The daemon records the baseline when it first starts; when it has not (an older state
  // dir), the soak began with the earliest record in the logs.
  const baseline = readSoakBaseline(env) ?? ensureSoakBaseline(storePath, env, earliestRecord(dir) ?? now);
  const since = opts.sinceMs ?? baseline.startedAt;

  const hook = readJsonlFiles<HookRecord>(hookLogs(dir), since);
  const decisions = readJsonlFiles<DecisionRecord>(daemonLogs(dir), since);
  const byOutcome: Record<string, number> = {};
  for (const r of hook.records) byOutcome[r.outcome] = (byOutcome[r.outcome] ?? 0) + 1;
  const gates: Gate[] = [
    ...hookGate(
      {
        runs: hook.records.length,
        latencies: hook.records.map((r) => r.latency_ms).filter((x) => typeof x === 'number'),
        boots: hook.records.map((r) => r.boot_ms).filter((x) => typeof x === 'number'),
        nonZeroExits: hook.records.filter((r) => r.exit !== 0).length,
        errors: hook.records.filter((r) => HOOK_ERROR_REASONS.has(r.reason)).length,
        byOutcome,
      },
      config.soak,
    ),
  ];

  const current = storeFingerprint(storePath);
  gates.push(storeWriteGate({
    baseline: { takenAt: baseline.takenAt ?? baseline.startedAt, sha256: baseline.store.sha256 },
    records: readIndexLog(env).filter((r) => r.store === storePath),
    current: current.sha256,
    alive: (pid) => indexerRunning(pid, env),
  }));

  const all = decisions.records.filter((d) => d.type === 'decision' && !d.seed);
  // One exchange = its final decision; it would fire when any decision on it (provisional,
  // made while the reply was still open, or final) produced an offer.
  const exKey = (d: DecisionRecord) => `${d.sessionId}\u0000${d.exchangeUuid}`;
  const firedUuids = new Set(all.filter((d) => d.would_fire).map(exKey));
  const observed = all.filter((d) => !d.provisional);
  const offered = observed.filter((d) => !d.worker && !d.sidechain);
  const rates = new Map<string, ModeRate>();
  for (const d of offered) {
    // Sessions no mode applies to, and modes switched off, make no offers by design: they
    // have no would-fire rate to judge.
    if (d.mode === null || d.mode_state === 'off') continue;
    const m = d.mode;
    if (opts.mode && m !== opts.mode) continue;
    const r = rates.get(m) ?? { mode: m, exchanges: 0, wouldFire: 0 };
    r.exchanges++;
    if (firedUuids.has(exKey(d))) r.wouldFire++;
    rates.set(m, r);
  }
  if (opts.mode && !rates.has(opts.mode)) rates.set(opts.mode, { mode: opts.mode, exchanges: 0, wouldFire: 0 });
  gates.push(...wouldFireGates([...rates.values()], config.soak));

  const st = daemonStatus(config, { path: storePath, present: current.exists }, env, now);
  const canaryPid = st.running ? st.pid : null;
  gates.push(...livenessGates({
    running: st.running,
    canaryAgeS: st.canary_age_s,
    cycleS: config.daemon.cycleMs / 1000,
    problem: st.problem,
    lockPid: st.pid,
    canaryPid,
  }));

  const sessions = new Map<string, { seat: string; exchanges: number; promptOnly: boolean }>();
  for (const d of observed) {
    // A subagent file shares its parent's session id: keep the seats apart.
    const key = `${d.sessionId}\u0000${seatOf(d)}`;
    const s = sessions.get(key) ?? { seat: seatOf(d), exchanges: 0, promptOnly: true };
    s.exchanges++;
    if (!d.prompt_only) s.promptOnly = false;
    sessions.set(key, s);
  }
  const seats: Record<string, { sessions: number; exchanges: number; promptOnlySessions: number }> = {};
  for (const s of sessions.values()) {
    const f = (seats[s.seat] ??= { sessions: 0, exchanges: 0, promptOnlySessions: 0 });
    f.sessions++;
    f.exchanges += s.exchanges;
    if (s.promptOnly) f.promptOnlySessions++;
  }
  gates.push(seatGate({ seats }));

  const labels = labelCounts(readLabels(env), opts.mode);
  gates.push(usefulnessGate(labels, config.soak, opts.mode ?? 'all'));

  const byType: Record<string, number> = {};
  const offerTs = new Map<string, { type: string; ts: number }>();
  for (const d of all) {
    if (d.worker || d.sidechain || !d.would_fire || !d.offer) continue;
    byType[d.offer.type] = (byType[d.offer.type] ?? 0) + 1;
    if (!offerTs.has(d.offer.handle)) offerTs.set(d.offer.handle, { type: d.offer.type, ts: d.ts });
  }
  const recalls = readJsonlFiles<RecallRecord>(oneLog(join(dir, 'recalls.jsonl')), since).records;
  const recalled: Record<string, { offered: number; recalled: number }> = {};
  for (const [handle, o] of offerTs) {
    const r = (recalled[o.type] ??= { offered: 0, recalled: 0 });
    r.offered++;
    if (recalls.some((x) => x.handle === handle && x.ts >= o.ts)) r.recalled++;
  }

  return {
    since: new Date(since).toISOString(),
    gates,
    pass: gates.every((g) => g.pass),
    figures: {
      hook: { runs: hook.records.length, by_outcome: byOutcome },
      exchanges: offered.length,
      would_fire: offered.filter((d) => firedUuids.has(exKey(d))).length,
      by_type: byType,
      recalled_after_offer: recalled,
      labels,
      bad_log_lines: hook.badLines + decisions.badLines,
    },
  };
}

/** `7d`, `24h`, `90m`, `30s` → milliseconds; null when malformed. */
export function parseDuration(s: string): number | null {
  const m = /^(\d+(?:\.\d+)?)\s*(s|m|h|d|w)$/.exec(s.trim());
  if (!m) return null;
  const unit = { s: 1e3, m: 60e3, h: 3600e3, d: 86400e3, w: 7 * 86400e3 }[m[2] as 's' | 'm' | 'h' | 'd' | 'w'];
  return Number(m[1]) * unit;
}
