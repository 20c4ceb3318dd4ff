/**
 * LoCoMo live replay: each conversation's sessions fed in order, as live sessions, through
 * the daemon's own Pipeline and the hook's gates (eval/replay-session.ts), with a knowledge
 * store that holds the EARLIER sessions only. Input: parsed LoCoMo conversations
 * (eval/locomo.ts) plus each conversation's first speaker, the effective config, an embedder.
 * Output: fire rate, the share of offers whose chunk is gold-linked to the current window,
 * and what category-5 (adversarial) questions produce. Writes only temp stores (deleted).
 *
 * Exchanges: a turn of speaker A (the conversation's `speaker_a`, "the person") opens an
 * exchange; the speaker-B turns up to the next A turn are its reply. B turns before the first
 * A turn of a session form a prompt-less exchange (the assembler's "continuation": no prompt
 * was submitted, so the daemon treats it as injected and the hook does not fire). Each LoCoMo
 * session is its own live session (its own session state and warm-up). Times: the session's
 * date, then EXCHANGE_SPACING_MS per exchange; the reply settles REPLY_MS after the prompt.
 *
 * Store: one temp store per conversation, grown after each session is replayed — one chunk
 * per turn (`speaker (date): text [photo caption]`, as `eval retrieval` indexes it), one region
 * per session (`session-<n>`, scope global, kind transcripts) so the cross-region rule can
 * work. Replaying session n therefore sees sessions 1…n−1 only.
 *
 * Gold link: an offer's chunk (a turn of an earlier session) is linked when some QA item's
 * evidence holds both it and a turn of the current window (the last `window` turns of the
 * current session, up to this exchange). The chance figure `linked_share_random` is the same
 * share for a chunk drawn uniformly from the store at each offer.
 *
 * Adversarial questions (category 5; the answer is not in the conversation): after the
 * conversation, with the whole conversation in the store, each question is fed as a user
 * turn to a fresh session warmed (seed exchanges, never offered) with the last session.
 * Silence is right; offers are counted. Their control: the answerable questions (categories
 * 1–4, with evidence) fed the same way — how often an offer is made there, and how often its
 * chunk is one of the question's gold evidence turns (against chance).
 */
import type { Config } from '../config/schema.js';
import { hookSettingsFromConfig } from '../config/hook-settings.js';
import type { Embedder } from '../embed/types.js';
import { Pipeline } from '../core/pipeline.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import type { StoreReader } from '../store/types.js';
import type { Exchange, OfferType } from '../shared/types.js';
import { ADVERSARIAL_CATEGORY, scoredQuestions, type LocomoConversation, type LocomoQuestion, type LocomoTurn } from './locomo.js';
import { SessionReplay } from './replay-session.js';
import { hookShows, type ReplayRow, type TimedExchange } from './replay-rows.js';
import { replayConfig, seededRng, sessionSeed } from './replay.js';
import { bump, offerTypeCounts, sortedCounts } from './counts.js';
import { round4 } from './metrics.js';
import { EXCHANGE_SPACING_MS, REPLY_MS, evidenceLinks, parseLocomoDate, sessionExchanges, timed, type ReplayConversation, type SessionExchange } from './locomo-exchanges.js';
import { GrowingStore } from './temp-store.js';
import { modeFor } from '../shared/modes.js';

/** Turns of the current session that form the "current window" for the gold-link figure. */
export const DEFAULT_LINK_WINDOW = 3;
/** A state dir no replayed cwd is under (worker detection). */
const NO_HOME = '/nonexistent/active-brain-replay-home';
/** Session date when a LoCoMo date does not parse (2023-01-01), plus one day per session. */
const FALLBACK_DATE = Date.UTC(2023, 0, 1);
const DAY_MS = 86_400_000;

export interface LocomoReplayOptions {
  config: Config;
  embedder: Embedder;
  seed: number;
  window?: number;
  /** Parent folder for temp stores (default os.tmpdir()). */
  parent?: string;
  /** Also feed the answerable questions (the adversarial figures' control). Default true. */
  answerable?: boolean;
  onConversation?: (done: number) => void;
}

export interface ConversationReplay {
  id: string;
  sessions: number;
  exchanges: number;
  would_fire: number;
  linked: number;
  adversarial_questions: number;
  adversarial_offers: number;
}

export interface LocomoReplayReport {
  conversations: number;
  exchanges: number;
  would_fire: number;
  fire_rate: number;
  /** Offers whose chunk is gold-linked to the current window, over offers (0 when none). */
  linked_share: number;
  /** `built`: questions whose trigger fired and reached the offer builder (its evidence gates
   *  decided); `confident`: offers at or above the mode's minConfidence (the hook's gate);
   *  `shown`: offers the hook's gates pass at the person's next prompt (printed live, or
   *  would-fire in soak) — what the person would be shown. */
  adversarial: { questions: number; offers: number; built: number; confident: number; shown: number; by_silence: Record<string, number> };
  /** The control for the adversarial figures: answerable questions (categories 1–4, with
   *  evidence) fed the same way. `evidence_hits`: offers whose chunk is one of the question's
   *  gold evidence turns (`shown_evidence_hits`: among the shown ones); `evidence_hit_chance`:
   *  the same share for a uniformly drawn chunk. */
  answerable: { questions: number; offers: number; built: number; confident: number; shown: number; evidence_hits: number; shown_evidence_hits: number; evidence_hit_share: number; evidence_hit_chance: number };
  linked: number;
  /** The same share for a chunk drawn uniformly from the store at each offer (chance level). */
  linked_share_random: number;
  printed: number;
  by_type: Record<OfferType, number>;
  by_trigger: Record<string, number>;
  by_silence: Record<string, number>;
  window: number;
  seed: number;
  model: string;
  per_conversation: ConversationReplay[];
  /** Every offer: where it was made and which turn it offered (ids only). */
  offers: LocomoOffer[];
  /** Every offer made on a fed question (adversarial or answerable): ids and figures only. */
  question_offers: QuestionOffer[];
}

/** An offer made on a fed question, and what the hook did with it at the next prompt. */
export interface QuestionOffer {
  conversation: string;
  kind: 'adversarial' | 'answerable';
  /** Index of the question in the conversation's question list (as parsed). */
  question: number;
  category: number;
  /** Dia id of the offered chunk. */
  dia: string | null;
  type: OfferType;
  confidence: number;
  sufficiency: number | null;
  /** Share of the question's specific words the offered turn holds (retrieval/coverage.ts). */
  coverage: number | null;
  /** The offered turn is one of the question's evidence turns (answerable only). */
  evidence_hit: boolean;
  /** The hook's verdict at the person's next prompt (`printed` / `would-fire`: shown). */
  hook: string | null;
}

export interface LocomoOffer {
  conversation: string;
  session: number;
  turn: number;
  /** Dia id of the offered chunk (a turn of an earlier session). */
  dia: string | null;
  type: OfferType;
  confidence: number;
  linked: boolean;
  /** What the hook would have done with it. */
  hook: string | null;
}

/** Replay conversations; returns the report (figures rounded to 4 places). */
export async function replayLocomo(convs: ReplayConversation[], opts: LocomoReplayOptions): Promise<LocomoReplayReport> {
  const config = replayConfig(opts.config);
  const { embedder } = opts;
  const window = opts.window ?? DEFAULT_LINK_WINDOW;
  const settings = hookSettingsFromConfig(config, { ACTIVE_BRAIN_HOME: NO_HOME });
  const byType = offerTypeCounts();
  const byTrigger: Record<string, number> = {};
  const bySilence: Record<string, number> = {};
  const advSilence: Record<string, number> = {};
  const perConversation: ConversationReplay[] = [];
  let exchanges = 0;
  let wouldFire = 0;
  let linked = 0;
  let chanceSum = 0;
  let printed = 0;
  let advQuestions = 0;
  let advOffers = 0;
  let advBuilt = 0;
  let advConfident = 0;
  let advShown = 0;
  const ans = { questions: 0, offers: 0, built: 0, confident: 0, shown: 0, evidence_hits: 0, shown_evidence_hits: 0 };
  const questionOffers: QuestionOffer[] = [];
  const questionOffer = (conv: LocomoConversation, kind: QuestionOffer['kind'], q: LocomoQuestion, row: ReplayRow, dia: string | null): QuestionOffer => ({
    conversation: conv.id,
    kind,
    question: conv.questions.indexOf(q),
    category: q.category,
    dia,
    type: row.offer!.type,
    confidence: row.offer!.confidence,
    sufficiency: row.sufficiency,
    coverage: row.offer!.evidence?.coverage ?? null,
    evidence_hit: kind === 'answerable' && !!dia && q.evidence.includes(dia),
    hook: row.hook,
  });
  let ansChance = 0;
  const answerableToo = opts.answerable ?? true;
  const answerableQuestions = scoredQuestions;
  let done = 0;
  const offers: LocomoOffer[] = [];
  const offerRows: Array<[LocomoOffer, ReplayRow]> = [];

  const newSession = (store: StoreReader | null, label: string, path: string) => {
    let clock = 0;
    const pipeline = new Pipeline({
      embedder,
      offerBuilder: store ? createOfferBuilder({ store, embedder, config, reasoner: null }) : null,
      config,
      home: NO_HOME,
      now: () => clock,
      rng: seededRng(sessionSeed(opts.seed, label)),
    });
    const replay = new SessionReplay({ pipeline, config, settings, path, file: label, subagent: false, salt: String(opts.seed) });
    return {
      replay,
      feed: (t: TimedExchange) => {
        clock = t.settledAt;
        return replay.feed(t);
      },
    };
  };

  for (const { conv, speakerA } of convs) {
    const links = evidenceLinks(conv);
    const cwd = `/locomo/${conv.id}`;
    const bySession = new Map<number, LocomoTurn[]>();
    for (const t of conv.turns) {
      const l = bySession.get(t.session);
      if (l) l.push(t);
      else bySession.set(t.session, [t]);
    }
    const store = new GrowingStore(embedder, opts.parent);
    const figures: ConversationReplay = { id: conv.id, sessions: bySession.size, exchanges: 0, would_fire: 0, linked: 0, adversarial_questions: 0, adversarial_offers: 0 };
    let last: SessionExchange[] = [];
    try {
      let ordinal = 0;
      for (const [n, turns] of bySession) {
        const date = turns[0]?.date ?? '';
        const start = parseLocomoDate(date) ?? FALLBACK_DATE + ordinal * DAY_MS;
        ordinal++;
        const reader = store.open();
        try {
          const label = `${conv.id}/session-${n}`;
          const s = newSession(reader, label, `${cwd}/session-${n}.jsonl`);
          const exs = sessionExchanges(conv.id, n, turns, speakerA, start, cwd);
          const seen: string[] = [];
          const rows: ReplayRow[] = [];
          for (const se of exs) {
            seen.push(...se.turnIds);
            const row = await s.feed(timed(se));
            rows.push(row);
            if (row.trigger) bump(byTrigger, row.trigger);
            if (!row.offer) {
              bump(bySilence, row.silence ?? 'unknown');
              continue;
            }
            wouldFire++;
            figures.would_fire++;
            byType[row.offer.type]++;
            const win = seen.slice(-window);
            const dia = store.idOf.get(row.offer.chunkId);
            const isLinked = !!dia && win.some((w) => links.get(w)?.has(dia));
            if (isLinked) {
              linked++;
              figures.linked++;
            }
            offers.push({ conversation: conv.id, session: n, turn: row.turn, dia: dia ?? null, type: row.offer.type, confidence: row.offer.confidence, linked: isLinked, hook: null });
            offerRows.push([offers[offers.length - 1], row]);
            let hits = 0;
            for (const d of store.idOf.values()) if (win.some((w) => links.get(w)?.has(d))) hits++;
            chanceSum += store.idOf.size ? hits / store.idOf.size : 0;
          }
          s.replay.finish();
          for (const [o, r] of offerRows.splice(0)) o.hook = r.hook;
          printed += rows.filter((r) => r.offer && hookShows(r.hook)).length;
          exchanges += exs.length;
          figures.exchanges += exs.length;
          last = exs;
        } finally {
          reader.close();
        }
        await store.add(`session-${n}`, `Session ${n}${date ? ` (${date})` : ''}`, start, turns.map((t) => ({ id: t.diaId, heading: t.diaId, text: t.text })));
      }

      // Questions, each to a fresh session warmed with the last session: the adversarial ones
      // (silence is right) and, as their control, the answerable ones (an offer may help).
      if (last.length > 0) {
        const reader = store.open();
        try {
          const base = last[last.length - 1].exchange;
          const ask = async (q: LocomoQuestion, label: string): Promise<ReplayRow> => {
            const s = newSession(reader, `${conv.id}/${label}`, `${cwd}/${label}.jsonl`);
            for (const se of last) await s.feed(timed(se, true));
            const t = base.timestamp + EXCHANGE_SPACING_MS;
            const bytes = Buffer.byteLength(q.question, 'utf8') + 1;
            const question: Exchange = {
              ...base,
              uuid: `${conv.id}-${label}`,
              index: last.length,
              startOffset: base.endOffset,
              endOffset: base.endOffset + bytes,
              timestamp: t,
              user: q.question,
              assistant: '',
              assistantVisible: false,
              injected: false,
            };
            const row = await s.feed({ exchange: question, settledAt: t + REPLY_MS, hookFires: true });
            // What the person would be shown: the daemon's offer on the question reaches them
            // at their next prompt, through the hook's gates (confidence, budget, gap, …).
            const next = t + EXCHANGE_SPACING_MS;
            s.replay.prompt({
              exchange: { ...question, uuid: `${question.uuid}-next`, index: question.index + 1, startOffset: question.endOffset, endOffset: question.endOffset, timestamp: next, user: '' },
              settledAt: next,
              hookFires: true,
            });
            s.replay.finish();
            return row;
          };
          const confident = (row: ReplayRow) => !!row.offer && row.offer.confidence >= (modeFor(settings.modes, cwd)?.minConfidence ?? Infinity);
          for (const [qi, q] of conv.questions.filter((x) => x.category === ADVERSARIAL_CATEGORY).entries()) {
            const row = await ask(q, `adversarial-${qi}`);
            advQuestions++;
            figures.adversarial_questions++;
            if (row.offer || row.sufficiency !== null) advBuilt++;
            if (row.offer) {
              advOffers++;
              if (confident(row)) advConfident++;
              if (hookShows(row.hook)) advShown++;
              figures.adversarial_offers++;
              questionOffers.push(questionOffer(conv, 'adversarial', q, row, store.idOf.get(row.offer.chunkId) ?? null));
            } else bump(advSilence, row.silence ?? 'unknown');
          }
          if (answerableToo) {
            const stored = new Set(store.idOf.values());
            for (const [qi, q] of answerableQuestions(conv).entries()) {
              const row = await ask(q, `answerable-${qi}`);
              ans.questions++;
              if (row.offer || row.sufficiency !== null) ans.built++;
              if (!row.offer) continue;
              ans.offers++;
              if (confident(row)) ans.confident++;
              if (hookShows(row.hook)) ans.shown++;
              const dia = store.idOf.get(row.offer.chunkId);
              const hit = !!dia && q.evidence.includes(dia);
              if (hit) ans.evidence_hits++;
              if (hit && hookShows(row.hook)) ans.shown_evidence_hits++;
              questionOffers.push(questionOffer(conv, 'answerable', q, row, dia ?? null));
              const inStore = q.evidence.filter((e) => stored.has(e)).length;
              ansChance += store.idOf.size ? inStore / store.idOf.size : 0;
            }
          }
        } finally {
          reader.close();
        }
      }
    } finally {
      store.dispose();
    }
    perConversation.push(figures);
    opts.onConversation?.(++done);
  }

  return {
    conversations: convs.length,
    exchanges,
    would_fire: wouldFire,
    fire_rate: exchanges ? round4(wouldFire / exchanges) : 0,
    linked_share: wouldFire ? round4(linked / wouldFire) : 0,
    adversarial: { questions: advQuestions, offers: advOffers, built: advBuilt, confident: advConfident, shown: advShown, by_silence: sortedCounts(advSilence) },
    answerable: {
      ...ans,
      evidence_hit_share: ans.offers ? round4(ans.evidence_hits / ans.offers) : 0,
      evidence_hit_chance: ans.offers ? round4(ansChance / ans.offers) : 0,
    },
    linked,
    linked_share_random: wouldFire ? round4(chanceSum / wouldFire) : 0,
    printed,
    by_type: byType,
    by_trigger: sortedCounts(byTrigger),
    by_silence: sortedCounts(bySilence),
    window,
    seed: opts.seed,
    model: embedder.modelId,
    per_conversation: perConversation,
    offers,
    question_offers: questionOffers,
  };
}
