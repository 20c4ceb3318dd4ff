/**
 * The plugin as a user gets it before `claude plugin marketplace add`: a plain git repository
 * holding this work tree's files (tracked and new, not ignored) — what a `git clone` has: no
 * dist/, no node_modules/. Used by the host tests that install the plugin with the real claude;
 * so is runningDaemon (the daemon the plugin started in such a world).
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from '../helpers/model.js';

export function plainClone(to: string): string {
  const files = execFileSync('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: repoRoot, encoding: 'utf8' }).split('\0').filter(Boolean);
  for (const f of files) {
    if (!existsSync(join(repoRoot, f))) continue; // deleted in the work tree
    mkdirSync(dirname(join(to, f)), { recursive: true });
    copyFileSync(join(repoRoot, f), join(to, f));
  }
  const git = (args: string[]) => execFileSync('git', args, { cwd: to, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: to } });
  git(['init', '-q', '-b', 'main']);
  git(['add', '-A']);
  git(['-c', 'user.email=dev@example.org', '-c', 'user.name=dev', 'commit', '-q', '-m', 'clone']);
  return to;
}

/** The daemon the plugin started in this world (its pid file), tracked for cleanup; null when
 *  none runs. */
export function runningDaemon(w: { home: string; track(pid: number): void }): number | null {
  try {
    const pid = Number.parseInt(readFileSync(join(w.home, 'daemon.pid'), 'utf8'), 10);
    process.kill(pid, 0);
    w.track(pid);
    return pid;
  } catch {
    return null;
  }
}
