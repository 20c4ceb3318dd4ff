/**
 * Codex CLI benchmark (issue 14 item 3 targets), side by side with Claude Code in one run:
 *   - tailing reaction: one real daemon tails a Claude Code root and a Codex sessions root; a
 *     failing tool result line is appended, alternately to a Claude Code transcript and to a
 *     Codex rollout, and timed until the daemon's tool decision for that call id is in
 *     logs/daemon.jsonl (p50 / p95 per host; target Codex p95 ≤ 300 ms). The store is the Codex
 *     fixture rollouts indexed by the real CLI (so the failures meet a real episode index).
 *   - hook: the installed hook command's Node (bin/active-brain-hook.cjs) on a Codex
 *     PostToolUse payload (a failing exec output, its fixes file present: prints) and a Codex
 *     UserPromptSubmit payload (cached offer: prints), interleaved with bare `node -e 0` and the
 *     Claude Code prompt payload; medians (target Codex / bare ≤ 1.25×).
 * State lives in opts.workDir and is deleted afterwards.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import type { HookSettings, OfferCache } from '../shared/types.js';
import { quantile } from './stats.js';
import { errorSignature } from '../shared/error-signature.js';
import { codexErrorText, readCodexToolOutput } from '../shared/codex-output.js';

/** Targets from issue 14 item 3. */
const TARGET_REACTION_P95_MS = 300;
const TARGET_HOOK_RATIO = 1.25;
const REACTIONS = 40;
const REACTIONS_QUICK = 16;
const HOOK_RUNS = 80;
const HOOK_RUNS_QUICK = 30;
const WARMUP = 3;
/** Log polling step while waiting for a decision (ms). */
const POLL_MS = 5;
/** Pause between a tool call line and its result line, and between rounds (ms). */
const GAP_MS = 120;

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'active-brain-hook.cjs'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('package root not found');
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const round = (v: number, d = 1) => Math.round(v * 10 ** d) / 10 ** d;
const execOut = (code: number, body: string) => `Chunk ID: ${randomUUID().slice(0, 6)}\nWall time: 1.9000 seconds\nProcess exited with code ${code}\nOriginal token count: 50\nOutput:\n${body}`;
const ERROR_BODY = (i: number) => `FAIL  test/cart.test.ts > cart total\nTypeError: Cannot read properties of undefined (reading 'rate')\n    at applyDiscount (src/cart/discount.ts:${i}:7)\n`;

class ClaudeFile {
  last: string | null = null;
  constructor(readonly id: string, readonly path: string) {}
  private base(type: string) {
    const uuid = randomUUID();
    const r = { parentUuid: this.last, isSidechain: false, userType: 'external', cwd: '/home/dev/shop-api', sessionId: this.id, version: '2.1.0', gitBranch: 'main', type, uuid, timestamp: new Date().toISOString() };
    this.last = uuid;
    return r;
  }
  prompt(text: string) {
    return JSON.stringify({ ...this.base('user'), message: { role: 'user', content: text } }) + '\n';
  }
  call(id: string) {
    return JSON.stringify({ ...this.base('assistant'), message: { role: 'assistant', id: `msg_${randomUUID()}`, content: [{ type: 'tool_use', id, name: 'Bash', input: { command: 'npm test' } }] } }) + '\n';
  }
  result(id: string, text: string) {
    return JSON.stringify({ ...this.base('user'), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: true, content: text }] } }) + '\n';
  }
}

const codexLine = (type: string, payload: unknown) => JSON.stringify({ timestamp: new Date().toISOString(), type, payload }) + '\n';

/** Tool decisions already in the log, by tool_use_id (reads only what was appended). */
class DecisionLog {
  private offset = 0;
  private rest = '';
  readonly seen = new Set<string>();
  constructor(private readonly path: string) {}
  poll(): void {
    if (!existsSync(this.path)) return;
    const buf = readFileSync(this.path);
    if (buf.length < this.offset) this.offset = 0;
    const text = this.rest + buf.subarray(this.offset).toString('utf8');
    this.offset = buf.length;
    const lines = text.split('\n');
    this.rest = lines.pop() ?? '';
    for (const l of lines) {
      if (!l.includes('"channel":"tool"')) continue;
      const id = /"tool_use_id":"([^"]+)"/.exec(l)?.[1];
      if (id) this.seen.add(id);
    }
  }
  async waitFor(id: string, timeoutMs = 10_000): Promise<void> {
    const t0 = Date.now();
    for (;;) {
      this.poll();
      if (this.seen.has(id)) return;
      if (Date.now() - t0 > timeoutMs) throw new Error(`no tool decision for ${id}`);
      await sleep(POLL_MS);
    }
  }
}

async function reaction(opts: BenchOptions, root: string, base: string, figures: Figure[], notes: string[]): Promise<void> {
  const home = join(base, 'home');
  const claudeRoot = join(base, 'projects');
  const codexRoot = join(base, 'codex', 'sessions');
  const project = join(claudeRoot, '-home-dev-shop-api');
  for (const d of [home, project, codexRoot]) mkdirSync(d, { recursive: true });
  const env: NodeJS.ProcessEnv = {
    ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: claudeRoot, ACTIVE_BRAIN_CODEX_SESSIONS: codexRoot,
    ACTIVE_BRAIN_MODEL_PATH: opts.modelPath, ACTIVE_BRAIN_STORE: join(home, 'store.sqlite'),
  };
  delete env.ACTIVE_BRAIN_MODEL;
  const bin = join(root, 'bin', 'active-brain.js');
  const hist = join(base, 'codex-history');
  cpSync(join(root, 'test', 'fixtures', 'codex', 'sessions'), hist, { recursive: true });
  const idx = spawnSync(process.execPath, [bin, 'index', 'add', hist, '--region', 'sessions', '--kind', 'transcripts'], { env, encoding: 'utf8' });
  if (idx.status !== 0) throw new Error(`index failed: ${idx.stderr}`);
  const daemon: ChildProcess = spawn(process.execPath, [bin, 'start', '--set', 'daemon.rootPollMs=200'], { env, stdio: 'ignore' });
  try {
    const t0 = Date.now();
    while (JSON.parse(existsSync(join(home, 'canary.json')) ? readFileSync(join(home, 'canary.json'), 'utf8') : '{}').pid !== daemon.pid) {
      if (Date.now() - t0 > 60_000) throw new Error('daemon did not start');
      await sleep(50);
    }
    const claude = new ClaudeFile(randomUUID(), '');
    (claude as { path: string }).path = join(project, `${claude.id}.jsonl`);
    appendFileSync(claude.path, claude.prompt('make the cart tests pass'));
    const codexId = randomUUID();
    const day = join(codexRoot, '2026', '12', '01');
    mkdirSync(day, { recursive: true });
    const rollout = join(day, `rollout-2026-12-01T12-00-00-${codexId}.jsonl`);
    appendFileSync(rollout, codexLine('session_meta', { id: codexId, cwd: '/home/dev/shop-api', originator: 'codex_cli_rs', cli_version: '0.64.0' }) +
      codexLine('response_item', { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'make the cart tests pass' }] }));
    await sleep(1000); // both files discovered
    const log = new DecisionLog(join(home, 'logs', 'daemon.jsonl'));
    const lat: Record<'claude-code' | 'codex', number[]> = { 'claude-code': [], codex: [] };
    const n = opts.quick ? REACTIONS_QUICK : REACTIONS;
    for (let i = 0; i < n; i++) {
      for (const host of (i % 2 ? ['codex', 'claude-code'] : ['claude-code', 'codex']) as Array<'claude-code' | 'codex'>) {
        const id = host === 'codex' ? `call_${randomUUID().replace(/-/g, '').slice(0, 20)}` : `toolu_${randomUUID().replace(/-/g, '').slice(0, 20)}`;
        if (host === 'codex') appendFileSync(rollout, codexLine('response_item', { type: 'function_call', name: 'exec_command', arguments: JSON.stringify({ cmd: 'npm test' }), call_id: id }));
        else appendFileSync(claude.path, claude.call(id));
        await sleep(GAP_MS);
        const t = performance.now();
        if (host === 'codex') appendFileSync(rollout, codexLine('response_item', { type: 'function_call_output', call_id: id, output: execOut(1, ERROR_BODY(i)) }));
        else appendFileSync(claude.path, claude.result(id, `Exit code 1\n${ERROR_BODY(i)}`));
        await log.waitFor(id);
        lat[host].push(performance.now() - t);
        await sleep(GAP_MS);
      }
    }
    for (const host of ['codex', 'claude-code'] as const) {
      const p50 = quantile(lat[host], 0.5);
      const p95 = quantile(lat[host], 0.95);
      figures.push(
        { metric: `${host}: tool result appended → tool decision logged, p50`, value: Math.round(p50), unit: 'ms' },
        { metric: `${host}: … p95`, value: Math.round(p95), unit: 'ms', ...(host === 'codex' ? { target: `≤ ${TARGET_REACTION_P95_MS} ms`, pass: p95 <= TARGET_REACTION_P95_MS } : {}) },
      );
    }
    notes.push(`reaction: ${n} failing tool results per host, alternating host order each round, one daemon tailing both roots (native file events); timed from appendFileSync of the result line until logs/daemon.jsonl holds the tool decision naming its call id (log polled every ${POLL_MS} ms).`);
  } finally {
    daemon.kill('SIGTERM');
    await new Promise((r) => daemon.once('exit', r));
  }
}

function hook(opts: BenchOptions, root: string, base: string, figures: Figure[], notes: string[]): void {
  const bin = join(root, 'bin', 'active-brain-hook.cjs');
  const home = join(base, 'hook-home');
  const claudeRoot = join(base, 'hook-projects');
  const codexRoot = join(base, 'hook-codex');
  const cwd = join(base, 'proj');
  const proj = join(claudeRoot, '-bench-proj');
  const day = join(codexRoot, '2026', '12', '01');
  for (const d of [home, proj, day, cwd, join(home, 'cache'), join(home, 'fixes')]) mkdirSync(d, { recursive: true });
  const tool = { state: 'live' as const, minConfidence: 0.7, sessionBudget: 5, minGapSteps: 0, minGapSeconds: 0 };
  const settings: HookSettings = {
    version: 1, transcriptsRoot: claudeRoot, codexSessionsRoot: codexRoot, deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 256 * 1024,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' }, toolCacheTtlMs: 120_000,
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300, tool }],
  };
  writeFileSync(join(home, 'hook-settings.json'), JSON.stringify(settings));
  const errorText = execOut(1, ERROR_BODY(14));
  const sig = errorSignature(codexErrorText(readCodexToolOutput(errorText)))!.sig;
  const offer = { id: 'fix-1', chunkId: 1, handle: 'sessions/rollout.jsonl#1', type: 'past-fix' as const, confidence: 0.9, reason: 'fixed by apply_patch: src/cart/discount.ts — same "typeerror" error', region: 'sessions', wildcard: false, trigger: 'error' as const, reasoned: false };
  writeFileSync(join(home, 'fixes', `${sig}.json`), JSON.stringify({ version: 1, sig, storeStamp: 's', createdAt: Date.now(), fixes: [{ offer, sourceSession: 'older', scope: 'global' }] }));
  const env = { PATH: process.env.PATH, HOME: base, ACTIVE_BRAIN_HOME: home };
  const prompt = 'why does the cart total break for members without a tier? '.repeat(10);
  const cache = (sid: string, path: string): void => {
    writeFileSync(path, 'x'.repeat(8191) + '\n');
    const now = Date.now();
    const c: OfferCache = { version: 1, sessionId: sid, mode: 'default', turn: 5, transcriptOffset: 8000, transcriptPath: path, exchangeUuid: 'u', createdAt: now, expiresAt: now + 600_000, offer: { ...offer, id: `o-${sid}` } };
    writeFileSync(join(home, 'cache', `${sid}.json`), JSON.stringify(c));
  };
  type Name = 'bare' | 'claude-code prompt' | 'codex prompt' | 'codex tool';
  const cases: Array<{ name: Name; args: string[]; input: (i: number) => string }> = [
    { name: 'bare', args: ['-e', '0'], input: () => '' },
    { name: 'claude-code prompt', args: [bin], input: (i) => { const sid = `cc-${i}`; const p = join(proj, `${sid}.jsonl`); cache(sid, p); return JSON.stringify({ session_id: sid, transcript_path: p, cwd, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt }); } },
    { name: 'codex prompt', args: [bin], input: (i) => { const sid = `cx-${i}`; const p = join(day, `rollout-x-${sid}.jsonl`); cache(sid, p); return JSON.stringify({ session_id: sid, turn_id: 't1', transcript_path: p, cwd, hook_event_name: 'UserPromptSubmit', model: 'gpt-5-codex', permission_mode: 'default', prompt }); } },
    { name: 'codex tool', args: [bin], input: (i) => JSON.stringify({ session_id: `ct-${i}`, turn_id: 't2', transcript_path: join(day, `rollout-x-ct-${i}.jsonl`), cwd, hook_event_name: 'PostToolUse', model: 'gpt-5-codex', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: 'npm test' }, tool_response: errorText, tool_use_id: `call_${i}` }) },
  ];
  const wall: Record<Name, number[]> = { bare: [], 'claude-code prompt': [], 'codex prompt': [], 'codex tool': [] };
  const printed: Record<Name, number> = { bare: 0, 'claude-code prompt': 0, 'codex prompt': 0, 'codex tool': 0 };
  const n = opts.quick ? HOOK_RUNS_QUICK : HOOK_RUNS;
  for (let i = 0; i < n + WARMUP; i++) {
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(i + k) % cases.length];
      const input = c.input(i);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, c.args, { input, env, cwd, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (i < WARMUP) continue;
      wall[c.name].push(ms);
      if (r.stdout.includes('hookSpecificOutput')) printed[c.name]++;
    }
  }
  const med = (k: Name) => quantile(wall[k], 0.5);
  figures.push({ metric: 'bare node -e 0: median wall', value: round(med('bare')), unit: 'ms' });
  for (const k of ['claude-code prompt', 'codex prompt', 'codex tool'] as const) {
    const ratio = med(k) / med('bare');
    figures.push(
      { metric: `${k} (printed ${printed[k]}/${n}): median wall`, value: round(med(k)), unit: 'ms' },
      { metric: `${k}: median / bare node`, value: round(ratio, 2), unit: '×', ...(k.startsWith('codex') ? { target: `≤ ${TARGET_HOOK_RATIO}×`, pass: ratio <= TARGET_HOOK_RATIO } : {}) },
    );
  }
  // The hook's own time (its log's latency_ms: from its module start, Node's boot excluded) —
  // steadier than wall time on a loaded machine.
  const own: Record<string, number[]> = { 'cc-': [], 'cx-': [], 'ct-': [] };
  const logPath = join(home, 'logs', 'hook.jsonl');
  if (existsSync(logPath)) {
    for (const l of readFileSync(logPath, 'utf8').split('\n')) {
      if (!l) continue;
      const r = JSON.parse(l) as { session?: string; latency_ms?: number };
      const k = Object.keys(own).find((p) => r.session?.startsWith(p));
      if (k && typeof r.latency_ms === 'number') own[k].push(r.latency_ms);
    }
  }
  const label: Record<string, string> = { 'cc-': 'claude-code prompt', 'cx-': 'codex prompt', 'ct-': 'codex tool' };
  for (const [k, v] of Object.entries(own)) if (v.length) figures.push({ metric: `${label[k]}: the hook's own latency_ms p50 / p95`, value: `${round(quantile(v, 0.5), 2)} / ${round(quantile(v, 0.95), 2)}`, unit: 'ms' });
  notes.push(`hook: ${n} runs per case, interleaved (rotating order) with bare node -e 0; every hook run prints (a fresh session with a cached offer, or the fixes file of the Codex error's signature); wall = spawn to exit with the payload on stdin.`);
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const root = packageRoot();
  if (!existsSync(join(root, 'dist', 'hook.bundle.cjs'))) {
    return { name: 'codex', about: 'issue 14 item 3: Codex CLI as a second host', figures: [], notes: [], skipped: 'dist/hook.bundle.cjs missing: run npm run build' };
  }
  const base = join(opts.workDir, `codex-bench-${process.pid}`);
  rmSync(base, { recursive: true, force: true });
  mkdirSync(base, { recursive: true });
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    await reaction(opts, root, base, figures, notes);
    hook(opts, root, base, figures, notes);
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  return { name: 'codex', about: 'issue 14 item 3: Codex CLI transcripts and hook payloads, side by side with Claude Code', figures, notes };
}
