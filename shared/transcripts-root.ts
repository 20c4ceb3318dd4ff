/**
 * Can the transcripts root be read? One look (a directory listing: what every reader of the
 * root does first), shared by doctor, backtest and the daemon's start so that an unreadable
 * folder is called unreadable everywhere — not "empty", not "no sessions in the last N days",
 * not watched in silence. Reads the file system; never throws.
 */
import { readdirSync } from 'node:fs';

export type RootState =
  | { state: 'ok' }
  | { state: 'missing' }
  /** It exists but cannot be listed: permissions (EACCES/EPERM), not a folder (ENOTDIR), … */
  | { state: 'unreadable'; code: string };

export function transcriptsRootState(root: string): RootState {
  try {
    readdirSync(root);
    return { state: 'ok' };
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code ?? 'EIO';
    return code === 'ENOENT' ? { state: 'missing' } : { state: 'unreadable', code };
  }
}

/** "cannot read the transcripts root R (EACCES: permission denied): give your user read access
 *  (chmod u+rx R), or …" — one sentence that says what to do. */
export function unreadableRootText(root: string, code: string): string {
  const why = code === 'EACCES' || code === 'EPERM' ? `${code}: permission denied` : code === 'ENOTDIR' ? 'ENOTDIR: not a folder' : code;
  const fix = code === 'ENOTDIR' ? 'point' : `give your user read access to it (chmod u+rx ${root}), or point`;
  return `cannot read the transcripts root ${root} (${why}): ${fix} ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" at the folder Claude Code writes sessions to`;
}
