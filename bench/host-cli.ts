/**
 * The real host CLIs (Claude Code, Codex) for the host tests and `bench host`: where the pinned
 * versions (test/host/versions.json, the one place they are named) are installed by
 * scripts/install-hosts.mjs, and how to run them offline in a temp HOME against the scripted
 * model server (bench/host-model-server.ts).
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The package root (bench/ in source, dist/bench/ built). */
function findRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'test', 'host', 'versions.json'))) return dir;
    dir = dirname(dir);
  }
  return resolve(dirname(fileURLToPath(import.meta.url)), '..');
}
const repoRoot = findRoot();

export type HostName = 'claude' | 'codex';
interface Pin { package: string; version: string; bin: string }
export const VERSIONS = JSON.parse(readFileSync(join(repoRoot, 'test', 'host', 'versions.json'), 'utf8')) as Record<HostName, Pin>;

export const hostCacheDir = (env: NodeJS.ProcessEnv = process.env) => env.ACTIVE_BRAIN_HOST_CACHE || join(homedir(), '.cache', 'active-brain-hosts');

/** The pinned CLI's executable, or null when it is not installed. `version` overrides the pin. */
export function hostBin(name: HostName, version = VERSIONS[name].version): string | null {
  const p = join(hostCacheDir(), `${name}-${version}`, VERSIONS[name].bin);
  return existsSync(p) ? p : null;
}

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
  ms: number;
  /** `--output-format json` result, when stdout parses. */
  json: Record<string, unknown> | null;
}

/** Environment for a real host run: a temp HOME, the stand-in model, no telemetry. Only PATH
 *  and what is named here pass through (the runner's own Claude variables never leak in). */
export function hostEnv(home: string, modelUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  // Claude Code keeps per-session notes under $TMPDIR/claude-<uid>/: inside the temp world, so
  // they go when it does.
  const tmp = join(home, 'tmp');
  mkdirSync(tmp, { recursive: true });
  return {
    PATH: process.env.PATH,
    HOME: home,
    TMPDIR: tmp,
    LANG: 'C.UTF-8',
    ANTHROPIC_BASE_URL: modelUrl,
    ANTHROPIC_API_KEY: 'sk-ant-stand-in',
    DISABLE_TELEMETRY: '1',
    DISABLE_AUTOUPDATER: '1',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    ...extra,
  };
}

/** Most a single scripted session may take before it is killed (they take ~1 s). */
export const RUN_TIMEOUT_MS = 60_000;

/** Run a CLI asynchronously (the model server lives in this process: spawnSync would starve it). */
export function runCli(bin: string, args: string[], opts: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): Promise<RunResult> {
  mkdirSync(opts.cwd, { recursive: true });
  const t0 = performance.now();
  return new Promise((resolve) => {
    const c = spawn(bin, args, { cwd: opts.cwd, env: opts.env, stdio: [opts.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    c.stdout!.on('data', (b) => (stdout += b));
    c.stderr!.on('data', (b) => (stderr += b));
    if (opts.input !== undefined) c.stdin!.end(opts.input);
    const timer = setTimeout(() => c.kill('SIGKILL'), RUN_TIMEOUT_MS);
    c.on('close', (code) => {
      clearTimeout(timer);
      let json: Record<string, unknown> | null = null;
      try {
        json = JSON.parse(stdout) as Record<string, unknown>;
      } catch {
        json = null;
      }
      resolve({ code, stdout, stderr, ms: performance.now() - t0, json });
    });
  });
}

/** `claude -p PROMPT --allowedTools Bash --output-format json` (plus `extra` flags). */
export function runClaude(bin: string, prompt: string, opts: { cwd: string; env: NodeJS.ProcessEnv; extra?: string[]; tools?: string }): Promise<RunResult> {
  return runCli(bin, ['-p', prompt, '--allowedTools', opts.tools ?? 'Bash', '--output-format', 'json', ...(opts.extra ?? [])], opts);
}

/** Claude Code's project folder name for a cwd (every `/` and `.` becomes `-`). */
export const projectDirName = (cwd: string) => cwd.replace(/[/.]/g, '-');

/** The provider name the Codex runs use for the stand-in (a `-c model_providers.<name>` table). */
export const CODEX_PROVIDER = 'standin';

/** Environment for a real Codex run: a temp HOME and CODEX_HOME, a dummy key for the stand-in. */
export function codexEnv(home: string, codexHome: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: home, CODEX_HOME: codexHome, LANG: 'C.UTF-8', OPENAI_API_KEY: 'sk-stand-in', ...extra };
}

/** `codex exec --json PROMPT` against the stand-in (Responses API at modelUrl/v1), no sandbox
 *  and no approvals (a temp world of its own; bubblewrap is not assumed on the machine).
 *  `bypassHookTrust`: Codex (0.171) runs a hook from hooks.json only once a person has trusted
 *  it (its hook review); a scripted run stands in for that with --dangerously-bypass-hook-trust. */
export function runCodex(bin: string, prompt: string, opts: { cwd: string; env: NodeJS.ProcessEnv; modelUrl: string; bypassHookTrust?: boolean }): Promise<RunResult> {
  const provider = `model_providers.${CODEX_PROVIDER}={name="${CODEX_PROVIDER}",base_url="${opts.modelUrl}/v1",wire_api="responses",env_key="OPENAI_API_KEY"}`;
  return runCli(process.execPath, [bin, 'exec', '--json', '--skip-git-repo-check', '--dangerously-bypass-approvals-and-sandbox',
    ...(opts.bypassHookTrust ? ['--dangerously-bypass-hook-trust'] : []), '-c', `model_provider=${CODEX_PROVIDER}`, '-c', provider, '-c', 'model=gpt-5', prompt], opts);
}

/** The thread (session) id from `codex exec --json` output (its `thread.started` event). */
export function codexThreadId(stdout: string): string | null {
  for (const line of stdout.split('\n')) {
    try {
      const v = JSON.parse(line) as { type?: string; thread_id?: string };
      if (v.type === 'thread.started' && v.thread_id) return v.thread_id;
    } catch { /* not JSON */ }
  }
  return null;
}
