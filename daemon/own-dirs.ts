/**
 * The folders active-brain owns in its state dir: the state dir itself, `cache/`, `fixes/`,
 * `logs/`, `hook-state/`. The hook trusts a file there only in a folder of this user that
 * nobody else may write and that is no symlink (hook/trust.ts); the daemon writes there and
 * `stop` clears there. `start` (daemon/startup.ts) re-tightens each to 0700 and refuses one it
 * must not use (a symlink, not a folder, another user's); `doctor` checks them (ops/doctor.ts).
 * ownDirProblem is the pure verdict; the rest are its edges.
 */
import { chmodSync, lstatSync, type Stats } from 'node:fs';
import { cacheDir, fixesDir, homeDir, hookStateDir, logsDir } from '../shared/paths.js';

/** The mode each owned folder gets (and doctor expects): the owner only. */
export const OWN_DIR_MODE = 0o700;

/** The owned folders, the state dir first. */
export function ownDirs(env: NodeJS.ProcessEnv = process.env): string[] {
  return [homeDir(env), cacheDir(env), fixesDir(env), logsDir(env), hookStateDir(env)];
}

export type OwnDirVerdict = 'ok' | 'missing' | 'loose' | { refuse: string };

/** An owned folder's lstat (undefined: not there) against this user (null: no owner to check). */
export function ownDirProblem(st: Pick<Stats, 'uid' | 'mode' | 'isDirectory' | 'isSymbolicLink'> | undefined, uid: number | null): OwnDirVerdict {
  if (!st) return 'missing';
  if (st.isSymbolicLink()) return { refuse: 'is a symlink' };
  if (!st.isDirectory()) return { refuse: 'is not a folder' };
  if (uid !== null && st.uid !== uid) return { refuse: `belongs to uid ${st.uid}, not to this user (uid ${uid})` };
  return (st.mode & 0o777 & ~OWN_DIR_MODE) === 0 ? 'ok' : 'loose';
}

const euid = (): number | null => (typeof process.geteuid === 'function' ? process.geteuid() : null);

export interface OwnDirState {
  path: string;
  verdict: OwnDirVerdict;
  /** The folder's permission bits (null when missing or unreadable). */
  mode: number | null;
}

/** Each owned folder as it is now. */
export function inspectOwnDirs(env: NodeJS.ProcessEnv = process.env): OwnDirState[] {
  return ownDirs(env).map((path) => {
    let st: Stats | undefined;
    try {
      st = lstatSync(path, { throwIfNoEntry: false });
    } catch (e) {
      return { path, verdict: { refuse: `cannot be examined (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})` }, mode: null };
    }
    return { path, verdict: ownDirProblem(st, euid()), mode: st ? st.mode & 0o7777 : null };
  });
}

/** What to do about a folder refused. */
export function ownDirFix(d: OwnDirState, env: NodeJS.ProcessEnv = process.env): string {
  if (typeof d.verdict === 'object' && d.path === homeDir(env) && d.verdict.refuse === 'is a symlink') return `set ACTIVE_BRAIN_HOME to the real folder it points to (a state dir of your own, not a symlink)`;
  return typeof d.verdict === 'object'
    ? `active-brain writes only into its own folders: remove or rename ${d.path} ("mv ${d.path} ${d.path}.moved") and start again (it is created 0700)`
    : `"chmod 700 ${d.path}", or "active-brain start" (it re-tightens its folders)`;
}

/**
 * At start: chmod every owned folder that is looser than OWN_DIR_MODE to it (a folder that does
 * not exist yet is created 0700 by its first writer). Returns the folders refused — the caller
 * does not start — and the ones tightened.
 */
export function tightenOwnDirs(env: NodeJS.ProcessEnv = process.env): { refused: OwnDirState[]; tightened: string[] } {
  const refused: OwnDirState[] = [];
  const tightened: string[] = [];
  for (const d of inspectOwnDirs(env)) {
    if (typeof d.verdict === 'object') refused.push(d);
    else if (d.verdict === 'loose') {
      chmodSync(d.path, OWN_DIR_MODE);
      tightened.push(d.path);
    }
  }
  return { refused, tightened };
}
