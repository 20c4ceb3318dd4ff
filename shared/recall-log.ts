/**
 * Records that a handle was recalled (`active-brain recall`, the MCP server) as one line in
 * <home>/logs/recalls.jsonl: {ts (epoch ms), handle, via}. Ids only, never chunk text. The
 * soak report reads it to tell when an offered handle was later recalled. Append-only
 * (O_APPEND, one write per line, 0600 file in a 0700 dir); a failure to log never fails
 * the recall itself — the caller gets false back.
 */
import { mkdirSync } from 'node:fs';
import { appendNoFollow } from './atomic.js';
import { join } from 'node:path';
import { logsDir } from './paths.js';

export type RecallVia = 'cli' | 'mcp';

export const RECALLS_LOG = 'recalls.jsonl';
/** Handles longer than this are truncated in the log (they come from user input). */
export const MAX_LOGGED_HANDLE = 512;

export interface RecallRecord {
  ts: number;
  handle: string;
  via: RecallVia;
}

export function recallsLogPath(env: NodeJS.ProcessEnv = process.env): string {
  return join(logsDir(env), RECALLS_LOG);
}

/** Append one recall record; returns false (and writes nothing) when the log is unwritable. */
export function logRecall(handle: string, via: RecallVia, env: NodeJS.ProcessEnv = process.env, now = Date.now()): boolean {
  const record: RecallRecord = { ts: now, handle: handle.slice(0, MAX_LOGGED_HANDLE), via };
  try {
    mkdirSync(logsDir(env), { recursive: true, mode: 0o700 });
    appendNoFollow(recallsLogPath(env), JSON.stringify(record) + '\n');
    return true;
  } catch {
    return false;
  }
}
