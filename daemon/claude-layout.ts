/**
 * The folder layout of a Claude Code transcripts root, for the tailer (daemon/tailer.ts) and
 * its rescans (daemon/discovery.ts): `<root>/<project>/<session>.jsonl`, and subagent files
 * `<root>/<project>/<session>/subagents/*.jsonl` (watched only with `daemon.watchSubagents`);
 * a top-level `agent-*.jsonl` is an older subagent file. Pure path rules, plus one async
 * listing of the project folders. Codex CLI's layout: daemon/codex-layout.ts.
 */
import { readdir } from 'node:fs/promises';
import type { Stats } from 'node:fs';
import { basename, join, relative, sep } from 'node:path';
import { watchedPath, type TranscriptLayout } from './transcript-layout.js';

/** Where a path sits in the transcript layout, or null when it is not a transcript. */
export function classifyTranscriptPath(root: string, path: string, watchSubagents: boolean): { sessionId: string; subagent: boolean } | null {
  const rel = relative(root, path);
  if (!rel || rel.startsWith('..') || !rel.endsWith('.jsonl')) return null;
  const parts = rel.split(sep);
  if (parts.length === 2) return { sessionId: basename(parts[1], '.jsonl'), subagent: basename(parts[1]).startsWith('agent-') };
  if (parts.length === 4 && parts[2] === 'subagents' && watchSubagents) return { sessionId: parts[1], subagent: true };
  return null;
}

/** The watcher's filter: project folders, session files, and (with subagents) session
 *  folders, their `subagents/` folder and its files; nothing else. */
export function claudeIgnored(root: string, p: string, st: Stats | undefined, watchSubagents: boolean): boolean {
  const w = watchedPath(root, p, st);
  if (w === 'root') return false;
  if (w === 'outside') return true;
  const { parts, isFile, isDir } = w;
  const sub = watchSubagents;
  if (parts.length === 1) return isFile; // project folders only
  if (parts.length === 2) return p.endsWith('.jsonl') ? isDir : !sub || isFile; // sessions; session folders
  if (parts.length === 3) return !sub || parts[2] !== 'subagents' || isFile;
  if (parts.length === 4) return !sub || !p.endsWith('.jsonl') || isDir;
  return true;
}

/** The project folders of a Claude Code root ([] when the root is gone: the tailer reports that). */
export async function projectFolders(root: string): Promise<string[]> {
  try {
    return (await readdir(root, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => join(root, d.name));
  } catch {
    return [];
  }
}

/** Claude Code's layout, with or without subagent files. */
export function claudeLayout(watchSubagents: boolean): TranscriptLayout {
  return {
    classify: (root, path) => classifyTranscriptPath(root, path, watchSubagents),
    ignored: (root, p, st) => claudeIgnored(root, p, st, watchSubagents),
    watchDepth: watchSubagents ? 3 : 1,
    rescanFolders: projectFolders,
  };
}
