/**
 * The folder layout of a Codex CLI sessions root, for the tailer (daemon/tailer.ts) and its
 * rescans (daemon/discovery.ts): `<root>/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`, one file
 * per session, no subagent files. The session id is the uuid in the name
 * (transcript/codex-records.ts). Pure path rules, plus one async listing of the day folders.
 * Claude Code's layout: daemon/claude-layout.ts.
 */
import { readdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { sessionIdFromRolloutName } from '../transcript/codex-records.js';
import { watchedPath, type TranscriptLayout } from './transcript-layout.js';

/** Folder levels under the root: year, month, day (the files sit at depth 3). */
export const CODEX_WATCH_DEPTH = 3;
/** Day folders rescanned for missed files: the most recent ones only (a session lives in the
 *  folder of the day it started; a week back covers sessions resumed days later). */
export const CODEX_RESCAN_DAYS = 7;

const LEVEL_RE = [/^\d{4}$/, /^\d{2}$/, /^\d{2}$/] as const;
const ROLLOUT_RE = /^rollout-.*\.jsonl$/;

/** A rollout path under the root → its session, or null when it is not one. */
export function classifyCodexPath(root: string, path: string): { sessionId: string; subagent: boolean } | null {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..')) return null;
  const parts = rel.split(sep);
  if (parts.length !== 4 || !ROLLOUT_RE.test(parts[3])) return null;
  if (!LEVEL_RE.every((re, i) => re.test(parts[i]))) return null;
  return { sessionId: sessionIdFromRolloutName(parts[3]), subagent: false };
}

/** The watcher's filter: year / month / day folders and rollout files, nothing else. */
export function codexIgnored(root: string, p: string, st?: Stats): boolean {
  const w = watchedPath(root, p, st);
  if (w === 'root') return false;
  if (w === 'outside') return true;
  const { parts, isFile, isDir } = w;
  if (parts.length <= 3) return isFile || !LEVEL_RE[parts.length - 1].test(parts[parts.length - 1]);
  if (parts.length === 4) return isDir || !ROLLOUT_RE.test(parts[3]);
  return true;
}

async function subdirs(dir: string, re: RegExp): Promise<string[]> {
  try {
    return (await readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory() && re.test(d.name)).map((d) => d.name).sort();
  } catch {
    return [];
  }
}

/** The newest CODEX_RESCAN_DAYS day folders under the root (for daemon/discovery.ts). */
export async function codexDayFolders(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const y of (await subdirs(root, LEVEL_RE[0])).reverse()) {
    for (const m of (await subdirs(join(root, y), LEVEL_RE[1])).reverse()) {
      for (const d of (await subdirs(join(root, y, m), LEVEL_RE[2])).reverse()) {
        out.push(join(root, y, m, d));
        if (out.length >= CODEX_RESCAN_DAYS) return out;
      }
    }
  }
  return out;
}

/** Codex CLI's layout. */
export const CODEX_LAYOUT: TranscriptLayout = {
  classify: classifyCodexPath,
  ignored: codexIgnored,
  watchDepth: CODEX_WATCH_DEPTH,
  rescanFolders: codexDayFolders,
};
