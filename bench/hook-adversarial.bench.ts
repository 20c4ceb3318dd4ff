/**
 * The hook on a hostile machine (issue 38 targets: exit 0 within 300 ms), the real process as
 * installed (bin/active-brain-hook.cjs) with the default hook deadline (150 ms), interleaved:
 *   - bare:         node -e 0 (what a Node start alone costs in the same run)
 *   - control:      a PostToolUseFailure with a fixes file, payload written and closed → printed
 *   - fifo:         the same, its transcript_path a FIFO (no writer) → printed, the FIFO not read
 *   - stdin-held:   stdin held open with no data (closed only after 10 s) → stdin-timeout
 *   - deep-payload: a 2 MB payload nested a million levels deep → bad-payload
 * Wall time per run, spawn to exit (the test suite asserts only a generous bound:
 * test/hook/adversarial.test.ts). State lives in opts.workDir and is deleted afterwards.
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import type { FixFile, HookSettings } from '../shared/types.js';
import { quantile } from './stats.js';
import { errorSignature } from '../shared/error-signature.js';

/** Issue 38's target: the hook exits 0 within this (ms) whatever it is given. */
const TARGET_MS = 300;
const RUNS = 20;
const RUNS_QUICK = 6;
/** How long stdin is held open in the stdin-held case (ms): a hang would last this long. */
const HOLD_MS = 10_000;
const ERROR = 'Exit code 128\nfatal: The current branch feature/x has no upstream branch.\n';
const SESSION = '3f0c2a51-7d7e-4c1e-9a3b-1b2c3d4e5f60';

function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 4; i++, dir = dirname(dir)) {
    try {
      execFileSync('test', ['-f', join(dir, 'bin', 'active-brain-hook.cjs')]);
      return dir;
    } catch { /* up */ }
  }
  throw new Error('bin/active-brain-hook.cjs not found');
}

/** One run: wall ms from spawn to exit, and its exit code. `input` null holds stdin open. */
function once(args: string[], env: NodeJS.ProcessEnv, input: string | null): Promise<{ ms: number; code: number | null }> {
  return new Promise((done) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, args, { env, stdio: ['pipe', 'ignore', 'ignore'] });
    child.stdin.on('error', () => undefined);
    const close = setTimeout(() => child.stdin.end(), HOLD_MS);
    child.on('exit', (code) => {
      clearTimeout(close);
      child.stdin.destroy();
      done({ ms: performance.now() - t0, code });
    });
    if (input !== null) child.stdin.end(input);
  });
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const bin = join(repoRoot(), 'bin', 'active-brain-hook.cjs');
  const base = join(opts.workDir, 'hook-adversarial');
  const home = join(base, 'home');
  const root = join(base, 'projects');
  const proj = join(root, '-work-app');
  mkdirSync(join(home, 'fixes'), { recursive: true });
  mkdirSync(proj, { recursive: true });
  const settings: HookSettings = {
    version: 1, transcriptsRoot: root, deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 256 * 1024, toolCacheTtlMs: 60_000,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' },
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300, tool: { state: 'live', minConfidence: 0.5, sessionBudget: 1000, minGapSteps: 0, minGapSeconds: 0 } }],
  };
  writeFileSync(join(home, 'hook-settings.json'), JSON.stringify(settings));
  const sig = errorSignature(ERROR)!.sig;
  const fix: FixFile = {
    version: 1, sig, storeStamp: 'bench', createdAt: Date.now(),
    fixes: [{ offer: { id: `fix-${sig}`, chunkId: 1, handle: 'sessions/258c7280#ep-3', type: 'past-fix', confidence: 0.86, reason: 'fixed by git push --set-upstream origin <branch>', region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool' }, sourceSession: '258c7280-ae70-4798-800f-63464d01a85d', scope: 'global' }],
  };
  writeFileSync(join(home, 'fixes', `${sig}.json`), JSON.stringify(fix));
  const regular = join(proj, `${SESSION}.jsonl`);
  writeFileSync(regular, '{}\n');
  const fifo = join(proj, 'fifo-0000.jsonl');
  execFileSync('mkfifo', [fifo]);
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: base, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: root };
  let n = 0;
  const payload = (transcript: string) => JSON.stringify({ session_id: `${SESSION.slice(0, -4)}${String(n++ % 10000).padStart(4, '0')}`, hook_event_name: 'PostToolUseFailure', cwd: '/work/app', transcript_path: transcript, tool_name: 'Bash', tool_input: { command: 'git push' }, tool_use_id: `toolu_${n}`, error: ERROR });
  const depth = 1_000_000;
  const deep = payload(regular).replace(/}$/, `,"x":${'['.repeat(depth)}${']'.repeat(depth)}}`);
  const cases: Record<string, () => string | null> = {
    bare: () => '',
    control: () => payload(regular),
    fifo: () => payload(fifo),
    'stdin-held': () => null,
    'deep-payload': () => deep,
  };
  const runs = opts.quick ? RUNS_QUICK : RUNS;
  const ms: Record<string, number[]> = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
  let nonZero = 0;
  try {
    await once([bin], env, payload(regular)); // warm-up: writes the launcher's code cache
    for (let i = 0; i < runs; i++) {
      for (const [k, input] of Object.entries(cases)) {
        const r = await once(k === 'bare' ? ['-e', '0'] : [bin], env, input());
        ms[k].push(r.ms);
        if (r.code !== 0) nonZero++;
      }
    }
  } finally {
    rmSync(base, { recursive: true, force: true });
  }
  const figures: Figure[] = [];
  const bare = quantile(ms.bare, 0.5);
  for (const [k, xs] of Object.entries(ms)) {
    const med = quantile(xs, 0.5);
    figures.push({ metric: `${k}: wall median / max`, value: `${Math.round(med)} / ${Math.round(Math.max(...xs))}`, unit: 'ms' });
    // What the hook adds to a bare Node start, in the same interleaved run: on a busy machine
    // the start alone takes longer than the target, so the target is judged on this.
    if (k !== 'bare' && k !== 'control') figures.push({ metric: `${k}: median wall − bare node median`, value: Math.round(med - bare), unit: 'ms', target: `≤ ${TARGET_MS} ms`, pass: med - bare <= TARGET_MS });
  }
  figures.push({ metric: 'runs that exited non-zero', value: nonZero, target: '0', pass: nonZero === 0 });
  return {
    name: 'hook-adversarial',
    about: 'issue 38: the hook exits 0 within 300 ms on a FIFO transcript, on stdin held open, on a deeply nested payload',
    figures,
    notes: [
      `${runs} interleaved runs per case after one warm-up; wall = spawn to exit of bin/active-brain-hook.cjs; hook deadline 150 ms (the default). The target is judged on the wall time less a bare node start's (same run): on a loaded machine the start alone exceeds 300 ms.`,
      `stdin-held: stdin is closed only after ${HOLD_MS / 1000} s, so a hook that waited for it would show ≥ ${HOLD_MS} ms; fifo: the FIFO has no writer (an open without O_NONBLOCK would never return).`,
    ],
  };
}
