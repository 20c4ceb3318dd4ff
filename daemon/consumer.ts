/**
 * The daemon's consumer of transcript lines: the tailer's callbacks (daemon/tail-events.ts).
 *
 *   lines ─▶ per file (daemon/file-entry.ts): records ─▶ tool steps ─▶ Pipeline.processToolStep
 *         │                                          ─▶ exchanges  ─▶ Pipeline.process
 *         └▶ decisions ─▶ caches (core/publish.ts, through daemon/cache-sink.ts)
 *                      ─▶ decision log (daemon/logs.ts) ─▶ commit offset + snapshot (tailer)
 *
 * An exchange is closed by its turn end or the next prompt; when the assistant goes quiet for
 * daemon.settleMs the still-open exchange is decided provisionally (for the cache only).
 * Offsets move only once the batch's decision records reached the log; a decision the log held
 * at start-up (made before a crash or a stop, its offset not saved) is made again but not logged
 * again, nor cached again after a crash (daemon/logged-decisions.ts). Skipped lines, reset
 * and removed files and the tailer's warnings become events (daemon/reporter.ts).
 */
import type { Config } from '../config/schema.js';
import { publishDecision, publishLineage, publishToolDecision } from '../core/publish.js';
import { STORE_DOWN, type Decision, type Pipeline, type ToolDecision } from '../core/pipeline.js';
import type { AssembledExchange } from '../transcript/exchanges.js';
import type { ToolStep } from '../transcript/tool-steps.js';
import { safeSessionId, sessionLineagePath } from '../shared/paths.js';
import { existsSync } from 'node:fs';
import type { OfferCache } from '../shared/types.js';
import { decisionRecord, toolDecisionRecord } from './logs.js';
import { exchangeKey, toolStepKey, type LoggedBefore } from './logged-decisions.js';
import { StoreDownError } from './store-health.js';
import type { StoreLife } from './store-life.js';
import type { CacheSink } from './cache-sink.js';
import { clip, type Reporter } from './reporter.js';
import { halted, type RunState } from './run-state.js';
import { looksMalformed, newFileEntry, snapshotAt, type FileEntry, type FileSnapshot } from './file-entry.js';
import type { LinesInfo, ResetReason, SkipDetail, SkipReason, TailerEvents, TailLine, WarningDetail, WarningReason } from './tail-events.js';

/** Skipped-line events logged per file (then counted silently): binary garbage cannot flood the log. */
export const MAX_SKIP_EVENTS_PER_FILE = 20;

export interface ConsumerDeps {
  config: Config;
  env: NodeJS.ProcessEnv;
  pipeline: Pipeline;
  store: StoreLife;
  sink: CacheSink;
  report: Reporter;
  state: RunState;
  /** Persist a processed offset with its snapshot (the tailer's `commit`). */
  commit: (path: string, offset: number, snapshot: FileSnapshot) => void;
  /** Decisions the log held at start-up (daemon/logged-decisions.ts): one decided again after a
   *  crash or stop, in its file's redo window, is not logged twice. */
  logged?: LoggedBefore;
}

/** A decision with the cache it would write. */
type Published = { d: Decision; cache: OfferCache | null };

export class Consumer implements TailerEvents {
  private readonly files = new Map<string, FileEntry>();

  constructor(private readonly deps: ConsumerDeps) {}

  lines(path: string, sessionId: string, lines: TailLine[], info: LinesInfo): Promise<void> {
    const { state, report } = this.deps;
    if (!info.seed) state.lastActivity = Date.now();
    const f = this.entry(path, sessionId, info);
    if (f.settle) clearTimeout(f.settle);
    f.settle = null;
    const run = f.chain.then(async () => {
      let newest: Published | null = null;
      const logged: Promise<void>[] = [];
      for (const l of lines) {
        const rec = f.parse(l.line);
        if (!rec && looksMalformed(l.line)) {
          if (f.skipped++ < MAX_SKIP_EVENTS_PER_FILE) {
            report.event({ event: 'skipped-line', reason: 'malformed', path, offset: l.startOffset, bytes: l.endOffset - l.startOffset });
          }
        }
        if (rec && rec.entrypoint) f.entrypoint = rec.entrypoint;
        // The tool channel decides at each tool result, at once: the hook may be waiting
        // at the next tool event. Seed history only numbers the steps and fills the loop ring.
        for (const step of f.tools.push(rec, l.startOffset, l.endOffset)) {
          // Decided before the offset this file resumed from was saved (in an exchange still
          // open then): history now, as at first sight.
          const td = this.decideTool(path, f, step, info.seed || step.endOffset <= f.toolsDecidedUntil);
          if (td && !td.seed) {
            logged.push(this.publishTool(path, td));
            f.toolsDecidedUntil = Math.max(f.toolsDecidedUntil, step.endOffset);
          }
        }
        const done = f.asm.push(rec, l.startOffset, l.endOffset, info.seed);
        for (const ex of done) {
          const d = await this.decide(path, f, ex);
          if (!d) continue;
          if (newest) logged.push(this.publish(path, newest, false));
          newest = d;
        }
      }
      if (newest) logged.push(this.publish(path, newest, true));
      this.publishLineageOf(path, f);
      // Offsets move only once the decisions reached the log file: a crash never leaves an
      // exchange both unlogged and marked as processed (it is redone after the restart).
      await Promise.all(logged);
      // A stop or KILL that began mid-batch skipped logging these decisions: leave the
      // offsets where they were, so the exchanges are decided again after the restart.
      if (halted(state)) return;
      f.asm.advance(info.endOffset);
      this.commit(path, f);
      this.scheduleSettle(path, f);
    });
    f.chain = run.catch((e) => report.fail('consumer', e, { path }));
    return f.chain;
  }

  skipped(path: string, reason: SkipReason, detail: SkipDetail = {}): void {
    const f = this.files.get(path);
    const n = f ? f.skipped++ : 0;
    if (n >= MAX_SKIP_EVENTS_PER_FILE) return;
    this.deps.report.event({
      event: 'skipped-line',
      reason: detail.code && reason !== detail.code ? `${reason}:${detail.code}` : reason,
      path,
      ...(detail.startOffset !== undefined ? { offset: detail.startOffset } : {}),
      ...(detail.startOffset !== undefined && detail.endOffset !== undefined ? { bytes: detail.endOffset - detail.startOffset } : {}),
    });
  }

  reset(path: string, reason: ResetReason): void {
    this.deps.report.event({ event: 'file-removed', reason: `reset-${reason}`, path });
    this.drop(path);
  }

  removed(path: string): void {
    this.deps.report.event({ event: 'file-removed', reason: 'deleted', path });
    this.drop(path);
  }

  warning(reason: WarningReason, detail: WarningDetail = {}): void {
    if (reason === 'root-missing') return; // the tailer waits for it; not an error
    this.deps.report.lastError = `${reason}${detail.code ? ` ${detail.code}` : ''}`;
    this.deps.report.event({ event: 'error', reason, ...(detail.path ? { path: detail.path } : {}), ...(detail.message ? { message: clip(detail.message) } : {}) });
  }

  /** At stop: no provisional decision starts any more. */
  cancelSettles(): void {
    for (const f of this.files.values()) if (f.settle) clearTimeout(f.settle);
  }

  /** Resolves once every file's batches in hand are done. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.files.values()].map((f) => f.chain));
  }

  private entry(path: string, sessionId: string, info: LinesInfo): FileEntry {
    let f = this.files.get(path);
    if (!f || info.first) {
      if (f?.settle) clearTimeout(f.settle);
      f = newFileEntry(path, sessionId, info, f);
      this.files.set(path, f);
    }
    return f;
  }

  private drop(path: string): void {
    this.deps.logged?.forget(path);
    const f = this.files.get(path);
    if (f?.settle) clearTimeout(f.settle);
    this.files.delete(path);
    this.deps.pipeline.forget(path);
  }

  private commit(path: string, f: FileEntry): void {
    try {
      const offset = f.asm.committableOffset;
      this.deps.commit(path, offset, snapshotAt(f, offset));
    } catch (e) {
      this.deps.report.fail('commit', e, { path });
    }
  }

  private scheduleSettle(path: string, f: FileEntry): void {
    if (f.settle) clearTimeout(f.settle);
    f.settle = null;
    if (!f.asm.settleCandidate) return;
    f.settle = setTimeout(() => {
      f.settle = null;
      f.chain = f.chain.then(async () => {
        if (this.files.get(path) !== f || !f.asm.settleCandidate) return;
        // The assistant went quiet, but a reply can pause for seconds between blocks with
        // nothing marking its end: decide on a copy of the open exchange for the cache and
        // keep it open; it is recorded when the turn ends or the next prompt arrives.
        const ex = f.asm.peek();
        // Lines that parse to nothing (snapshots, progress) leave the exchange as it was:
        // decide on the same open exchange only once.
        const key = ex ? `${ex.uuid}@${ex.endOffset}` : null;
        if (!ex || key === f.lastProvisional) return;
        f.lastProvisional = key;
        const d = await this.decide(path, f, ex, true);
        if (d) await this.publish(path, d, true);
      });
    }, this.deps.config.daemon.settleMs);
  }

  /** The store was lost while this step read it: whatever it built rests on a partial read.
   *  Silent, no cache (the hook keeps what it had); logged with reason store-down. */
  private discardForStoreLoss(d: Decision | ToolDecision): void {
    d.offer = null;
    d.silence = STORE_DOWN;
    d.cacheable = false;
    this.deps.store.lost();
  }

  /** Per exchange: pipeline → the cache it would write (core/publish.ts). */
  private async decide(path: string, f: FileEntry, ex: AssembledExchange, provisional = false): Promise<Published | null> {
    const { pipeline, store, report, config } = this.deps;
    let d: Decision;
    const faults = store.guard.faults;
    try {
      d = await pipeline.process({ exchange: ex, path, seed: ex.seed, subagent: f.subagent, provisional });
    } catch (e) {
      // The store went away under this step: silent (the store-down event says why), not an error.
      if (store.guard.faults !== faults || e instanceof StoreDownError) return store.lost(), null;
      report.fail('pipeline', e, { sessionId: f.sessionId, path, offset: ex.endOffset });
      return null;
    }
    if (store.guard.faults !== faults) this.discardForStoreLoss(d);
    if (d.newSession) report.event({ event: 'session-new', sessionId: d.sessionId, path });
    const cache = publishDecision(f, d, { provisional, path, now: Date.now(), ttlSeconds: config.daemon.cacheTtlSeconds });
    return { d, cache };
  }

  /** Per tool step: pipeline → ToolDecision. */
  private decideTool(path: string, f: FileEntry, step: ToolStep, seed: boolean): ToolDecision | null {
    const { pipeline, store, report } = this.deps;
    const faults = store.guard.faults;
    try {
      const td = pipeline.processToolStep({ step, path, sessionId: f.sessionId, seed, subagent: f.subagent, entrypoint: f.entrypoint });
      if (store.guard.faults !== faults) this.discardForStoreLoss(td);
      if (td.newSession) report.event({ event: 'session-new', sessionId: td.sessionId, path });
      return td;
    } catch (e) {
      if (store.guard.faults !== faults || e instanceof StoreDownError) return store.lost(), null;
      report.fail('pipeline-tool', e, { sessionId: f.sessionId, path, offset: step.endOffset });
      return null;
    }
  }

  /** A tool decision's cache (core/publish.ts) and its decision record. */
  private publishTool(path: string, d: ToolDecision): Promise<void> {
    if (halted(this.deps.state)) return Promise.resolve();
    const t0 = performance.now();
    const redo = this.deps.logged?.take(path, toolStepKey(d.sessionId, d.toolUseId), d.offset) === true;
    const cache = redo && this.deps.logged!.crashed ? null : publishToolDecision(d, { now: Date.now(), ttlSeconds: this.deps.config.hook.toolCacheTtlSeconds });
    if (cache) this.deps.sink.forDecision(d, t0, (c) => c.writeTool(cache));
    if (redo) return Promise.resolve(); // logged before
    return this.deps.report.log.write(toolDecisionRecord(d, Date.now()));
  }

  /** Log a decision; write its cache only when asked (the newest decision of a read batch:
   *  during catch-up older exchanges' caches would be overwritten at once anyway). */
  private publish(path: string, { d, cache }: Published, writeCache: boolean): Promise<void> {
    if (halted(this.deps.state)) return Promise.resolve();
    const t0 = performance.now();
    const redo = !d.provisional && this.deps.logged?.take(path, exchangeKey(d.sessionId, d.exchangeUuid), d.offset) === true;
    // After a crash what was made public before it stands (its cache was written before its
    // record); a clean stop cleared the caches, so there the redo's cache is written.
    if (writeCache && cache && !(redo && this.deps.logged!.crashed)) this.deps.sink.forDecision(d, t0, (c) => c.write(cache));
    if (redo) return Promise.resolve(); // logged before
    return this.deps.report.log.write(decisionRecord(d, Date.now()));
  }

  /** The session's lineage as the store told it (resumed / forked copies), for the hook's
   *  Past fix at a failure: written when it grew (core/publish.ts publishLineage). */
  private publishLineageOf(path: string, f: FileEntry): void {
    const { state, sink, pipeline, env } = this.deps;
    if (halted(state) || f.subagent || sink.killFilePresent()) return;
    const lineage = pipeline.lineageOf(path);
    if (!lineage.length) return;
    // Housekeeping removed it (a session older than the retention, still going): write it again.
    if (f.lineagePublished !== undefined && safeSessionId(f.sessionId) && !existsSync(sessionLineagePath(f.sessionId, env))) f.lineagePublished = undefined;
    const rec = publishLineage(f, f.sessionId, lineage, Date.now());
    if (!rec) return;
    const failed = sink.write(f.sessionId, (c) => c.writeLineage(rec));
    // Tried again after the next batch — not a session id that can never be a file name.
    if (failed !== null && failed !== 'EUNSAFEID') f.lineagePublished = undefined;
  }
}
