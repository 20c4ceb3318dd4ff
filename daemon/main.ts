/**
 * The daemon process (`active-brain start`): one per state dir.
 *
 *   config ─▶ state dir (0700) ─▶ singleton lock ─▶ hook settings ─▶ store (read-only; optional)
 *   ─▶ embedder ─▶ tailer (daemon/tailer.ts) ─▶ per file: records ─▶ ExchangeAssembler
 *   ─▶ exchanges (closed by turn end / next prompt; provisionally decided when the assistant
 *      goes quiet for daemon.settleMs) ─▶ Pipeline (core/pipeline.ts) ─▶ offer cache (daemon/cache-writer.ts)
 *   + decision log (daemon/logs.ts) ─▶ tailer.commit(offset, assembler snapshot)
 *
 * A cycle timer (daemon.cycleMs) rewrites the canary, checks the KILL file (present → clear
 * caches, log, exit 0), the idle exit (daemon.idleExitMinutes) and evicts idle sessions; it
 * also opens the store once it appears, and runs one full GC when the daemon turns quiet after
 * work (daemon/idle-gc.ts). SIGTERM/SIGINT: stop reading, flush the log, release
 * the lock, exit 0. Errors on one file or line are logged with a reason code and skipped.
 * Nothing here logs conversation text: records are built from Decisions (ids and numbers).
 */
import { existsSync, statSync } from 'node:fs';
import { loadConfig } from '../config/load.js';
import { writeHookSettings } from '../config/hook-settings.js';
import { ensureSoakBaseline } from './soak-baseline.js';
import { createDaemonEmbedder, embedderHealth } from '../embed/resilient.js';
import type { Embedder } from '../embed/types.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import { createReasoner } from '../retrieval/reasoner.js';
import type { OfferBuilder } from '../retrieval/types.js';
import { openStoreReader } from '../store/sqlite-store.js';
import { displayLocation, storeLocation, storePresent } from '../store/location.js';
import { isStoreUnreachable } from '../store/pg-sync.js';
import { StoreDownError, StoreGuard } from './store-health.js';
import { isStoreOpenFailure, StoreRetry } from './store-life.js';
import { ownDirFix, tightenOwnDirs } from './own-dirs.js';
import type { StoreReader } from '../store/types.js';
import { ensureDir } from '../shared/atomic.js';
import {
  cacheDir,
  canaryPath,
  fixesDir,
  configPath,
  defaultTranscriptsRoot,
  homeDir,
  killPath,
  logsDir,
  safeSessionId,
  sessionLineagePath,
  offsetsPath,
  codexOffsetsPath,
  defaultCodexSessionsRoot,
} from '../shared/paths.js';
import type { Canary, OfferCache, ToolCache } from '../shared/types.js';
import { parserForFileSync, type LineParser } from '../transcript/host.js';
import { ExchangeAssembler, type AssembledExchange, type AssemblerSnapshot } from '../transcript/exchanges.js';
import { ToolStepTracker, type ToolStep } from '../transcript/tool-steps.js';
import { CacheWriter } from './cache-writer.js';
import { syncFixesFrom } from './fixes-writer.js';
import { publishDecision, publishLineage, publishToolDecision, type PublishBook } from '../core/publish.js';
import { writeCanary } from './canary.js';
import { acquireDaemonLock, AlreadyRunningError, type DaemonLock } from './lock.js';
import { decisionRecord, openJsonlLog, toolDecisionRecord, type EventRecord, type JsonlLog } from './logs.js';
import { Pipeline, STORE_DOWN, type Decision, type ToolDecision } from '../core/pipeline.js';
import type { TailLine, LinesInfo } from './tailer.js';
import { TailerGroup } from './tailer-group.js';
import { runHousekeeping } from './housekeeping.js';
import { IdleCollector } from './idle-gc.js';
import { createRedactor } from '../shared/redact.js';
import { CONFIG_RELOAD_ERROR } from './status.js';
import { DaemonIndexSchedule, lastRecordedRun, spawnIndexRun } from './index-schedule.js';
import { cliPath } from './index-job.js';
import { transcriptsRootState, unreadableRootText } from '../shared/transcripts-root.js';

/** mtime+size of a file, or '' when absent: enough to notice config.json being rewritten. */
function fileStamp(path: string): string {
  try {
    const st = statSync(path);
    return `${st.mtimeMs}:${st.size}`;
  } catch {
    return '';
  }
}

/** Skipped-line events logged per file (then counted silently): binary garbage cannot flood the log. */
export const MAX_SKIP_EVENTS_PER_FILE = 20;
/** Longest error message kept in logs and the canary. */
const MAX_MESSAGE_CHARS = 300;

export interface DaemonOptions {
  /** `key.path=value` config overrides (from --set). */
  flags?: string[];
  env?: NodeJS.ProcessEnv;
  /** Where human-readable start/stop lines go (default stderr). */
  out?: (line: string) => void;
  /** Called once the daemon is observing (its first canary is written). */
  onReady?: (info: { pid: number; root: string; home: string }) => void;
}

interface FileEntry extends PublishBook {
  asm: ExchangeAssembler;
  /** Tool calls of the main lane, joined with their results (the tool channel). */
  tools: ToolStepTracker;
  /** Entry point of the file's records (worker detection for tool steps). */
  entrypoint: string | null;
  sessionId: string;
  subagent: boolean;
  chain: Promise<void>;
  settle: NodeJS.Timeout | null;
  /** `uuid@endOffset` of the last provisional decision (never twice on the same content). */
  lastProvisional: string | null;
  skipped: number;
  /** The file's line parser: Claude Code or Codex CLI (transcript/host.ts). */
  parse: LineParser['line'];
}

/** Error messages may quote what failed (a command line, a JSON snippet of a transcript line):
 *  redacted (shared/redact.ts) before they reach a log, the canary or status, then clipped. */
const MESSAGE_REDACTOR = createRedactor();
const clip = (s: string) => {
  const r = MESSAGE_REDACTOR.redact(s);
  return r.length > MAX_MESSAGE_CHARS ? r.slice(0, MAX_MESSAGE_CHARS) : r;
};
const errMsg = (e: unknown) => clip(e instanceof Error ? e.message : String(e));

/** What the daemon persists beside a committed offset: the assembler's snapshot and the tool
 *  steps numbered before that offset (so step ordinals survive a restart). */
type FileSnapshot = AssemblerSnapshot & { toolSteps?: number };

function isSnapshot(v: unknown): v is FileSnapshot {
  const s = v as AssemblerSnapshot | null;
  return !!s && typeof s === 'object' && typeof s.offset === 'number' && typeof s.nextIndex === 'number' && typeof s.assistantVisible === 'boolean';
}

/** A cheap malformed-line check for lines the parser dropped (unknown types are not "malformed"). */
function looksMalformed(line: string): boolean {
  const t = line.trim();
  if (!t) return false;
  if (!t.startsWith('{') || !t.endsWith('}')) return true;
  try {
    JSON.parse(t);
    return false;
  } catch {
    return true;
  }
}

/** The daemon's store connection keeps SQLite's own default page cache (2000 KiB) instead of
 *  better-sqlite3's 16 MB: the keyword index and matrix are built in one pass over the chunks,
 *  a reaction reads a handful of rows, and the file sits in the OS page cache anyway. With a
 *  10k-chunk store the 16 MB cache filled during that pass and stayed resident (docs/DAEMON.md,
 *  idle memory, fourth pass). */
export const DAEMON_PAGE_CACHE_KIB = 2000;

/** Open the store read-only (watched by `guard`) and check it was built with this embedder's
 *  model. An unreachable server is `store-down` (retried), not `store-unreadable` (a setup error). */
function openStore(path: string, embedder: Embedder, guard: StoreGuard): { store: StoreReader | null; silence: string | null; problem: string | null; error?: unknown } {
  if (!storePresent(path)) return { store: null, silence: 'no-store', problem: null };
  let store: StoreReader;
  try {
    store = guard.wrap(openStoreReader(path, { pageCacheKiB: DAEMON_PAGE_CACHE_KIB }));
  } catch (e) {
    return { store: null, silence: isStoreUnreachable(e) ? STORE_DOWN : 'store-unreadable', problem: errMsg(e), error: e };
  }
  try {
    store.checkModel(embedder.modelId, embedder.dim);
  } catch (e) {
    store.close();
    return { store: null, silence: isStoreUnreachable(e) ? STORE_DOWN : 'store-model-mismatch', problem: errMsg(e), error: e };
  }
  // The keyword index fills in the background (FTS5 answers until then); a failure leaves
  // FTS5 answering, and the same error surfaces at the next search, where it is handled.
  store.warm?.().catch(() => undefined);
  return { store, silence: null, problem: null };
}

/** Run the daemon until it is stopped. Resolves with the process exit code. */
export async function runDaemon(opts: DaemonOptions = {}): Promise<number> {
  const env = opts.env ?? process.env;
  const say = opts.out ?? ((l: string) => process.stderr.write(`active-brain: ${l}\n`));
  const { config } = loadConfig({ env, flags: opts.flags });
  const home = homeDir(env);
  try {
    ensureDir(home);
    // Every folder it owns re-tightened to 0700; one it must not write into refuses the start.
    const own = tightenOwnDirs(env);
    if (own.refused.length) {
      for (const d of own.refused) say(`cannot use ${d.path}: it ${(d.verdict as { refuse: string }).refuse}. Fix: ${ownDirFix(d, env)}.`);
      return 3;
    }
  } catch (e) {
    say(`cannot use the state dir ${home}: ${errMsg(e)}. Set ACTIVE_BRAIN_HOME to a writable folder.`);
    return 3;
  }

  let shutdown: ((code: number, reason: string) => Promise<void>) | null = null;
  let lock: DaemonLock;
  try {
    lock = await acquireDaemonLock(env, (e) => {
      lastError = `lock compromised: ${errMsg(e)}`;
      void shutdown?.(1, 'lock-compromised');
    });
  } catch (e) {
    if (e instanceof AlreadyRunningError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    say(`cannot take the daemon lock in ${home}: ${errMsg(e)}`);
    return 3;
  }

  const pid = process.pid;
  const startedAt = Date.now();
  let lastError: string | null = null;
  const log: JsonlLog = openJsonlLog(logsDir(env), config.logs);
  const event = (e: Omit<EventRecord, 'type' | 'ts' | 'pid'>) => log.write({ type: 'event', ts: Date.now(), pid, ...e, ...(e.message ? { message: clip(e.message) } : {}) });
  const fail = (reason: string, e: unknown, extra: Partial<EventRecord> = {}) => {
    lastError = `${reason}: ${errMsg(e)}`;
    event({ event: 'error', reason, message: errMsg(e), ...extra });
  };
  event({ event: 'start', figures: { cycleMs: config.daemon.cycleMs }, ...(lock.recovered ? { reason: `recovered-${lock.recovered}` } : {}) });

  try {
    writeHookSettings(config, env);
  } catch (e) {
    fail('hook-settings', e);
  }

  // Loading (or first downloading) the model can take a while: a stop asked for meanwhile
  // is honoured right after it, cleanly (stop event, lock released, exit 0).
  let stopDuringLoad: string | null = null;
  const earlyStop = (sig: NodeJS.Signals) => { stopDuringLoad = sig.toLowerCase(); };
  process.once('SIGTERM', earlyStop);
  process.once('SIGINT', earlyStop);
  let embedder: Embedder;
  try {
    embedder = await createDaemonEmbedder(config.embedding, env, { storePath: storeLocation(config, env) });
  } catch (e) {
    process.off('SIGTERM', earlyStop);
    process.off('SIGINT', earlyStop);
    fail('embedder', e);
    say(errMsg(e));
    event({ event: 'stop', reason: 'embedder-failed' });
    await log.close();
    await lock.release();
    return 3;
  }
  process.off('SIGTERM', earlyStop);
  process.off('SIGINT', earlyStop);
  if (stopDuringLoad) {
    event({ event: 'stop', reason: stopDuringLoad });
    await embedder.dispose();
    await log.close();
    await lock.release();
    return 0;
  }

  // ---- store and offer builder (optional: without a store the daemon still watches) ----
  const storePath = storeLocation(config, env);
  // The soak begins with the daemon's first start: remember when, and the store as it was
  // (daemon/soak-baseline.ts; `soak report` proves the daemon never wrote it).
  try {
    ensureSoakBaseline(storePath, env);
  } catch (e) {
    fail('soak-baseline', e, { path: storePath });
  }
  let store: StoreReader | null = null;
  let builder: OfferBuilder | null = null;
  let silenceReason = 'no-store';
  const reasoner = config.reasoner.enabled ? createReasoner(config.reasoner, env) : null;
  let killed = false;
  let stopping = false;
  let cycles = 0;
  let lastActivity = Date.now();
  // ---- the hook's Past fixes: rebuilt from the store's resolved episodes when it changes ----
  // ---- a store whose server can go away (the team store): daemon/store-health.ts ----
  const shownStore = displayLocation(storePath);
  const guard = new StoreGuard(shownStore);
  // ---- a store file that cannot be opened: tried again when it changes (daemon/store-life.ts) ----
  const retry = new StoreRetry(storePath);
  let fixesStamp = '';
  function syncFixes(): void {
    const s = store as StoreReader | null;
    if (!s || killed || stopping) return;
    const t0 = performance.now();
    try {
      // The reader's change stamp (file stamp for SQLite, meta.generation for PostgreSQL).
      const stamp = s.changeStamp();
      if (stamp === fixesStamp) return;
      const r = syncFixesFrom(s, fixesDir(env), stamp);
      // Only a complete rebuild counts: a read that failed is tried again next cycle.
      fixesStamp = stamp;
      if (r.written + r.removed + r.failed > 0) {
        event({ event: 'fixes-synced', reason: 'store-changed', figures: { ...r, signatures: r.keys, ms: Math.round(performance.now() - t0) } });
      }
    } catch (e) {
      if (!isStoreUnreachable(e) && !guard.down) fail('fixes-sync', e, { path: shownStore });
    }
    storeLost();
  }
  /** After a guarded call saw the server go: drop the reader, go silent, reconnect later. */
  function storeLost(): void {
    const s = store as StoreReader | null;
    if (!s || !guard.down) return;
    store = null;
    builder = null;
    silenceReason = STORE_DOWN;
    pipeline.setOfferBuilder(null, STORE_DOWN);
    try { s.close(); } catch { /* the connection is gone already */ }
    const h = guard.snapshot()!;
    lastError = `${STORE_DOWN}: ${h.message}`;
    event({ event: 'store-down', reason: 'connection-lost', path: shownStore, message: clip(h.message ?? ''), figures: { retryInMs: (h.nextRetryAt ?? h.since) - Date.now() } });
  }
  const tryStore = () => {
    const wasDown = guard.down;
    const r = openStore(storePath, embedder, guard);
    if (r.store) {
      store = r.store;
      guard.ok();
      builder = createOfferBuilder({ store: r.store, embedder, config, reasoner });
      pipeline.setOfferBuilder(builder, 'no-store', r.store);
      silenceReason = 'no-store';
      if (retry.opened()) {
        if (isStoreOpenFailure(lastError)) lastError = null;
        event({ event: 'store-reconnected', reason: 'file-changed', path: shownStore });
        say(`the store at ${shownStore} opens again: offers resume`);
      }
      if (wasDown) {
        if (lastError?.startsWith(STORE_DOWN)) lastError = null;
        event({ event: 'store-reconnected', reason: 'reopened', path: shownStore });
      }
      syncFixes();
      return;
    }
    if (r.silence === STORE_DOWN) {
      const first = !guard.down;
      const delay = guard.lost(r.error);
      silenceReason = STORE_DOWN;
      pipeline.setOfferBuilder(null, STORE_DOWN);
      lastError = `${STORE_DOWN}: ${r.problem}`;
      if (first) {
        event({ event: 'store-down', reason: 'unreachable', path: shownStore, message: r.problem ?? '', figures: { retryInMs: delay } });
        say(`${r.problem} — running without retrieval until it answers (retrying with backoff)`);
      }
      return;
    }
    if (guard.down) {
      // Reopening after a loss failed for another reason (e.g. a password changed meanwhile):
      // stay down and keep the backoff, so a lasting setup error costs one attempt a minute.
      const prevMessage = guard.snapshot()?.message;
      guard.lost(r.error ?? r.problem);
      pipeline.setOfferBuilder(null, STORE_DOWN);
      if (r.problem && prevMessage !== r.problem) fail(r.silence ?? 'store-unreadable', r.problem, { path: shownStore });
      return;
    }
    if (r.silence !== silenceReason || r.problem) {
      silenceReason = r.silence ?? 'no-store';
      pipeline.setOfferBuilder(null, silenceReason);
      if (r.problem && retry.failed(r.problem)) {
        fail(silenceReason, r.problem, { path: storePath });
        say(`${r.problem} — running without retrieval (offers silent: ${silenceReason})`);
      }
    }
  };

  const pipeline = new Pipeline({
    embedder,
    offerBuilder: null,
    noBuilderReason: silenceReason,
    config,
    home,
    now: Date.now,
    rng: Math.random,
    storeFaults: () => guard.faults,
  });
  tryStore();
  if (!store && silenceReason === 'no-store') event({ event: 'store-missing', reason: 'no-store', path: storePath });

  const caches = new CacheWriter(cacheDir(env));
  const files = new Map<string, FileEntry>();
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot(env);
  // Claude Code's root and Codex CLI's sessions root, one consumer (daemon/tailer-group.ts).
  const tailer = new TailerGroup([
    { root, offsetsPath: offsetsPath(env), daemon: config.daemon },
    { root: config.codexSessionsRoot ?? defaultCodexSessionsRoot(env), host: 'codex', offsetsPath: codexOffsetsPath(env), daemon: config.daemon },
  ]);

  /** The store was lost while this step read it: whatever it built rests on a partial read.
   *  Silent, no cache (the hook keeps what it had); logged with reason store-down. */
  const discardForStoreLoss = (d: Decision | ToolDecision) => {
    d.offer = null;
    d.silence = STORE_DOWN;
    d.cacheable = false;
    storeLost();
  };
  // ---- per exchange: pipeline → cache (core/publish.ts) → decision log ----
  type Published = { d: Decision; cache: OfferCache | null };
  const decide = async (path: string, f: FileEntry, ex: AssembledExchange, provisional = false): Promise<Published | null> => {
    let d: Decision;
    const faults = guard.faults;
    try {
      d = await pipeline.process({ exchange: ex, path, seed: ex.seed, subagent: f.subagent, provisional });
    } catch (e) {
      // The store went away under this step: silent (the store-down event says why), not an error.
      if (guard.faults !== faults || e instanceof StoreDownError) return storeLost(), null;
      fail('pipeline', e, { sessionId: f.sessionId, path, offset: ex.endOffset });
      return null;
    }
    if (guard.faults !== faults) discardForStoreLoss(d);
    if (d.newSession) event({ event: 'session-new', sessionId: d.sessionId, path });
    const cache = publishDecision(f, d, { provisional, path, now: Date.now(), ttlSeconds: config.daemon.cacheTtlSeconds });
    return { d, cache };
  };
  // ---- per tool step: pipeline → tool cache (core/publish.ts) → decision log ----
  const decideTool = (path: string, f: FileEntry, step: ToolStep, seed: boolean): ToolDecision | null => {
    const faults = guard.faults;
    try {
      const td = pipeline.processToolStep({ step, path, sessionId: f.sessionId, seed, subagent: f.subagent, entrypoint: f.entrypoint });
      if (guard.faults !== faults) discardForStoreLoss(td);
      if (td.newSession) event({ event: 'session-new', sessionId: td.sessionId, path });
      return td;
    } catch (e) {
      if (guard.faults !== faults || e instanceof StoreDownError) return storeLost(), null;
      fail('pipeline-tool', e, { sessionId: f.sessionId, path, offset: step.endOffset });
      return null;
    }
  };
  const publishTool = (d: ToolDecision): Promise<void> => {
    if (killed || stopping) return Promise.resolve();
    const t0 = performance.now();
    const cache: ToolCache | null = publishToolDecision(d, { now: Date.now(), ttlSeconds: config.hook.toolCacheTtlSeconds });
    if (cache && !existsSync(killPath(env))) {
      try {
        caches.writeTool(cache);
        d.latency.cache = Math.round((performance.now() - t0) * 100) / 100;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'error';
        lastError = `cache-write-failed: ${errMsg(e)}`;
        event({ event: 'cache-write-failed', reason: code, sessionId: d.sessionId, message: errMsg(e) });
      }
    }
    return log.write(toolDecisionRecord(d, Date.now()));
  };
  /** The session's lineage as the store told it (resumed / forked copies), for the hook's
   *  Past fix at a failure: written when it grew (core/publish.ts publishLineage). */
  const publishLineageOf = (path: string, f: FileEntry): void => {
    if (killed || stopping || f.subagent || existsSync(killPath(env))) return;
    const lineage = pipeline.lineageOf(path);
    if (!lineage.length) return;
    // Housekeeping removed it (a session older than the retention, still going): write it again.
    if (f.lineagePublished !== undefined && safeSessionId(f.sessionId) && !existsSync(sessionLineagePath(f.sessionId, env))) f.lineagePublished = undefined;
    const rec = publishLineage(f, f.sessionId, lineage, Date.now());
    if (!rec) return;
    try {
      caches.writeLineage(rec);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code ?? 'error';
      // Tried again after the next batch — not a session id that can never be a file name.
      if (code !== 'EUNSAFEID') f.lineagePublished = undefined;
      lastError = `cache-write-failed: ${errMsg(e)}`;
      event({ event: 'cache-write-failed', reason: code, sessionId: f.sessionId, message: errMsg(e) });
    }
  };
  /** Log a decision; write its cache only when asked (the newest decision of a read batch:
   *  during catch-up older exchanges' caches would be overwritten at once anyway). */
  const publish = (path: string, { d, cache }: Published, writeCache: boolean): Promise<void> => {
    if (killed || stopping) return Promise.resolve();
    const t0 = performance.now();
    // The KILL file wins at once, not only at the next cycle: no new cache after it appears.
    if (writeCache && cache && !existsSync(killPath(env))) {
      try {
        caches.write(cache);
        d.latency.cache = Math.round((performance.now() - t0) * 100) / 100;
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code ?? 'error';
        lastError = `cache-write-failed: ${errMsg(e)}`;
        event({ event: 'cache-write-failed', reason: code, sessionId: d.sessionId, message: errMsg(e) });
      }
    }
    return log.write(decisionRecord(d, Date.now()));
  };

  const fileEntry = (path: string, sessionId: string, info: LinesInfo | null): FileEntry => {
    let f = files.get(path);
    if (!f || info?.first) {
      if (f?.settle) clearTimeout(f.settle);
      const resume = info && isSnapshot(info.state) ? info.state : undefined;
      f = {
        asm: new ExchangeAssembler({ sessionId, resume }),
        tools: new ToolStepTracker({ steps: resume?.toolSteps }),
        entrypoint: null,
        sessionId,
        subagent: info?.subagent ?? false,
        chain: f?.chain ?? Promise.resolve(),
        settle: null,
        provisionalOffer: null,
        lastProvisional: null,
        skipped: f?.skipped ?? 0,
        parse: parserForFileSync(path).line,
      };
      files.set(path, f);
    }
    return f;
  };

  const commit = (path: string, f: FileEntry) => {
    try {
      const offset = f.asm.committableOffset;
      const snap: FileSnapshot = { ...f.asm.snapshot(), toolSteps: f.tools.stepsBefore(offset) };
      tailer.commit(path, offset, snap);
    } catch (e) {
      fail('commit', e, { path });
    }
  };

  const scheduleSettle = (path: string, f: FileEntry) => {
    if (f.settle) clearTimeout(f.settle);
    f.settle = null;
    if (!f.asm.settleCandidate) return;
    f.settle = setTimeout(() => {
      f.settle = null;
      f.chain = f.chain.then(async () => {
        if (files.get(path) !== f || !f.asm.settleCandidate) return;
        // The assistant went quiet, but a reply can pause for seconds between blocks with
        // nothing marking its end: decide on a copy of the open exchange for the cache and
        // keep it open; it is recorded when the turn ends or the next prompt arrives.
        const ex = f.asm.peek();
        // Lines that parse to nothing (snapshots, progress) leave the exchange as it was:
        // decide on the same open exchange only once.
        const key = ex ? `${ex.uuid}@${ex.endOffset}` : null;
        if (!ex || key === f.lastProvisional) return;
        f.lastProvisional = key;
        const d = await decide(path, f, ex, true);
        if (d) await publish(path, d, true);
      });
    }, config.daemon.settleMs);
  };

  tailer.on('lines', (path: string, sessionId: string, lines: TailLine[], info: LinesInfo) => {
    if (!info.seed) lastActivity = Date.now();
    const f = fileEntry(path, sessionId, info);
    if (f.settle) clearTimeout(f.settle);
    f.settle = null;
    const run = f.chain.then(async () => {
      let newest: Published | null = null;
      const logged: Promise<void>[] = [];
      for (const l of lines) {
        const rec = f.parse(l.line);
        if (!rec && looksMalformed(l.line)) {
          if (f.skipped++ < MAX_SKIP_EVENTS_PER_FILE) {
            event({ event: 'skipped-line', reason: 'malformed', path, offset: l.startOffset, bytes: l.endOffset - l.startOffset });
          }
        }
        if (rec && rec.entrypoint) f.entrypoint = rec.entrypoint;
        // The tool channel decides at each tool result, at once: the hook may be waiting
        // at the next tool event. Seed history only numbers the steps and fills the loop ring.
        for (const step of f.tools.push(rec, l.startOffset, l.endOffset)) {
          const td = decideTool(path, f, step, info.seed);
          if (td && !td.seed) logged.push(publishTool(td));
        }
        const done = f.asm.push(rec, l.startOffset, l.endOffset, info.seed);
        for (const ex of done) {
          const d = await decide(path, f, ex);
          if (!d) continue;
          if (newest) logged.push(publish(path, newest, false));
          newest = d;
        }
      }
      if (newest) logged.push(publish(path, newest, true));
      publishLineageOf(path, f);
      // Offsets move only once the decisions reached the log file: a crash never leaves an
      // exchange both unlogged and marked as processed (it is redone after the restart).
      await Promise.all(logged);
      // A stop or KILL that began mid-batch skipped logging these decisions: leave the
      // offsets where they were, so the exchanges are decided again after the restart.
      if (stopping || killed) return;
      f.asm.advance(info.endOffset);
      commit(path, f);
      scheduleSettle(path, f);
    });
    f.chain = run.catch((e) => fail('consumer', e, { path }));
    return f.chain;
  });
  tailer.on('skipped', (path: string, reason: string, detail: { startOffset?: number; endOffset?: number; code?: string } = {}) => {
    const f = files.get(path);
    const n = f ? f.skipped++ : 0;
    if (n >= MAX_SKIP_EVENTS_PER_FILE) return;
    event({
      event: 'skipped-line',
      reason: detail.code && reason !== detail.code ? `${reason}:${detail.code}` : reason,
      path,
      ...(detail.startOffset !== undefined ? { offset: detail.startOffset } : {}),
      ...(detail.startOffset !== undefined && detail.endOffset !== undefined ? { bytes: detail.endOffset - detail.startOffset } : {}),
    });
  });
  const dropFile = (path: string) => {
    const f = files.get(path);
    if (f?.settle) clearTimeout(f.settle);
    files.delete(path);
    pipeline.forget(path);
  };
  tailer.on('reset', (path: string, reason: string) => {
    event({ event: 'file-removed', reason: `reset-${reason}`, path });
    dropFile(path);
  });
  tailer.on('removed', (path: string) => {
    event({ event: 'file-removed', reason: 'deleted', path });
    dropFile(path);
  });
  tailer.on('warning', (reason: string, detail: { message?: string; code?: string; path?: string } = {}) => {
    if (reason === 'root-missing') return; // the tailer waits for it; not an error
    lastError = `${reason}${detail.code ? ` ${detail.code}` : ''}`;
    event({ event: 'error', reason, ...(detail.path ? { path: detail.path } : {}), ...(detail.message ? { message: clip(detail.message) } : {}) });
  });

  // ---- the cycle: canary, kill file, idle exit, eviction, late store ----
  const canary = (): Canary => ({
    version: 1,
    pid,
    startedAt,
    cycles,
    lastCycleAt: Date.now(),
    cycleMs: config.daemon.cycleMs,
    sessionsWatched: tailer.watchedSessions,
    killed,
    lastError: log.lastError ?? lastError,
    ...(embedderHealth(embedder) ? { embedder: embedderHealth(embedder) } : {}),
    ...(guard.snapshot() ? { store: guard.snapshot()! } : {}),
    ...(indexSchedule.snapshot() ? { indexSchedule: indexSchedule.snapshot()! } : {}),
  });
  // The scheduled index, when the daemon runs it (indexer.schedule = "daemon": no user
  // service manager runs the timer). A separate `active-brain index` process, one at a time.
  let schedule = { enabled: config.indexer.schedule === 'daemon', intervalMinutes: config.indexer.intervalMinutes };
  const indexSchedule = new DaemonIndexSchedule(
    () => spawnIndexRun(cliPath(), env),
    {
      started: (p) => event({ event: 'index-scheduled', reason: 'started', figures: { pid: p } }),
      ended: (p, code) => event({ event: 'index-scheduled', reason: 'ended', figures: { pid: p, ...(code === null ? {} : { exit: code }) } }),
      failed: (m) => fail('index-schedule', new Error(m)),
    },
    lastRecordedRun(storePath, env),
  );
  // `enable` / `disable` change modes in config.json (and the hook's settings at once): the
  // daemon follows within a cycle, so an `off` mode stops its would-fire logging too. The
  // index schedule (indexer.schedule, intervalMinutes) is followed too: `setup` switches it.
  // Other settings need a restart (said in the event).
  let configStamp = fileStamp(configPath(env));
  const reloadModes = () => {
    const stamp = fileStamp(configPath(env));
    if (stamp === configStamp) return;
    configStamp = stamp;
    try {
      const next = loadConfig({ env, flags: opts.flags }).config;
      pipeline.setModes(next.modes);
      schedule = { enabled: next.indexer.schedule === 'daemon', intervalMinutes: next.indexer.intervalMinutes };
      // The file loads again: an earlier reload error is history.
      if (lastError?.startsWith(CONFIG_RELOAD_ERROR)) lastError = null;
      event({ event: 'config-reloaded', reason: 'modes' });
    } catch (e) {
      fail(CONFIG_RELOAD_ERROR, e);
    }
  };
  // Housekeeping: at the first cycle, then every daemon.housekeepingMinutes.
  let lastHousekeeping = -Infinity;
  const housekeeping = () => {
    if (Date.now() - lastHousekeeping < config.daemon.housekeepingMinutes * 60_000) return;
    lastHousekeeping = Date.now();
    try {
      const r = runHousekeeping({ hookStateRetentionDays: config.daemon.hookStateRetentionDays, cacheTtlSeconds: config.daemon.cacheTtlSeconds }, env);
      if (r.hookStates + r.caches + r.leftovers + r.failed > 0) event({ event: 'housekeeping', reason: 'prune', figures: { ...r } });
    } catch (e) {
      fail('housekeeping', e);
    }
  };
  // One full collection when the daemon turns quiet after work (daemon/idle-gc.ts).
  const idleGc = new IdleCollector();
  const cycle = () => {
    if (stopping) return;
    cycles++;
    if (existsSync(killPath(env))) {
      killed = true;
      // The offer caches go; the fixes stay (they follow the store, not the daemon: the hook's
      // kill gate silences them while the kill file is there).
      const n = caches.clearAll();
      event({ event: 'kill', reason: 'kill-file', figures: { cachesCleared: n } });
      void shutdown!(0, 'kill-file');
      return;
    }
    for (const ev of pipeline.evict()) {
      // The file's assembler stays (small; it keeps exchange numbering); only the state goes.
      event({ event: 'session-evicted', reason: ev.reason, sessionId: ev.sessionId, path: ev.path });
    }
    if (!store && silenceReason === 'no-store' && existsSync(storePath)) tryStore();
    storeLost();
    if (!store && guard.due()) tryStore();
    if (!store && !guard.down && retry.due()) tryStore();
    syncFixes();
    reloadModes();
    housekeeping();
    indexSchedule.tick(schedule);
    idleGc.tick();
    try {
      writeCanary(canaryPath(env), canary());
    } catch (e) {
      lastError = `canary: ${errMsg(e)}`;
    }
    const idleMin = config.daemon.idleExitMinutes;
    if (idleMin > 0 && Date.now() - lastActivity > idleMin * 60_000) {
      event({ event: 'idle-exit', reason: 'idle', figures: { idleMinutes: idleMin } });
      void shutdown!(0, 'idle');
    }
  };

  return new Promise<number>((resolve) => {
    let exitCode: number | null = null;
    let timer: NodeJS.Timeout | null = null;
    const onSignal = (sig: NodeJS.Signals) => void shutdown!(0, sig.toLowerCase());
    const onRejection = (e: unknown) => fail('unhandled', e);
    const onException = (e: unknown) => fail('uncaught', e);
    shutdown = async (code: number, reason: string) => {
      if (stopping) return;
      stopping = true;
      exitCode = code;
      if (timer) clearInterval(timer);
      for (const f of files.values()) if (f.settle) clearTimeout(f.settle);
      try {
        await tailer.close();
        await Promise.allSettled([...files.values()].map((f) => f.chain));
      } catch (e) {
        fail('tailer-close', e);
      }
      // No daemon, no fresh offers: a cache left behind would let the hook print an offer
      // computed turns ago (it stays valid for daemon.cacheTtlSeconds). Clear on every stop.
      // The fixes files stay: they are the store's, kept in step by whoever changes it (the
      // indexer), so the Past fix at a failure needs no daemon.
      const cleared = caches.clearAll();
      try {
        writeCanary(canaryPath(env), { ...canary(), killed });
      } catch { /* best effort */ }
      event({ event: 'stop', reason, figures: { cycles, uptimeMs: Date.now() - startedAt, cachesCleared: cleared } });
      await log.close();
      try { (store as StoreReader | null)?.close(); } catch { /* closing */ }
      try { await embedder.dispose(); } catch { /* closing */ }
      await lock.release();
      process.off('SIGTERM', onSignal);
      process.off('SIGINT', onSignal);
      process.off('unhandledRejection', onRejection);
      process.off('uncaughtException', onException);
      say(`daemon stopped (${reason})`);
      resolve(exitCode);
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
    process.on('unhandledRejection', onRejection);
    process.on('uncaughtException', onException);

    // The first canary is written once the watcher is ready, so a canary means "observing".
    const begin = () => {
      if (stopping) return;
      cycle();
      if (stopping) return;
      timer = setInterval(cycle, config.daemon.cycleMs);
      say(`daemon running (pid ${pid}); watching ${root}; state in ${home}`);
      opts.onReady?.({ pid, root, home });
      const rootState = transcriptsRootState(root);
      if (rootState.state === 'missing') {
        // Watched anyway (Claude Code creates it on first use), but a typo here means silence forever.
        say(`warning: the transcripts root ${root} does not exist yet. If Claude Code writes elsewhere, set ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" in config.json; "active-brain status" shows the root.`);
        event({ event: 'root-missing', reason: 'root-missing', path: root });
      } else if (rootState.state === 'unreadable') {
        // Watched anyway (read once it is allowed), but it sees no session until then.
        say(`warning: ${unreadableRootText(root, rootState.code)}; until then the daemon sees no session.`);
        event({ event: 'error', reason: rootState.code, path: root });
      }
    };
    if (existsSync(killPath(env))) {
      // KILL present at start: a clean exit 0 (no restart loop under a service manager).
      say(`KILL file present (${killPath(env)}): not observing. Remove it with "active-brain unkill".`);
      return cycle();
    }
    tailer.start().then(begin, (e) => {
      fail('tailer-start', e);
      begin();
    });
  });
}

