/**
 * Hook benchmark (issue 5 targets; issue 12 for the tool channel): the real hook process,
 * side by side in one run with bare `node -e 0`, interleaved so machine load hits every case
 * alike:
 *   - bare:         node -e 0
 *   - no-cache:     bin/active-brain-hook.cjs (as installed) at a prompt of a session without a cache → silent
 *   - printed:      the same for a session with an eligible cached offer (live mode) → one line
 *   - tool-printed: a PostToolUseFailure with a 10,000-char error (Claude Code cuts longer
 *                   ones to about that) whose signature has a fixes file → one line
 *   - tool-near:    the same environment error under another failing test's name (another
 *                   head): no exact file, its key line's file → one line (issue 21)
 *   - tool-no-fix:  an error no file answers (a first-seen error: every key looked up) → silent
 *   - tool-printed-no-code-cache: tool-printed with ACTIVE_BRAIN_HOOK_CODE_CACHE=off (what the
 *                   launcher's V8 code cache saves, side by side; docs/HOOK.md "Code cache")
 * Any code cache beside the bundles (the hook's and the tool channel's) is deleted first: the
 * first warm-up round writes them, as the first hook runs after an install or upgrade do.
 * The tool cases' home holds the fixes folder of a 1,000-session store (FIXES_SESSIONS
 * synthetic sessions of three errors each, built by core/fixes.ts and written by the
 * daemon's own FixesWriter), not one file.
 * Wall time per run (spawn to exit, stdin payload included), medians and p99; peak RSS from
 * GNU time (`/usr/bin/time -f %M`) when present. Also the hook's own latency_ms from its log,
 * per case. State lives in opts.workDir and is deleted afterwards.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync, statSync, writeFileSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import type { FixFile, HookSettings, OfferCache } from '../shared/types.js';
import { quantile } from './stats.js';
import { hookCommand } from '../ops/hook-install.js';
import { errorSignature } from '../shared/error-signature.js';
import { buildFixFiles } from '../core/fixes.js';
import { FixesWriter } from '../daemon/fixes-writer.js';
import type { EpisodeRecord } from '../store/types.js';
import { seededRandom } from '../shared/prng.js';

/** Targets from issue 5 (the tool channel's median ratio: issue 37). */
const TARGET_MEDIAN_RATIO = 1.25;
/** The prompt channel's median ratio (issue 39): its cases are PROMPT_CASES. */
const TARGET_PROMPT_RATIO = 1.15;
const PROMPT_CASES: ReadonlySet<string> = new Set(['no-cache', 'printed']);
const TARGET_P99_MS = 60;
const TARGET_RSS_MB = 60;
/** The launcher's switch for its V8 code cache (bin/active-brain-hook.cjs). */
const CODE_CACHE_ENV = 'ACTIVE_BRAIN_HOOK_CODE_CACHE';
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
/** Characters of the tool cases' error (Claude Code cuts longer tool output to about this). */
const TOOL_ERROR_CHARS = 10_000;
/** Sessions of the synthetic store whose fixes folder the tool cases read (issue 21's size). */
const FIXES_SESSIONS = 1_000;
/** Errors per synthetic session, drawn from DISTINCT_ERRORS shapes (so some recur). */
const ERRORS_PER_SESSION = 3;
const DISTINCT_ERRORS = 900;

/** A test run's output as a failed Bash call reports it: passing tests, then the failing test
 *  (`test`) with an environment error (the database is down: a fix that transfers) and its
 *  stack, cut to exactly TOOL_ERROR_CHARS. */
function toolError(test = 'pool > reuses idle connections', cause = 'Error: connect ECONNREFUSED 127.0.0.1:5432'): string {
  const lines = ['Exit code 1', '', '> proj@1.0.0 test', '> vitest run', ''];
  for (let k = 0; lines.join('\n').length < TOOL_ERROR_CHARS * 0.6; k++) lines.push(` \u2713 src/module-${k}.test.ts > computes case ${k} correctly (${(k * 7) % 40} ms)`);
  lines.push(` FAIL  src/${test.split(' ')[0]}.test.ts > ${test}`, cause, '    at TCPConnectWrap.afterConnect [as oncomplete] (node:net:1555:16)', '');
  for (let k = 0; lines.join('\n').length < TOOL_ERROR_CHARS + 200; k++) lines.push(`    at Object.<anonymous> (/home/u/proj/src/pool-${k % 9}.ts:${10 + k}:${(k * 3) % 40})`);
  return lines.join('\n').slice(0, TOOL_ERROR_CHARS);
}

function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    if (existsSync(join(dir, 'package.json')) && existsSync(join(dir, 'bin', 'active-brain-hook.cjs'))) return dir;
    dir = dirname(dir);
  }
  throw new Error('package root not found');
}

const CASE_NAMES = ['bare', 'no-cache', 'printed', 'tool-printed', 'tool-near', 'tool-no-fix', 'tool-printed-no-code-cache'] as const;
type CaseName = (typeof CASE_NAMES)[number];
/** Session id prefix of each hook case (its log records are told apart by it). */
const PREFIX: Record<Exclude<CaseName, 'bare'>, string> = { 'no-cache': 'nc', printed: 'pr', 'tool-printed': 'tp', 'tool-near': 'tr', 'tool-no-fix': 'tn', 'tool-printed-no-code-cache': 'tu' };

/** The fixes folder of a store of FIXES_SESSIONS sessions: their episodes (synthetic error
 *  heads of the real shapes, ERRORS_PER_SESSION each), plus the bench error's own episode. */
function syntheticFixes(sig: ReturnType<typeof errorSignature>): Map<string, FixFile> {
  const rng = seededRandom(21);
  const words = ['module', 'config', 'cache', 'socket', 'schema', 'token', 'worker', 'bundle', 'plugin', 'index', 'route', 'queue'];
  const heads = Array.from({ length: DISTINCT_ERRORS }, (_, k) => [
    `error: cannot resolve ${words[k % words.length]} <q> in ${words[(k * 7) % words.length]} step ${k}`,
    `hint: the ${words[(k * 5) % words.length]} ${words[(k * 3) % words.length]} of variant ${k} was not found`,
  ]);
  const eps: EpisodeRecord[] = [];
  let id = 0;
  for (let s = 0; s < FIXES_SESSIONS; s++) {
    for (let e = 0; e < ERRORS_PER_SESSION; e++) {
      const k = Math.floor(rng() * DISTINCT_ERRORS);
      const head = heads[k];
      eps.push({
        chunkId: ++id, handle: `sessions/bench/s${s}.jsonl#${e}`, region: 'sessions', regionScope: 'global', source: 'episode',
        sig: errorSignature(head.join('\n'))!.sig, head: errorSignature(head.join('\n'))!.lines, words: [], sessionId: `s${s}`, tool: 'Bash',
        action: 'Bash: npm run build', fix: `npm install ${words[k % words.length]}-${k}`, resolved: rng() < 0.7, at: s * 1000, outcome: 'succeeded', attempts: 1, note: '',
      });
    }
  }
  eps.push({
    chunkId: ++id, handle: 'sessions/bench/past.jsonl#1', region: 'sessions', regionScope: 'global', source: 'episode', sig: sig!.sig, head: sig!.lines, words: sig!.words,
    sessionId: 'past-session', tool: 'Bash', action: 'Bash: npm test', fix: 'docker compose up -d db; then npm test succeeded', resolved: true, at: 1, outcome: 'succeeded', attempts: 1, note: '',
  });
  return buildFixFiles(eps.map((e) => (e.resolved ? e : { ...e, fix: '', outcome: 'unresolved' })), 'bench', Date.now());
}

interface Case {
  name: CaseName;
  args: string[];
  input: (i: number) => string;
  before?: (i: number) => void;
  /** Environment for this case (default: the bench home). */
  env?: NodeJS.ProcessEnv;
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
    toolCacheTtlMs: 120_000,
    modes: [{ name: 'default', state: 'live', cwdGlobs: ['**'], minConfidence: 0.55, sessionBudget: 3, minGapTurns: 4, minGapSeconds: 300,
      tool: { state: 'live', minConfidence: 0.7, sessionBudget: 5, minGapSteps: 3, minGapSeconds: 30 } }],
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
  // The tool channel: one 10,000-char error; the fixes folder of a 1,000-session store holds
  // its signature's file (tool-printed), its key lines' files (tool-near: the same cause under
  // another test's name), none for tool-no-fix's error (another cause: every key missed).
  const error = toolError();
  const nearError = toolError('db > migrates the schema');
  const noFixError = toolError('pool > reuses idle connections', 'Error: getaddrinfo EAI_AGAIN registry.internal.example');
  const sig = errorSignature(error)!.sig;
  const fixFiles = syntheticFixes(errorSignature(error));
  const homeNoFix = home; // one home: the no-fix error simply has no file
  mkdirSync(join(home, 'fixes'), { recursive: true });
  const wrote = new FixesWriter(join(home, 'fixes')).sync(fixFiles);
  if (!fixFiles.has(sig) || errorSignature(nearError)!.sig === sig) throw new Error('bench set-up: the near error must differ in its head only');
  const toolPayload = (sid: string, err = error) => JSON.stringify({
    session_id: sid, transcript_path: join(proj, `${sid}.jsonl`), cwd, permission_mode: 'default', hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash', tool_input: { command: 'npm test', description: 'Run the tests' }, tool_use_id: `toolu_${sid}`, error: err, is_interrupt: false,
  });
  const envNoFix = { ...env, ACTIVE_BRAIN_HOME: homeNoFix };
  const cases: Case[] = [
    { name: 'bare', args: ['-e', '0'], input: () => '' },
    { name: 'no-cache', args: [bin], input: (i) => payload(`nc-${i}`), before: (i) => prepare(`nc-${i}`, false) },
    // A fresh session per run: a second offer in one session would (rightly) be gapped.
    { name: 'printed', args: [bin], input: (i) => payload(`pr-${i}`), before: (i) => prepare(`pr-${i}`, true) },
    { name: 'tool-printed', args: [bin], input: (i) => toolPayload(`tp-${i}`) },
    { name: 'tool-near', args: [bin], input: (i) => toolPayload(`tr-${i}`, nearError) },
    { name: 'tool-no-fix', args: [bin], input: (i) => toolPayload(`tn-${i}`, noFixError), env: envNoFix },
    { name: 'tool-printed-no-code-cache', args: [bin], input: (i) => toolPayload(`tu-${i}`), env: { ...env, [CODE_CACHE_ENV]: 'off' } },
  ];
  const codeCaches = () => readdirSync(join(root, 'dist')).filter((f) => /^hook(?:-tool)?\.bundle\.cjs\..*\.codecache$/.test(f));
  for (const f of codeCaches()) rmSync(join(root, 'dist', f));

  const n = opts.quick ? RUNS_QUICK : RUNS;
  const perCase = <T>(v: () => T) => Object.fromEntries(CASE_NAMES.map((k) => [k, v()])) as Record<CaseName, T>;
  const wall = perCase<number[]>(() => []);
  const outputs = perCase(() => 0);
  let badExits = 0;
  // The code cache as the warm-up rounds left it: the measured runs must use it, not rewrite it.
  const cacheStamp = () => codeCaches().map((f) => { const st = statSync(join(root, 'dist', f)); return `${f}:${st.ino}:${st.mtimeMs}`; }).join(',');
  let cacheAfterWarmup = '';
  for (let i = 0; i < n + WARMUP; i++) {
    if (i === WARMUP) cacheAfterWarmup = cacheStamp();
    // Rotate the order so no case always runs first after a pause.
    for (let k = 0; k < cases.length; k++) {
      const c = cases[(i + k) % cases.length];
      c.before?.(i);
      const input = c.input(i);
      const t0 = process.hrtime.bigint();
      const r = spawnSync(process.execPath, c.args, { input, env: c.env ?? env, cwd, encoding: 'utf8' });
      const ms = Number(process.hrtime.bigint() - t0) / 1e6;
      if (r.status !== 0 || r.stderr) badExits++;
      if (i < WARMUP) continue;
      wall[c.name].push(ms);
      if (r.stdout.includes('hookSpecificOutput')) outputs[c.name]++;
    }
  }

  const rss = perCase<number[]>(() => []);
  const haveTime = existsSync(GNU_TIME);
  if (haveTime) {
    const m = opts.quick ? RSS_RUNS_QUICK : RSS_RUNS;
    for (let i = 0; i < m; i++) {
      for (const c of cases) {
        const idx = 100_000 + i;
        c.before?.(idx);
        const r = spawnSync(GNU_TIME, ['-f', '@@RSS %M', process.execPath, ...c.args], { input: c.input(idx), env: c.env ?? env, cwd, encoding: 'utf8' });
        const kb = /@@RSS (\d+)/.exec(r.stderr);
        if (kb) rss[c.name].push(Number(kb[1]) / 1024);
      }
    }
  }

  // Inherited environment: a user with NODE_EXTRA_CA_CERTS set (a CA bundle read at every Node
  // start). Both through /bin/sh as Claude Code runs hooks: bare `node -e 0` vs the command
  // `install` registers, which clears the variable for the hook (ops/hook-install.ts).
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

  // The hook's own time per case, from its log records (told apart by session id prefix).
  const own: number[] = [];
  const ownBy: Record<string, number[]> = {};
  for (const h of [home, homeNoFix]) {
    try {
      for (const line of readFileSync(join(h, 'logs', 'hook.jsonl'), 'utf8').trim().split('\n')) {
        const rec = JSON.parse(line) as { latency_ms: number; session: string | null };
        own.push(rec.latency_ms);
        const prefix = (rec.session ?? '').split('-')[0];
        (ownBy[prefix] ??= []).push(rec.latency_ms);
      }
    } catch { /* no log: reported as NaN */ }
  }

  const med = (k: CaseName) => quantile(wall[k], 0.5);
  const p99 = (k: CaseName) => quantile(wall[k], 0.99);
  const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;
  const figures: Figure[] = [{ metric: 'bare node -e 0: median wall', value: round(med('bare')), unit: 'ms' }];
  for (const k of ['no-cache', 'printed', 'tool-printed', 'tool-near', 'tool-no-fix'] as const) {
    const ratio = med(k) / med('bare');
    const target = PROMPT_CASES.has(k) ? TARGET_PROMPT_RATIO : TARGET_MEDIAN_RATIO;
    figures.push(
      { metric: `${k}: median wall`, value: round(med(k)), unit: 'ms' },
      { metric: `${k}: median / bare node`, value: round(ratio, 2), unit: '×', target: `≤ ${target}×`, pass: ratio <= target },
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
  );
  for (const [k, prefix] of Object.entries(PREFIX)) {
    const xs = ownBy[prefix] ?? [];
    figures.push({ metric: `hook's own time, ${k}: median / p99`, value: `${round(quantile(xs, 0.5), 2)} / ${round(quantile(xs, 0.99), 2)}`, unit: 'ms' });
  }
  figures.push(
    { metric: 'runs printing an offer: printed / no-cache', value: `${outputs.printed}/${n} / ${outputs['no-cache']}/${n}`, target: `${n}/${n} / 0/${n}`, pass: outputs.printed === n && outputs['no-cache'] === 0 },
    { metric: 'runs printing an offer: tool-printed / tool-near / tool-no-fix', value: `${outputs['tool-printed']}/${n} / ${outputs['tool-near']}/${n} / ${outputs['tool-no-fix']}/${n}`, target: `${n}/${n} / ${n}/${n} / 0/${n}`, pass: outputs['tool-printed'] === n && outputs['tool-near'] === n && outputs['tool-no-fix'] === 0 },
    { metric: 'non-zero exits or stderr output', value: badExits, target: '0', pass: badExits === 0 },
    {
      metric: 'tool-printed without the code cache: median / bare node (with it: tool-printed above)',
      value: round(med('tool-printed-no-code-cache') / med('bare'), 2), unit: '×',
    },
    { metric: 'runs printing an offer: tool-printed-no-code-cache', value: `${outputs['tool-printed-no-code-cache']}/${n}`, target: `${n}/${n}`, pass: outputs['tool-printed-no-code-cache'] === n },
    { metric: 'code caches written by the first runs (the hook bundle\'s, the tool bundle\'s)', value: codeCaches().length === 2 ? 'yes' : `no (${codeCaches().length})`, target: 'yes', pass: codeCaches().length === 2 },
    { metric: 'code cache kept through the measured runs (not rewritten)', value: cacheAfterWarmup !== '' && cacheStamp() === cacheAfterWarmup ? 'yes' : 'no', target: 'yes', pass: cacheAfterWarmup !== '' && cacheStamp() === cacheAfterWarmup },
  );
  rmSync(base, { recursive: true, force: true });
  return {
    name: 'hook',
    about: 'issue 5 / issue 12 / issue 21: hook wall time and peak RSS vs bare node, at a prompt and at a tool failure (exact and near Past fix, 1,000-session fixes folder)',
    figures,
    notes: [
      `${n} interleaved runs per case after ${WARMUP} warm-up rounds; wall = spawnSync start to exit, including the payload on stdin (${payload('x').length} bytes).`,
      'The hook runs as installed: node bin/active-brain-hook.cjs → dist/hook.bundle.cjs (and, at a tool event, dist/hook-tool.bundle.cjs beside it); printed runs use a fresh session each (live mode), no-cache runs a session without a cache.',
      `Tool cases: a PostToolUseFailure payload (${toolPayload('tp-x').length} bytes) whose error is ${TOOL_ERROR_CHARS} chars of test-runner output (signature ${sig}); the fixes folder is a ${FIXES_SESSIONS}-session store's (${fixFiles.size} files, ${wrote.written} written); tool-printed reads its signature's file, tool-near (the same cause under another test's name) a key line's, tool-no-fix (another cause) misses every key; a fresh session per run.`,
      haveTime ? `Peak RSS: ${GNU_TIME} -f %M over ${rss.bare.length} runs per case.` : `Peak RSS not measured: ${GNU_TIME} missing.`,
      'The machine may be shared: compare the ratio (same-run bare node) rather than absolute times.',
      caBundle
        ? `Inherited-env row: NODE_EXTRA_CA_CERTS=${caBundle}, both commands through /bin/sh, ${inherited.bare.length} runs each; the registered command clears the variable for the hook (docs/HOOK.md, "Install").`
        : 'Inherited-env row skipped: no CA bundle file found to point NODE_EXTRA_CA_CERTS at.',
    ],
  };
}
