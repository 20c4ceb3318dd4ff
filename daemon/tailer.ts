/**
 * Transcript tailer: new complete lines of every session file under one root, handed to its
 * consumer (the daemon's daemon/consumer.ts) through typed callbacks (daemon/tail-events.ts).
 *
 * Source: an agent's transcript root, in its layout (daemon/transcript-layout.ts: Claude Code's
 * daemon/claude-layout.ts, Codex CLI's daemon/codex-layout.ts), watched with chokidar (native
 * events unless `daemon.usePolling`) plus a cheap periodic sweep (stat of known files, and a
 * rescan of changed folders for files the watcher never reported: daemon/discovery.ts) for
 * missed events. A missing root is waited for (checked every `rootPollMs`). Each file is read
 * by daemon/tail-read.ts (where to start, seed history, batches, back-pressure), at most
 * `concurrency` at a time.
 *
 * Offsets: the consumer calls `commit(path, offset, state)` once lines before `offset` are
 * processed; only then is the position persisted (daemon/offsets.ts), so a crash re-reads
 * unprocessed lines and never skips. On first sight of a file present at start, the last
 * `seedHistoryBytes` (aligned to a line start) are delivered with `seed: true`; files last
 * written more than `seedMaxAgeMinutes` ago are not read back at all (only new lines).
 * The periodic sweep checks recently active files every time and old ones round-robin.
 */
import { existsSync, type Stats } from 'node:fs';
import { resolve } from 'node:path';
import { watch, type FSWatcher } from 'chokidar';
import type { Host } from '../transcript/host.js';
import { OffsetStore } from './offsets.js';
import { DirectoryDiscovery } from './discovery.js';
import { claudeLayout } from './claude-layout.js';
import { CODEX_LAYOUT } from './codex-layout.js';
import type { TranscriptLayout } from './transcript-layout.js';
import type { TailerEvents } from './tail-events.js';
import { FileReader, newFileState, type FileState, type TailerDaemonConfig } from './tail-read.js';
import { WatchErrorReports } from './watch-errors.js';

export type { TailerDaemonConfig } from './tail-read.js';

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

/** The layout of `host`'s root. */
function layoutOf(host: Host | undefined, watchSubagents: boolean): TranscriptLayout {
  return host === 'codex' ? CODEX_LAYOUT : claudeLayout(watchSubagents);
}

export class Tailer {
  readonly root: string;
  private readonly opts: TailerOptions;
  private readonly store: OffsetStore;
  private readonly layout: TranscriptLayout;
  private readonly reader: FileReader;
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
  private readonly watchErrors = new WatchErrorReports();
  /** Per file, the pending trailing re-read after its last event (TRAILING_RECHECK_MS). */
  private readonly rechecks = new Map<string, NodeJS.Timeout>();
  /** A tick in progress (timer ticks never overlap: a slow one is skipped, not stacked). */
  private ticking: Promise<void> | null = null;

  /** `events`: the consumer's callbacks (any left out are not called). */
  constructor(
    opts: TailerOptions,
    private readonly events: Partial<TailerEvents> = {},
  ) {
    this.opts = opts;
    this.root = resolve(opts.root);
    this.store = new OffsetStore(opts.offsetsPath);
    this.concurrency = opts.concurrency ?? DEFAULT_CONCURRENCY;
    this.layout = layoutOf(opts.host, opts.daemon.watchSubagents);
    this.discovery = new DirectoryDiscovery(this.root, this.layout.rescanFolders);
    this.reader = new FileReader({
      root: this.root,
      daemon: opts.daemon,
      offsets: this.store,
      events,
      current: (f) => !this.closed && this.files.get(f.path) === f,
      gone: (path) => this.onUnlink(path),
      grew: (path) => this.armRecheck(path),
    });
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
    if (this.store.loadProblem) this.events.warning?.(this.store.loadProblem, { path: this.store.path });
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
    this.reader.persist(f);
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
      this.events.warning?.('root-missing', { root: this.root });
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
    const root = this.root;
    const layout = this.layout;
    const w = watch(root, {
      persistent: true,
      ignoreInitial: false,
      usePolling: this.opts.daemon.usePolling,
      depth: layout.watchDepth,
      ignored: (p: string, st?: Stats) => layout.ignored(root, p, st),
      ignorePermissionErrors: true,
      alwaysStat: false,
    });
    this.watcher = w;
    this.ready = false;
    w.on('add', (p: string) => this.onEvent(p));
    w.on('change', (p: string) => this.onEvent(p));
    w.on('unlink', (p: string) => this.onUnlink(p));
    w.on('error', (e: unknown) => {
      const warning = this.watchErrors.report(e);
      if (warning) this.events.warning?.('watch-error', warning);
    });
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
    const c = this.layout.classify(this.root, path);
    if (!c) return;
    if (!this.files.has(path)) this.files.set(path, newFileState(path, c, this.historyScan && !this.ready));
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
    this.reader.save();
    this.events.removed?.(path);
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
          await this.withSlot(() => this.reader.read(f));
        } while (f.again && !this.closed && this.files.get(path) === f);
      } catch (e) {
        this.events.warning?.('tail-error', { path, message: e instanceof Error ? e.message : String(e) });
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
}
