/**
 * The decisions the daemon log already holds, read back at start-up from the tail of
 * <logs>/daemon.jsonl. The consumer (daemon/consumer.ts) saves a file's offset only after the
 * batch's decision records reached the log, so a crash between the two leaves records whose
 * exchanges or tool steps are decided again after the restart. Those second decisions are not
 * logged again: each exchange and tool call counts once in what the log feeds (would-fire
 * rates, `soak report`, `label`). Their caches are written as before (the hook's repeat gate
 * keeps an offer from showing twice).
 *
 * Only final decisions count (a provisional one is followed by its final one); a tool step
 * without a tool_use_id has no key. Lines that do not parse (a record torn by the crash) are
 * skipped: that decision is made and logged again.
 */
import { closeSync, constants, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { DAEMON_LOG_FILE } from './logs.js';

/** Bytes read from the end of the log: thousands of records, far more than the batches one
 *  crash can leave uncommitted (one read batch per transcript file). */
export const LOGGED_TAIL_BYTES = 1 << 20;

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

/** Keys of the final decisions in the last `maxBytes` of the live log (none when it is absent,
 *  unreadable or not a regular file: the log is the daemon's own, but a start never fails on it). */
export function readLoggedDecisions(dir: string, maxBytes = LOGGED_TAIL_BYTES): Set<string> {
  const keys = new Set<string>();
  let fd: number;
  try {
    fd = openSync(join(dir, DAEMON_LOG_FILE), constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return keys;
  }
  let text: string;
  let fromStart: boolean;
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return keys;
    const n = Math.min(st.size, maxBytes);
    const buf = Buffer.alloc(n);
    let got = 0;
    while (got < n) {
      const k = readSync(fd, buf, got, n - got, st.size - n + got);
      if (k <= 0) break;
      got += k;
    }
    text = buf.subarray(0, got).toString('utf8');
    fromStart = n === st.size;
  } catch {
    return keys;
  } finally {
    closeSync(fd);
  }
  const lines = text.split('\n');
  if (!fromStart) lines.shift(); // cut mid-line by the window
  for (const line of lines) {
    if (!line.includes('"decision"')) continue;
    try {
      const key = loggedKey(JSON.parse(line));
      if (key) keys.add(key);
    } catch { /* torn by a crash: decided again */ }
  }
  return keys;
}
