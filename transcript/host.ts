/**
 * Which coding agent wrote a transcript file, and the line parser for it: the one place the
 * choice is made (daemon/file-entry.ts, eval/replay-read.ts, indexer/transcript-file.ts ask here).
 *
 *   Codex CLI    a `rollout-*.jsonl` under a `…/YYYY/MM/DD/` tree, or a file whose first
 *                record is `session_meta` → transcript/codex-records.ts (one parser per file:
 *                it remembers the session id and cwd)
 *   Claude Code  everything else → transcript/records.ts (stateless)
 * Pure, except parserForFile / parserForFileSync, which read the file's first line (at most
 * FIRST_LINE_BYTES): the daemon reads a file from an offset (seed history, a resume), where
 * the session_meta line is not among the lines it parses, so its parser is primed with it.
 */
import { closeSync, openSync, readSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { basename } from 'node:path';
import { parseLine, parseValue, type ParsedRecord } from './records.js';
import { CodexRecordParser, sessionIdFromRolloutName } from './codex-records.js';

export const HOSTS = ['claude-code', 'codex'] as const;
export type Host = (typeof HOSTS)[number];

export interface LineParser {
  host: Host;
  /** The session id the file name gives (Codex: the rollout's uuid; Claude Code: the name). */
  fileSessionId: string;
  line(line: string): ParsedRecord | null;
  value(value: unknown): ParsedRecord | null;
}

const DAY_TREE_RE = /(^|[\\/])\d{4}[\\/]\d{2}[\\/]\d{2}[\\/]rollout-[^\\/]*\.jsonl$/;

/** True when the first line is a Codex `session_meta` record. */
function firstIsSessionMeta(firstLine: string | null | undefined): boolean {
  if (!firstLine) return false;
  const t = firstLine.trimStart();
  if (!t.startsWith('{') || !t.includes('"session_meta"')) return false;
  try {
    const v = JSON.parse(t) as { type?: unknown };
    return v?.type === 'session_meta';
  } catch {
    return false;
  }
}

/** The host of a transcript, from its path and (when known) its first line. */
export function hostOf(path: string, firstLine?: string | null): Host {
  if (DAY_TREE_RE.test(path) || firstIsSessionMeta(firstLine)) return 'codex';
  return 'claude-code';
}

/** A fresh parser for one file (see the header). */
export function parserFor(path: string, firstLine?: string | null): LineParser {
  if (hostOf(path, firstLine) === 'codex') {
    const fileSessionId = sessionIdFromRolloutName(basename(path));
    const p = new CodexRecordParser(fileSessionId);
    return { host: 'codex', fileSessionId, line: (l) => p.parseLine(l), value: (v) => p.parseValue(v) };
  }
  return { host: 'claude-code', fileSessionId: basename(path).replace(/\.jsonl$/, ''), line: parseLine, value: parseValue };
}

/** Bytes read to find a file's first line (session_meta lines hold instructions: a few KB,
 *  sometimes more; a longer first line is simply not recognized by content). */
export const FIRST_LINE_BYTES = 256 * 1024;

/** The parser for a file on disk: its path and its first line decide. Never throws. */
export async function parserForFile(path: string): Promise<LineParser> {
  if (DAY_TREE_RE.test(path)) return parserFor(path);
  let first: string | null = null;
  try {
    const fh = await open(path, 'r');
    try {
      const buf = Buffer.alloc(FIRST_LINE_BYTES);
      const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
      const text = buf.subarray(0, bytesRead).toString('utf8');
      const nl = text.indexOf('\n');
      first = nl >= 0 ? text.slice(0, nl) : text;
    } finally {
      await fh.close();
    }
  } catch {
    first = null;
  }
  return parserFor(path, first);
}

/** The first `bytes` bytes of a file as text, or null when it cannot be read. Synchronous. */
export function headTextSync(path: string, bytes: number = FIRST_LINE_BYTES): string | null {
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.allocUnsafe(bytes);
    return buf.subarray(0, readSync(fd, buf, 0, buf.length, 0)).toString('utf8');
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The first line of a file (at most FIRST_LINE_BYTES), or null. Synchronous: for callers that
 *  build a parser inside a synchronous step (daemon/file-entry.ts, once per file). */
function firstLineSync(path: string): string | null {
  const text = headTextSync(path);
  const nl = text === null ? -1 : text.indexOf('\n');
  return nl >= 0 ? text!.slice(0, nl) : null; // an unterminated first line is still being written
}

/** The parser for a file the daemon tails, synchronously: the host from the path; a Codex parser is primed with the file's first line
 *  (session_meta: the session id, cwd and originator), so lines read from an offset carry
 *  them. Never throws. */
export function parserForFileSync(path: string): LineParser {
  if (!DAY_TREE_RE.test(path)) return parserFor(path); // the daemon tails rollouts only in their tree: no read for Claude Code files
  const p = parserFor(path);
  const first = firstLineSync(path);
  if (first) p.line(first);
  return p;
}
