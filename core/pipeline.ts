/**
 * The daemon pipeline: one exchange in → one Decision out. Used by the daemon
 * (daemon/consumer.ts, live transcripts) and by `active-brain replay` (recordings), so it does no
 * IO of its own: the embedder, the offer builder, the config, the clock and the randomness
 * are injected.
 *
 *   exchange ─▶ texts (core/exchange-text.ts) ─▶ one batched embed (whole, user, assistant)
 *            ─▶ features (core/lexical.ts) ─▶ triggers on the state before the exchange
 *            ─▶ record into session state (core/session-state.ts)
 *            ─▶ gates: observed? (worker / sidechain / seed / injected) · mode · trigger ·
 *               cooldown · store ─▶ OfferBuilder (retrieval/) ─▶ session FIFO
 *
 * Session state lives in core/sessions.ts (keyed by transcript path, bounded); the records
 * decided, in core/decision.ts. Decisions carry ids, figures and reason codes only; the
 * exchange text stays in memory (a few recent exchanges per session for the offer builder)
 * and never reaches a Decision.
 */
import { createRedactor, type Redactor } from '../shared/redact.js';
import { ModeSchema, type Config, type Mode } from '../config/schema.js';
import type { Embedder } from '../embed/types.js';
import { EmbedderUnavailable } from '../embed/errors.js';
import type { OfferBuilder } from '../retrieval/types.js';
import { exchangeSeenText } from '../retrieval/novelty.js';
import type { Exchange } from '../shared/types.js';
import { modeFor } from '../shared/modes.js';
import { exchangeTexts } from './exchange-text.js';
import { exchangeFeatures } from './exchange-features.js';
import { centroidUnit, isPromptOnly, markBuild, recordExchange, rememberOffered, type ExchangeFeatures } from './session-state.js';
import { evaluateTriggers } from './triggers.js';
import type { WorkerReason } from './workers.js';
import { decideToolStep, LOOP_RING, type EpisodeLookup } from './tool-step.js';
import { FixIndex } from './fixes.js';
import type { ToolStep } from '../transcript/tool-steps.js';
import { baseDecision, buildFigures, numbersOnly, triggerSilence, triggerValues, type Decision, type Gate, type ToolDecision } from './decision.js';
import { Sessions, type Eviction, type SessionEntry } from './sessions.js';

export type { Decision, Gate, ToolDecision } from './decision.js';

/** Recent exchanges per session handed to the offer builder (oldest first, newest last). */
export const RECENT_EXCHANGES = 4;

/** The silence of a step during which the store lost its connection (the daemon's too). */
export const STORE_DOWN = 'store-down';

export interface PipelineDeps {
  embedder: Pick<Embedder, 'embed'>;
  /** null: no store (or an unusable one); offers are silent with `noBuilderReason`. */
  offerBuilder: OfferBuilder | null;
  /** Silence code used when offerBuilder is null (default `no-store`). */
  noBuilderReason?: string;
  /** The store's episode lookups for the tool channel's Past fix (null: no store). */
  episodes?: EpisodeLookup | null;
  /** Replays of history: a Past fix may come only from episodes met before the clock's now,
   *  and a prompt-channel offer only from chunks created before it (the store may hold
   *  sessions and notes later than the one replayed). The daemon leaves it off. */
  pastOnly?: boolean;
  /** A counter of store connection losses (the daemon's StoreGuard.faults). A step during which
   *  it moved offers nothing and remembers nothing (its retrieval may rest on a partial read,
   *  and an offer the daemon then discards must not hold the chunk back in the session FIFO). */
  storeFaults?: () => number;
  config: Config;
  /** State dir (worker detection: sessions under it are active-brain's own). */
  home: string;
  now: () => number;
  rng: () => number;
}

export interface PipelineInput {
  exchange: Exchange & { seed?: boolean };
  /** Transcript file the exchange came from. */
  path: string;
  /** History read to seed state: never offered. */
  seed?: boolean;
  /** From a subagent file. */
  subagent?: boolean;
  /** The exchange is still open (the assistant went quiet, the turn has not ended): decide
   *  for the offer cache without recording it into session state. Its final version comes
   *  later as an ordinary (non-provisional) input and is recorded then. */
  provisional?: boolean;
}

/** Input of the tool channel: one tool step of a transcript (transcript/tool-steps.ts). */
export interface ToolStepInput {
  step: ToolStep;
  path: string;
  /** Session id of the file (records may lack one). */
  sessionId: string;
  /** History read to seed state: never offered. */
  seed?: boolean;
  subagent?: boolean;
  /** From the file's records (the step carries only its own). */
  entrypoint?: string | null;
  isSidechain?: boolean;
}



type NamedMode = Mode & { name: string };


const DEFAULT_MODE: NamedMode = { ...ModeSchema.parse({}), name: '' };


const ms = (t0: number) => Math.round((performance.now() - t0) * 100) / 100;

export class Pipeline {
  private readonly sessions: Sessions;
  private modes: NamedMode[];

  /** Did the store lose its connection since the step began (the count was `faults0`)? */
  private storeMoved(faults0: number): boolean {
    return (this.deps.storeFaults?.() ?? 0) !== faults0;
  }

  constructor(private readonly deps: PipelineDeps) {
    this.modes = Object.entries(deps.config.modes).map(([name, m]) => ({ ...m, name }));
    this.sessions = new Sessions(deps);
  }

  /** New mode settings (`enable` / `disable` changed config.json): used from the next exchange. */
  setModes(modes: Config['modes']): void {
    this.modes = Object.entries(modes).map(([name, m]) => ({ ...m, name }));
  }

  private fixes: { from: EpisodeLookup; stamp: string; index: FixIndex } | null = null;

  /** The store's fixes by key (core/fixes.ts FixIndex: the files the hook reads, built from the
   *  same episodes), rebuilt when the store changed; null without a store. */
  private fixIndex(): FixIndex | null {
    const eps = this.deps.episodes;
    if (!eps) return null;
    const stamp = eps.changeStamp();
    if (this.fixes?.from !== eps || this.fixes.stamp !== stamp) this.fixes = { from: eps, stamp, index: new FixIndex(eps.fixEpisodes(), stamp) };
    return this.fixes.index;
  }

  /** Swap the offer builder (the store appeared, or became unusable) and the episode lookups. */
  setOfferBuilder(builder: OfferBuilder | null, noBuilderReason = 'no-store', episodes: EpisodeLookup | null = null): void {
    this.deps.offerBuilder = builder;
    this.deps.noBuilderReason = noBuilderReason;
    this.deps.episodes = builder ? episodes : null;
  }

  /**
   * The tool channel: one tool step (its result just arrived) → a ToolDecision. Shares the
   * session entry with process(): the worker verdict, the FIFO of offered chunks (a chunk
   * offered at a failure is not offered again at the next prompt) and the activity clock.
   */
  processToolStep(input: ToolStepInput): ToolDecision {
    const faults0 = this.deps.storeFaults?.() ?? 0;
    const tStart = performance.now();
    const { config } = this.deps;
    const s = input.step;
    const now = this.deps.now();
    const { entry, newSession } = this.sessions.entryFor(input.path, input.sessionId, now, Boolean(input.subagent), {
      path: input.path, cwd: s.cwd, entrypoint: input.entrypoint ?? null, isSidechain: Boolean(input.isSidechain), agentId: null,
    });
    // A sidechain step is a worker's for this step only (the session's verdict is not changed);
    // sidechain comes first, as in the one worker rule (shared/workers.ts).
    const worker = input.isSidechain ? 'sidechain' : entry.worker;
    const mode = modeFor(this.modes, s.cwd);
    const seed = Boolean(input.seed);
    const d: ToolDecision = {
      channel: 'tool',
      sessionId: entry.sessionId,
      path: input.path,
      step: s.step,
      toolUseId: s.toolUseId,
      offset: s.endOffset,
      mode: mode?.name ?? null,
      modeState: mode?.tool.state ?? null,
      worker,
      seed,
      trigger: null,
      sig: null,
      match: null,
      offer: null,
      silence: null,
      triggerValues: {},
      latency: {},
      cacheable: !worker && !seed,
      newSession,
    };
    const finish = (silence: string | null): ToolDecision => {
      d.silence = d.offer ? null : silence;
      d.latency = { ...d.latency, total: ms(tStart) };
      return d;
    };
    if (worker) return finish(`worker-${worker}`);
    this.sessions.learnLineage(entry, this.deps.episodes?.lineage, s.uuid, s.sessionId);
    const r = decideToolStep(
      s,
      {
        sessionId: entry.sessionId, cwd: s.cwd, mode, fixes: this.fixIndex(), offered: entry.state.offered, ring: entry.toolRing, config, lineage: entry.lineage,
        redactor: this.redactor(), recent: entry.toolRing.map((e) => e.action).join('\n'), ...(this.deps.pastOnly ? { asOf: now } : {}),
      },
      mode?.stallWindow ?? DEFAULT_MODE.stallWindow,
    );
    entry.toolRing.push(r.entry);
    if (entry.toolRing.length > LOOP_RING) entry.toolRing.splice(0, entry.toolRing.length - LOOP_RING);
    d.trigger = r.trigger;
    d.sig = r.sig;
    d.match = r.match;
    d.triggerValues = numbersOnly(r.figures);
    if (seed) return finish('seed');
    if (!mode || mode.tool.state === 'off') return finish(mode ? 'mode-off' : 'no-mode');
    if (!r.offer) return finish(r.silence ?? 'no-offer');
    if (this.storeMoved(faults0)) {
      d.cacheable = false;
      return finish(STORE_DOWN);
    }
    d.offer = r.offer;
    rememberOffered(entry.state, [r.offer.chunkId], config.retrieval.dedupWindow);
    return finish(null);
  }

  get sessionCount(): number {
    return this.sessions.size;
  }

  /** Transcript paths in memory (for status / eviction logs). */
  sessionPaths(): string[] {
    return this.sessions.paths();
  }

  /** Drop one session's state (file removed, truncated or replaced). */
  forget(path: string): boolean {
    return this.sessions.forget(path);
  }

  private redactorMade: Redactor | null = null;

  /** The configured redaction (the indexer's: user patterns included), made once. A config
   *  whose patterns do not compile falls back to the built-in rules (the config check says so). */
  private redactor(): Redactor {
    if (!this.redactorMade) {
      try {
        this.redactorMade = createRedactor(this.deps.config.redact);
      } catch {
        this.redactorMade = createRedactor();
      }
    }
    return this.redactorMade;
  }

  /** The session's lineage as learnt so far (session ids, itself included once the store knows
   *  any of its records), or [] for an unknown path. */
  lineageOf(path: string): string[] {
    return this.sessions.lineageOf(path);
  }

  /** Evict sessions idle longer than daemon.sessionIdleEvictMinutes, then the least recently
   *  active beyond daemon.maxSessions. Returns the evicted transcript paths with session ids. */
  evict(now = this.deps.now()): Eviction[] {
    return this.sessions.evict(now);
  }

  /** The decision for an exchange that got no vectors: silent with the embedder's reason,
   *  the session state untouched (the exchange is not recorded). */
  private unembedded(
    input: PipelineInput,
    entry: SessionEntry,
    o: { worker: WorkerReason | null; seed: boolean; newSession: boolean; reason: string; tStart: number },
  ): Decision {
    const ex = input.exchange;
    return {
      ...baseDecision({ exchange: ex, path: input.path, mode: modeFor(this.modes, ex.cwd), worker: o.worker, seed: o.seed, promptOnly: isPromptOnly(entry.state), newSession: o.newSession, provisional: Boolean(input.provisional) }),
      gates: [{ gate: 'embedder', pass: false, reason: o.reason }],
      silence: o.reason,
      latency: { total: ms(o.tStart) },
    };
  }

  async process(input: PipelineInput): Promise<Decision> {
    const faults0 = this.deps.storeFaults?.() ?? 0;
    const tStart = performance.now();
    const { config } = this.deps;
    const ex = input.exchange;
    const seed = Boolean(input.seed ?? ex.seed);
    const now = this.deps.now();

    const { entry, newSession } = this.sessions.entryFor(input.path, ex.sessionId, now, Boolean(input.subagent), {
      path: input.path, cwd: ex.cwd, entrypoint: ex.entrypoint, isSidechain: ex.isSidechain, agentId: (ex as { agentId?: string | null }).agentId ?? null,
    });
    const worker = entry.worker;
    this.sessions.learnLineage(entry, this.deps.episodes?.lineage, ex.uuid, ex.sessionId);

    // Embed: whole exchange, user side, assistant side — one batched call.
    const texts = exchangeTexts(ex, config.embedding.maxChars);
    const batch = [texts.whole || ' '];
    const userAt = texts.user ? batch.push(texts.user) - 1 : -1;
    const asstAt = texts.assistant ? batch.push(texts.assistant) - 1 : -1;
    const tEmbed = performance.now();
    let vecs: Float32Array[];
    try {
      vecs = await this.deps.embedder.embed(batch, { kind: 'query' });
    } catch (e) {
      // An embedding server that is down (embed/resilient.ts): decide nothing, record nothing.
      if (!(e instanceof EmbedderUnavailable)) throw e;
      return this.unembedded(input, entry, { worker, seed, newSession, reason: e.reason, tStart });
    }
    const embedMs = ms(tEmbed);
    const features: ExchangeFeatures = exchangeFeatures(ex, {
      vec: vecs[0],
      userVec: userAt >= 0 ? vecs[userAt] : null,
      assistantVec: asstAt >= 0 ? vecs[asstAt] : null,
    });

    const mode = modeFor(this.modes, ex.cwd);
    const sc = config.session;

    // Triggers on the state before this exchange; then record it.
    const tTrig = performance.now();
    const state = entry.state;
    // Sessions no mode applies to still keep state (measured with the default thresholds).
    const tr = evaluateTriggers(state, features, mode ?? DEFAULT_MODE, sc);
    const provisional = Boolean(input.provisional);
    if (!provisional) recordExchange(state, features, tr.measures, sc);
    const trigMs = ms(tTrig);
    const promptOnly = isPromptOnly(state);

    const recent = [...entry.recent, ex].slice(-RECENT_EXCHANGES);
    if (!provisional) entry.recent = recent;
    // Everything the session saw, for novelty (the builder adds the window itself).
    if (!provisional) entry.seen.add(exchangeSeenText(ex));

    const gates: Gate[] = [];
    const gate = (name: string, pass: boolean, reason: string | null): boolean => {
      gates.push({ gate: name, pass, reason: pass ? null : reason });
      return pass;
    };
    const decision: Decision = {
      ...baseDecision({ exchange: ex, path: input.path, mode, worker, seed, promptOnly, newSession, provisional }),
      trigger: tr.kind,
      triggerValues: triggerValues(tr),
      gates,
    };
    const finish = (silence: string | null): Decision => {
      decision.silence = decision.offer ? null : silence;
      decision.latency = { ...decision.latency, embed: embedMs, triggers: trigMs, total: ms(tStart) };
      return decision;
    };

    // The one worker rule (shared/workers.ts): the hook logs the same `worker-<reason>`.
    if (!gate('observed', !worker && !ex.isSidechain, `worker-${ex.isSidechain ? 'sidechain' : worker}`)) return finish(gates.at(-1)!.reason);
    if (!gate('live-line', !seed, 'seed')) return finish('seed');
    if (!gate('typed-prompt', !ex.injected, 'injected')) return finish('injected');
    if (!gate('mode', mode !== null && mode.state !== 'off', mode ? 'mode-off' : 'no-mode')) return finish(gates.at(-1)!.reason);
    if (!gate('cooldown', !tr.cooldown.blocked, tr.reasons.find((r) => r.startsWith('cooldown')) ?? 'cooldown')) return finish('cooldown');
    if (!gate('trigger', tr.kind !== null, triggerSilence(tr))) return finish(gates.at(-1)!.reason);
    const builder = this.deps.offerBuilder;
    if (!gate('store', builder !== null, this.deps.noBuilderReason ?? 'no-store')) return finish(gates.at(-1)!.reason);

    // A final decision's build counts for the cooldown whatever it found. A provisional one
    // (partial text of an open exchange) counts only when it produced an offer the hook may
    // show: a silent early look must not block the decision on the finished turn.
    if (!provisional) markBuild(state, ex.timestamp);
    const tBuild = performance.now();
    const centroid = centroidUnit(state) ?? features.vec;
    let built;
    try {
      built = await builder!.build({
        sessionId: ex.sessionId,
        cwd: ex.cwd,
        exchange: ex,
        recent,
        exchangeVector: features.vec,
        centroid,
        trigger: tr.kind!,
        excludeChunkIds: [...state.offered],
        lineage: entry.lineage,
        seen: entry.seen,
        rng: this.deps.rng,
        ...(this.deps.pastOnly ? { asOf: this.deps.now() } : {}),
      });
    } catch (e) {
      decision.latency.build = ms(tBuild);
      gate('offer', false, 'build-error');
      return finish('build-error');
    }
    // Timings go to latency; the evidence figures (sufficiency parts, top cosine, the store's
    // scale) go with the trigger's, so a silence like insufficient-evidence can be read.
    const figs = buildFigures(built.figures);
    decision.latency = { ...decision.latency, build: ms(tBuild), ...figs.timings };
    decision.triggerValues = { ...decision.triggerValues, ...figs.evidence };
    decision.sufficiency = Number.isFinite(built.sufficiency) ? built.sufficiency : null;
    decision.candidates = built.candidates.length;
    if (!gate('offer', built.offer !== null, built.silence ?? 'no-offer')) return finish(gates.at(-1)!.reason);
    if (this.storeMoved(faults0)) {
      decision.cacheable = false;
      return finish(STORE_DOWN);
    }
    decision.offer = built.offer;
    if (built.typeEvidence) decision.typeEvidence = built.typeEvidence;
    // The open exchange is not recorded yet: its index is state.turns.
    if (provisional) markBuild(state, ex.timestamp, state.turns);
    rememberOffered(state, [built.offer!.chunkId], config.retrieval.dedupWindow);
    return finish(null);
  }
}


