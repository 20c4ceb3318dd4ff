/**
 * The index-run log, `<home>/logs/index.jsonl` (logs-schema/index-run.schema.json): every
 * `active-brain index` — by hand, by `setup` or by the schedule — appends an `index-start`
 * record once it holds the indexer lock (with the store's fingerprint before it writes) and an
 * `index-run` record when it ends (result, exit code, counts, fingerprint after). A run that
 * could not take the lock appends one `index-run` with result `busy` and no fingerprints.
 * SIGTERM / SIGINT during a run end it as `interrupted`, recorded, so a service manager
 * stopping it leaves an honest trail.
 *
 * Read by `soak report` (ops/store-writes.ts: which store changes are the indexer's) and by
 * `service status` / `setup` (the last run, its age and result). Records hold paths, counts,
 * hashes and the CLI's own error messages, never document text.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendNoFollow, ensureDir } from '../shared/atomic.js';
import { logsDir } from '../shared/paths.js';
import { oneLog, readJsonlFiles } from './jsonl-read.js';
import { storeFingerprint } from './store-fingerprint.js';
import { indexPidPath } from '../indexer/lock.js';

export const INDEX_LOG = 'index.jsonl';
export const indexLogPath = (env: NodeJS.ProcessEnv = process.env) => join(logsDir(env), INDEX_LOG);

/** ok · failed (some documents could not be embedded or stored) · error (the run stopped on an
 *  error) · busy (another indexer held the lock: nothing written) · interrupted (a signal). */
export const INDEX_RUN_RESULTS = ['ok', 'failed', 'error', 'busy', 'interrupted'] as const;
export type IndexRunResult = (typeof INDEX_RUN_RESULTS)[number];

/** Error messages kept in a record (they name paths and what to do; never document text). */
const MESSAGE_CHARS = 500;
/** Signals that end a run as `interrupted` (exit code 128 + signal number). */
const STOP_SIGNALS = { SIGINT: 2, SIGTERM: 15 } as const;

export interface IndexStartRecord {
  ts: number;
  event: 'index-start';
  run: string;
  pid: number;
  store: string;
  before_sha256: string | null;
  before_bytes: number;
}

export interface IndexRunCounts {
  sources: number;
  files_seen: number;
  indexed: number;
  unchanged: number;
  removed: number;
  /** Files skipped for any reason (the run's summary has them by reason). */
  skipped: number;
  chunks_added: number;
  seconds: number;
}

/**
 * A finished run (`ts` = when it ended). Records written before runs were paired carry only
 * ts, event, pid, store, sha256, bytes, indexed and removed; a `busy` run has no fingerprints.
 */
export interface IndexRunRecord extends Partial<IndexRunCounts> {
  ts: number;
  event: 'index-run';
  run?: string;
  pid: number;
  store: string;
  started?: number;
  result?: IndexRunResult;
  exit?: number;
  message?: string;
  before_sha256?: string | null;
  sha256?: string | null;
  bytes?: number;
}

export type IndexLogRecord = IndexStartRecord | IndexRunRecord;

export interface RunOutcome {
  result: Exclude<IndexRunResult, 'busy'>;
  exit: number;
  message?: string;
  counts?: IndexRunCounts;
}

export interface IndexRunHandle {
  readonly run: string;
  /** Record the end (fingerprint after); uninstalls the signal handlers. Idempotent. */
  finish(outcome: RunOutcome): void;
}

type Warn = (message: string) => void;
const stderrWarn: Warn = (m) => process.stderr.write(`active-brain: ${m}\n`);

function append(rec: IndexLogRecord, env: NodeJS.ProcessEnv, warn: Warn): void {
  try {
    ensureDir(logsDir(env));
    appendNoFollow(indexLogPath(env), JSON.stringify(rec) + '\n');
  } catch (e) {
    warn(`could not record the index run in ${indexLogPath(env)}: ${(e as Error).message}`);
  }
}

const clip = (s: string) => (s.length > MESSAGE_CHARS ? s.slice(0, MESSAGE_CHARS - 1) + '…' : s);

/**
 * Call once the indexer lock is held, before the store is opened for writing. `onSignal`
 * runs first when SIGTERM/SIGINT arrives (close the store: better-sqlite3 is synchronous, so
 * no transaction is open then); the run is then recorded and the process exits 128+n.
 */
export function startIndexRun(
  storePath: string,
  opts: { env?: NodeJS.ProcessEnv; onSignal?: () => void; warn?: Warn; now?: () => number } = {},
): IndexRunHandle {
  const env = opts.env ?? process.env;
  const warn = opts.warn ?? stderrWarn;
  const now = opts.now ?? Date.now;
  const started = now();
  const run = `${process.pid}-${started}`;
  const before = storeFingerprint(storePath);
  append({ ts: started, event: 'index-start', run, pid: process.pid, store: storePath, before_sha256: before.sha256, before_bytes: before.bytes }, env, warn);

  let done = false;
  const handlers: Array<[NodeJS.Signals, () => void]> = [];
  const finish = (o: RunOutcome) => {
    if (done) return;
    done = true;
    for (const [sig, h] of handlers) process.off(sig, h);
    const after = storeFingerprint(storePath);
    const rec: IndexRunRecord = {
      ts: now(), event: 'index-run', run, pid: process.pid, store: storePath, started,
      result: o.result, exit: o.exit, ...(o.message ? { message: clip(o.message) } : {}), ...o.counts,
      before_sha256: before.sha256, sha256: after.sha256, bytes: after.bytes,
    };
    append(rec, env, warn);
  };
  for (const [sig, n] of Object.entries(STOP_SIGNALS) as Array<[NodeJS.Signals, number]>) {
    const h = () => {
      try {
        opts.onSignal?.();
      } finally {
        finish({ result: 'interrupted', exit: 128 + n, message: `stopped by ${sig}` });
        process.exit(128 + n);
      }
    };
    handlers.push([sig, h]);
    process.on(sig, h);
  }
  return { run, finish };
}

/** A run that never got the lock: nothing was written, say why. */
export function recordBusyRun(storePath: string, message: string, opts: { env?: NodeJS.ProcessEnv; warn?: Warn; exit: number }): void {
  const t = Date.now();
  append({ ts: t, event: 'index-run', pid: process.pid, store: storePath, started: t, result: 'busy', exit: opts.exit, message: clip(message) }, opts.env ?? process.env, opts.warn ?? stderrWarn);
}

/** Every record of the index-run log (a torn or foreign line is skipped), oldest first. */
export function readIndexLog(env: NodeJS.ProcessEnv = process.env, sinceMs = 0): IndexLogRecord[] {
  return readJsonlFiles<IndexLogRecord>(oneLog(indexLogPath(env)), sinceMs).records.filter(
    (r) => (r.event === 'index-start' || r.event === 'index-run') && typeof r.ts === 'number' && typeof r.store === 'string',
  );
}

export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Is `pid` the indexer running now? Its pid must be the lock holder's (indexer.pid) and alive,
 * so a reused pid of a run that was killed long ago does not count.
 */
export function indexerRunning(pid: number, env: NodeJS.ProcessEnv = process.env): boolean {
  let holder: number;
  try {
    holder = Number.parseInt(readFileSync(indexPidPath(env), 'utf8').trim(), 10);
  } catch {
    return false;
  }
  return holder === pid && pidAlive(pid);
}

export interface LastIndexRun {
  /** The last finished run, or null when none was recorded. */
  last: (IndexRunRecord & { age_s: number }) | null;
  /** A run that started after it and has not ended: its pid is alive (running) or not (unfinished). */
  pending: { run: string; pid: number; started: number; age_s: number; state: 'running' | 'unfinished' } | null;
}

/** The last index run on `storePath` and whether one is under way. Pure but for the liveness probe. */
export function lastIndexRun(records: IndexLogRecord[], storePath: string, now = Date.now(), alive: (pid: number) => boolean = pidAlive): LastIndexRun {
  const mine = records.filter((r) => r.store === storePath);
  const ended = new Set(mine.filter((r): r is IndexRunRecord => r.event === 'index-run' && !!r.run).map((r) => r.run));
  const lastEnd = [...mine].reverse().find((r): r is IndexRunRecord => r.event === 'index-run') ?? null;
  // A busy run may end while the run that made it busy is still going: compare with runs that held the lock.
  const lastHeld = [...mine].reverse().find((r): r is IndexRunRecord => r.event === 'index-run' && r.result !== 'busy') ?? null;
  const lastStart = [...mine].reverse().find((r): r is IndexStartRecord => r.event === 'index-start' && !ended.has(r.run)) ?? null;
  const ageS = (ts: number) => Math.max(0, Math.round((now - ts) / 100) / 10);
  const pending = lastStart && (!lastHeld || lastStart.ts >= (lastHeld.started ?? lastHeld.ts))
    ? { run: lastStart.run, pid: lastStart.pid, started: lastStart.ts, age_s: ageS(lastStart.ts), state: alive(lastStart.pid) ? 'running' as const : 'unfinished' as const }
    : null;
  return { last: lastEnd ? { ...lastEnd, age_s: ageS(lastEnd.ts) } : null, pending };
}

/** `ok 3.2 min ago (indexed 2, unchanged 998, removed 0; 0.41 s)` — for status lines. */
export function describeLastRun(l: LastIndexRun): string {
  const age = (s: number) => (s < 90 ? `${Math.round(s)} s` : s < 5400 ? `${(s / 60).toFixed(1)} min` : `${(s / 3600).toFixed(1)} h`);
  const parts: string[] = [];
  if (l.last) {
    const r = l.last;
    const counts = r.indexed !== undefined
      ? ` (indexed ${r.indexed}${r.unchanged !== undefined ? `, unchanged ${r.unchanged}` : ''}, removed ${r.removed ?? 0}${r.seconds !== undefined ? `; ${r.seconds} s` : ''})`
      : '';
    parts.push(`${r.result ?? 'ok'} ${age(r.age_s)} ago${r.exit !== undefined ? `, exit ${r.exit}` : ''}${r.result === 'busy' ? '' : counts}${r.message ? ` — ${r.message}` : ''}`);
  } else parts.push('none recorded yet');
  if (l.pending) parts.push(l.pending.state === 'running' ? `a run (pid ${l.pending.pid}) is in progress for ${age(l.pending.age_s)}` : `a run (pid ${l.pending.pid}) started ${age(l.pending.age_s)} ago never finished`);
  return parts.join('; ');
}
