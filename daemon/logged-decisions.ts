/**
 * Decisions made again after a crash or a stop are not logged again. The consumer (daemon/consumer.ts)
 * saves a file's offset only after the batch's decision records reached the log, so a crash
 * between the two leaves records for exchanges and tool steps that the restarted daemon reads
 * and decides again: the bytes of each transcript past its saved offset when the daemon started
 * (its redo window, from offsets.json / offsets-codex.json and the file's size then). At start,
 * before the log is opened (opening may rotate it), the final decisions logged since the oldest
 * of those saved offsets (read back from the end of the live file, then daemon.jsonl.1) are
 * counted by key — session and exchange uuid, or session and tool_use_id.
 *
 * A decision is "made before" only when it falls in its file's redo window and the log holds one
 * of the same key (each record answers once): the consumer does not log it again and, after a
 * crash, does not write its cache again either — what was made public before the crash stands,
 * the log and the caches agree, and a redo made with less of the session behind it (the state
 * rebuilt from the saved offset) cannot contradict it. (A clean stop clears the caches: then the
 * redo's cache is written.) Anything else is logged: the first reading of a file, a resumed copy
 * (Claude Code copies the parent's records, session id and uuids included, into the new file)
 * read after the start, a file replaced or truncated since (its window goes).
 *
 * What it costs, at start: a stat per file with a saved offset and, when some file has a window,
 * a read back of the log as far as the oldest of those saves lies back, at most the live file and
 * the newest rotated one (≤ 64 MiB). Most starts have windows: a session that ended mid-turn keeps
 * its open exchange past its saved offset (its tool steps, decided at once, are history after a
 * restart: FileSnapshot.toolsDecidedUntil), so a start usually reads the whole live log and
 * daemon.jsonl.1 — 20 MiB at the default rotation, ~0.5 s on a loaded 2-core machine, once,
 * beside a model load of seconds.
 *
 * Only final decisions count (a provisional one is followed by its final one); a tool step
 * without a tool_use_id has no key. Lines that do not parse (a record torn by the crash) are
 * skipped: that decision is made and logged again.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_LOG_FILE } from './logs.js';
import { identityOf, parseOffsets, sameFile, type OffsetEntry } from './offsets.js';

/** The log is read back from its end in windows of this size, growing ×4, until it reaches a
 *  record older than the oldest saved offset of a file with a redo window (what a crash may have
 *  left unsaved was logged after that save: a catch-up batch of hundreds of exchanges on a loaded
 *  machine is several MiB of records), and never more than LOGGED_MAX_BYTES in all. */
export const LOGGED_FIRST_WINDOW = 1 << 20;
export const LOGGED_MAX_BYTES = 64 << 20;

/** The key of an exchange's decision. */
export const exchangeKey = (sessionId: string, exchangeUuid: string) => `x ${sessionId} ${exchangeUuid}`;
/** The key of a tool step's decision (null without a tool_use_id: never matched). */
export const toolStepKey = (sessionId: string, toolUseId: string | null) => (toolUseId ? `t ${sessionId} ${toolUseId}` : null);

/** The key a parsed log line stands for, or null (not a final decision, or malformed). */
export function loggedKey(rec: unknown): string | null {
  if (typeof rec !== 'object' || rec === null) return null;
  const r = rec as Record<string, unknown>;
  if (r.type !== 'decision' || typeof r.sessionId !== 'string') return null;
  if (r.channel === 'tool') return typeof r.tool_use_id === 'string' ? toolStepKey(r.sessionId, r.tool_use_id) : null;
  if (r.provisional === true || typeof r.exchangeUuid !== 'string') return null;
  return exchangeKey(r.sessionId, r.exchangeUuid);
}

/** The last `maxBytes` of a regular file (not through a symlink, never blocking on a FIFO), and
 *  whether that is the whole file; null when absent or unreadable. */
function tail(path: string, maxBytes: number): { text: string; whole: boolean } | null {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return null;
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return null;
    const n = Math.min(st.size, maxBytes);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const k = readSync(fd, buf, got, n - got, st.size - n + got);
      if (k <= 0) break;
      got += k;
    }
    return { text: buf.subarray(0, got).toString('utf8'), whole: n === st.size };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** Per key, how many final decisions the log holds from `since` (ms) on: read back from the end
 *  of the live file, then of the newest rotated one, until a record older than `since` or
 *  `maxBytes`. Absent, unreadable or not a regular file: none (the log is the daemon's own, but a
 *  start never fails on it). */
export function readLoggedDecisions(dir: string, since: number, maxBytes = LOGGED_MAX_BYTES): Map<string, number> {
  const found = new Map<string, number>();
  let budget = maxBytes;
  for (const file of [DAEMON_LOG_FILE, `${DAEMON_LOG_FILE}.1`]) {
    let reached = false;
    let lines: string[] = [];
    let used = 0;
    for (let window = Math.min(LOGGED_FIRST_WINDOW, budget); window > 0; window = Math.min(window * 4, budget)) {
      const t = tail(join(dir, file), window);
      if (!t) break;
      lines = t.text.split('\n');
      if (!t.whole) lines.shift(); // cut mid-line by the window
      used = Buffer.byteLength(t.text);
      reached = lines.some((l) => {
        const ts = /^\{"type":"\w+","ts":(\d+)/.exec(l) ?? /"ts":(\d+)/.exec(l);
        return ts !== null && Number(ts[1]) < since;
      });
      if (reached || t.whole || window >= budget) break;
    }
    budget -= used;
    for (const line of lines) {
      if (!line.includes('"decision"')) continue;
      try {
        const key = loggedKey(JSON.parse(line));
        if (key) found.set(key, (found.get(key) ?? 0) + 1);
      } catch { /* torn by a crash: decided again */ }
    }
    if (reached || budget <= 0) break;
  }
  return found;
}

/** Per transcript, the end of its redo window: its size at start when that is past its saved
 *  offset and it is still the file the offset was saved for; and the oldest of those saves
 *  (Infinity when no file has a window: nothing to read back). Read-only (the tailer loads and
 *  mends the offsets files itself). */
export function redoWindows(offsetsFiles: readonly string[]): { windows: Map<string, number>; since: number } {
  const windows = new Map<string, number>();
  let since = Infinity;
  for (const file of offsetsFiles) {
    let entries: Map<string, OffsetEntry> | null;
    try {
      entries = parseOffsets(readFileSync(file, 'utf8'));
    } catch {
      continue; // absent
    }
    for (const [path, e] of entries ?? []) { // corrupt: every file starts fresh, nothing is redone
      try {
        const st = statSync(path);
        if (!st.isFile() || !sameFile(e, identityOf(st)) || st.size <= e.offset) continue;
        windows.set(path, st.size);
        since = Math.min(since, typeof e.updatedAt === 'number' ? e.updatedAt : 0);
      } catch { /* gone */ }
    }
  }
  return { windows, since };
}

/** At start: the redo windows, and the decisions logged since the oldest of them began.
 *  `crashed`: the last daemon died without stopping (its lock was recovered). */
export function loggedBefore(logs: string, offsetsFiles: readonly string[], crashed: boolean): LoggedBefore {
  const { windows, since } = redoWindows(offsetsFiles);
  return new LoggedBefore(windows.size ? readLoggedDecisions(logs, since) : new Map(), windows, crashed);
}

/** What the consumer asks of a decision before it makes it public. */
export class LoggedBefore {
  constructor(
    private readonly logged: Map<string, number>,
    private readonly windows: Map<string, number>,
    /** The last daemon died without stopping: the caches it wrote are still there (a clean stop
     *  clears them), so a redo's cache is not written again. */
    readonly crashed = true,
  ) {}

  /** True (once per record) when this decision re-does one the log holds: in its file's redo
   *  window, same key. */
  take(path: string, key: string | null, offset: number): boolean {
    if (key === null) return false;
    const end = this.windows.get(path);
    if (end === undefined || offset > end) return false;
    const n = this.logged.get(key) ?? 0;
    if (n <= 0) return false;
    if (n === 1) this.logged.delete(key);
    else this.logged.set(key, n - 1);
    return true;
  }

  /** The file was truncated or replaced: what is read from it now is new. */
  forget(path: string): void {
    this.windows.delete(path);
  }
}
