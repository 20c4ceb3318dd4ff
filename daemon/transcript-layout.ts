/**
 * What the tailer (daemon/tailer.ts) needs to know of an agent's folder layout under its
 * root: which paths are session transcripts (and of which session), which the watcher may
 * skip, how deep it looks, and which folders the safety rescan lists (daemon/discovery.ts).
 * One layout per host: daemon/claude-layout.ts (Claude Code), daemon/codex-layout.ts (Codex CLI).
 */
import type { Stats } from 'node:fs';
import { relative, sep } from 'node:path';

export interface TranscriptLayout {
  /** A transcript path under the root → its session (and whether it is a subagent's), or null. */
  classify(root: string, path: string): { sessionId: string; subagent: boolean } | null;
  /** The watcher's filter: true for a path it need not watch. */
  ignored(root: string, path: string, st?: Stats): boolean;
  /** Folder levels the watcher descends. */
  watchDepth: number;
  /** The folders the rescan lists for missed files. */
  rescanFolders(root: string): Promise<string[]>;
}

/** A path seen by the watcher's filter: the root itself, outside it, or its parts under the
 *  root with what its stat (when chokidar gives one) says. */
export function watchedPath(root: string, p: string, st?: Stats): 'root' | 'outside' | { parts: string[]; isFile: boolean; isDir: boolean } {
  const rel = relative(root, p);
  if (rel === '') return 'root';
  if (rel.startsWith('..')) return 'outside';
  return { parts: rel.split(sep), isFile: st?.isFile() === true, isDir: st?.isDirectory() === true };
}
