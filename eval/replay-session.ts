/**
 * One replayed session: exchanges (with the times the daemon and the hook would have seen
 * them) → the daemon's own Pipeline (core/pipeline.ts) → the offer cache the daemon would
 * write (core/publish.ts publishDecision, as the daemon) → the hook's own pure gates (hook/gates.ts
 * prelude / offerGates / nextState) at the next prompt, with a simulated hook state.
 * Used by `active-brain replay` (eval/replay.ts) and the LoCoMo live replay
 * (eval/locomo-replay.ts). No IO: the pipeline's embedder and offer builder do the reading.
 *
 * Timing model: the daemon decides on an exchange once it settled (`settledAt`, the time of
 * its last record) and writes the session cache stamped with the exchange's end offset; the
 * hook runs when the NEXT prompt is submitted (that exchange's `timestamp`), sees the
 * transcript at that prompt's start offset, and prints or stays silent. Its verdict is
 * attached to the offer it saw. The transcript is taken as trusted (the replay has no
 * transcript root to check it against).
 *
 * Offer ids are made deterministic (a hash of the salt, session, turn and chunk) so the same
 * input replays to the same output; the builder's own ids are random UUIDs.
 */
import { withAdvice } from '../shared/cwd-persists.js';
import { toolErrorKind } from './tool-error-kinds.js';
import { dirname } from 'node:path';
import { sessionIdFromRolloutName } from '../transcript/codex-records.js';
import { stepCommand } from '../transcript/tool-steps.js';
import { transcriptLineage, transcriptTail } from '../hook/inputs.js';
import type { Config } from '../config/schema.js';
import type { Pipeline } from '../core/pipeline.js';
import type { Decision } from '../core/decision.js';
import { publishDecision, publishLineage, publishToolDecision, type PublishBook } from '../core/publish.js';
import { nextState, offerGates, prelude, type Decision as HookDecision } from '../hook/gates.js';
import { findFixFile, hasPlace, sign, toolGates, toolUseIdOf } from '../hook/tool-gates.js';
import { CLAUDE_EVENT_SET, postToolUseReaches } from '../ops/hook-install.js';
import type { FixFile, HookSettings, HookState, LineageCache, OfferCache, ToolCache } from '../shared/types.js';
import { chunkIdOf, hookShows, replayOfferId, type HookVerdict, type PromptVerdict, type ReplayRow, type TimedExchange } from './replay-rows.js';
import type { TimedStep } from './replay-read.js';
import { hostEnvFor } from '../shared/workers.js';
import { round4 } from './metrics.js';

export interface SessionReplayOptions {
  pipeline: Pipeline;
  config: Config;
  settings: HookSettings;
  /** Transcript path the pipeline keys the session by (a subagent path marks it a worker). */
  path: string;
  /** Label for rows (relative file or synthetic name). */
  file: string;
  /** From a `subagents/` folder. */
  subagent: boolean;
  /** Mixed into offer ids (the replay seed). */
  salt: string;
  /** The hook's fixes file for a signature, as the daemon would have written it from the
   *  store's resolved episodes (core/fixes.ts buildFixFiles); undefined: no file. */
  fixes?: (sig: string, at: number) => FixFile | undefined;
  /** The session's entrypoint (its transcript's `entrypoint`), when known before its exchanges
   *  are fed: the hook's gates run with the environment the host gives a hook of such a session
   *  (shared/workers.ts hostEnvFor) and the daemon's tool steps carry it, as in the daemon. */
  entrypoint?: string | null;
  /** The state dir (the worker rule's own home); default: the hook's default. */
  home?: string;
}


export class SessionReplay {
  private hookState: HookState | null = null;
  private cache: OfferCache | undefined;
  /** The row whose offer sits in the cache, until the hook printed it or it was replaced. */
  private pending: ReplayRow | null = null;
  /** The daemon's per-file bookkeeping (core/publish.ts). */
  private readonly book: PublishBook = { provisionalOffer: null };
  private toolCache: ToolCache | undefined;
  /** The session's lineage file as the daemon writes it (core/publish.ts publishLineage). */
  private lineageCache: LineageCache | undefined;
  /** Exchange index the next tool steps belong to (the open exchange). */
  private turn = 0;
  readonly rows: ReplayRow[] = [];
  /** Per tool step: the handle the daemon's own decision offered (shown or not). */
  readonly decided = new Map<number, string>();
  /** Per tool step: the hook's gates and the daemon's decision (ms of this process). Kept
   *  out of the rows so that the same input replays to the same bytes. */
  readonly toolTimings: Array<{ hook: number | null; decide: number }> = [];
  /** Offers' one-line reasons (from the store, never the replayed session's text), by row:
   *  for the report page, not for the JSON. */
  readonly reasons = new Map<ReplayRow, string>();
  /** The hook's verdict at each prompt it ran for (`eval prompts` scores these). */
  readonly promptVerdicts: PromptVerdict[] = [];

  /** The session's entrypoint: the option, else the first one an exchange names. */
  private entrypoint: string | null;

  constructor(private readonly o: SessionReplayOptions) {
    this.entrypoint = o.entrypoint ?? null;
  }

  /** The hook's prelude input: the host's environment for this session, no kill file. */
  private preludeInput(payload: Record<string, unknown>) {
    return { payload, stdin: 'ok' as const, settings: this.o.settings, env: hostEnvFor(this.entrypoint), killed: false, ...(this.o.home ? { home: this.o.home } : {}) };
  }

  /** Feed one exchange: the hook at its prompt (if any), then the daemon's decision. */
  async feed(t: TimedExchange): Promise<ReplayRow> {
    this.entrypoint ??= t.exchange.entrypoint ?? null;
    this.prompt(t);
    return this.decide(t);
  }

  /** The hook at the submission of `t`'s prompt (before the daemon sees that exchange). */
  prompt(t: TimedExchange): void {
    if (t.hookFires && !t.seed) this.hook(t.exchange);
  }

  /** The daemon's decision on exchange `t` and the offer cache it writes. */
  async decide(t: TimedExchange): Promise<ReplayRow> {
    const ex = t.exchange;
    const provisional = Boolean(t.provisional);
    const d: Decision = await this.o.pipeline.process({ exchange: ex, path: this.o.path, seed: t.seed, subagent: this.o.subagent, provisional });
    if (d.offer) d.offer.id = replayOfferId(this.o.salt, this.o.file, d.turn, d.offer.chunkId);
    const cache = publishDecision(this.book, d, { provisional, path: this.o.path, now: t.settledAt, ttlSeconds: this.o.config.daemon.cacheTtlSeconds });
    this.learnLineage(t.settledAt);
    this.turn = d.turn + (provisional ? 0 : 1);
    const promptReason = d.offer?.reason ?? null;
    const row: ReplayRow = {
      session: d.sessionId,
      file: this.o.file,
      channel: 'prompt',
      turn: d.turn,
      step: null,
      tool_use_id: null,
      tool_error: false,
      offset: d.offset,
      driftZ: typeof d.triggerValues.drift_z === 'number' ? d.triggerValues.drift_z : null,
      stallZ: typeof d.triggerValues.stall_z === 'number' ? d.triggerValues.stall_z : null,

      sidechain: d.worker !== null || d.sidechain || this.o.subagent,
      worker: d.worker,
      seed: d.seed,
      provisional,
      trigger: d.trigger,
      silence: d.silence,
      offer: d.offer
        ? {
            type: d.offer.type, confidence: round4(d.offer.confidence), handle: d.offer.handle, region: d.offer.region, chunkId: d.offer.chunkId, wildcard: d.offer.wildcard,
            evidence: {
              rule: d.typeEvidence?.rule ?? null,
              detail: d.typeEvidence?.detail ?? null,
              held_share: d.typeEvidence?.heldShare == null ? null : round4(d.typeEvidence.heldShare),
              restates_share: d.typeEvidence?.restatesShare == null ? null : round4(d.typeEvidence.restatesShare),
              coverage: d.typeEvidence?.coverage == null ? null : round4(d.typeEvidence.coverage),
            },
          }
        : null,
      hook: null,
      sufficiency: d.sufficiency === null ? null : round4(d.sufficiency),
    };
    if (cache) {
      if (this.pending && this.pending.hook === null) this.pending.hook = 'overwritten';
      this.cache = cache;
      this.pending = d.offer ? row : null;
    }
    if (promptReason) this.reasons.set(row, promptReason);
    this.rows.push(row);
    return row;
  }

  /**
   * One tool step: the hook at its result (PostToolUseFailure for a failure Claude Code runs
   * the hook for; PostToolUse for a successful call its matcher takes), before the daemon has
   * read it — Claude Code writes the transcript after the hook —, with the fixes file of the
   * error's signature or the session's tool cache; then the daemon's decision on the step
   * (core/pipeline.ts processToolStep) and the tool cache it writes (core/publish.ts).
   */
  tool(t: TimedStep): ReplayRow {
    const st = t.step;
    const t0 = performance.now();
    // A copied record (resume / fork) is history: no hook ran for it, the daemon only reads it.
    const hook = t.copy ? null : this.toolHook(t);
    const t1 = performance.now();
    const d = this.o.pipeline.processToolStep({ step: st, path: this.o.path, sessionId: st.sessionId ?? this.sessionId(), subagent: this.o.subagent, entrypoint: this.entrypoint, seed: Boolean(t.copy) });
    const t2 = performance.now();
    if (d.offer) this.decided.set(st.step, d.offer.handle);
    const cache = publishToolDecision(d, { now: t.at, ttlSeconds: this.o.config.hook.toolCacheTtlSeconds });
    if (cache) this.toolCache = cache;
    this.learnLineage(t.at);
    // What this step's row shows: the offer the hook considered at the failure (it read the
    // fixes file or an earlier decision's cache), else the daemon's own decision on the step,
    // which the hook can only meet at a later failure with the same error.
    const shown = hook?.offer ? hook : null;
    const offer = shown?.offer ?? (d.offer ? { id: d.offer.id, handle: d.offer.handle, type: d.offer.type, confidence: d.offer.confidence } : null);
    const full = d.offer && offer && d.offer.id === offer.id ? d.offer : null;
    const row: ReplayRow = {
      session: d.sessionId,
      file: this.o.file,
      channel: 'tool',
      turn: this.turn,
      step: st.step,
      tool_use_id: st.toolUseId,
      tool_error: st.isError,
      tool_error_kind: toolErrorKind(st),
      offset: st.endOffset,

      sidechain: d.worker !== null || this.o.subagent,
      worker: d.worker,
      seed: Boolean(t.copy),
      provisional: false,
      trigger: d.trigger,
      silence: offer ? null : d.silence,
      offer: offer
        ? {
            type: offer.type, confidence: round4(offer.confidence), handle: offer.handle, region: full?.region ?? '', chunkId: full?.chunkId ?? chunkIdOf(offer.id), wildcard: false,
            // A fixes file holds exact-signature fixes; the daemon's own decision says its match.
            evidence: { rule: shown && shown.source === 'fixes' ? 'fixes-file-signature' : `signature-${d.match ?? 'loop'}`, detail: d.trigger, held_share: null, restates_share: null },
          }
        : null,
      hook: shown ? shown.reason : offer ? 'not-at-failure' : hook ? hook.reason : null,
      sufficiency: null,
    };
    this.toolTimings.push({ hook: hook ? t1 - t0 : null, decide: t2 - t1 });
    // The reason of the offer the hook showed, as it showed it (its fixes file's or tool cache's,
    // with the cwd advice where it applied), else the daemon's own offer's.
    const reason = (shown ? this.hookReason : null) || full?.reason;
    if (reason) this.reasons.set(row, reason);
    this.rows.push(row);
    return row;
  }

  /** As the daemon after a read batch: the lineage file, when the store's lineage grew. Keyed
   *  like the daemon's tailers: the file's name is the session id (a Codex rollout's name ends
   *  with it: daemon/codex-layout.ts; a Claude Code file's name is it). */
  private learnLineage(now: number): void {
    if (this.o.subagent) return;
    const rec = publishLineage(this.book, sessionIdFromRolloutName(this.o.path), this.o.pipeline.lineageOf(this.o.path), now);
    if (rec) this.lineageCache = rec;
  }

  private sessionId(): string {
    return this.rows[0]?.session ?? this.o.file;
  }

  /** The hook's tool-channel gates at a step's result, with a simulated hook state. */
  private toolHook(t: TimedStep): HookDecision | null {
    const st = t.step;
    const failure = st.isError && !st.toolUseError;
    if (!failure && !(st.isError === false && postToolUseReaches(CLAUDE_EVENT_SET, st.name))) return null;
    const event = failure ? 'PostToolUseFailure' : 'PostToolUse';
    const inWorker = this.o.subagent;
    const payload: Record<string, unknown> = {
      session_id: st.sessionId ?? this.sessionId(),
      transcript_path: this.o.path,
      ...(st.cwd ? { cwd: st.cwd } : {}),
      hook_event_name: event,
      tool_name: st.name,
      // What Claude Code sends as the call's input: a Bash call's command (whole, or as the summary kept it).
      ...(st.name === 'Bash' ? { tool_input: { command: stepCommand(st) } } : {}),
      tool_use_id: st.toolUseId,
      ...(failure ? { error: st.resultText, is_interrupt: false } : { tool_response: { stdout: st.resultText, stderr: '', interrupted: false } }),
      ...(inWorker ? { agent_id: 'subagent' } : {}),
    };
    const pre = prelude(this.preludeInput(payload));
    if (pre.done) return null;
    const signal = sign(payload, event);
    const found = findFixFile(signal, (key) => this.o.fixes?.(key, t.at));
    const fix = found?.file;
    // The hook reads files: JSON round trips, as on disk.
    const d = toolGates({
      sessionId: pre.sessionId,
      mode: pre.mode,
      settings: this.o.settings,
      event,
      cwd: typeof payload.cwd === 'string' ? payload.cwd : null,
      toolUseId: toolUseIdOf(st.toolUseId),
      signal,
      state: this.hookState,
      fixes: fix === undefined ? undefined : (JSON.parse(JSON.stringify(fix)) as unknown),
      fixesKey: found?.key,
      // As the hook reads it: the session ids the replayed file's head names.
      lineage: found ? this.fileLineage(pre.sessionId) : [],
      // As the hook reads it: the daemon's lineage file, a JSON round trip as on disk.
      lineageCache: found && this.lineageCache ? (JSON.parse(JSON.stringify(this.lineageCache)) as unknown) : undefined,
      // As the hook reads it: the file's last bytes before this result (the host writes it after the hook).
      recent: hasPlace(fix) ? transcriptTail(this.o.path, dirname(dirname(this.o.path)), st.startOffset) : '',
      toolCache: fix === undefined && this.toolCache !== undefined ? (JSON.parse(JSON.stringify(this.toolCache)) as unknown) : undefined,
      now: t.at,
      pastDeadline: false,
    });
    this.hookState = nextState(this.hookState, pre.sessionId, d, t.at);
    // The reason the hook printed with its offer: from the fixes file or the tool cache it read.
    const from = fix !== undefined ? (fix as FixFile).fixes.map((f) => f.offer) : this.toolCache?.offer ? [this.toolCache.offer] : [];
    const fileReason = d.offer ? (from.find((o) => o.id === d.offer!.id)?.reason ?? null) : null;
    // As the hook chose it: where the shell was already in the folder, the line says so (shared/fix-choice.ts).
    this.hookReason = fileReason && signal.kind === 'error' && signal.advice && fix !== undefined ? withAdvice(fileReason, signal.advice) : fileReason;
    return d;
  }

  /** The reason of the offer the last toolHook() considered (null: none, or no reason). */
  private hookReason: string | null = null;

  private lineageRead: string[] | null = null;

  /** The sessions the replayed file's head names (hook/inputs.ts transcriptLineage: the hook's
   *  own read, with the file's folder as the root). */
  private fileLineage(own: string): string[] {
    this.lineageRead ??= transcriptLineage(this.o.path, dirname(dirname(this.o.path)), own);
    return this.lineageRead;
  }

  /** End of the recording: an offer still waiting never met a prompt. */
  finish(): ReplayRow[] {
    if (this.pending && this.pending.hook === null) this.pending.hook = 'no-next-prompt';
    this.pending = null;
    return this.rows;
  }

  /** The hook's gates at the submission of `ex`'s prompt. */
  private hook(ex: TimedExchange['exchange']): void {
    const inWorker = this.o.subagent || ex.isSidechain;
    const payload = {
      session_id: ex.sessionId,
      transcript_path: this.o.path,
      ...(ex.cwd ? { cwd: ex.cwd } : {}),
      hook_event_name: 'UserPromptSubmit',
      ...(inWorker ? { agent_id: ex.agentId ?? 'subagent' } : {}),
    };
    const pre = prelude(this.preludeInput(payload));
    if (pre.done) return;
    const now = ex.timestamp;
    // The hook reads the cache file: a JSON round trip, as on disk.
    const cache = this.cache === undefined ? undefined : (JSON.parse(JSON.stringify(this.cache)) as unknown);
    const d = offerGates({
      sessionId: pre.sessionId,
      mode: pre.mode,
      settings: this.o.settings,
      state: this.hookState,
      cache,
      transcript: { status: 'ok', size: ex.startOffset },
      now,
      pastDeadline: false,
    });
    this.hookState = nextState(this.hookState, pre.sessionId, d, now);
    const p = this.pending;
    const cached = this.cache?.offer && d.offer && d.offer.id === this.cache.offer.id ? this.cache.offer : null;
    const last = this.rows.filter((r) => r.channel === 'prompt').at(-1) ?? null;
    this.promptVerdicts.push({
      uuid: ex.uuid,
      at: now,
      reason: d.reason,
      offer: cached ? { handle: cached.handle, chunkId: cached.chunkId, type: cached.type, confidence: round4(cached.confidence) } : null,
      line: d.text ?? null,
      daemon: last ? { silence: last.silence, trigger: last.trigger, handle: last.offer?.handle ?? null } : null,
    });
    if (p?.offer && d.offer && this.cache?.offer && d.offer.id === this.cache.offer.id) {
      p.hook = d.reason;
      if (hookShows(d.reason)) this.pending = null;
    }
  }
}
