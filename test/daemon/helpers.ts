/**
 * Helpers for the daemon integration tests: temp state dir + transcript root, the real
 * daemon process (`node bin/active-brain.js start`), the real CLI, real-format Claude Code
 * transcript lines, and small waits. Every daemon spawned here is killed in `cleanup()`.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { HOST_ENV } from '../../shared/workers.js';

export const BIN = join(repoRoot, 'bin', 'active-brain.js');
/** Config overrides that keep every test quick. */
export const QUICK = ['daemon.cycleMs=200', 'daemon.settleMs=50', 'daemon.rootPollMs=200'];
/**
 * <home>/config.json (test/helpers/faults.ts writeConfig) for tests that check what the real hook
 * prints or logs past its prelude, or which offer the daemon makes. Both are wall-clock: the
 * hook's own deadline (150 ms from its module start) passes on a loaded machine before it has
 * read its payload (silent, 'deadline', no event), and the offer builder's query budget (40 ms)
 * skips string queries and changes what is offered. In the file, not `--set`: the CLI's
 * enable/disable rewrite the hook's settings from it. Each limit has its own tests
 * (test/hook/contract.test.ts, test/retrieval/builder.test.ts).
 */
export const STEADY_CONFIG = { hook: { deadlineMs: 2000 }, retrieval: { queryBudgetMs: 60_000 } };

export interface Env {
  home: string;
  root: string;
  project: string;
  env: NodeJS.ProcessEnv;
  cleanup: () => void;
  /** Track a child so cleanup() kills it. */
  track: (c: ChildProcess | number) => void;
}

export function tempEnv(tag = 'ab-daemon-'): Env {
  const base = mkdtempSync(join(tmpdir(), tag));
  const home = join(base, 'home');
  const root = join(base, 'projects');
  const project = join(root, '-work-app');
  mkdirSync(project, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ACTIVE_BRAIN_HOME: home,
    ACTIVE_BRAIN_TRANSCRIPTS: root,
    ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(),
    ACTIVE_BRAIN_STORE: join(home, 'store.sqlite'),
    // Codex CLI's home, absent unless a test makes it: the user's real ~/.codex never leaks in.
    CODEX_HOME: join(base, 'codex'),
  };
  delete env.ACTIVE_BRAIN_MODEL;
  delete env.ACTIVE_BRAIN_CODEX_SESSIONS;
  // The host's session variables (tests run from inside a `claude -p` would otherwise make every
  // hook they spawn a worker): a test that wants them sets them (shared/workers.ts HOST_ENV).
  for (const k of Object.values(HOST_ENV)) delete env[k];
  const pids: number[] = [];
  return {
    home,
    root,
    project,
    env,
    track: (c) => {
      const pid = typeof c === 'number' ? c : c.pid;
      if (pid) pids.push(pid);
    },
    cleanup: () => {
      for (const pid of pids) {
        try { process.kill(pid, 'SIGKILL'); } catch { /* gone */ }
      }
      rmSync(base, { recursive: true, force: true });
    },
  };
}

export interface Daemon {
  child: ChildProcess;
  pid: number;
  /** Resolves with the exit code (signal → 128+n style: null code becomes -1). */
  exited: Promise<number>;
  stderr: () => string;
  stdout: () => string;
}

export function startDaemon(e: Env, sets: string[] = []): Daemon {
  const args = [BIN, 'start', ...[...QUICK, ...sets].flatMap((s) => ['--set', s])];
  const child = spawn(process.execPath, args, { env: e.env, stdio: ['ignore', 'pipe', 'pipe'] });
  e.track(child);
  let err = '';
  let out = '';
  child.stderr!.on('data', (b) => (err += b));
  child.stdout!.on('data', (b) => (out += b));
  const exited = new Promise<number>((res) => child.once('exit', (code) => res(code ?? -1)));
  return { child, pid: child.pid!, exited, stderr: () => err, stdout: () => out };
}

export function cli(e: Env, args: string[]): { code: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], { env: e.env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function waitFor<T>(fn: () => T | null | undefined | false, timeoutMs = 20_000, what = 'condition'): Promise<T> {
  const t0 = Date.now();
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() - t0 > timeoutMs) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(40);
  }
}

export function readJson<T = Record<string, unknown>>(path: string): T | null {
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Every record in logs/daemon.jsonl* (oldest file first). */
export function logRecords(e: Env): Array<Record<string, unknown>> {
  const dir = join(e.home, 'logs');
  if (!existsSync(dir)) return [];
  const names = readdirSync(dir).filter((n) => n.startsWith('daemon.jsonl')).sort().reverse();
  const out: Array<Record<string, unknown>> = [];
  for (const n of names) {
    for (const line of readFileSync(join(dir, n), 'utf8').split('\n')) {
      if (line.trim()) out.push(JSON.parse(line) as Record<string, unknown>);
    }
  }
  return out;
}

export const events = (e: Env, name?: string) =>
  logRecords(e).filter((r) => r.type === 'event' && (!name || r.event === name));
export const decisions = (e: Env) => logRecords(e).filter((r) => r.type === 'decision');

/** `status --json` once it says running, with exit 0 (a bounded poll). Running needs a canary from the last
 *  3 cycles (daemon/canary.ts: 600 ms at QUICK's 200 ms), and a loaded machine can hold a
 *  daemon's cycle longer than that (measured: a canary 0.75 s old, 4 busy loops on 2 cores), so
 *  one read can say stale-canary of a daemon that is fine. A frozen one never gets here: the
 *  stale canary has its own test (test/daemon/lifecycle.test.ts, SIGSTOP). */
export async function statusRunning<T = Record<string, unknown>>(e: Env, timeoutMs = 15_000): Promise<T> {
  let last = '';
  try {
    return await waitFor(() => {
      const r = cli(e, ['status', '--json']);
      last = r.stdout;
      const s = JSON.parse(last) as Record<string, unknown>;
      return s.running === true && r.code === 0 ? (s as T) : null;
    }, timeoutMs, 'status: running');
  } catch (err) {
    throw new Error(`${(err as Error).message}; last status: ${last}`);
  }
}

export async function waitCanary(e: Env, pid: number, timeoutMs = 30_000): Promise<Record<string, unknown>> {
  return waitFor(() => {
    const c = readJson(join(e.home, 'canary.json'));
    return c && c.pid === pid ? c : null;
  }, timeoutMs, `canary of pid ${pid}`);
}

// ---------- real-format Claude Code transcript lines ----------

export interface Session {
  id: string;
  path: string;
  cwd: string;
  last: string | null;
}

export function newSession(e: Env, cwd = '/work/app', id: string = randomUUID()): Session {
  return { id, path: join(e.project, `${id}.jsonl`), cwd, last: null };
}

function base(s: Session, type: string) {
  const uuid = randomUUID();
  const rec = {
    parentUuid: s.last,
    isSidechain: false,
    userType: 'external',
    cwd: s.cwd,
    sessionId: s.id,
    version: '2.1.39',
    gitBranch: 'main',
    type,
    uuid,
    timestamp: new Date().toISOString(),
  };
  s.last = uuid;
  return rec;
}

export function userLine(s: Session, text: string): string {
  return JSON.stringify({ ...base(s, 'user'), message: { role: 'user', content: text }, permissionMode: 'default' });
}

export function assistantLine(s: Session, text: string): string {
  return JSON.stringify({
    ...base(s, 'assistant'),
    message: { model: 'claude-opus-4-6', id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', content: [{ type: 'text', text }], stop_reason: null },
    requestId: `req_${randomUUID()}`,
  });
}

export function turnEndLine(s: Session): string {
  return JSON.stringify({ ...base(s, 'system'), subtype: 'turn_duration', durationMs: 1234, isMeta: false });
}

export function progressLine(s: Session): string {
  return JSON.stringify({ ...base(s, 'progress'), data: { type: 'hook_progress', hookEvent: 'PreToolUse' } });
}

/** Append one full exchange (prompt, reply, turn end). */
export function appendExchange(s: Session, user: string, assistant: string): void {
  appendFileSync(s.path, [userLine(s, user), progressLine(s), assistantLine(s, assistant), turnEndLine(s)].join('\n') + '\n');
}

/** Every file under dir (recursive). */
export function allFiles(dir: string): string[] {
  const out: string[] = [];
  if (!existsSync(dir)) return out;
  for (const ent of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, ent.name);
    if (ent.isDirectory()) out.push(...allFiles(p));
    else out.push(p);
  }
  return out;
}

/** An assistant record calling one tool (`tool_use`), with optional text before it. */
export function toolUseLine(s: Session, id: string, name: string, input: Record<string, unknown>, text?: string): string {
  const content = [...(text ? [{ type: 'text', text }] : []), { type: 'tool_use', id, name, input }];
  return JSON.stringify({
    ...base(s, 'assistant'),
    message: { model: 'claude-opus-4-6', id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', content, stop_reason: 'tool_use' },
    requestId: `req_${randomUUID()}`,
  });
}

/** The user-side record carrying a tool's result (`tool_result`, is_error as Claude Code sets it). */
export function toolResultLine(s: Session, id: string, text: string, isError: boolean): string {
  return JSON.stringify({
    ...base(s, 'user'),
    message: { role: 'user', content: [{ tool_use_id: id, type: 'tool_result', content: text, is_error: isError }] },
    toolUseResult: isError ? `Error: ${text}` : { stdout: text, stderr: '', interrupted: false },
  });
}

/** Invented `git push` failure (the shape of git's message) and its fix, for Past fix tests. */
export const NO_UPSTREAM = (branch: string) =>
  `Exit code 128\nfatal: The current branch ${branch} has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n\n    git push --set-upstream origin ${branch}\n`;

/**
 * Append a whole past session in which `git push` failed for want of an upstream branch and
 * the agent fixed it with `git push --set-upstream origin <branch>` (then the push succeeded).
 */
export function appendFixedPushSession(s: Session, branch: string): void {
  const a = `toolu_${randomUUID().slice(0, 8)}`;
  const b = `toolu_${randomUUID().slice(0, 8)}`;
  appendFileSync(
    s.path,
    [
      userLine(s, 'commit the parser change and push it'),
      toolUseLine(s, a, 'Bash', { command: 'git push 2>&1', description: 'Push to remote' }, 'Pushing the branch.'),
      toolResultLine(s, a, NO_UPSTREAM(branch), true),
      toolUseLine(s, b, 'Bash', { command: `git push --set-upstream origin ${branch} 2>&1`, description: 'Push and set upstream' }, 'The branch has no upstream yet; setting it.'),
      toolResultLine(s, b, `To example.org:team/app.git\n * [new branch]      ${branch} -> ${branch}\nbranch '${branch}' set up to track 'origin/${branch}'.`, false),
      assistantLine(s, 'Pushed; the branch now tracks origin.'),
      turnEndLine(s),
    ].join('\n') + '\n',
  );
}
