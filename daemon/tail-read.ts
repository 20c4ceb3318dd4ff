/**
 * Reading one transcript file for the tailer (daemon/tailer.ts decides when; this decides
 * where from and what): on first sight, where to start (the committed offset from
 * daemon/offsets.ts when the file is the same one; else the last `seedHistoryBytes`, aligned
 * to a line start, delivered as seed; nothing of a file last written more than
 * `seedMaxAgeMinutes` ago), a truncated or replaced file started over, then new complete lines
 * read in batches (transcript/lines.ts) and handed to the consumer's `lines` callback, awaited
 * (back-pressure). Offsets are persisted when the consumer commits (and for bytes that hold no
 * line). Only regular files whose real path stays under the root's are read; every open is
 * non-blocking (a FIFO swapped in after the stat cannot hold a thread).
 */
import { constants, statSync, type Stats } from 'node:fs';
import { open, realpath, stat } from 'node:fs/promises';
import { sep } from 'node:path';
import type { Config } from '../config/schema.js';
import { scanLines, type ScanState } from '../transcript/lines.js';
import { identityOf, resumeVerdict, sameFile, type FileIdentity, type OffsetStore } from './offsets.js';
import type { LinesInfo, TailerEvents, TailLine } from './tail-events.js';

/** Every transcript open: non-blocking, so a FIFO swapped in after the stat cannot hold a thread. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);
/** Lines per delivered batch at most (besides the byte bound). */
const MAX_BATCH_LINES = 2000;

export type TailerDaemonConfig = Pick<
  Config['daemon'],
  'usePolling' | 'seedHistoryBytes' | 'maxLineBytes' | 'watchSubagents' | 'rootPollMs' | 'readChunkBytes' | 'maxBatchBytes'
> &
  Partial<Pick<Config['daemon'], 'seedMaxAgeMinutes'>>;

/** One tailed file. */
export interface FileState {
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

/** A file just seen, not yet placed (its start is decided at its first read). */
export function newFileState(path: string, session: { sessionId: string; subagent: boolean }, initial: boolean): FileState {
  return {
    path,
    sessionId: session.sessionId,
    subagent: session.subagent,
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
    initial,
    lastChangeAt: Date.now(),
  };
}

/** What reading needs from the tailer. */
export interface ReadContext {
  /** The root, resolved. */
  root: string;
  daemon: TailerDaemonConfig;
  offsets: OffsetStore;
  events: Partial<TailerEvents>;
  /** Is `f` still the tailer's live state for its path (tailer open, file not dropped)? */
  current(f: FileState): boolean;
  /** The file is gone: drop it. */
  gone(path: string): void;
  /** The file grew: read it once more shortly (the tailer's trailing re-check). */
  grew(path: string): void;
}

export class FileReader {
  /** The root's real path, resolved once it exists. */
  private realRoot: string | null = null;

  constructor(private readonly ctx: ReadContext) {}

  /** Read what is new in `f` and hand it to the consumer. */
  async read(f: FileState): Promise<void> {
    const { ctx } = this;
    if (!ctx.current(f)) return;
    let st: Stats;
    try {
      st = await stat(f.path);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') ctx.gone(f.path);
      else ctx.events.skipped?.(f.path, 'unreadable', { code });
      return;
    }
    if (!st.isFile()) return;
    // Only a file whose real path stays under the root's: a symlink out of it (to /etc/shadow,
    // another user's file) is never read.
    if (!(await this.insideRoot(f.path))) {
      if (!f.denied) ctx.events.skipped?.(f.path, 'outside-root', {});
      f.denied = true;
      return;
    }
    if (!f.id) await this.place(f, st, f.initial);
    else if (!sameFile(f.id, identityOf(st))) {
      ctx.events.reset?.(f.path, 'replaced');
      ctx.offsets.delete(f.path);
      f.id = null;
      await this.place(f, st, false);
    } else if (st.size < f.scan.offset || st.size < f.committed) {
      ctx.events.reset?.(f.path, 'truncated');
      ctx.offsets.delete(f.path);
      f.id = null;
      await this.place(f, st, false);
    }
    if (st.size <= f.scan.offset) return;
    f.lastChangeAt = Date.now();
    ctx.grew(f.path);

    let fh;
    try {
      fh = await open(f.path, READ_FLAGS);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return ctx.gone(f.path);
      if (!f.denied) ctx.events.skipped?.(f.path, code === 'EACCES' || code === 'EPERM' ? 'permission-denied' : 'unreadable', { code });
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
      const d = ctx.daemon;
      for await (const batch of scanLines(fh, f.scan, limit, {
        maxLineBytes: d.maxLineBytes,
        chunkBytes: d.readChunkBytes,
        maxBatchBytes: d.maxBatchBytes,
        maxBatchLines: MAX_BATCH_LINES,
        includeUnterminated: false,
      })) {
        if (!ctx.current(f)) return;
        for (const s of batch.skipped) ctx.events.skipped?.(f.path, s.reason, { startOffset: s.startOffset, endOffset: s.endOffset });
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

  /** Record `f`'s committed position (and state) in the offsets file. */
  persist(f: FileState): void {
    if (!f.id) return;
    let size = 0;
    try {
      size = statSync(f.path).size;
    } catch {
      /* gone: the unlink handler drops it */
    }
    this.ctx.offsets.set(f.path, {
      ...f.id,
      offset: f.committed,
      size,
      seedUntil: f.seedUntil,
      state: f.state,
      updatedAt: Date.now(),
    });
    this.save();
  }

  /** Write the offsets file; a failure is a warning (`offsets-not-saved`), not an error. */
  save(): void {
    try {
      this.ctx.offsets.save();
    } catch (e) {
      this.ctx.events.warning?.('offsets-not-saved', { code: (e as NodeJS.ErrnoException).code ?? 'unknown' });
    }
  }

  /** First sight of a file (or a replaced / truncated one): where to start and what is seed. */
  private async place(f: FileState, st: Stats, initial: boolean): Promise<void> {
    const { offsets, daemon } = this.ctx;
    const entry = offsets.get(f.path);
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
      offsets.delete(f.path);
      this.ctx.events.reset?.(f.path, verdict);
      initial = false; // new content: not history
    }
    const h = daemon.seedHistoryBytes;
    const maxAgeMs = (daemon.seedMaxAgeMinutes ?? 0) * 60_000;
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
      const buf = Buffer.allocUnsafe(this.ctx.daemon.readChunkBytes);
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

  /** Does `path`'s real path (symlinks resolved) lie under the root's real path? */
  private async insideRoot(path: string): Promise<boolean> {
    try {
      this.realRoot ??= await realpath(this.ctx.root);
      const real = await realpath(path);
      return real.startsWith(this.realRoot.endsWith(sep) ? this.realRoot : this.realRoot + sep);
    } catch {
      return false;
    }
  }

  /** Hand new lines to the consumer: seed lines and live lines in separate batches. */
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
      try {
        await this.ctx.events.lines?.(f.path, f.sessionId, group, info);
      } catch (e) {
        this.ctx.events.warning?.('consumer-error', { path: f.path, message: e instanceof Error ? e.message : String(e) });
      }
    }
  }
}
