/**
 * `active-brain replay`: the daemon's own pipeline over recorded transcripts, offline and
 * deterministic. Input: transcript files (eval/replay-read.ts), the effective config, an
 * embedder, a read-only store (or none). Per file, a fresh daemon Pipeline (core/pipeline.ts)
 * with a clock that returns the exchange's settle time and an rng seeded from (seed, file),
 * the offer builder (retrieval/builder.ts) over the store, and the hook's gates
 * (eval/replay-session.ts). Output: per-exchange rows (codes and figures, no text) and a
 * summary. The reasoner is never called (network answers would make replay non-repeatable).
 *
 * Sessions: one per file. A file under `subagents/`, a worker session, or a file whose every
 * record is sidechain is a sidechain session; sidechain records inside a main file (the older
 * format) are sidechain exchanges of a main session. The pipeline's own gates must keep them
 * silent, and `sidechain_offers` counts any offer that escaped them (target: 0).
 */
import { TOOL_ERROR_KINDS, type ToolErrorKind } from './tool-error-kinds.js';
import { createHash } from 'node:crypto';
import type { Config } from '../config/schema.js';
import { buildFixFiles } from '../core/fixes.js';
import { hookSettingsFromConfig } from '../config/hook-settings.js';
import type { Embedder } from '../embed/types.js';
import { Pipeline } from '../core/pipeline.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import { openStoreReader } from '../store/sqlite-store.js';
import { storePresent } from '../store/location.js';
import type { StoreReader } from '../store/types.js';
import type { FixFile, OfferType } from '../shared/types.js';
import { SessionReplay, hookShows, type ReplayRow, type RowOffer } from './replay-session.js';
import { readTimedExchanges, type FileExchanges, type TranscriptFile } from './replay-read.js';
import { seededRandom as seededRng } from '../shared/prng.js';
import { OfferAudit, ngrams, readFileLineage, sessionOfPath } from './offer-audit.js';
import type { TimedExchange } from './replay-session.js';
export { seededRng };

export const OFFER_TYPES: readonly OfferType[] = ['past-fix', 'analogous', 'contradicts', 'tangent'];

/**
 * The config a replay runs with: the daemon's, minus its one wall-clock cutoff. The offer
 * builder stops starting extracted-string queries after `retrieval.queryBudgetMs` of real
 * time, so on a loaded machine the same exchange could retrieve differently; replay lifts
 * that budget (every planned query runs) so the same input always gives the same output.
 * Live, the budget only drops string queries on slow builds (see docs/REPLAY.md).
 */
export function replayConfig(config: Config): Config {
  return { ...config, retrieval: { ...config.retrieval, queryBudgetMs: Number.POSITIVE_INFINITY } };
}


/** The rng seed of one session: the replay seed mixed with the session's label. */
export function sessionSeed(seed: number, label: string): number {
  return createHash('sha256').update(`${seed}\u0000${label}`).digest().readUInt32LE(0);
}

export type StoreStatus = 'ok' | 'no-store' | 'store-unreadable' | 'store-model-mismatch';

export interface OpenedStore {
  store: StoreReader | null;
  status: StoreStatus;
  /** What went wrong, for the person (null when ok or simply absent). */
  problem: string | null;
}

/** Open a store read-only the way the daemon does: absent, unreadable or another model's
 *  store → no store, with the daemon's silence code. Never throws. */
export function openReplayStore(path: string, embedder: Pick<Embedder, 'modelId' | 'dim'>): OpenedStore {
  if (!storePresent(path)) return { store: null, status: 'no-store', problem: null };
  let store: StoreReader;
  try {
    store = openStoreReader(path);
  } catch (e) {
    return { store: null, status: 'store-unreadable', problem: (e as Error).message };
  }
  try {
    store.checkModel(embedder.modelId, embedder.dim);
  } catch (e) {
    store.close();
    return { store: null, status: 'store-model-mismatch', problem: (e as Error).message };
  }
  return { store, status: 'ok', problem: null };
}

export interface ReplayOptions {
  config: Config;
  embedder: Embedder;
  store: StoreReader | null;
  /** Silence code when there is no store (default `no-store`). */
  noStoreReason?: string;
  seed: number;
  /** State dir, for worker detection (sessions whose cwd is under it are active-brain's own). */
  home: string;
  /** Also simulate the daemon's provisional decisions at settle points of this delay (ms);
   *  null = final decisions only (eval/replay-read.ts). */
  settleMs?: number | null;
  /** Each row once its session is replayed (the hook's verdict on an offer is known then). */
  onRow?: (row: ReplayRow) => void;
  /** After each file. */
  onFile?: (done: number) => void;
}

export interface SessionSummary {
  file: string;
  session: string;
  sidechain: boolean;
  exchanges: number;
  /** Prompts a person typed (the hook ran for them; not injected, not seed). */
  typed_prompts?: number;
  would_fire: number;
  printed: number;
}

export interface ReplaySummary {
  sessions: number;
  exchanges: number;
  would_fire: number;
  /** would_fire / main_exchanges (exchanges of sessions that may receive offers at all). */
  fire_rate: number;
  by_type: Record<OfferType, number>;
  /** Offers decided in sidechain / subagent / worker sessions (target 0). */
  sidechain_offers: number;
  main_sessions: number;
  main_exchanges: number;
  sidechain_sessions: number;
  sidechain_exchanges: number;
  /** Offers the hook's gates let through at the next prompt (printed live, or would-fire in soak). */
  printed: number;
  printed_rate: number;
  by_trigger: Record<string, number>;
  by_silence: Record<string, number>;
  /** For offers: the hook's verdict (reason codes). */
  by_hook: Record<string, number>;
  /** Exchanges whose prompt had no timestamp (a synthetic, reproducible time was used). */
  synthetic_times: number;
  skipped_lines: number;
  seed: number;
  per_session: SessionSummary[];
  /** Files that could not be read (`rel: code`), skipped. */
  unreadable_files?: string[];
  /** Exchanges and tool steps of resumed / forked files that are copies of the parent's
   *  records (eval/offer-audit.ts readFileLineage): replayed as seed, no hook ran for them. */
  copied_exchanges?: number;
  copied_tool_steps?: number;
  /** The tool channel: main-lane tool steps, their errors, and what the hook did there. */
  tool_steps: number;
  tool_errors: number;
  /** tool_errors by kind (eval/tool-error-kinds.ts): `signed` is what `eval pastfix` counts
   *  as the errors the hook sees; the rest say why the two totals differ. */
  tool_errors_by_kind: Record<ToolErrorKind, number>;
  /** Tool errors in sessions that get no offers, by kind, not in tool_errors: worker sessions
   *  (`claude -p`, a worker cwd) and subagent transcripts. `eval pastfix` counts the workers'
   *  signed errors too (it replays every session of a project folder), not the subagents'. */
  tool_errors_unoffered: { workers: Record<ToolErrorKind, number>; subagents: Record<ToolErrorKind, number> };
  /** Tool-channel offers the hook let through (printed live, or would-fire in soak). */
  tool_would_fire: number;
  /** Per 100 main-lane tool steps. */
  tool_offers_per_100_steps: number;
  /** Tool steps' silences and the hook's verdicts at tool events, by reason code. */
  tool_by_silence: Record<string, number>;
  tool_by_hook: Record<string, number>;
  /** Prompts a person typed in main sessions (the denominator of `printed_per_typed_prompt`). */
  typed_prompts: number;
  /** Prompt-channel offers the hook let through, per typed prompt (target ≤ 0.03). */
  printed_per_typed_prompt: number;
  /** Offers, per channel, whose chunk is from the session's own lineage (the audit reads the
   *  lineage from the transcript files, not from the store): all decided offers, and those
   *  the hook let through (`*_shown`). Target 0. */
  self_lineage_offers: ChannelCounts;
  /** Offers, per channel, whose chunk's text the session already held (eval/offer-audit.ts). */
  already_in_session_offers: ChannelCounts;
}

export interface ChannelCounts {
  prompt: number;
  tool: number;
  prompt_shown: number;
  tool_shown: number;
}

/** One offer of either channel, as DESIGN.md names the keys of replay's and backtest's JSON. */
export interface ReplayOffer {
  file: string;
  session: string;
  channel: 'prompt' | 'tool';
  turn: number;
  step: number | null;
  tool_use_id: string | null;
  trigger: string | null;
  type: OfferType;
  confidence: number;
  handle: string;
  hook: string | null;
  /** The rule that made it this type, and its novelty figures (eval/replay-session.ts). */
  evidence: RowOffer['evidence'] | null;
  self_lineage: boolean | null;
  already_in_session: boolean | null;
}

/** Every offer of the rows: the prompt channel's decisions that offered, and each tool step
 *  with an offer (the one the hook met at that failure, or the daemon's own decision). */
export function offersOf(rows: readonly ReplayRow[]): ReplayOffer[] {
  return rows
    .filter((r) => r.offer)
    .map((r) => ({
      file: r.file,
      session: r.session,
      channel: r.channel,
      turn: r.turn,
      step: r.step,
      tool_use_id: r.tool_use_id,
      trigger: r.trigger,
      type: r.offer!.type,
      confidence: r.offer!.confidence,
      handle: r.offer!.handle,
      hook: r.hook,
      evidence: r.offer!.evidence ?? null,
      self_lineage: r.self_lineage ?? null,
      already_in_session: r.already_in_session ?? null,
    }));
}

export interface ReplayResult {
  summary: ReplaySummary;
  rows: ReplayRow[];
  /** Offers' reason lines by row (the report page shows them; the JSON does not). */
  reasons: Map<ReplayRow, string>;
}

const bump = (o: Record<string, number>, k: string) => (o[k] = (o[k] ?? 0) + 1);
const round4 = (x: number) => Math.round(x * 10000) / 10000;

/** Sorted copy of a counts object (stable key order in JSON). */
function sorted(o: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/**
 * Feed one file's exchanges and tool steps in the order the daemon and the hook meet them:
 * the hook at a prompt, the tool steps inside that exchange (each: the hook at its result,
 * then the daemon's decision), then the daemon's decision on the exchange. `tick` sets the
 * pipeline's clock.
 */
export async function feedSession(session: SessionReplay, read: Pick<FileExchanges, 'exchanges' | 'steps'>, tick: (t: number) => void): Promise<void> {
  let si = 0;
  for (const t of read.exchanges) {
    session.prompt(t);
    while (si < read.steps.length && read.steps[si].step.endOffset <= t.exchange.endOffset) {
      tick(read.steps[si].at);
      session.tool(read.steps[si++]);
    }
    tick(t.settledAt);
    await session.decide(t);
  }
  for (; si < read.steps.length; si++) {
    tick(read.steps[si].at);
    session.tool(read.steps[si]);
  }
}

/** Replay every file through the pipeline and the hook's gates. */
export async function replayTranscripts(files: TranscriptFile[], opts: ReplayOptions): Promise<ReplayResult> {
  const config = replayConfig(opts.config);
  const { embedder } = opts;
  const settings = hookSettingsFromConfig(config, { ACTIVE_BRAIN_HOME: opts.home });
  const builder = opts.store ? createOfferBuilder({ store: opts.store, embedder, config, reasoner: null }) : null;
  // The fixes files the daemon would have written from this store (the hook's Past fixes).
  const resolved = opts.store ? opts.store.fixEpisodes() : [];
  const fixFiles = buildFixFiles(resolved, 'replay', 0);
  // The store may hold sessions later than the one replayed: offer only what was met before.
  const metAt = new Map(resolved.map((e) => [e.chunkId, e.at]));
  const fixesOf = (sig: string, at: number): FixFile | undefined => {
    const f = fixFiles.get(sig);
    if (!f) return undefined;
    const fixes = f.fixes.filter((x) => (metAt.get(x.offer.chunkId) ?? Infinity) <= at);
    return fixes.length ? { ...f, fixes } : undefined;
  };
  const rows: ReplayRow[] = [];
  const reasons = new Map<ReplayRow, string>();
  const perSession: SessionSummary[] = [];
  let synthetic = 0;
  let skipped = 0;
  let done = 0;
  const unreadable: string[] = [];
  // The audit's lineage comes from the files themselves (not from the store the gates use).
  const lineage = await readFileLineage(files.filter((f) => !f.subagent).map((f) => f.path));
  const audit = new OfferAudit(opts.store, lineage.groups);
  let copyExchanges = 0;
  let copySteps = 0;
  for (const f of files) {
    let read;
    try {
      read = await readTimedExchanges(f.path, { settleMs: opts.settleMs });
    } catch (e) {
      // An unreadable file (permissions, vanished) is skipped and listed; the rest replays.
      unreadable.push(`${f.rel}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      opts.onFile?.(++done);
      continue;
    }
    synthetic += read.synthetic;
    skipped += read.skippedLines;
    // A resumed / forked file's copied head is its parent's history: fed as seed, no hook.
    const copies = f.subagent ? undefined : lineage.copies.get(sessionOfPath(f.path));
    if (copies) {
      read.exchanges = read.exchanges.map((t) => (copies.has(t.exchange.uuid) ? ((copyExchanges += t.provisional ? 0 : 1), { ...t, seed: true, hookFires: false }) : t));
      read.steps = read.steps.map((t) => (t.step.uuid && copies.has(t.step.uuid) ? (copySteps++, { ...t, copy: true }) : t));
    }
    let clock = read.exchanges[0]?.settledAt ?? 0;
    const pipeline = new Pipeline({
      embedder,
      offerBuilder: builder,
      noBuilderReason: opts.noStoreReason ?? 'no-store',
      config,
      episodes: opts.store,
      pastOnly: true,
      home: opts.home,
      now: () => clock,
      rng: seededRng(sessionSeed(opts.seed, f.rel)),
    });
    const entrypoint = read.exchanges.find((t) => t.exchange.entrypoint)?.exchange.entrypoint ?? null;
    const session = new SessionReplay({ pipeline, config, settings, path: f.path, file: f.rel, subagent: f.subagent, salt: String(opts.seed), fixes: fixesOf, entrypoint, home: opts.home });
    await feedSession(session, read, (t) => (clock = t));
    const fileRows = session.finish();
    auditRows(audit, fileRows, read.exchanges);
    for (const [row, reason] of session.reasons) reasons.set(row, reason);
    for (const row of fileRows) opts.onRow?.(row);
    rows.push(...fileRows);
    perSession.push({
      file: f.rel,
      session: fileRows[0]?.session ?? '',
      // Per record, not per file: a main file of the older format holds its subagents'
      // sidechain records too; it is a sidechain session only when nothing in it is main.
      sidechain: f.subagent || fileRows.some((r) => r.worker !== null) || (fileRows.length > 0 && fileRows.every((r) => r.sidechain)),
      exchanges: fileRows.filter((r) => r.channel === 'prompt' && !r.provisional).length,
      // hookFires marks an exchange's first item only (its provisional look, when there is one).
      typed_prompts: read.exchanges.filter((t) => !t.seed && t.hookFires && !t.exchange.injected && !t.exchange.isSidechain && t.exchange.user.trim() !== '').length,
      would_fire: new Set(fileRows.filter((r) => r.channel === 'prompt' && r.offer).map((r) => r.turn)).size,
      printed: fileRows.filter((r) => r.offer && hookShows(r.hook)).length,
    });
    opts.onFile?.(++done);
  }
  return { summary: { ...summarize(rows, perSession, { synthetic, skipped, seed: opts.seed }), copied_exchanges: copyExchanges, copied_tool_steps: copySteps, unreadable_files: unreadable }, rows, reasons };
}

/** Flag each offer row with the audit's verdicts (the session's text up to the row's offset). */
export function auditRows(audit: OfferAudit, rows: ReplayRow[], exchanges: readonly TimedExchange[]): void {
  const seen = exchanges.filter((t) => !t.provisional).map((t) => t.exchange).sort((a, b) => a.startOffset - b.startOffset);
  const grams = new Set<string>();
  let next = 0;
  // A prompt row sees its whole exchange; a tool row only the exchanges that ended before it
  // (the rest of its own exchange is still to come).
  const upTo = (r: ReplayRow) => (r.channel === 'prompt' ? (e: (typeof seen)[number]) => e.startOffset < r.offset : (e: (typeof seen)[number]) => e.endOffset <= r.offset);
  for (const r of [...rows].filter((x) => x.offer).sort((a, b) => a.offset - b.offset || (a.channel === 'tool' ? -1 : 1))) {
    while (next < seen.length && upTo(r)(seen[next])) {
      const e = seen[next++];
      for (const g of ngrams([e.user, e.assistant, ...e.toolCalls, ...e.toolErrors].join('\n'))) grams.add(g);
    }
    r.self_lineage = audit.selfLineage(r.session, r.offer!.chunkId);
    r.already_in_session = audit.alreadyInSession(r.offer!.chunkId, grams);
  }
}

/** A subagent transcript (`<session>/subagents/agent-*.jsonl`), by its path. */
const isSubagentFile = (file: string) => /(^|[\\/])subagents[\\/]/.test(file);

/** The summary of replayed rows (pure). */
export function summarize(rows: ReplayRow[], perSession: SessionSummary[], extra: { synthetic: number; skipped: number; seed: number }): ReplaySummary {
  const byType = Object.fromEntries(OFFER_TYPES.map((t) => [t, 0])) as Record<OfferType, number>;
  const byTrigger: Record<string, number> = {};
  const bySilence: Record<string, number> = {};
  const byHook: Record<string, number> = {};
  const sideFiles = new Set(perSession.filter((s) => s.sidechain).map((s) => s.file));
  let wouldFire = 0;
  let printed = 0;
  let sidechainOffers = 0;
  let mainExchanges = 0;
  let exchanges = 0;
  // An exchange may be decided provisionally (settle points) and then finally: it counts
  // once, and fires when any of its decisions offered.
  const fired = new Set<string>();
  let toolSteps = 0;
  let toolErrors = 0;
  const kinds = () => Object.fromEntries(TOOL_ERROR_KINDS.map((k) => [k, 0])) as Record<ToolErrorKind, number>;
  const toolErrorsByKind = kinds();
  const unoffered = { workers: kinds(), subagents: kinds() };
  let toolShown = 0;
  const toolSilence: Record<string, number> = {};
  const toolHook: Record<string, number> = {};
  const selfLineage: ChannelCounts = { prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 };
  const already: ChannelCounts = { prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 };
  for (const r of rows) {
    const side = sideFiles.has(r.file);
    if (r.offer && !side && !r.sidechain) {
      const shown = hookShows(r.hook);
      if (r.self_lineage) {
        selfLineage[r.channel]++;
        if (shown) selfLineage[`${r.channel}_shown`]++;
      }
      if (r.already_in_session) {
        already[r.channel]++;
        if (shown) already[`${r.channel}_shown`]++;
      }
    }
    if (r.channel === 'tool') {
      if (r.seed) continue; // a copied record: no event of this session (copied_tool_steps)
      if (side || r.sidechain) {
        if (r.offer) sidechainOffers++;
        if (r.tool_error && r.tool_error_kind) unoffered[isSubagentFile(r.file) ? 'subagents' : 'workers'][r.tool_error_kind]++;
        continue;
      }
      toolSteps++;
      if (r.tool_error) toolErrors++;
      if (r.tool_error && r.tool_error_kind) toolErrorsByKind[r.tool_error_kind]++;
      if (r.offer) {
        bump(toolHook, r.hook ?? 'unknown');
        if (hookShows(r.hook)) toolShown++;
      } else if (r.tool_error && r.silence) bump(toolSilence, r.silence);
      continue;
    }
    if (!r.provisional) {
      exchanges++;
      if (!side && !r.sidechain) mainExchanges++;
    }
    if (r.trigger) bump(byTrigger, r.trigger);
    if (r.offer) {
      const key = `${r.file}\u0000${r.turn}`;
      if (!fired.has(key)) {
        fired.add(key);
        wouldFire++;
        byType[r.offer.type]++;
      }
      if (side || r.sidechain) sidechainOffers++;
      bump(byHook, r.hook ?? 'unknown');
      if (hookShows(r.hook)) printed++;
    }
  }
  // Silences count exchanges, by their final decision's reason, so that silences plus
  // would_fire add up to exchanges (an exchange whose provisional look offered has fired).
  for (const r of rows) {
    if (r.channel !== 'prompt' || r.provisional || fired.has(`${r.file}\u0000${r.turn}`)) continue;
    bump(bySilence, r.silence ?? 'unknown');
  }
  const sidechainSessions = perSession.filter((s) => s.sidechain).length;
  const typedPrompts = perSession.filter((s) => !s.sidechain).reduce((n, s) => n + (s.typed_prompts ?? 0), 0);
  return {
    sessions: perSession.length,
    exchanges,
    would_fire: wouldFire,
    fire_rate: mainExchanges ? round4(wouldFire / mainExchanges) : 0,
    by_type: byType,
    sidechain_offers: sidechainOffers,
    main_sessions: perSession.length - sidechainSessions,
    main_exchanges: mainExchanges,
    sidechain_sessions: sidechainSessions,
    sidechain_exchanges: exchanges - mainExchanges,
    printed,
    printed_rate: mainExchanges ? round4(printed / mainExchanges) : 0,
    by_trigger: sorted(byTrigger),
    by_silence: sorted(bySilence),
    by_hook: sorted(byHook),
    synthetic_times: extra.synthetic,
    skipped_lines: extra.skipped,
    seed: extra.seed,
    per_session: perSession,
    tool_steps: toolSteps,
    tool_errors: toolErrors,
    tool_errors_by_kind: toolErrorsByKind,
    tool_errors_unoffered: unoffered,
    tool_would_fire: toolShown,
    tool_offers_per_100_steps: toolSteps ? Math.round((10000 * toolShown) / toolSteps) / 100 : 0,
    tool_by_silence: sorted(toolSilence),
    tool_by_hook: sorted(toolHook),
    typed_prompts: typedPrompts,
    printed_per_typed_prompt: typedPrompts ? round4(printed / typedPrompts) : 0,
    self_lineage_offers: selfLineage,
    already_in_session_offers: already,
  };
}
