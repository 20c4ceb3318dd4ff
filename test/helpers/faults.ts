/**
 * Helpers for the fault-injection suite (test/faults/, `npm run test:faults`). Builds on the
 * daemon test helpers (test/daemon/helpers.ts: temp state dir + transcript root, the real
 * daemon process, real-format transcript lines, log readers) and adds:
 *  - the real hook as installed (`node bin/active-brain-hook.cjs`, payload JSON on stdin);
 *  - a small real knowledge store built by the real indexer CLI (`index add`) from note files
 *    written here, and a `live` config with low gates so offers really print;
 *  - transcript exchanges carrying a tool error (what makes the error trigger fire);
 *  - /proc readers (RSS, sockets), SHA-256 of files, a walk of the state dir.
 * Everything lives in temp dirs; every spawned process is tracked and killed in cleanup().
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { appendFileSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { repoRoot } from './model.js';
import { BIN, tempEnv, type Env, type Session, userLine, assistantLine, turnEndLine, progressLine } from '../daemon/helpers.js';

export * from '../daemon/helpers.js';

/** The hook exactly as `active-brain install` registers it. */
export const HOOK_BIN = join(repoRoot, 'bin', 'active-brain-hook.cjs');

/** Config overrides that let offers through the daemon's own gates quickly. */
export const OFFER_SETS = [
  'session.cooldownSeconds=0',
  'session.cooldownTurns=0',
  'retrieval.minSufficiency=0',
  'retrieval.wanderProbability=0',
  'retrieval.dedupWindow=0',
];

/** Hook/mode settings that let every offer print (the faults under test decide silence). */
export const LIVE_MODE = {
  state: 'live',
  cwdGlobs: ['**'],
  minConfidence: 0,
  sessionBudget: 1000,
  minGapTurns: 0,
  minGapSeconds: 0,
};

/** Write <home>/config.json (the daemon writes hook-settings.json from it at start). */
export function writeConfig(e: Env, config: Record<string, unknown>): void {
  mkdirSync(e.home, { recursive: true, mode: 0o700 });
  writeFileSync(join(e.home, 'config.json'), JSON.stringify(config, null, 2));
}

/** A config with the default mode live and gates open; the hook's deadline generous (shared, loaded machine). */
export function liveConfig(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { modes: { default: { ...LIVE_MODE } }, hook: { deadlineMs: 2000 }, ...extra };
}

export interface HookResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  ms: number;
}

/** Run the real hook with `payload` (objects JSON-encoded) on stdin. */
export function runHook(e: Env, payload: unknown, envOver: NodeJS.ProcessEnv = {}): Promise<HookResult> {
  const text = typeof payload === 'string' ? payload : JSON.stringify(payload);
  return new Promise((done, fail) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, [HOOK_BIN], { env: { ...e.env, ...envOver }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    child.on('error', fail);
    child.stdin.on('error', () => undefined);
    child.on('close', (code, signal) => done({ code, signal, stdout, stderr, ms: performance.now() - t0 }));
    child.stdin.end(text);
  });
}

/** The UserPromptSubmit payload Claude Code would send for this session. */
export function payloadFor(s: Session, prompt = 'what next?', over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    session_id: s.id,
    transcript_path: s.path,
    cwd: s.cwd,
    permission_mode: 'default',
    hook_event_name: 'UserPromptSubmit',
    prompt,
    ...over,
  };
}

/**
 * The hook's stdout: null when it printed nothing, else the additionalContext of exactly one
 * well-formed line (throws on anything else: partial JSON, two lines, extra keys).
 */
export function printedOffer(stdout: string): string | null {
  if (stdout === '') return null;
  if (!stdout.endsWith('\n') || stdout.indexOf('\n') !== stdout.length - 1) throw new Error(`hook printed more than one line: ${JSON.stringify(stdout.slice(0, 300))}`);
  const v = JSON.parse(stdout) as { hookSpecificOutput?: { hookEventName?: string; additionalContext?: unknown } };
  if (Object.keys(v).length !== 1 || !v.hookSpecificOutput) throw new Error(`unexpected output keys: ${stdout.slice(0, 300)}`);
  const h = v.hookSpecificOutput;
  if (h.hookEventName !== 'UserPromptSubmit' || typeof h.additionalContext !== 'string' || Object.keys(h).length !== 2) {
    throw new Error(`malformed hookSpecificOutput: ${stdout.slice(0, 300)}`);
  }
  return h.additionalContext;
}

/** Every hook log record (logs/hook.jsonl and rotated files). */
export function hookRecords(e: Env): Array<Record<string, unknown>> {
  const dir = join(e.home, 'logs');
  if (!existsSync(dir)) return [];
  const out: Array<Record<string, unknown>> = [];
  for (const n of readdirSync(dir).filter((x) => x.startsWith('hook.jsonl')).sort()) {
    for (const l of readFileSync(join(dir, n), 'utf8').split('\n')) if (l.trim()) out.push(JSON.parse(l) as Record<string, unknown>);
  }
  return out;
}

// ---------- transcript exchanges with tool calls and tool errors ----------

function toolUseLine(s: Session, id: string, command: string): string {
  const line = JSON.parse(assistantLine(s, '')) as { message: { content: unknown[] } };
  line.message.content = [{ type: 'tool_use', id, name: 'Bash', input: { command, description: 'run it' } }];
  return JSON.stringify(line);
}

function toolResultLine(s: Session, id: string, text: string, isError: boolean): string {
  const line = JSON.parse(userLine(s, '')) as { message: { content: unknown } };
  line.message.content = [{ tool_use_id: id, type: 'tool_result', content: text, is_error: isError }];
  return JSON.stringify(line);
}

/** The lines of one exchange whose tool call fails with `error` (prompt, tool call, error, reply, turn end). */
export function errorExchangeLines(s: Session, user: string, command: string, error: string, assistant: string): string[] {
  const id = `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
  return [userLine(s, user), toolUseLine(s, id, command), toolResultLine(s, id, error, true), assistantLine(s, assistant), turnEndLine(s)];
}

/** The lines of one plain exchange (prompt, progress, reply, turn end). */
export function exchangeLines(s: Session, user: string, assistant: string): string[] {
  return [userLine(s, user), progressLine(s), assistantLine(s, assistant), turnEndLine(s)];
}

/** The uuid the daemon logs as `exchangeUuid` for an exchange: its prompt record's uuid. */
export function promptUuid(lines: string[]): string {
  return (JSON.parse(lines[0]) as { uuid: string }).uuid;
}

export function appendLines(s: Session, lines: string[]): void {
  mkdirSync(dirname(s.path), { recursive: true });
  appendFileSync(s.path, lines.join('\n') + '\n');
}

/** Warm-up exchanges that make a session's triggers ready (session.warmupExchanges = 4). */
export const WARMUP: Array<[string, string]> = [
  ['Let us add pagination to the invoices endpoint of the api', 'Added limit and cursor parameters to the invoices handler.'],
  ['Now write a test for the invoices pagination with two pages', 'Wrote a test that requests two pages and checks the cursor.'],
  ['Rename the page size parameter to limit in the invoices handler', 'Renamed pageSize to limit everywhere in the handler.'],
  ['Update the api docs for the invoices endpoint', 'Updated the OpenAPI description of the invoices endpoint.'],
];

/** Letters for n (0 → a, 25 → z, 26 → ba …): error first lines differ by words, not digits. */
export function letters(n: number): string {
  let s = '';
  do {
    s = String.fromCharCode(97 + (n % 26)) + s;
    n = Math.floor(n / 26);
  } while (n > 0);
  return s;
}

/**
 * A turn whose tool call fails with the postgres ECONNRESET error (matches PG_NOTE). `n` makes
 * the error's first line (its signature) new, so the error trigger fires again.
 */
export function pgErrorLines(s: Session, n = 0): string[] {
  return errorExchangeLines(
    s,
    `The API keeps failing against postgres with ECONNRESET under load, what is going on with the connection pool?`,
    'npm test -- db/pool',
    `Error: read ECONNRESET in pool worker ${letters(n)}\n    at TCP.onStreamRead (node:internal/stream_base_commons:217:20)\n    at acquireConnection (src/db/pool.ts:41:11)`,
    'The postgres connection pool drops idle connections; the server resets them and the pool hands out dead sockets.',
  );
}

/** Append pg-error exchanges 1…count to a session; returns their prompt uuids. */
export function appendPgErrors(s: Session, count: number): string[] {
  const uuids: string[] = [];
  for (let i = 1; i <= count; i++) {
    const lines = pgErrorLines(s, i);
    uuids.push(promptUuid(lines));
    appendLines(s, lines);
  }
  return uuids;
}

// ---------- a small real store, built by the real indexer ----------

export const PG_NOTE = `# Postgres pool timeouts

Connections in the pool were reset after long idle periods.

## Symptoms

The API logged ECONNRESET on the first query after a quiet night: read ECONNRESET at
acquireConnection in the postgres connection pool. Retries succeeded.

## Fix

Raise idleTimeoutMillis above the load balancer's idle cutoff and enable TCP keepalive on
the pool client. The ECONNRESET errors stopped.
`;

export const FILLER_NOTES: Record<string, string> = {
  'cooking.md': '# Cooking\n\nSear the steak in a hot cast iron pan and rest it five minutes before slicing. Bread dough needs a long cold proof.\n',
  'travel.md': '# Travel\n\nBook train tickets across the Alps early; seat reservations sell out in summer. Carry a paper copy of the passport.\n',
  'git.md': '# Git\n\nRebase the feature branch onto main before opening the pull request. Use git bisect to find a regression.\n',
  'k8s.md': '# Kubernetes\n\nA pod stuck in CrashLoopBackOff shows its last logs with kubectl logs --previous. Readiness probes gate traffic.\n',
};

export interface RegionSpec {
  name: string;
  scope?: string;
  /** relative path → file content */
  files: Record<string, string>;
}

/** Write each region's notes under `<base>/notes/<region>/` and index them with `active-brain index add`. */
export function indexRegions(e: Env, regions: RegionSpec[]): string[] {
  const dirs: string[] = [];
  for (const r of regions) {
    const dir = join(dirname(e.home), 'notes', r.name);
    for (const [rel, text] of Object.entries(r.files)) {
      mkdirSync(dirname(join(dir, rel)), { recursive: true });
      writeFileSync(join(dir, rel), text);
    }
    const args = [BIN, 'index', 'add', dir, '--region', r.name, '--kind', 'notes', '--json', ...(r.scope ? ['--scope', r.scope] : [])];
    const res = spawnSync(process.execPath, args, { env: e.env, encoding: 'utf8', timeout: 120_000 });
    if (res.status !== 0) throw new Error(`index add ${r.name} failed (${res.status}): ${res.stderr}`);
    dirs.push(dir);
  }
  return dirs;
}

/** The default small store: the postgres note plus unrelated filler in another region. */
export function indexDefaultStore(e: Env, extra: RegionSpec[] = []): void {
  indexRegions(e, [{ name: 'pg-notes', files: { 'pool-timeouts.md': PG_NOTE } }, { name: 'misc', files: FILLER_NOTES }, ...extra]);
}

/**
 * Build the default store once (in its own temp env) and hand out copies: indexing costs a few
 * seconds per region, a copy nothing. Returns a function copying it into an env's store path.
 */
export function storeTemplate(make: (e: Env) => void = (e) => indexDefaultStore(e)): { copyTo: (e: Env) => string; cleanup: () => void } {
  let tpl: Env | null = null;
  return {
    copyTo(e: Env) {
      if (!tpl) {
        tpl = tempEnv('ab-faults-store-');
        make(tpl);
      }
      const dest = e.env.ACTIVE_BRAIN_STORE ?? join(e.home, 'store.sqlite');
      mkdirSync(dirname(dest), { recursive: true, mode: 0o700 });
      copyFileSync(tpl.env.ACTIVE_BRAIN_STORE ?? join(tpl.home, 'store.sqlite'), dest);
      return dest;
    },
    cleanup() {
      tpl?.cleanup();
      tpl = null;
    },
  };
}

// ---------- /proc, hashes, files ----------

/** VmRSS and VmHWM of a process in MB (Linux /proc), null when it is gone. */
export function procMemMb(pid: number): { rss: number; hwm: number } | null {
  try {
    const s = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (k: string) => Number(new RegExp(`^${k}:\\s+(\\d+) kB`, 'm').exec(s)?.[1] ?? NaN);
    return { rss: kb('VmRSS') / 1024, hwm: kb('VmHWM') / 1024 };
  } catch {
    return null;
  }
}

/** Socket inodes a process holds open (from /proc/<pid>/fd links `socket:[inode]`). */
export function socketInodes(pid: number): string[] {
  const out: string[] = [];
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const fd of fds) {
    try {
      const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (m) out.push(m[1]);
    } catch { /* closed meanwhile */ }
  }
  return out;
}

/** Inodes of the inet sockets (tcp, tcp6, udp, udp6, raw) in a process's network namespace. */
export function inetSocketInodes(pid: number): Set<string> {
  const set = new Set<string>();
  for (const t of ['tcp', 'tcp6', 'udp', 'udp6', 'raw', 'raw6']) {
    let text = '';
    try {
      text = readFileSync(`/proc/${pid}/net/${t}`, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols.length > 9) set.add(cols[9]);
    }
  }
  return set;
}

export function sha256File(path: string): string {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** Quantile of a list (linear interpolation), NaN when empty. */
export function quantile(xs: number[], q: number): number {
  if (!xs.length) return Number.NaN;
  const s = [...xs].sort((a, b) => a - b);
  const pos = (s.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return s[lo] + (s[hi] - s[lo]) * (pos - lo);
}

/** True when this process may mount file systems (root on Linux). */
export const canMount = process.platform === 'linux' && typeof process.getuid === 'function' && process.getuid() === 0;

/** Run a command, throwing with its stderr when it fails. */
export function sh(cmd: string, args: string[]): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed: ${r.stderr || r.error?.message}`);
  return r.stdout;
}

/** Try a command; true when it exited 0. */
export function trySh(cmd: string, args: string[]): boolean {
  return spawnSync(cmd, args, { stdio: 'ignore' }).status === 0;
}

/**
 * The daemon log read the way a tolerant reader (daemon/jsonl-read.ts) does: whole records, plus
 * the lines that do not parse (torn by a crash or a full disk) counted separately.
 */
export function daemonLog(e: Env): { records: Array<Record<string, unknown>>; torn: string[] } {
  const dir = join(e.home, 'logs');
  const records: Array<Record<string, unknown>> = [];
  const torn: string[] = [];
  if (!existsSync(dir)) return { records, torn };
  const names = readdirSync(dir).filter((n) => n.startsWith('daemon.jsonl')).sort().reverse();
  for (const n of names) {
    for (const line of readFileSync(join(dir, n), 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        records.push(JSON.parse(line) as Record<string, unknown>);
      } catch {
        torn.push(line);
      }
    }
  }
  return { records, torn };
}

export const tolerantDecisions = (e: Env) => daemonLog(e).records.filter((r) => r.type === 'decision');
