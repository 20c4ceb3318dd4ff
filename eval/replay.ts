/**
 * `active-brain replay`: the daemon's own pipeline over recorded transcripts, offline and
 * deterministic. Input: transcript files (eval/replay-read.ts), the effective config, an
 * embedder, a read-only store (or none). Per file, a fresh daemon Pipeline (core/pipeline.ts)
 * with a clock that returns the exchange's settle time and an rng seeded from (seed, file),
 * the offer builder (retrieval/builder.ts) over the store, and the hook's gates
 * (eval/replay-session.ts). Output: per-exchange rows (codes and figures, no text) and a
 * summary (eval/replay-summary.ts). The reasoner is never called (network answers would make replay non-repeatable).
 *
 * Sessions: one per file. A file under `subagents/`, a worker session, or a file whose every
 * record is sidechain is a sidechain session; sidechain records inside a main file (the older
 * format) are sidechain exchanges of a main session. The pipeline's own gates must keep them
 * silent, and `sidechain_offers` counts any offer that escaped them (target: 0).
 */
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
import { SessionReplay } from './replay-session.js';
import { hookShows, type ReplayRow, type RowOffer } from './replay-rows.js';
import { readTimedExchanges, type FileExchanges, type TranscriptFile } from './replay-read.js';
import { seededRandom as seededRng } from '../shared/prng.js';
import { OfferAudit, ngrams } from './offer-audit.js';
import { lineageOfFiles, markCopies } from './lineage-copies.js';
import type { TimedExchange } from './replay-rows.js';
import { summarize, type SessionSummary, type ReplaySummary } from './replay-summary.js';
export { seededRng };
export { summarize, type ChannelCounts, type ReplaySummary, type SessionSummary } from './replay-summary.js';

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

/** The hook's Past fixes as the daemon's fixes files would hold them from this store's
 *  resolved episodes (core/fixes.ts buildFixFiles), each fix only from the time its episode
 *  was met: a store may hold sessions later than the one replayed. */
export function pastFixes(store: StoreReader | null, label: string): (sig: string, at: number) => FixFile | undefined {
  const resolved = store ? store.fixEpisodes() : [];
  const fixFiles = buildFixFiles(resolved, label, 0);
  const metAt = new Map(resolved.map((e) => [e.chunkId, e.at]));
  return (sig, at) => {
    const f = fixFiles.get(sig);
    if (!f) return undefined;
    const fixes = f.fixes.filter((x) => (metAt.get(x.offer.chunkId) ?? Infinity) <= at);
    return fixes.length ? { ...f, fixes } : undefined;
  };
}

/** Replay every file through the pipeline and the hook's gates. */
export async function replayTranscripts(files: TranscriptFile[], opts: ReplayOptions): Promise<ReplayResult> {
  const config = replayConfig(opts.config);
  const { embedder } = opts;
  const settings = hookSettingsFromConfig(config, { ACTIVE_BRAIN_HOME: opts.home });
  const builder = opts.store ? createOfferBuilder({ store: opts.store, embedder, config, reasoner: null }) : null;
  const fixesOf = pastFixes(opts.store, 'replay');
  const rows: ReplayRow[] = [];
  const reasons = new Map<ReplayRow, string>();
  const perSession: SessionSummary[] = [];
  let synthetic = 0;
  let skipped = 0;
  let done = 0;
  const unreadable: string[] = [];
  // The audit's lineage comes from the files themselves and their folders' other sessions
  // (not from the store the gates use).
  const lineage = await lineageOfFiles(files.filter((f) => !f.subagent).map((f) => f.path));
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
    if (!f.subagent) {
      const marked = markCopies(read, lineage, f.path);
      read = marked.read;
      copyExchanges += marked.exchanges;
      copySteps += marked.steps;
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

