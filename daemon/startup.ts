/**
 * The daemon's start, before it watches anything (daemon/main.ts runDaemon calls these in
 * order): its state dir and own folders made and tightened (daemon/own-dirs.ts), the singleton
 * lock (daemon/lock.ts), the embedder loaded (a stop asked for meanwhile is honoured right
 * after), an early stop that logs and releases what was taken, and the warning about a
 * transcripts root that is missing or unreadable. Returns exit codes to runDaemon: 1 another
 * daemon runs, 3 the environment is unusable.
 */
import type { Config } from '../config/schema.js';
import { createDaemonEmbedder } from '../embed/resilient.js';
import type { Embedder } from '../embed/types.js';
import { ensureDir } from '../shared/atomic.js';
import { transcriptsRootState, unreadableRootText } from '../shared/transcripts-root.js';
import { acquireDaemonLock, AlreadyRunningError, type DaemonLock } from './lock.js';
import { ownDirFix, tightenOwnDirs } from './own-dirs.js';
import { errMsg, type Reporter } from './reporter.js';

type Say = (line: string) => void;

/** Make the state dir; every folder the daemon owns re-tightened to 0700. Returns 3 (with what
 *  to do, said) when one cannot be used, else null. */
export function claimStateDir(env: NodeJS.ProcessEnv, home: string, say: Say): number | null {
  try {
    ensureDir(home);
    // Every folder it owns re-tightened to 0700; one it must not write into refuses the start.
    const own = tightenOwnDirs(env);
    if (own.refused.length) {
      for (const d of own.refused) say(`cannot use ${d.path}: it ${(d.verdict as { refuse: string }).refuse}. Fix: ${ownDirFix(d, env)}.`);
      return 3;
    }
  } catch (e) {
    say(`cannot use the state dir ${home}: ${errMsg(e)}. Set ACTIVE_BRAIN_HOME to a writable folder.`);
    return 3;
  }
  return null;
}

/** Take the singleton lock, or the exit code: 1 when another daemon holds it, 3 when it
 *  cannot be taken. `onCompromised` runs if the lock is lost while held. */
export async function takeLock(env: NodeJS.ProcessEnv, home: string, say: Say, onCompromised: (e: Error) => void): Promise<DaemonLock | number> {
  try {
    return await acquireDaemonLock(env, onCompromised);
  } catch (e) {
    if (e instanceof AlreadyRunningError) {
      process.stderr.write(`${e.message}\n`);
      return 1;
    }
    say(`cannot take the daemon lock in ${home}: ${errMsg(e)}`);
    return 3;
  }
}

/** The embedder, and the signal of a stop asked for while it loaded (null when none); or the
 *  error that kept it from loading. */
export type LoadedEmbedder = { embedder: Embedder; stoppedBy: string | null } | { error: unknown };

/** Load (or first download) the model, which can take a while: a SIGTERM / SIGINT meanwhile
 *  is remembered, to be honoured right after, cleanly. */
export async function loadEmbedder(config: Config, env: NodeJS.ProcessEnv, storePath: string): Promise<LoadedEmbedder> {
  let stoppedBy: string | null = null;
  const earlyStop = (sig: NodeJS.Signals) => { stoppedBy = sig.toLowerCase(); };
  process.once('SIGTERM', earlyStop);
  process.once('SIGINT', earlyStop);
  let embedder: Embedder;
  try {
    embedder = await createDaemonEmbedder(config.embedding, env, { storePath });
  } catch (e) {
    return { error: e };
  } finally {
    process.off('SIGTERM', earlyStop);
    process.off('SIGINT', earlyStop);
  }
  return { embedder, stoppedBy };
}

/** A stop before the daemon watched anything: log `stop` with `reason`, dispose of the embedder
 *  if it loaded, flush the log, release the lock; returns `code`. */
export async function stopEarly(report: Reporter, lock: DaemonLock, reason: string, code: number, embedder?: Embedder): Promise<number> {
  report.event({ event: 'stop', reason });
  await embedder?.dispose();
  await report.log.close();
  await lock.release();
  return code;
}

/** Say (and log) a transcripts root that is missing or unreadable: watched anyway, but a typo
 *  here means silence forever. */
export function warnRootState(root: string, say: Say, report: Reporter): void {
  const rootState = transcriptsRootState(root);
  if (rootState.state === 'missing') {
    // Watched anyway (Claude Code creates it on first use), but a typo here means silence forever.
    say(`warning: the transcripts root ${root} does not exist yet. If Claude Code writes elsewhere, set ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" in config.json; "active-brain status" shows the root.`);
    report.event({ event: 'root-missing', reason: 'root-missing', path: root });
  } else if (rootState.state === 'unreadable') {
    // Watched anyway (read once it is allowed), but it sees no session until then.
    say(`warning: ${unreadableRootText(root, rootState.code)}; until then the daemon sees no session.`);
    report.event({ event: 'error', reason: rootState.code, path: root });
  }
}
