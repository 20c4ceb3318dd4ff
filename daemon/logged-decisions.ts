/**
 * Decisions made again after a crash are not logged again. The consumer (daemon/consumer.ts)
 * saves a file's offset only after the batch's decision records reached the log, so a crash
 * between the two leaves records for exchanges and tool steps that the restarted daemon reads
 * and decides again: the bytes of each transcript past its saved offset when the daemon started
 * (its redo window, from offsets.json / offsets-codex.json and the file's size then). At start,
 * before the log is opened (opening may rotate it), the final decisions of the log's last
 * LOGGED_TAIL_BYTES (the live file, topped up from daemon.jsonl.1) are read back by key —
 * session and exchange uuid, or session and tool_use_id — with whether each would fire.
 *
 * A decision is "logged before" only when it falls in its file's redo window and the log holds
 * one of the same key that fired the same way (each record answers once). Anything else is
 * logged: the first reading of a file, a resumed copy (Claude Code copies the parent's records,
 * session id and uuids included, into the new file) read after the start, a file replaced or
 * truncated since (its window goes), a redo that came out otherwise than before (the store was
 * down then). Its cache is written either way (the hook's repeat gate keeps an offer from showing
 * twice). What it costs: one read of ≤ 1 MiB and a stat per file with a saved offset, at start.
 *
 * Only final decisions count (a provisional one is followed by its final one); a tool step
 * without a tool_use_id has no key. Lines that do not parse (a record torn by the crash) are
 * skipped: that decision is made and logged again.
 */
import { closeSync, constants, fstatSync, openSync, readFileSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_LOG_FILE } from './logs.js';
import { identityOf, sameFile, type OffsetEntry } from './offsets.js';

/** Bytes read from the end of the log: thousands of records, far more than the batches one
 *  crash can leave uncommitted (one read batch per transcript file). */
export const LOGGED_TAIL_BYTES = 1 << 20;

/** The key of an exchange's decision. */
export const exchangeKey = (sessionId: string, exchangeUuid: string) => `x ${sessionId} ${exchangeUuid}`;
/** The key of a tool step's decision (null without a tool_use_id: never matched). */
export const toolStepKey = (sessionId: string, toolUseId: string | null) => (toolUseId ? `t ${sessionId} ${toolUseId}` : null);

/** The key a parsed log line stands for and whether it fired, or null (not a final decision,
 *  or malformed). */
export function loggedKey(rec: unknown): { key: string; fired: boolean } | null {
  if (typeof rec !== 'object' || rec === null) return null;
  const r = rec as Record<string, unknown>;
  if (r.type !== 'decision' || typeof r.sessionId !== 'string') return null;
  const fired = r.would_fire === true;
  if (r.channel === 'tool') return typeof r.tool_use_id === 'string' ? { key: toolStepKey(r.sessionId, r.tool_use_id)!, fired } : null;
  if (r.provisional === true || typeof r.exchangeUuid !== 'string') return null;
  return { key: exchangeKey(r.sessionId, r.exchangeUuid), fired };
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

/** Per key, the would-fire of each final decision in the last `maxBytes` of the log (the live
 *  file, then the newest rotated one for what the live file lacks). Absent, unreadable or not a
 *  regular file: nothing (the log is the daemon's own, but a start never fails on it). */
export function readLoggedDecisions(dir: string, maxBytes = LOGGED_TAIL_BYTES): Map<string, boolean[]> {
  const found = new Map<string, boolean[]>();
  let budget = maxBytes;
  for (const file of [DAEMON_LOG_FILE, `${DAEMON_LOG_FILE}.1`]) {
    if (budget <= 0) break;
    const t = tail(join(dir, file), budget);
    if (!t) continue;
    budget -= Buffer.byteLength(t.text);
    const lines = t.text.split('\n');
    if (!t.whole) lines.shift(); // cut mid-line by the window
    for (const line of lines) {
      if (!line.includes('"decision"')) continue;
      try {
        const got = loggedKey(JSON.parse(line));
        if (got) found.set(got.key, [...(found.get(got.key) ?? []), got.fired]);
      } catch { /* torn by a crash: decided again */ }
    }
    if (!t.whole) break;
  }
  return found;
}

/** Per transcript, the end of its redo window: its size at start when that is past its saved
 *  offset and it is still the file the offset was saved for. Read-only (the tailer loads and
 *  mends the offsets files itself). */
export function redoWindows(offsetsFiles: readonly string[]): Map<string, number> {
  const windows = new Map<string, number>();
  for (const file of offsetsFiles) {
    let files: Record<string, OffsetEntry>;
    try {
      files = (JSON.parse(readFileSync(file, 'utf8')) as { files?: Record<string, OffsetEntry> }).files ?? {};
    } catch {
      continue; // absent or corrupt: every file starts fresh, nothing is redone
    }
    if (typeof files !== 'object' || files === null) continue;
    for (const [path, e] of Object.entries(files)) {
      if (typeof e?.offset !== 'number') continue;
      try {
        const st = statSync(path);
        if (st.isFile() && sameFile(e, identityOf(st)) && st.size > e.offset) windows.set(path, st.size);
      } catch { /* gone */ }
    }
  }
  return windows;
}

/** What the consumer asks of a decision it is about to log. */
export class LoggedBefore {
  constructor(
    private readonly logged: Map<string, boolean[]>,
    private readonly windows: Map<string, number>,
  ) {}

  /** True (once per record) when this decision re-does one the log holds: in its file's redo
   *  window, same key, fired the same way. */
  take(path: string, key: string | null, offset: number, fired: boolean): boolean {
    if (key === null) return false;
    const end = this.windows.get(path);
    if (end === undefined || offset > end) return false;
    const seen = this.logged.get(key);
    const at = seen ? seen.indexOf(fired) : -1;
    if (at < 0) return false;
    seen!.splice(at, 1);
    if (!seen!.length) this.logged.delete(key);
    return true;
  }

  /** The file was truncated or replaced: what is read from it now is new. */
  forget(path: string): void {
    this.windows.delete(path);
  }
}
