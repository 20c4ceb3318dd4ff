/**
 * The prompt channel measured on transcripts in time order (`active-brain eval prompts <dir>
 * [--gold FILE]`): the same replay as `eval pastfix` (eval/pastfix.ts: per project, the
 * sessions in time order, each against a store of only the earlier ones indexed by the real
 * indexer, replayed through the daemon's pipeline, core/publish.ts's cache and the hook's own
 * gates), read at each prompt the hook ran for: what it would show there, or its reason for
 * silence (and the daemon's silence behind an empty cache). With a judged prompt gold
 * (eval/prompt-gold.ts) each gold prompt and each shown offer is scored: recall, precision,
 * offer rate, unjudged offers. Reads the transcripts; writes only the replay's temp dir.
 */
import { basename, join } from 'node:path';
import type { Config } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import { evalPastfix, findProjects, type SessionPrompts } from './pastfix.js';
import { handleSession } from './pastfix-gold.js';
import { checkPromptGold, emptyPromptTally, scorePrompts, type PromptEvent, type PromptGold, type PromptTally, type ScoredPrompt } from './prompt-gold.js';
import { readTimedExchanges } from './replay-read.js';
import { hookShows } from './replay-rows.js';

/** One offer the hook would show at a prompt (for reading; the line is the store's text). */
export interface PromptOffer {
  project: string;
  session: string;
  uuid: string;
  handle: string;
  /** The offered chunk's exchange (its prompt uuid), when the chunk's time names one. */
  exchange: string | null;
  type: string;
  confidence: number;
  hook: string;
  line: string | null;
}

export interface PromptsReport {
  projects: number;
  sessions: number;
  /** Prompts a person typed (not injected, not empty, not copies) that the hook's gates judged
   *  (past its worker refusal: a `claude -p` session's prompts are no person's). */
  typed_prompts: number;
  /** Prompts the hook's gates judged (typed ones and injected ones). */
  hooked_prompts: number;
  /** Offers the hook would show (printed live or would-fire in soak) at those prompts. */
  shown_offers: number;
  /** shown_offers ÷ typed_prompts. */
  offer_rate: number;
  by_type: Record<string, number>;
  /** The hook's reason at each prompt it ran for. */
  by_reason: Record<string, number>;
  /** Where the hook found no offer: the daemon's silence (or trigger) behind the cache. */
  by_daemon_silence: Record<string, number>;
  /** Shown offers whose chunk comes from the session's own lineage (target 0). */
  self_lineage_offers: number;
  offers: PromptOffer[];
  gold: PromptGoldReport | null;
}

export interface PromptGoldReport extends PromptTally {
  project: string;
  items: number;
  recall: number;
  precision: number;
  offer_rate: number;
  events: PromptEvent[];
}

export interface PromptsOptions {
  config: Config;
  embedder: Embedder;
  seed: number;
  workParent?: string;
  gold?: PromptGold;
  onSession?: (done: number, total: number) => void;
}

const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10000) / 10000 : 0);
const bump = (m: Record<string, number>, k: string) => (m[k] = (m[k] ?? 0) + 1);

/** Run the prompt-channel evaluation over every project of `dir` (one, with a gold). */
export async function evalPrompts(dir: string, opts: PromptsOptions): Promise<PromptsReport> {
  const rep: PromptsReport = {
    projects: 0, sessions: 0, typed_prompts: 0, hooked_prompts: 0, shown_offers: 0, offer_rate: 0,
    by_type: {}, by_reason: {}, by_daemon_silence: {}, self_lineage_offers: 0, offers: [], gold: null,
  };
  const sessions: Array<{ s: SessionPrompts; scored: ScoredPrompt[]; created: Map<number, number> }> = [];
  if (opts.gold) {
    // As eval pastfix picks it: the gold's project among the folder's, else the folder's first.
    const names = findProjects(dir).map((p) => p.name);
    const project = names.includes(opts.gold.project) ? opts.gold.project : names[0];
    if (project !== undefined && project !== opts.gold.project) checkPromptGold(opts.gold, project, new Map());
  }
  const uuidsOf = new Map<string, Set<string>>();
  let replayed: string | null = null;
  const past = await evalPastfix(dir, {
    config: opts.config, embedder: opts.embedder, seed: opts.seed, workParent: opts.workParent, onSession: opts.onSession,
    ...(opts.gold ? { project: opts.gold.project } : {}),
    onPrompts: (s) => {
      replayed = s.project;
      uuidsOf.set(s.session, new Set(s.uuids));
      // Typed by a person, in a session the hook answers (a worker session's prompts are refused
      // by its prelude and never reach a person's view).
      const typed = new Set(s.typed.filter((t) => !t.injected && !t.empty).map((t) => t.uuid));
      rep.typed_prompts += s.verdicts.filter((v) => typed.has(v.uuid)).length;
      rep.hooked_prompts += s.verdicts.length;
      const shownIds = s.verdicts.filter((v) => v.offer && hookShows(v.reason)).map((v) => v.offer!.chunkId);
      // The offered chunks' times, read while this session's store is open (mapped to their
      // exchanges once every file is read).
      const created = new Map<number, number>();
      if (s.store && shownIds.length) for (const c of s.store.getChunks(shownIds)) created.set(c.id, c.createdAt);
      const scored = s.verdicts.map((v): ScoredPrompt => {
        bump(rep.by_reason, v.reason);
        const shows = !!v.offer && hookShows(v.reason);
        if (!shows && v.reason === 'no-offer' && v.daemon) bump(rep.by_daemon_silence, v.daemon.silence ?? 'none');
        return {
          uuid: v.uuid,
          shown: shows ? { handle: v.offer!.handle, exchange: null, type: v.offer!.type, confidence: v.offer!.confidence, line: v.line, hook: v.reason } : null,
          reason: shows ? null : v.reason,
          daemon: shows ? null : v.daemon?.silence ?? null,
        };
      });
      sessions.push({ s, scored, created });
    },
  });
  rep.projects = past.projects;
  rep.sessions = past.sessions;
  // The offered chunk's exchange: the chunk's time is its exchange's prompt time.
  const exchangeAt = new Map<string, Map<number, string>>();
  const exchangeOf = async (project: string, session: string, at: number | undefined): Promise<string | null> => {
    if (at === undefined) return null;
    let m = exchangeAt.get(session);
    if (!m) {
      m = new Map();
      exchangeAt.set(session, m);
      const root = findProjectDir(dir, project);
      try {
        const read = await readTimedExchanges(join(root, `${session}.jsonl`));
        for (const t of read.exchanges) if (t.exchange.uuid && !m.has(t.exchange.timestamp)) m.set(t.exchange.timestamp, t.exchange.uuid);
      } catch {
        // not readable: the exchange stays unknown (judged by its session)
      }
    }
    return m.get(at) ?? null;
  };
  const tally = emptyPromptTally();
  const events: PromptEvent[] = [];
  if (opts.gold) checkPromptGold(opts.gold, replayed ?? opts.gold.project, uuidsOf);
  const itemsBySession = new Map<string, PromptGold['items']>();
  for (const it of opts.gold?.items ?? []) itemsBySession.set(it.session, [...(itemsBySession.get(it.session) ?? []), it]);
  for (const { s, scored, created } of sessions) {
    const chunkOf = new Map(s.verdicts.filter((v) => v.offer).map((v) => [v.uuid, v.offer!.chunkId]));
    for (const p of scored) {
      if (!p.shown) continue;
      const from = handleSession(p.shown.handle);
      p.shown.exchange = await exchangeOf(s.project, from, created.get(chunkOf.get(p.uuid)!));
      rep.shown_offers++;
      bump(rep.by_type, p.shown.type);
      if (s.lineage.has(from)) rep.self_lineage_offers++;
      rep.offers.push({ project: s.project, session: s.session, uuid: p.uuid, handle: p.shown.handle, exchange: p.shown.exchange, type: p.shown.type, confidence: p.shown.confidence, hook: p.shown.hook, line: p.shown.line });
    }
    if (opts.gold) events.push(...scorePrompts(s.session, scored, itemsBySession.get(s.session) ?? [], tally));
  }
  rep.offer_rate = ratio(rep.shown_offers, rep.typed_prompts);
  if (opts.gold) {
    rep.gold = {
      project: opts.gold.project,
      items: opts.gold.items.length,
      ...tally,
      recall: ratio(tally.hits, tally.needs_past),
      precision: ratio(tally.right_offers, tally.right_offers + tally.wrong_offers),
      offer_rate: rep.offer_rate,
      events,
    };
  }
  return rep;
}

/** The folder of project `name` under `dir` (dir itself when it is that project). */
function findProjectDir(dir: string, name: string): string {
  return basename(dir) === name ? dir : join(dir, name);
}
