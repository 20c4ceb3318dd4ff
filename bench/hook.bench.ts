/**
 * Hook benchmark (issue 5 targets): the real hook process, side by side in one run with bare
 * `node -e 0`, interleaved so machine load hits all three alike:
 *   - bare:     node -e 0
 *   - no-cache: bin/active-brain-hook.cjs (as installed) for a session without a cache → silent
 *   - printed:  the same for a session with an eligible cached offer (live mode) → one line
 * Wall time per run (spawn to exit, stdin payload included), medians and p99; peak RSS from
 * GNU time (`/usr/bin/time -f %M`) when present. Also the hook's own latency_ms from its log.
 * State lives in opts.workDir and is deleted afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import type { HookSettings, OfferCache } from '../shared/types.js';
import { quantile } from './stats.js';
import { hookCommand } from '../hook/install.js';

/** Targets from issue 5. */
const TARGET_MEDIAN_RATIO = 1.25;
const TARGET_P99_MS = 60;
const TARGET_RSS_MB = 60;
const RUNS = 150;
const RUNS_QUICK = 40;
const RSS_RUNS = 12;
const RSS_RUNS_QUICK = 5;
const WARMUP = 3;
const GNU_TIME = '/usr/bin/time';
/** Where Debian/Fedora/Alpine/macOS keep the system CA bundle (the inherited-env row points
 *  NODE_EXTRA_CA_CERTS at the first that exists, unless the bench's own env sets one). */
const CA_BUNDLES = ['/etc/ssl/certs/ca-certificates.crt', '/etc/pki/tls/certs/ca-bundle.crt', '/etc/ssl/cert.pem'];
/** Runs per command in the inherited-env comparison. */
const INHERITED_RUNS = 30;

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'active-brain-hook.cjs'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('package root not found');
}

interface Case {
  name: 'bare' | 'no-cache' | 'printed';
  args: string[];
  input: (i: number) => string;
  before?: (i: number) => void;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const root = packageRoot();
  const bin = join(root, 'bin', 'active-brain-hook.cjs');
  if (!existsSync(join(root, 'dist', 'hook.bundle.cjs'))) {
    return { name: 'hook', about: 'issue 5: hook latency and memory', figures: [], notes: [], skipped: 'dist/hook.bundle.cjs missing: run npm run build' };
  }
  const base = join(opts.workDir, 'hook-bench');
  rmSync(base, { recursive: true, force: true });
  const home = join(base, 'home');
  const transcripts = join(base, 'projects');
  const cwd = join(base, 'proj');
  const proj = join(transcripts, '-bench-proj');
  for (const d of [home, proj, cwd, join(home, 'cache')]) mkdirSync(d, { recursive: true });
  const settings: HookSettings = {
    version: 1, transcriptsRoot: transcripts, deadlineMs: 150, maxBytes: 400, tokenCeiling: 90, maxLagBytes: 256 * 1024,
    workers: { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' },
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300 }],
  };
  writeFileSync(join(home, 'hook-settings.json'), JSON.stringify(settings));
  const env = { PATH: process.env.PATH, HOME: base, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: transcripts };
  const prompt = 'why does the connection pool keep resetting under load? '.repeat(20);
  const payload = (sid: string) => JSON.stringify({
    session_id: sid, transcript_path: join(proj, `${sid}.jsonl`), cwd, permission_mode: 'default', hook_event_name: 'UserPromptSubmit', prompt,
  });
  const prepare = (sid: string, withCache: boolean) => {
    writeFileSync(join(proj, `${sid}.jsonl`), 'x'.repeat(8191) + '\n');
    if (!withCache) return;
    const now = Date.now();
    const cache: OfferCache = {
      version: 1, sessionId: sid, mode: 'default', turn: 5, transcriptOffset: 8000, transcriptPath: join(proj, `${sid}.jsonl`),
      exchangeUuid: 'u', createdAt: now, expiresAt: now + 600_000,
      offer: { id: `o-${sid}`, chunkId: 1, handle: 'notes/pg/pool-timeouts.md#2', type: 'past-fix', confidence: 0.81,
        reason: 'same ECONNRESET as 2026-10-12; fixed by raising the idle timeout', region: 'notes', wildcard: false, trigger: 'error', reasoned: false },
    };
    writeFileSync(join(home, 'cache', `${sid}.json`), JSON.stringify(cache));
  };
  const cases: Case[] = [
    { name: 'bare', args: ['-e', '0'], input: () => '' },
    { name: 'no-cache', args: [bin], input: (i) => payload(`nc-${i}`), before: (i) => prepare(`nc-${i}`, false) },
    // A fresh session per run: a second offer in one session would (rightly) be gapped.
    { name: 'printed', args: [bin], input: (i) => payload(`pr-${i}`), before: (i) => prepare(`pr-${i}`, true) },
  ];

  const n = opts.quick ? RUNS_QUICK : RUNS;
  const wall: Record<string, number[]> = { bare: [], 'no-cache': [], printed: [] };
  const outputs: Record<string, number> = { bare: 0, 'no-cache': 0, printed: 0 };
  let badExits = 0;
  for (let i = 0; i < n + WARMUP; i++) {
    // Rotate the order so no case always runs first after a pause.
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(i + k) % cases.length];
      c.before?.(i);
      const input = c.input(i);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, c.args, { input, env, cwd, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0 || r.stderr) badExits++;
      if (i < WARMUP) continue;
      wall[c.name].push(ms);
      if (r.stdout.includes('hookSpecificOutput')) outputs[c.name]++;
    }
  }

  const rss: Record<string, number[]> = { bare: [], 'no-cache': [], printed: [] };
  const haveTime = existsSync(GNU_TIME);
  if (haveTime) {
    const m = opts.quick ? RSS_RUNS_QUICK : RSS_RUNS;
    for (let i = 0; i < m; i++) {
      for (const c of cases) {
        const idx = 100_000 + i;
        c.before?.(idx);
        const r = spawnSync(GNU_TIME, ['-f', '@@RSS %M', process.execPath, ...c.args], { input: c.input(idx), env, cwd, encoding: 'utf8' });
        const kb = /@@RSS (\d+)/.exec(r.stderr);
        if (kb) rss[c.name].push(Number(kb[1]) / 1024);
      }
    }
  }

  // Inherited environment: a user with NODE_EXTRA_CA_CERTS set (a CA bundle read at every Node
  // start). Both through /bin/sh as Claude Code runs hooks: bare `node -e 0` vs the command
  // `install` registers, which clears the variable for the hook (hook/install.ts).
  const caBundle = [process.env.NODE_EXTRA_CA_CERTS, ...CA_BUNDLES].find((p): p is string => !!p && existsSync(p));
  const inherited: { bare: number[]; registered: number[] } = { bare: [], registered: [] };
  if (caBundle) {
    const envCa = { ...env, NODE_EXTRA_CA_CERTS: caBundle };
    const registered = hookCommand(process.execPath, bin);
    const m = opts.quick ? RSS_RUNS_QUICK : INHERITED_RUNS;
    for (let i = 0; i < m + WARMUP; i++) {
      for (const [k, cmd, input] of [['bare', `${process.execPath} -e 0`, ''], ['registered', registered, payload(`ca-${i}`)]] as const) {
        if (k === 'registered') prepare(`ca-${i}`, true);
        const t0 = process.hrtime.bigint();
        const r = spawnSync('/bin/sh', ['-c', cmd], { input, env: envCa, cwd, encoding: 'utf8' });
        const ms = Number(process.hrtime.bigint() - t0) / 1e6;
        if (r.status !== 0 || r.stderr) badExits++;
        if (i >= WARMUP) inherited[k].push(ms);
      }
    }
  }

  const own: number[] = [];
  try {
    for (const line of readFileSync(join(home, 'logs', 'hook.jsonl'), 'utf8').trim().split('\n')) {
      own.push((JSON.parse(line) as { latency_ms: number }).latency_ms);
    }
  } catch { /* no log: reported as NaN */ }

  const med = (k: string) => quantile(wall[k], 0.5);
  const p99 = (k: string) => quantile(wall[k], 0.99);
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  const figures: Figure[] = [{ metric: 'bare node -e 0: median wall', value: round(med('bare')), unit: 'ms' }];
  for (const k of ['no-cache', 'printed']) {
    const ratio = med(k) / med('bare');
    figures.push(
      { metric: `${k}: median wall`, value: round(med(k)), unit: 'ms' },
      { metric: `${k}: median / bare node`, value: round(ratio, 2), unit: '×', target: `≤ ${TARGET_MEDIAN_RATIO}×`, pass: ratio <= TARGET_MEDIAN_RATIO },
      { metric: `${k}: p99 wall`, value: round(p99(k)), unit: 'ms', target: `≤ ${TARGET_P99_MS} ms`, pass: p99(k) <= TARGET_P99_MS },
    );
    if (haveTime && rss[k].length) {
      const peak = Math.max(...rss[k]);
      figures.push({ metric: `${k}: peak RSS (max of ${rss[k].length})`, value: round(peak), unit: 'MB', target: `≤ ${TARGET_RSS_MB} MB`, pass: peak <= TARGET_RSS_MB });
    }
  }
  figures.push({ metric: 'bare node -e 0: p99 wall', value: round(p99('bare')), unit: 'ms' });
  if (caBundle && inherited.bare.length) {
    const b = quantile(inherited.bare, 0.5);
    const h = quantile(inherited.registered, 0.5);
    figures.push({
      metric: 'user env with NODE_EXTRA_CA_CERTS: sh -c bare node -e 0 / sh -c registered hook command (printed), medians',
      value: `${round(b)} / ${round(h)} ms (${round(h / b, 2)}×)`,
      target: '≤ 1.25×',
      pass: h / b <= TARGET_MEDIAN_RATIO,
    });
  }
  if (haveTime && rss.bare.length) figures.push({ metric: 'bare node -e 0: peak RSS', value: round(Math.max(...rss.bare)), unit: 'MB' });
  figures.push(
    { metric: "hook's own time (latency_ms in its log): median", value: round(quantile(own, 0.5), 2), unit: 'ms' },
    { metric: "hook's own time: p99", value: round(quantile(own, 0.99), 2), unit: 'ms' },
    { metric: 'runs printing an offer: printed / no-cache', value: `${outputs.printed}/${n} / ${outputs['no-cache']}/${n}`, target: `${n}/${n} / 0/${n}`, pass: outputs.printed === n && outputs['no-cache'] === 0 },
    { metric: 'non-zero exits or stderr output', value: badExits, target: '0', pass: badExits === 0 },
  );
  rmSync(base, { recursive: true, force: true });
  return {
    name: 'hook',
    about: 'issue 5: UserPromptSubmit hook wall time and peak RSS vs bare node',
    figures,
    notes: [
      `${n} interleaved runs per case after ${WARMUP} warm-up rounds; wall = spawnSync start to exit, including the payload on stdin (${payload('x').length} bytes).`,
      'The hook runs as installed: node bin/active-brain-hook.cjs → dist/hook.bundle.cjs; printed runs use a fresh session each (live mode), no-cache runs a session without a cache.',
      haveTime ? `Peak RSS: ${GNU_TIME} -f %M over ${rss.bare.length} runs per case.` : `Peak RSS not measured: ${GNU_TIME} missing.`,
      'The machine may be shared: compare the ratio (same-run bare node) rather than absolute times.',
      caBundle
        ? `Inherited-env row: NODE_EXTRA_CA_CERTS=${caBundle}, both commands through /bin/sh, ${inherited.bare.length} runs each; the registered command clears the variable for the hook (docs/HOOK.md, "Install").`
        : 'Inherited-env row skipped: no CA bundle file found to point NODE_EXTRA_CA_CERTS at.',
    ],
  };
}
