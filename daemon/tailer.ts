/**
 * Transcript tailer: new complete lines of every session file under the transcript root.
 *
 * Source: Claude Code's transcript root (`<root>/<project>/<session>.jsonl`; subagent files
 * `<root>/<project>/<session>/subagents/*.jsonl` only when `daemon.watchSubagents`), watched
 * with chokidar (native events unless `daemon.usePolling`) plus a cheap periodic sweep (stat
 * of known files, and a rescan of changed folders for files the watcher never reported:
 * daemon/discovery.ts) for missed events. A missing root is waited for (checked every
 * `rootPollMs`). Destination: the consumer (the daemon core) through events:
 *
 *   lines(path, sessionId, lines[{line,startOffset,endOffset}], info{seed, subagent, first,
 *         state, endOffset})   — listeners may return a promise; the tailer awaits it before
 *                                reading further (back-pressure, bounded memory).
 *   skipped(path, reason, detail)   — over-long line, permission denied, unreadable file.
 *   reset(path, reason)             — file truncated or replaced: drop its assembly state.
 *   removed(path)                   — file deleted.
 *   warning(reason, detail)         — offsets not saved, root gone, consumer error.
 *
 * Offsets: the consumer calls `commit(path, offset, state)` once lines before `offset` are
 * processed; only then is the position persisted (daemon/offsets.ts), so a crash re-reads
 * unprocessed lines and never skips. On first sight of a file present at start, the last
 * `seedHistoryBytes` (aligned to a line start) are delivered with `seed: true`; files last
 * written more than `seedMaxAgeMinutes` ago are not read back at all (only new lines).
 * The periodic sweep checks recently active files every time and old ones round-robin.
 */
import { EventEmitter } from 'node:events';
import { constants, existsSync, statSync, type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { basename, relative, resolve, sep } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Config } from '../config/schema.js';
import { scanLines, type LineItem, type ScanState } from '../transcript/lines.js';
import { identityOf, OffsetStore, resumeVerdict, sameFile, type FileIdentity } from './offsets.js';
import { DirectoryDiscovery } from './discovery.js';
import { classifyCodexPath, codexDayFolders, codexIgnored, CODEX_WATCH_DEPTH } from './codex-layout.js';
import type { Host } from '../transcript/host.js';

/** Every transcript open: non-blocking, so a FIFO swapped in after the stat cannot hold a thread. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export type TailLine = LineItem;

export interface LinesInfo {
  /** History read on first sight: build state from it, never offer on it. */
  seed: boolean;
  /** From a subagent file (worker traffic). */
  subagent: boolean;
  /** First delivery for this file (after start, discovery, truncation or replacement). */
  first: boolean;
  /** On `first`: the state committed with the resume offset (undefined when fresh). */
  state: unknown;
  /** Every byte before this offset has now been read (includes skipped lines). */
  endOffset: number;
}

export type LinesListener = (path: string, sessionId: string, lines: TailLine[], info: LinesInfo) => void | Promise<void>;

export type TailerDaemonConfig = Pick<
  Config['daemon'],
  'usePolling' | 'seedHistoryBytes' | 'maxLineBytes' | 'watchSubagents' | 'rootPollMs' | 'readChunkBytes' | 'maxBatchBytes'
> &
  Partial<Pick<Config['daemon'], 'seedMaxAgeMinutes'>>;

export interface TailerOptions {
  root: string;
  /** Which agent writes under `root` (its folder layout): Claude Code (default) or Codex CLI
   *  (`<root>/YYYY/MM/DD/rollout-*.jsonl`, daemon/codex-layout.ts). */
  host?: Host;
  offsetsPath: string;
  daemon: TailerDaemonConfig;
  /** Files read at the same time (bounds memory during catch-up). */
  concurrency?: number;
}

/** Lines per delivered batch at most (besides the byte bound). */
const MAX_BATCH_LINES = 2000;
const DEFAULT_CONCURRENCY = 2;
/** Files that grew within this window are checked on every sweep… */
const HOT_MS = 10 * 60 * 1000;
/** …the others round-robin, this many per sweep (thousands of old sessions stay cheap). */
const COLD_PER_SWEEP = 50;
/** Folder rescans for files the watcher missed (daemon/discovery.ts) run every this many
 *  sweeps: native events are rarely lost, polling loses more (one stat per project folder
 *  each time: ~0.07 ms a folder measured, so thousands of folders stay cheap at this pace). */
const DISCOVERY_EVERY_SWEEPS_NATIVE = 15;
const DISCOVERY_EVERY_SWEEPS_POLLING = 3;
/** After each file event, and after each read that found growth, the file is read once more
 *  this long later (ms; a newer event or read moves it later). chokidar emits at most one
 *  `change` per file per 50 ms (index.js `_throttle(CHANGE, path, 50)`, on top of its 5 ms
 *  raw-event throttle) and drops the rest, so a line appended within 50 ms of the previous
 *  one — a tool_result right after its tool_use, the next step of a fast loop — would
 *  otherwise wait for the safety sweep (`rootPollMs`, 2 s; measured: every other step of the
 *  tool-step bench took 1.9 s). 60 ms = that window plus room for event delivery; the cost is
 *  one stat per burst. Test: tailer.test.ts "…chokidar drops change events…". */
const TRAILING_RECHECK_MS = 60;
/** The same kind of watcher error is reported at most this often (the rest are counted). */
const WATCH_ERROR_REPEAT_MS = 10 * 60 * 1000;

interface FileState {
  path: string;
  sessionId: string;
  subagent: boolean;
  id: FileIdentity | null;
  scan: ScanState;
  seedUntil: number;
  committed: number;
  /** End offset of the last line handed to the consumer. */
  delivered: number;
  state: unknown;
  /** JSON of the last committed state (to skip no-op writes). */
  stateJson: string | undefined;
  first: boolean;
  running: Promise<void> | null;
  again: boolean;
  denied: boolean;
  /** Found by the initial scan (its existing content is history). */
  initial: boolean;
  /** Last time the file was seen to grow or change (ms). */
  lastChangeAt: number;
}

/** Where a path sits in the transcript layout, or null when it is not a transcript. */
export function classifyTranscriptPath(root: string, path: string, watchSubagents: boolean): { sessionId: string; subagent: boolean } | null {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..') || !rel.endsWith('.jsonl')) return null;
  const parts = rel.split(sep);
  if (parts.length === 2) return { sessionId: basename(parts[1], '.jsonl'), subagent: basename(parts[1]).startsWith('agent-') };
  if (parts.length === 4 && parts[2] === 'subagents' && watchSubagents) return { sessionId: parts[1], subagent: true };
  return null;
}

export class Tailer extends EventEmitter {
  readonly root: string;
  private readonly opts: TailerOptions;
  private readonly store: OffsetStore;
  private readonly files = new Map<string, FileState>();
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | null = null;
  private ready = false;
  /** True until the first watcher is ready, and only if the root existed at start: files found
   *  by that scan hold history (seed); a root that appears later holds new sessions. */
  private historyScan = true;
  private closed = false;
  private active = 0;
  private coldCursor = 0;
  private abortReady: (() => void) | null = null;
  private readonly waiting: Array<() => void> = [];
  private readonly concurrency: number;
  private readonly discovery: DirectoryDiscovery;
  private sweeps = 0;
  /** Watcher errors by code: when one was last reported and how many were held back since. */
  private readonly watchErrors = new Map<string, { last: number; held: number }>();
  /** Per file, the pending trailing re-read after its last event (TRAILING_RECHECK_MS). */
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  /** A tick in progress (timer ticks never overlap: a slow one is skipped, not stacked). */
  private ticking: Promise<void> | null = null;

  constructor(opts: TailerOptions) {
    super();
    this.opts = opts;
    this.root = resolve(opts.root);
    this.store = new OffsetStore(opts.offsetsPath);
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.discovery = new DirectoryDiscovery(this.root, opts.host === 'codex' ? codexDayFolders : undefined);
  }

  /** Number of transcript files being tailed. */
  get watchedFiles(): number {
    return this.files.size;
  }
  /** Distinct sessions with a tailed file. */
  get watchedSessions(): number {
    return new Set([...this.files.values()].map((f) => f.sessionId)).size;
  }
  get watching(): boolean {
    return this.watcher !== null;
  }

  /** Load offsets and start watching (or waiting for the root). Resolves once the watcher's
   *  initial scan is done; catch-up reads continue in the background (`idle()` awaits them). */
  async start(): Promise<void> {
    this.store.load();
    if (this.store.loadProblem) this.emit('warning', this.store.loadProblem, { path: this.store.path });
    this.timer = setInterval(() => void this.tick(), this.opts.daemon.rootPollMs);
    this.timer.unref?.();
    if (existsSync(this.root)) await this.startWatcher();
    else this.historyScan = false;
  }

  async close(): Promise<void> {
    this.closed = true;
    this.abortReady?.();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    for (const t of this.rechecks.values()) clearTimeout(t);
    this.rechecks.clear();
    const w = this.watcher;
    this.watcher = null;
    if (w) await w.close();
    await this.idle();
  }

  /** Resolves once no file is being read. */
  async idle(): Promise<void> {
    for (;;) {
      const running = [...this.files.values()].map((f) => f.running).filter((p): p is Promise<void> => p !== null);
      if (running.length === 0) return;
      await Promise.allSettled(running);
    }
  }

  /** The consumer processed every line of `path` before `offset`: persist it (with `state`). */
  commit(path: string, offset: number, state?: unknown): void {
    const f = this.files.get(path);
    if (!f || offset < f.committed) return;
    const to = Math.min(offset, Math.max(f.scan.skippingFrom ?? f.scan.offset, f.delivered));
    const stateJson = state === undefined ? f.stateJson : JSON.stringify(state);
    if (to === f.committed && stateJson === f.stateJson) return; // nothing new: no disk write
    f.committed = to;
    if (state !== undefined) {
      f.state = state;
      f.stateJson = stateJson;
    }
    this.persist(f);
  }

  /** Check every known file for growth, the root for existence and changed folders for missed
   *  files now (the timer does the same, the folder rescan every few sweeps). */
  async sweep(): Promise<void> {
    await this.ticking;
    await this.tick(true);
    await this.idle();
  }

  private tick(discoverNow = false): Promise<void> {
    if (this.ticking) return this.ticking;
    this.ticking = this.tickOnce(discoverNow).finally(() => {
      this.ticking = null;
    });
    return this.ticking;
  }

  private async tickOnce(discoverNow: boolean): Promise<void> {
    if (this.closed) return;
    const rootThere = existsSync(this.root);
    if (!this.watcher) {
      if (rootThere) await this.startWatcher();
      return;
    }
    if (!rootThere) {
      this.emit('warning', 'root-missing', { root: this.root });
      const w = this.watcher;
      this.watcher = null;
      this.ready = false;
      this.abortReady?.();
      await w.close();
      for (const p of [...this.files.keys()]) this.onUnlink(p);
      return;
    }
    const now = Date.now();
    const cold: string[] = [];
    const hotSessions = new Set<string>();
    for (const f of this.files.values()) {
      if (now - f.lastChangeAt <= HOT_MS) {
        this.schedule(f.path);
        if (!f.subagent) hotSessions.add(f.path.slice(0, -'.jsonl'.length));
      } else cold.push(f.path);
    }
    // Files the watcher never reported (a lost `add`): found by rescanning changed folders.
    const every = this.opts.daemon.usePolling ? DISCOVERY_EVERY_SWEEPS_POLLING : DISCOVERY_EVERY_SWEEPS_NATIVE;
    if (this.ready && (this.sweeps++ % every === 0 || discoverNow)) {
      const found = await this.discovery.scan(this.opts.daemon.watchSubagents ? hotSessions : []);
      if (this.closed || !this.ready) return;
      for (const p of found) if (!this.files.has(p) && existsSync(p)) this.onSeen(p);
    }
    if (cold.length) {
      const n = Math.min(COLD_PER_SWEEP, cold.length);
      for (let i = 0; i < n; i++) this.schedule(cold[(this.coldCursor + i) % cold.length]);
      this.coldCursor = (this.coldCursor + n) % cold.length;
    }
  }

  private async startWatcher(): Promise<void> {
    if (this.watcher || this.closed) return;
    const sub = this.opts.daemon.watchSubagents;
    const root = this.root;
    const ignored = (p: string, st?: Stats): boolean => {
      const rel = relative(root, p);
      if (rel === '') return false;
      if (rel.startsWith('..')) return true;
      const parts = rel.split(sep);
      const isFile = st?.isFile() === true;
      const isDir = st?.isDirectory() === true;
      if (parts.length === 1) return isFile; // project folders only
      if (parts.length === 2) return p.endsWith('.jsonl') ? isDir : !sub || isFile; // sessions; session folders
      if (parts.length === 3) return !sub || parts[2] !== 'subagents' || isFile;
      if (parts.length === 4) return !sub || !p.endsWith('.jsonl') || isDir;
      return true;
    };
    const codex = this.opts.host === 'codex';
    const w = watch(root, {
      persistent: true,
      ignoreInitial: false,
      usePolling: this.opts.daemon.usePolling,
      depth: codex ? CODEX_WATCH_DEPTH : sub ? 3 : 1,
      ignored: codex ? (p: string, st?: Stats) => codexIgnored(root, p, st) : ignored,
      ignorePermissionErrors: true,
      alwaysStat: false,
    });
    this.watcher = w;
    this.ready = false;
    w.on('add', (p: string) => this.onEvent(p));
    w.on('change', (p: string) => this.onEvent(p));
    w.on('unlink', (p: string) => this.onUnlink(p));
    w.on('error', (e: unknown) => this.onWatchError(e));
    await new Promise<void>((res) => {
      this.abortReady = res; // close() before the initial scan ends must not hang start()
      w.once('ready', () => res());
    });
    this.abortReady = null;
    if (this.closed || this.watcher !== w) return;
    this.ready = true;
    this.historyScan = false;
    // Files already known from offsets but missed by the scan (e.g. deleted while down) are dropped.
    for (const p of this.store.paths()) {
      if (!this.files.has(p) && !existsSync(p)) this.store.delete(p);
    }
  }

  /**
   * Watcher errors, one warning per kind at most every WATCH_ERROR_REPEAT_MS (with how many
   * were held back): when the inotify watch limit is reached chokidar fails once per file, and
   * thousands of sessions must not flood the log. Files without a watch are still read: the
   * sweep stats known files and rescans changed folders (a lower pace, not a loss).
   */
  private onWatchError(e: unknown): void {
    const code = (e as NodeJS.ErrnoException)?.code ?? 'other';
    const now = Date.now();
    const seen = this.watchErrors.get(code) ?? { last: -Infinity, held: 0 };
    this.watchErrors.set(code, seen);
    if (now - seen.last < WATCH_ERROR_REPEAT_MS) {
      seen.held++;
      return;
    }
    const held = seen.held;
    seen.last = now;
    seen.held = 0;
    const message =
      code === 'ENOSPC'
        ? 'ENOSPC: inotify watch limit reached; unwatched files are still read by the sweep, more slowly. Raise it: sysctl fs.inotify.max_user_watches=524288'
        : code === 'EMFILE'
          ? 'EMFILE: too many open files; unwatched files are still read by the sweep, more slowly. Raise ulimit -n'
          : e instanceof Error ? e.message : String(e);
    this.emit('warning', 'watch-error', { message: `${held > 0 ? `(${held} more since the last report) ` : ''}${message}`, code });
  }

  /** A file event: read now, and once more after the throttle window (TRAILING_RECHECK_MS). */
  private onEvent(path: string): void {
    this.onSeen(path);
    this.armRecheck(path);
  }

  /** Read `path` again TRAILING_RECHECK_MS after now (a later call moves it later). Armed by
   *  every file event and every read that found growth: a write whose event chokidar drops
   *  (throttle, same mtime tick) is then read within the window, not at the next sweep. */
  private armRecheck(path: string): void {
    if (this.closed || !this.files.has(path)) return;
    clearTimeout(this.rechecks.get(path));
    const t = setTimeout(() => {
      this.rechecks.delete(path);
      this.schedule(path);
    }, TRAILING_RECHECK_MS);
    t.unref?.();
    this.rechecks.set(path, t);
  }

  private onSeen(path: string): void {
    if (this.closed) return;
    const c = this.opts.host === 'codex' ? classifyCodexPath(this.root, path) : classifyTranscriptPath(this.root, path, this.opts.daemon.watchSubagents);
    if (!c) return;
    if (!this.files.has(path)) {
      this.files.set(path, {
        path,
        sessionId: c.sessionId,
        subagent: c.subagent,
        id: null,
        scan: { offset: 0, skippingFrom: null },
        seedUntil: 0,
        committed: 0,
        delivered: 0,
        state: undefined,
        stateJson: undefined,
        first: true,
        running: null,
        again: false,
        denied: false,
        initial: this.historyScan && !this.ready,
        lastChangeAt: Date.now(),
      });
    }
    this.files.get(path)!.lastChangeAt = Date.now();
    this.schedule(path);
  }

  private onUnlink(path: string): void {
    clearTimeout(this.rechecks.get(path));
    this.rechecks.delete(path);
    const f = this.files.get(path);
    if (!f) return;
    this.files.delete(path);
    this.store.delete(path);
    this.save();
    this.emit('removed', path);
  }

  private schedule(path: string): void {
    const f = this.files.get(path);
    if (!f || this.closed) return;
    if (f.running) {
      f.again = true;
      return;
    }
    f.running = (async () => {
      try {
        do {
          f.again = false;
          await this.withSlot(() => this.pump(f));
        } while (f.again && !this.closed && this.files.get(path) === f);
      } catch (e) {
        this.emit('warning', 'tail-error', { path, message: e instanceof Error ? e.message : String(e) });
      } finally {
        f.running = null;
      }
    })();
  }

  private async withSlot<T>(fn: () => Promise<T>): Promise<T> {
    while (this.active >= this.concurrency) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }

  /** First sight of a file (or a replaced / truncated one): where to start and what is seed. */
  private async place(f: FileState, st: Stats, initial: boolean): Promise<void> {
    const entry = this.store.get(f.path);
    const id = identityOf(st);
    f.id = id;
    f.first = true;
    if (entry) {
      const verdict = resumeVerdict(entry, { ...id, size: st.size });
      if (verdict === 'resume') {
        f.scan = { offset: entry.offset, skippingFrom: null };
        f.committed = entry.offset;
        f.delivered = entry.offset;
        f.seedUntil = entry.seedUntil;
        f.state = entry.state;
        f.stateJson = entry.state === undefined ? undefined : JSON.stringify(entry.state);
        return;
      }
      this.store.delete(f.path);
      this.emit('reset', f.path, verdict);
      initial = false; // new content: not history
    }
    const h = this.opts.daemon.seedHistoryBytes;
    const maxAgeMs = (this.opts.daemon.seedMaxAgeMinutes ?? 0) * 60_000;
    let start = 0;
    let seedUntil = 0;
    if (initial && maxAgeMs > 0 && Date.now() - st.mtimeMs > maxAgeMs) {
      start = await this.alignToLine(f.path, st.size, st.size); // an old session: only what comes next
      seedUntil = start;
    } else if (st.size > h) {
      start = await this.alignToLine(f.path, st.size - h, st.size);
      seedUntil = st.size;
    } else if (initial) seedUntil = st.size;
    f.scan = { offset: start, skippingFrom: null };
    f.committed = start;
    f.delivered = start;
    f.seedUntil = seedUntil;
    f.state = undefined;
    f.stateJson = undefined;
    this.persist(f);
  }

  /** The first line start at or after `pos` (pos itself when a line starts there). */
  private async alignToLine(path: string, pos: number, size: number): Promise<number> {
    if (pos <= 0) return 0;
    const fh = await open(path, READ_FLAGS);
    try {
      const buf = Buffer.allocUnsafe(this.opts.daemon.readChunkBytes);
      let at = pos - 1;
      while (at < size) {
        const { bytesRead } = await fh.read(buf, 0, Math.min(buf.length, size - at), at);
        if (bytesRead === 0) break;
        const nl = buf.subarray(0, bytesRead).indexOf(0x0a);
        if (nl >= 0) return at + nl + 1;
        at += bytesRead;
      }
      return size;
    } finally {
      await fh.close();
    }
  }

  /** The root's real path, resolved once it exists. */
  private realRoot: string | null = null;

  /** Does `path`'s real path (symlinks resolved) lie under the root's real path? */
  private async insideRoot(path: string): Promise<boolean> {
    try {
      this.realRoot ??= await realpath(this.root);
      const real = await realpath(path);
      return real.startsWith(this.realRoot.endsWith(sep) ? this.realRoot : this.realRoot + sep);
    } catch {
      return false;
    }
  }

  private async pump(f: FileState): Promise<void> {
    if (this.closed || this.files.get(f.path) !== f) return;
    let st: Stats;
    try {
      st = await stat(f.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') this.onUnlink(f.path);
      else this.emit('skipped', f.path, 'unreadable', { code });
      return;
    }
    if (!st.isFile()) return;
    // Only a file whose real path stays under the root's: a symlink out of it (to /etc/shadow,
    // another user's file) is never read.
    if (!(await this.insideRoot(f.path))) {
      if (!f.denied) this.emit('skipped', f.path, 'outside-root', {});
      f.denied = true;
      return;
    }
    if (!f.id) await this.place(f, st, f.initial);
    else if (!sameFile(f.id, identityOf(st))) {
      this.emit('reset', f.path, 'replaced');
      this.store.delete(f.path);
      f.id = null;
      await this.place(f, st, false);
    } else if (st.size < f.scan.offset || st.size < f.committed) {
      this.emit('reset', f.path, 'truncated');
      this.store.delete(f.path);
      f.id = null;
      await this.place(f, st, false);
    }
    if (st.size <= f.scan.offset) return;
    f.lastChangeAt = Date.now();
    this.armRecheck(f.path);

    let fh;
    try {
      fh = await open(f.path, READ_FLAGS);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return this.onUnlink(f.path);
      if (!f.denied) this.emit('skipped', f.path, code === 'EACCES' || code === 'EPERM' ? 'permission-denied' : 'unreadable', { code });
      f.denied = true;
      return;
    }
    f.denied = false;
    try {
      const now = await fh.stat();
      if (!sameFile(identityOf(now), f.id!)) {
        f.again = true; // replaced between stat and open: the next round resets it
        return;
      }
      const limit = now.size;
      const d = this.opts.daemon;
      for await (const batch of scanLines(fh, f.scan, limit, {
        maxLineBytes: d.maxLineBytes,
        chunkBytes: d.readChunkBytes,
        maxBatchBytes: d.maxBatchBytes,
        maxBatchLines: MAX_BATCH_LINES,
        includeUnterminated: false,
      })) {
        if (this.closed || this.files.get(f.path) !== f) return;
        for (const s of batch.skipped) this.emit('skipped', f.path, s.reason, { startOffset: s.startOffset, endOffset: s.endOffset });
        f.scan = batch.state;
        // A line boundary: never inside an over-long line still being skipped.
        const boundary = batch.state.skippingFrom ?? batch.state.offset;
        if (batch.lines.length) await this.deliver(f, batch.lines, boundary);
        else if (f.committed >= f.delivered && boundary > f.committed) {
          // Only skipped / blank bytes and nothing outstanding: the position itself is processed.
          f.delivered = boundary;
          f.committed = boundary;
          this.persist(f);
        }
      }
    } finally {
      await fh.close();
    }
  }

  private async deliver(f: FileState, lines: TailLine[], endOffset: number): Promise<void> {
    const seed = lines.filter((l) => l.endOffset <= f.seedUntil);
    const live = seed.length === lines.length ? [] : lines.slice(seed.length);
    const groups: Array<[TailLine[], boolean]> = [];
    if (seed.length) groups.push([seed, true]);
    if (live.length) groups.push([live, false]);
    for (const [group, isSeed] of groups) {
      const info: LinesInfo = {
        seed: isSeed,
        subagent: f.subagent,
        first: f.first,
        state: f.first ? f.state : undefined,
        endOffset: group === live || !live.length ? endOffset : group[group.length - 1].endOffset,
      };
      f.first = false;
      f.delivered = group[group.length - 1].endOffset;
      for (const l of this.listeners('lines') as LinesListener[]) {
        try {
          await l(f.path, f.sessionId, group, info);
        } catch (e) {
          this.emit('warning', 'consumer-error', { path: f.path, message: e instanceof Error ? e.message : String(e) });
        }
      }
    }
  }

  private persist(f: FileState): void {
    if (!f.id) return;
    let size = 0;
    try {
      size = statSync(f.path).size;
    } catch {
      /* gone: the unlink handler drops it */
    }
    this.store.set(f.path, {
      ...f.id,
      offset: f.committed,
      size,
      seedUntil: f.seedUntil,
      state: f.state,
      updatedAt: Date.now(),
    });
    this.save();
  }

  private save(): void {
    try {
      this.store.save();
    } catch (e) {
      this.emit('warning', 'offsets-not-saved', { code: (e as NodeJS.ErrnoException).code ?? 'unknown' });
    }
  }
}
