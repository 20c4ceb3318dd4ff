/**
 * One real-host scenario's world: a temp HOME where the real `claude` keeps ~/.claude (its
 * settings, its transcripts), active-brain's state dir inside it, git repositories with a
 * local bare remote (so `git push` fails and succeeds for real, offline), and the commands
 * the tests run: the product's CLI, the daemon, the pinned host against a model script.
 * Shaped like test/daemon/helpers.ts's Env so its startDaemon / cli / waitCanary apply.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { offlineModelPath } from '../helpers/model.js';
import type { Env } from '../daemon/helpers.js';
import { hostEnv, runClaude, type RunResult } from './hosts.js';
import { startModelServer, type ModelServer, type Step } from '../../bench/host-model-server.js';

export interface HostWorld extends Env {
  /** HOME of every process in the scenario (the host's ~/.claude lives here). */
  userHome: string;
  base: string;
  /** Run the pinned claude once against a fresh model server playing `script`. */
  claude: (script: Step[], opts: { cwd: string; prompt?: string; extra?: string[]; tools?: string; env?: NodeJS.ProcessEnv }) => Promise<{ run: RunResult; model: ModelServer }>;
}

/** `config.json` every host scenario starts from. `claude -p` stamps its sessions with the
 *  entrypoint `sdk-cli` and gives hooks CLAUDE_CODE_SESSION_ATTENDED=0, which the worker rule
 *  treats as background work by default (shared/workers.ts); these sessions stand for a
 *  person's, so the entrypoint list is cleared and `unattended: entrypoints` lets that list
 *  alone decide (config/schema.ts `workers`). The hook's own deadline is wide: on a loaded test
 *  machine a hook start alone can pass the default 150 ms, and the run is then
 *  silent before it reads its payload; these scenarios test what reaches the host, the deadline
 *  has its own tests (test/hook). The offer builder's query budget is lifted for the same
 *  reason: it is wall-clock (retrieval.queryBudgetMs, 40 ms), and on a loaded machine the
 *  vector and exchange queries alone passed it, every error-string query was skipped and the
 *  error turn was decided silent (insufficient-evidence) — no wait is long enough for an offer
 *  that was never made. The budget has its own test (test/retrieval/builder.test.ts). */
export const HOST_CONFIG = {
  workers: { entrypoints: [] as string[], unattended: 'entrypoints' },
  hook: { deadlineMs: 2000 },
  retrieval: { queryBudgetMs: 60_000 },
};

export function hostWorld(claudeBin: string | null, tag = 'ab-host-'): HostWorld {
  const base = mkdtempSync(join(tmpdir(), tag));
  const userHome = join(base, 'user');
  const home = join(userHome, '.active-brain');
  const root = join(userHome, '.claude', 'projects');
  mkdirSync(home, { recursive: true });
  mkdirSync(root, { recursive: true });
  writeFileSync(join(home, 'config.json'), JSON.stringify(HOST_CONFIG, null, 2));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    HOME: userHome,
    ACTIVE_BRAIN_HOME: home,
    ACTIVE_BRAIN_TRANSCRIPTS: root,
    ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(),
    CODEX_HOME: join(userHome, '.codex'),
  };
  for (const k of ['ACTIVE_BRAIN_MODEL', 'ACTIVE_BRAIN_CODEX_SESSIONS', 'ACTIVE_BRAIN_STORE', 'CLAUDE_CONFIG_DIR', 'ACTIVE_BRAIN_WORKER']) delete env[k];
  const pids: number[] = [];
  const servers: ModelServer[] = [];
  return {
    base,
    userHome,
    home,
    root,
    project: root,
    env,
    track: (c: ChildProcess | number) => {
      const pid = typeof c === 'number' ? c : c.pid;
      if (pid) pids.push(pid);
    },
    claude: async (script, opts) => {
      if (!claudeBin) throw new Error('claude is not installed');
      const model = await startModelServer(script);
      servers.push(model);
      try {
        const run = await runClaude(claudeBin, opts.prompt ?? 'do the task', {
          cwd: opts.cwd,
          env: hostEnv(userHome, model.url, opts.env),
          extra: opts.extra,
          tools: opts.tools,
        });
        return { run, model };
      } finally {
        await model.close();
      }
    },
    cleanup: () => {
      for (const pid of pids) {
        try {
          process.kill(pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      // AB_HOST_KEEP=1 keeps the world for a look after a failure.
      if (!process.env.AB_HOST_KEEP) rmSync(base, { recursive: true, force: true });
      else console.warn(`kept ${base}`);
    },
  };
}

const git = (cwd: string, args: string[]) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', HOME: cwd } });

/** A git work tree on `branch` (no upstream) with a local bare remote `origin`: `git push`
 *  fails with git's own "has no upstream branch" message; `--set-upstream` succeeds. */
export function gitRepoWithoutUpstream(w: HostWorld, name: string, branch: string): string {
  const dir = join(w.base, name);
  const remote = join(w.base, `${name}-origin.git`);
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['init', '-q', '--bare', remote]);
  git(dir, ['init', '-q', '-b', 'main']);
  git(dir, ['config', 'user.email', 'dev@example.org']);
  git(dir, ['config', 'user.name', 'dev']);
  git(dir, ['config', 'push.autoSetupRemote', 'false']);
  writeFileSync(join(dir, 'README'), `${name}\n`);
  git(dir, ['add', 'README']);
  git(dir, ['commit', '-q', '-m', 'init']);
  git(dir, ['remote', 'add', 'origin', remote]);
  git(dir, ['checkout', '-q', '-b', branch]);
  return dir;
}

/** The model's side of a session that meets the missing upstream and fixes it. */
export const fixedPushScript = (branch: string): Step[] => [
  { text: 'Pushing the branch.', tool: 'Bash', input: { command: 'git push 2>&1', description: 'Push to remote' } },
  { text: 'The branch has no upstream yet; setting it.', tool: 'Bash', input: { command: `git push --set-upstream origin ${branch} 2>&1`, description: 'Push and set upstream' } },
  { text: 'Pushed; the branch now tracks origin.' },
];

/** The model's side of a session whose push fails and that stops there. */
export const failingPushScript = (): Step[] => [
  { text: 'Pushing the branch.', tool: 'Bash', input: { command: 'git push 2>&1', description: 'Push to remote' } },
  { text: 'Noted.' },
];

/** The hook's additionalContext as the model receives it after a failing Bash call. */
export const HOOK_CONTEXT_PREFIX = 'PostToolUseFailure:Bash hook additional context: ';
