/**
 * The Past fix recurrence benchmark (`active-brain eval pastfix <transcripts dir>`): per
 * project (a folder of `<session>.jsonl` files, as under ~/.claude/projects), the sessions in
 * time order; before each session the store holds only the earlier ones, indexed by the real
 * indexer (indexer/indexer.ts: exchanges and error episodes) into a temp store as the
 * scheduled indexer would; the session is then replayed through the daemon's own pipeline
 * and the hook's own gates (eval/replay.ts feedSession: both channels, the fixes files the
 * daemon would write from that store). Calls and prompts a resumed or forked file repeats
 * from an earlier file are history: no hook ran for them (`eval prompts`, eval/prompts.ts,
 * reads the same replay at each prompt through `onPrompts`).
 *
 * Gold: every tool error the hook sees (a failure Claude Code runs PostToolUseFailure for —
 * not a `<tool_use_error>` rejection, which fires no hook) whose signature matches an episode
 * of an earlier session. A recurrence is recalled when the hook would show (print live, or
 * would-fire in soak) at that failure or the next tool event an offer whose chunk is an
 * episode with the same signature. Precision: shown tool-channel offers whose episode has the
 * signature of the error they were shown at (or of the one just before). first_seen_offers:
 * shown Past fixes at an error no earlier session met. Reads the transcripts; writes only its
 * temp dir (removed at the end).
 */
import { codexRolloutFiles, isCodexSessionsTree, rolloutCwd } from '../transcript/codex-tree.js';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, utimesSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import { hookSettingsFromConfig } from '../config/hook-settings.js';
import { isCascade } from '../shared/error-class.js';
import { Pipeline } from '../core/pipeline.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import { runIndex } from '../indexer/indexer.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import type { StoreReader } from '../store/types.js';
import { errorSignature } from '../shared/error-signature.js';
import { stepErrorText } from '../transcript/tool-steps.js';
import { seededRandom } from '../shared/prng.js';
import { quantile } from '../ops/stats.js';
import { readTimedExchanges, type FileExchanges } from './replay-read.js';
import { SessionReplay } from './replay-session.js';
import { hookShows, type PromptVerdict, type ReplayRow } from './replay-rows.js';
import { feedSession, offersOf, pastFixes, replayConfig, sessionSeed, type ReplayOffer } from './replay.js';
import { lineageOfFiles, markCopies } from './lineage-copies.js';
import { checkGold, emptyTally, handleSession, scoreSession, type GoldItem, type GoldTally, type PastfixEvent, type PastfixGold, type ScoredStep } from './pastfix-gold.js';

/** Region the earlier sessions are indexed into. */
export const PASTFIX_REGION = 'sessions';

export interface PastfixMiss {
  project: string;
  session: string;
  step: number;
  /** The error's normalized head (placeholders in; no conversation text). */
  head: string;
  /** What the hook did instead. */
  hook: string | null;
}

export interface PastfixReport {
  projects: number;
  sessions: number;
  tool_steps: number;
  /** Tool errors the hook sees (PostToolUseFailure). */
  errors: number;
  /** Of those, errors whose signature matches an episode of an earlier session (the gold). */
  recurrences: number;
  /** Of the recurrences, those whose earlier episode was resolved (a fix exists to offer). */
  recurrences_resolved: number;
  recalled: number;
  recall: number;
  recall_resolved: number;
  /** Tool-channel offers the hook would show. */
  offers: number;
  correct_offers: number;
  precision: number;
  offers_per_100_steps: number;
  first_seen_offers: number;
  /** Recurrences of errors that fire no hook (`<tool_use_error>`: Read / Edit rejections). */
  unhookable_recurrences: number;
  latency_ms: { decide_p50: number; decide_p95: number; hook_p50: number; hook_p95: number; index_per_session_p50: number };
  misses: PastfixMiss[];
  /** Offers shown in subagent or worker sessions (target 0). */
  sidechain_offers: number;
  /** Calls repeated from an earlier session file (resumed or forked copies): no hook runs there. */
  copied_steps: number;
  /** Shown offers whose chunk comes from the session's own lineage (an earlier file it repeats
   *  calls of): echoes of itself (target 0). */
  self_lineage_offers: number;
  /** Every offer of the replayed sessions (both channels, shown or held back), with the keys
   *  and values `replay --json` gives in its `offers`: `replay` of a session after an `index`
   *  of the earlier ones gives the same list (bench pastfix-parity). */
  replay_offers: ReplayOffer[];
  /** Scored against a judged gold (--gold): the figures below; without it, the gold above is
   *  self-defined (an earlier episode with the same signature). */
  gold: GoldReport | null;
}

/** The judged-gold figures (eval/pastfix-gold.ts; keys of the --json summary). */
export interface GoldReport extends GoldTally {
  project: string;
  items: number;
  recall_at_failure: number;
  precision: number;
  offers_per_100_steps: number;
  events: PastfixEvent[];
}

export interface PastfixOptions {
  config: Config;
  embedder: Embedder;
  seed: number;
  /** Parent of the temp dir (default os.tmpdir()). */
  workParent?: string;
  /** A judged gold for one project of the folder (eval/pastfix-gold.ts). */
  gold?: PastfixGold;
  /** Only the project of this name (a folder of several; `eval prompts --gold`). */
  project?: string;
  /** After each session's replay, with the store of the earlier ones still open: the hook's
   *  verdict at each typed prompt (`eval prompts`, eval/prompts.ts). */
  onPrompts?: (p: SessionPrompts) => void | Promise<void>;
  onSession?: (done: number, total: number) => void;
}

/** One replayed session's prompt channel, for `eval prompts`. */
export interface SessionPrompts {
  project: string;
  session: string;
  /** The prompts the hook ran for (typed by a person; not copies of an earlier file). */
  typed: Array<{ uuid: string; injected: boolean; empty: boolean }>;
  verdicts: PromptVerdict[];
  /** Every prompt record's uuid in the file (copies included). */
  uuids: string[];
  /** Earlier session files this one repeats records of (its lineage). */
  lineage: ReadonlySet<string>;
  /** The store of the earlier sessions (open during the call). */
  store: StoreReader | null;
}

interface SessionFile {
  path: string;
  first: number;
}

/** Projects under `dir`: each folder holding `*.jsonl` sessions directly (and `dir` itself).
 *  A Codex CLI sessions tree (YYYY/MM/DD/rollout-*.jsonl) has no project folders: its
 *  rollouts are grouped by the cwd they name (session_meta, else turn_context: one project
 *  per cwd, like Claude Code's per-project folders; rollouts naming none form `codex`). */
export function findProjects(dir: string): Array<{ name: string; sessions: string[] }> {
  const out: Array<{ name: string; sessions: string[] }> = [];
  if (isCodexSessionsTree(dir)) {
    const byCwd = new Map<string, string[]>();
    for (const f of codexRolloutFiles(dir)) {
      const cwd = rolloutCwd(f) ?? 'codex';
      byCwd.set(cwd, [...(byCwd.get(cwd) ?? []), f]);
    }
    // Named as Claude Code names project folders (`/home/me/app` → `-home-me-app`): a name is
    // also the history folder the earlier sessions are copied into.
    for (const [cwd, sessions] of [...byCwd].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) out.push({ name: cwd.replace(/[\\/]/g, '-'), sessions });
    return out;
  }
  const sessionsIn = (d: string) => {
    try {
      return readdirSync(d, { withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith('.jsonl')).map((e) => join(d, e.name));
    } catch {
      return [];
    }
  };
  const own = sessionsIn(dir);
  if (own.length) out.push({ name: basename(dir), sessions: own });
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    if (!e.isDirectory() || e.name.startsWith('.') || e.name === 'subagents') continue;
    const s = sessionsIn(join(dir, e.name));
    if (s.length) out.push({ name: e.name, sessions: s });
  }
  return out;
}

/** The order eval pastfix runs a project's sessions in (and the parity check replays them in):
 *  by when each began (sessionStart), then by path. */
export function bySessionStart(a: { path: string; first: number }, b: { path: string; first: number }): number {
  return a.first - b.first || (a.path < b.path ? -1 : 1);
}

/** When a session began: its earliest exchange or tool step (sessions run in this order). */
export function sessionStart(read: FileExchanges): number {
  const ts = [...read.exchanges.map((t) => t.exchange.timestamp), ...read.steps.map((s) => s.at)].filter((x) => Number.isFinite(x));
  return ts.length ? Math.min(...ts) : Number.POSITIVE_INFINITY;
}

const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10000) / 10000 : 0);

/** Run the benchmark over every project of `dir`. */
export async function evalPastfix(dir: string, opts: PastfixOptions): Promise<PastfixReport> {
  const config = replayConfig(opts.config);
  const work = mkdtempSync(join(opts.workParent ?? tmpdir(), 'active-brain-pastfix-'));
  const rep: PastfixReport = {
    projects: 0, sessions: 0, tool_steps: 0, errors: 0, recurrences: 0, recurrences_resolved: 0, recalled: 0, recall: 0, recall_resolved: 0,
    offers: 0, correct_offers: 0, precision: 0, offers_per_100_steps: 0, first_seen_offers: 0, unhookable_recurrences: 0,
    latency_ms: { decide_p50: 0, decide_p95: 0, hook_p50: 0, hook_p95: 0 , index_per_session_p50: 0 },
    misses: [], sidechain_offers: 0, copied_steps: 0, self_lineage_offers: 0, replay_offers: [], gold: null,
  };
  const tally = emptyTally();
  const events: PastfixEvent[] = [];
  const decideMs: number[] = [];
  const hookMs: number[] = [];
  const indexMs: number[] = [];
  let recalledResolved = 0;
  let projects = findProjects(dir);
  if (opts.gold || opts.project) {
    const want = opts.gold?.project ?? opts.project;
    const named = projects.filter((p) => p.name === want);
    // A folder of one project checks the gold against it (and says when it is another's).
    projects = named.length ? named : projects.slice(0, 1);
  }
  const total = projects.reduce((n, p) => n + p.sessions.length, 0);
  let done = 0;
  try {
    for (const [pi, project] of projects.entries()) {
      rep.projects++;
      const reads = new Map<string, FileExchanges>();
      const files: SessionFile[] = [];
      for (const path of project.sessions) {
        const read = await readTimedExchanges(path, { settleMs: config.daemon.settleMs });
        reads.set(path, read);
        files.push({ path, first: sessionStart(read) });
      }
      files.sort(bySessionStart);
      const itemsBySession = new Map<string, GoldItem[]>();
      if (opts.gold) {
        const calls = new Map<string, Set<string>>();
        for (const [path, read] of reads) calls.set(basename(path, '.jsonl'), new Set(read.steps.map((t) => t.step.toolUseId).filter((x): x is string => !!x)));
        checkGold(opts.gold, project.name, calls);
        for (const it of opts.gold.items) itemsBySession.set(it.session, [...(itemsBySession.get(it.session) ?? []), it]);
      }
      // Copies (resumed / forked files), by the rule replay uses (eval/lineage-copies.ts).
      const lineageFiles = await lineageOfFiles(project.sessions);
      const root = join(work, String(pi));
      const history = join(root, 'history', project.name);
      mkdirSync(history, { recursive: true });
      const storePath = join(root, 'store.sqlite');
      const w = openStoreWriter(storePath);
      w.ensureRegion(PASTFIX_REGION, 'global');
      w.addSource(PASTFIX_REGION, join(root, 'history'), 'transcripts');
      w.close();
      for (const [si, f] of files.entries()) {
        if (si > 0) {
          // The previous session joins the history, as the scheduled indexer would add it.
          const prev = files[si - 1].path;
          const dest = join(history, basename(prev));
          copyFileSync(prev, dest);
          const st = statSync(prev);
          utimesSync(dest, st.atime, st.mtime); // its age: a turn long closed is not "still open"
          const t0 = performance.now();
          const writer = openStoreWriter(storePath);
          try {
            // Every earlier session has ended: none has a turn still open, whatever the file's
            // mtime says (a copied evaluation set has mtimes of minutes ago; the wall clock
            // must not decide what the store holds).
            await runIndex({ store: writer, embedder: opts.embedder, config, now: () => Number.MAX_SAFE_INTEGER });
          } finally {
            writer.close();
          }
          indexMs.push(performance.now() - t0);
        }
        const reader = si > 0 ? openStoreReader(storePath) : null;
        try {
          const read = reads.get(f.path)!;
          const sessionId = basename(f.path, '.jsonl');
          const marked = markCopies(read, lineageFiles, f.path);
          rep.copied_steps += marked.steps;
          const fed = marked.read;
          // The earlier sessions this one repeats records of (its lineage's members in the store).
          const lineage = new Set((lineageFiles.groups.get(sessionId) ?? []).filter((s) => s !== sessionId));
          let replayed: SessionReplay | null = null;
          const scored = await replayOne(f.path, fed, reader, config, opts, project.name, rep, decideMs, hookMs, (n) => (recalledResolved += n), (s) => (replayed = s));
          const session = replayed as SessionReplay | null;
          if (session && opts.onPrompts) {
            await opts.onPrompts({
              project: project.name,
              session: sessionId,
              typed: fed.exchanges.filter((t) => t.hookFires && !t.seed && !t.exchange.isSidechain).map((t) => ({ uuid: t.exchange.uuid, injected: t.exchange.injected, empty: t.exchange.user.trim() === '' })),
              verdicts: session.promptVerdicts,
              uuids: read.exchanges.map((t) => t.exchange.uuid).filter((u) => !!u),
              lineage,
              store: reader,
            });
          }
          rep.self_lineage_offers += scored.filter((x) => x.shown && lineage.has(handleSession(x.shown.handle))).length;
          if (opts.gold) events.push(...scoreSession(sessionId, scored, itemsBySession.get(sessionId) ?? [], tally));
        } finally {
          reader?.close();
        }
        rep.sessions++;
        opts.onSession?.(++done, total);
      }
    }
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  rep.recall = ratio(rep.recalled, rep.recurrences);
  rep.recall_resolved = ratio(recalledResolved, rep.recurrences_resolved);
  rep.precision = ratio(rep.correct_offers, rep.offers);
  rep.offers_per_100_steps = rep.tool_steps ? Math.round((10000 * rep.offers) / rep.tool_steps) / 100 : 0;
  const q = (xs: number[], p: number) => (xs.length ? Math.round(quantile(xs, p) * 100) / 100 : 0);
  if (opts.gold) {
    const judged = tally.right_offers + tally.wrong_offers + tally.generic_offers;
    rep.gold = {
      project: opts.gold.project,
      items: opts.gold.items.length,
      ...tally,
      recall_at_failure: ratio(tally.hits, tally.hookable_recurrences),
      precision: ratio(tally.right_offers, judged),
      offers_per_100_steps: rep.tool_steps ? Math.round((10000 * tally.shown_offers) / rep.tool_steps) / 100 : 0,
      events,
    };
  }
  rep.latency_ms = { decide_p50: q(decideMs, 0.5), decide_p95: q(decideMs, 0.95), hook_p50: q(hookMs, 0.5), hook_p95: q(hookMs, 0.95), index_per_session_p50: q(indexMs, 0.5) };
  return rep;
}

async function replayOne(
  path: string,
  read: FileExchanges,
  store: StoreReader | null,
  config: Config,
  opts: PastfixOptions,
  project: string,
  rep: PastfixReport,
  decideMs: number[],
  hookMs: number[],
  addRecalledResolved: (n: number) => void,
  onReplayed?: (session: SessionReplay) => void,
): Promise<ScoredStep[]> {
  const index = store ? store.episodeIndex() : [];
  const earlier = new Set(index.map((e) => e.sig));
  const resolvedEarlier = new Set(index.filter((e) => e.resolved).map((e) => e.sig));
  const sigOfChunk = new Map(index.map((e) => [e.chunkId, e.sig]));
  const home = join(tmpdir(), 'active-brain-pastfix-home');
  const settings = hookSettingsFromConfig(config, { ACTIVE_BRAIN_HOME: home });
  let clock = read.exchanges[0]?.settledAt ?? read.steps[0]?.at ?? 0;
  const pipeline = new Pipeline({
    embedder: opts.embedder,
    offerBuilder: store ? createOfferBuilder({ store, embedder: opts.embedder, config, reasoner: null }) : null,
    noBuilderReason: store ? undefined : 'empty-store',
    episodes: store,
    config,
    pastOnly: true,
    home,
    now: () => clock,
    rng: seededRandom(sessionSeed(opts.seed, path)),
  });
  // The hook runs with the environment the host gives a session of this entrypoint (a `-p`
  // worker's failures get no offer there, as in the daemon: shared/workers.ts).
  const entrypoint = read.exchanges.find((t) => t.exchange.entrypoint)?.exchange.entrypoint ?? null;
  const session = new SessionReplay({
    pipeline, config, settings, path, file: basename(path), subagent: false, salt: String(opts.seed), entrypoint, home,
    fixes: pastFixes(store, 'pastfix'),
  });
  await feedSession(session, read, (t) => (clock = t));
  const all = session.finish();
  rep.replay_offers.push(...offersOf(all));
  const rows = all.filter((r) => r.channel === 'tool');
  onReplayed?.(session);
  const byStep = new Map<number, ReplayRow>(rows.map((r) => [r.step!, r]));
  const steps = read.steps.filter((t) => !t.copy).map((t) => t.step);
  rep.tool_steps += steps.length;
  rep.sidechain_offers += rows.filter((r) => r.sidechain && r.offer && hookShows(r.hook)).length;
  for (const t of session.toolTimings) {
    decideMs.push(t.decide);
    if (t.hook !== null) hookMs.push(t.hook);
  }
  // The signature of each step's error, and whether the hook sees that failure.
  const sigAt = new Map<number, string>();
  for (const s of steps) {
    if (!s.isError || isCascade(s.resultText)) continue;
    const sig = errorSignature(stepErrorText(s));
    if (!sig) continue;
    sigAt.set(s.step, sig.sig);
    if (s.toolUseError) {
      if (earlier.has(sig.sig)) rep.unhookable_recurrences++;
      continue;
    }
    rep.errors++;
    if (!earlier.has(sig.sig)) continue;
    rep.recurrences++;
    const resolved = resolvedEarlier.has(sig.sig);
    if (resolved) rep.recurrences_resolved++;
    // Recalled at this failure, or at the next tool event the hook met.
    const here = byStep.get(s.step);
    const next = steps.filter((x) => x.step > s.step).map((x) => byStep.get(x.step)).find((x) => x && x.hook !== null && x.hook !== 'not-at-failure');
    const hit = [here, next].some((x) => x && x.offer && hookShows(x.hook) && sigOfChunk.get(x.offer.chunkId) === sig.sig);
    if (hit) {
      rep.recalled++;
      if (resolved) addRecalledResolved(1);
    } else {
      rep.misses.push({ project, session: basename(path, '.jsonl'), step: s.step, head: sig.head.join(' | ').slice(0, 160), hook: here?.hook ?? null });
    }
  }
  for (const r of rows) {
    if (!r.offer || !hookShows(r.hook)) continue;
    rep.offers++;
    const chunkSig = sigOfChunk.get(r.offer.chunkId);
    const prevStep = steps.filter((x) => x.step < r.step!).at(-1)?.step;
    const shownAt = sigAt.get(r.step!);
    if (chunkSig && (chunkSig === shownAt || (prevStep !== undefined && chunkSig === sigAt.get(prevStep)))) rep.correct_offers++;
    if (!shownAt || !earlier.has(shownAt)) rep.first_seen_offers++;
  }
  return steps.map((s): ScoredStep => {
    const r = byStep.get(s.step);
    const shows = !!r?.offer && hookShows(r.hook);
    return {
      step: s.step,
      toolUseId: s.toolUseId,
      hookEvent: (s.isError && !s.toolUseError) || (!!r && r.hook !== null && r.hook !== 'not-at-failure'),
      rejection: s.isError && isCascade(s.resultText),
      shown: shows ? { handle: r!.offer!.handle, hook: r!.hook!, confidence: r!.offer!.confidence, text: session.reasons.get(r!) ?? '' } : null,
      decided: session.decided.has(s.step) ? [session.decided.get(s.step)!] : [],
      reason: shows ? null : (r?.hook && r.hook !== 'not-at-failure' ? r.hook : r?.silence ?? null),
    };
  });
}
