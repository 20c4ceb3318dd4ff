/**
 * Directory rescans that find transcript files the watcher missed: the tailer's safety net
 * for a lost `add` event (chokidar's polling mode can miss a file created right after a
 * directory poll; inotify queues can overflow). Source: the transcript root on disk
 * (`<root>/<project>/<session>.jsonl`, and `<root>/<project>/<session>/subagents/*.jsonl` for
 * the sessions the caller names; a Codex CLI root's day folders `<root>/YYYY/MM/DD/`: the
 * layout's rescanFolders). Destination: the paths returned to daemon/tailer.ts, which treats
 * each unknown one like a watcher `add`.
 *
 *   root ─ readdir ─▶ project dirs ─ stat (mtime changed?) ─▶ readdir ─▶ *.jsonl paths
 *
 * Cheap when nothing changed: one readdir of the root and one stat per project folder; a
 * folder is listed again only when its mtime moved (creating a file moves it).
 */
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { projectFolders } from './claude-layout.js';

/** A folder changed this recently is listed again next time too: on file systems with coarse
 *  (1 s or 2 s) mtimes a file created in the same tick as our listing would not move it. */
export const MTIME_SETTLE_MS = 3000;

export class DirectoryDiscovery {
  /** Last mtime (ms) seen per listed directory. */
  private readonly seen = new Map<string, number>();

  /** `folders`: the folders to list under the root (the layout's rescanFolders: Claude Code's
   *  project folders, the default, daemon/claude-layout.ts; Codex CLI's day folders,
   *  daemon/codex-layout.ts). */
  constructor(
    private readonly root: string,
    private readonly folders: (root: string) => Promise<string[]> = projectFolders,
  ) {}

  /**
   * Transcript paths in every directory that changed since the last call (all of them on the
   * first call). `subagentSessions` lists `<project>/<session>` folders whose `subagents/`
   * folder is checked too (the caller passes the recently active sessions only).
   */
  async scan(subagentSessions: Iterable<string> = []): Promise<string[]> {
    const out: string[] = [];
    const projects = await this.folders(this.root);
    const dirs = [...projects, ...[...subagentSessions].map((s) => join(s, 'subagents'))];
    for (const dir of dirs) await this.list(dir, out);
    // forget folders not asked about this time, so the map stays bounded
    const live = new Set(dirs);
    for (const d of this.seen.keys()) if (!live.has(d)) this.seen.delete(d);
    return out;
  }

  private async list(dir: string, out: string[]): Promise<void> {
    let mtime: number;
    try {
      mtime = (await stat(dir)).mtimeMs;
    } catch {
      this.seen.delete(dir);
      return;
    }
    if (this.seen.get(dir) === mtime) return;
    try {
      for (const e of await readdir(dir, { withFileTypes: true })) if (e.isFile() && e.name.endsWith('.jsonl')) out.push(join(dir, e.name));
      if (Date.now() - mtime >= MTIME_SETTLE_MS) this.seen.set(dir, mtime);
      else this.seen.delete(dir);
    } catch {
      /* unreadable now: try again next time */
    }
  }
}
