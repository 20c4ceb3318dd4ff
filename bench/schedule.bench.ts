/**
 * Scheduled-index benchmark (issue 16 target: a scheduled run with nothing changed over 1,000
 * sessions ≤ 1 s). 1,000 small real-format Claude Code transcripts (200 with --quick) are
 * generated, indexed once through the real CLI (`active-brain index add … --kind
 * transcripts`), then the scheduled command itself (`active-brain index`, as the timer runs
 * it) is timed with nothing changed: wall time per run (Node start-up, config, lock, store
 * fingerprint before and after, stat of every file, the run record) and the CPU it used
 * (the shell's `times`: user + system of the child). Then one new session is added and one
 * run timed (that one loads the model). Then the issue's second target: one new 3 MB session
 * (tool calls with long outputs, failures and their fixes, as real agentic sessions are) added
 * to the store of 1,000, ≤ 5 s and peak RSS ≤ 300 MB (GNU time `-f %M` when present).
 * Everything is written under opts.workDir and removed.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { randomUUID } from 'node:crypto';
import { cpus, loadavg } from 'node:os';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { median, quantile } from './stats.js';
import { prng } from './synthetic.js';

const SESSIONS_FULL = 1000;
const SESSIONS_QUICK = 200;
/** Exchanges per generated session (small sessions, as the target says). */
const EXCHANGES = 3;
/** No-change runs timed (the median is the figure). */
const NOCHANGE_RUNS = 7;
const TARGET_NOCHANGE_S = 1;
const PROJECTS = 8;
/** The large new session: its size, and the targets for adding it to the store of 1,000. */
const BIG_SESSION_BYTES = 3 * 1024 * 1024;
const TARGET_BIG_S = 5;
const TARGET_BIG_RSS_MB = 300;
/** Output lines of one tool result in the large session (~1.5 KB of build/test output). */
const TOOL_OUTPUT_LINES = 24;
/** Every this many tool calls, one fails and the next call fixes it (an error episode). */
const FAIL_EVERY = 12;
const GNU_TIME = '/usr/bin/time';

const bin = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'bin', 'active-brain.js');
const TOPICS = ['postgres pool ECONNRESET', 'flaky vitest snapshot', 'docker layer cache', 'react effect loop', 'oauth refresh token', 'rust borrow checker'];

function sessionLines(id: string, cwd: string, rnd: () => number): string {
  let parent: string | null = null;
  const lines: string[] = [];
  const t0 = Date.now() - Math.floor(rnd() * 30 * 86_400_000);
  const rec = (type: string, extra: object, k: number) => {
    const uuid = randomUUID();
    const r = { parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.1.39', gitBranch: 'main', type, uuid, timestamp: new Date(t0 + k * 1000).toISOString(), ...extra };
    parent = uuid;
    lines.push(JSON.stringify(r));
  };
  for (let i = 0; i < EXCHANGES; i++) {
    const topic = TOPICS[Math.floor(rnd() * TOPICS.length)];
    rec('user', { message: { role: 'user', content: `step ${i}: look at the ${topic} problem again` }, permissionMode: 'default' }, i * 3);
    rec('assistant', { message: { model: 'claude-opus-4-6', id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', content: [{ type: 'text', text: `Checked the ${topic} issue; changed the config and the tests pass now.` }], stop_reason: null }, requestId: `req_${randomUUID()}` }, i * 3 + 1);
    rec('system', { subtype: 'turn_duration', durationMs: 1234, isMeta: false }, i * 3 + 2);
  }
  return lines.join('\n') + '\n';
}

/** One real-format agentic session of at least `bytes`: a prompt, then tool calls with long
 *  outputs, a failure every FAIL_EVERY calls fixed by the next one, a turn end every 40 calls. */
function bigSessionLines(id: string, cwd: string, bytes: number, rnd: () => number): string {
  let parent: string | null = null;
  let size = 0;
  let k = 0;
  const lines: string[] = [];
  const t0 = Date.now() - 3_600_000;
  const rec = (type: string, extra: object) => {
    const uuid = randomUUID();
    const line = JSON.stringify({ parentUuid: parent, isSidechain: false, userType: 'external', cwd, sessionId: id, version: '2.1.39', gitBranch: 'main', type, uuid, timestamp: new Date(t0 + k++ * 500).toISOString(), ...extra });
    parent = uuid;
    lines.push(line);
    size += line.length + 1;
  };
  const assistant = (content: object[]) => rec('assistant', { message: { model: 'claude-opus-4-6', id: `msg_${randomUUID()}`, type: 'message', role: 'assistant', content, stop_reason: null }, requestId: `req_${randomUUID()}` });
  rec('user', { message: { role: 'user', content: 'make the whole test suite pass and push the branch' }, permissionMode: 'default' });
  for (let call = 0; size < bytes; call++) {
    const topic = TOPICS[Math.floor(rnd() * TOPICS.length)];
    const id = `toolu_${randomUUID().replace(/-/g, '').slice(0, 24)}`;
    const fails = call % FAIL_EVERY === FAIL_EVERY - 1;
    assistant([{ type: 'text', text: `Running the ${topic} checks.` }, { type: 'tool_use', id, name: 'Bash', input: { command: `npm test -- ${topic.split(' ')[0]} 2>&1`, description: 'Run tests' } }]);
    const out = Array.from({ length: TOOL_OUTPUT_LINES }, (_, i) => `  ✓ ${topic} case ${call}.${i} passes in ${Math.floor(rnd() * 90) + 5} ms`).join('\n');
    const content = fails ? `Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:${5400 + (call % 7)} (${topic})\n${out}` : out;
    rec('user', { message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, is_error: fails, content }] }, toolUseResult: { stdout: content, stderr: '', interrupted: false } });
    if (call % 40 === 39) rec('system', { subtype: 'turn_duration', durationMs: 60_000, isMeta: false });
  }
  assistant([{ type: 'text', text: 'All suites pass now; the service is started before the tests.' }]);
  rec('system', { subtype: 'turn_duration', durationMs: 1234, isMeta: false });
  return lines.join('\n') + '\n';
}

export function writeSessions(root: string, n: number, rnd: () => number): void {
  for (let i = 0; i < n; i++) {
    const project = join(root, `-work-p${i % PROJECTS}`);
    mkdirSync(project, { recursive: true });
    const id = randomUUID();
    writeFileSync(join(project, `${id}.jsonl`), sessionLines(id, `/work/p${i % PROJECTS}`, rnd));
  }
}

interface Timed { wall_s: number; cpu_s: number; code: number; stderr: string; rss_mb: number | null }

/** `sh -c 'node … ; times'`: the second line of `times` is the children's user and system time;
 *  with `rss`, the command runs under GNU time (`-f %M`, peak RSS in KB) when it is installed. */
function timedCli(args: string[], env: NodeJS.ProcessEnv, rss = false): Timed {
  const withTime = rss && existsSync(GNU_TIME);
  const argv = withTime ? [GNU_TIME, '-f', '%M', '-o', env.AB_RSS!, process.execPath, bin, ...args] : [process.execPath, bin, ...args];
  const quoted = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const t0 = performance.now();
  const r = spawnSync('sh', ['-c', `${quoted} >/dev/null 2>"$AB_ERR"; rc=$?; times; exit $rc`], { env, encoding: 'utf8' });
  const wall = (performance.now() - t0) / 1000;
  const secs = (s: string) => {
    const m = /(\d+)m([\d.]+)s/.exec(s);
    return m ? Number(m[1]) * 60 + Number(m[2]) : NaN;
  };
  const child = r.stdout.trim().split('\n').at(-1)!.split(/\s+/);
  let stderr = '';
  try { stderr = readFileSync(env.AB_ERR!, 'utf8'); } catch { /* none */ }
  let rssMb: number | null = null;
  if (withTime) {
    const kb = Number(readFileSync(env.AB_RSS!, 'utf8').trim().split('\n').at(-1));
    rssMb = Number.isFinite(kb) ? kb / 1024 : null;
  }
  return { wall_s: wall, cpu_s: secs(child[0]) + secs(child[1]), code: r.status ?? -1, stderr, rss_mb: rssMb };
}

const round = (x: number, d = 3) => Math.round(x * 10 ** d) / 10 ** d;

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const dir = join(opts.workDir, 'schedule-bench');
  rmSync(dir, { recursive: true, force: true });
  const home = join(dir, 'home');
  const root = join(dir, 'projects');
  mkdirSync(home, { recursive: true });
  const n = opts.quick ? SESSIONS_QUICK : SESSIONS_FULL;
  writeSessions(root, n, prng(16));
  const env: NodeJS.ProcessEnv = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: root, ACTIVE_BRAIN_MODEL_PATH: opts.modelPath, AB_ERR: join(dir, 'stderr.txt'), AB_RSS: join(dir, 'rss.txt') };
  delete env.ACTIVE_BRAIN_STORE;
  delete env.ACTIVE_BRAIN_MODEL;
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    const first = timedCli(['index', 'add', root, '--region', 'sessions', '--kind', 'transcripts'], env);
    if (first.code !== 0) throw new Error(`first index failed (${first.code}): ${first.stderr}`);
    figures.push({ metric: `first index of ${n} sessions (CLI, model load included)`, value: round(first.wall_s, 2), unit: 's' });

    const runs: Timed[] = [];
    for (let i = 0; i < NOCHANGE_RUNS; i++) {
      const r = timedCli(['index'], env);
      if (r.code !== 0) throw new Error(`scheduled run failed (${r.code}): ${r.stderr}`);
      runs.push(r);
    }
    const walls = runs.map((r) => r.wall_s);
    const med = median(walls);
    figures.push(
      { metric: `scheduled run, nothing changed, ${n} sessions: wall (median of ${NOCHANGE_RUNS})`, value: round(med), unit: 's', target: `≤ ${TARGET_NOCHANGE_S} s (1,000 sessions)`, pass: opts.quick ? undefined : med <= TARGET_NOCHANGE_S },
      { metric: 'scheduled run, nothing changed: wall p90', value: round(quantile(walls, 0.9)), unit: 's' },
      { metric: 'scheduled run, nothing changed: CPU (user + system, load-independent)', value: round(median(runs.map((r) => r.cpu_s))), unit: 'CPU-s' },
    );
    const log = readFileSync(join(home, 'logs', 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; seconds?: number; unchanged?: number });
    const ends = log.filter((r) => r.event === 'index-run').slice(-NOCHANGE_RUNS);
    figures.push({ metric: 'of which the indexer itself (stat + compare every file; run record `seconds`)', value: round(median(ends.map((r) => r.seconds ?? 0)), 3), unit: 's' });
    if (ends.some((r) => r.unchanged !== n)) notes.push(`WARNING: a no-change run did not find all ${n} sessions unchanged`);

    writeSessions(root, 1, prng(17));
    const one = timedCli(['index'], env);
    if (one.code !== 0) throw new Error(`run with one new session failed (${one.code}): ${one.stderr}`);
    figures.push({ metric: 'scheduled run with 1 new session (loads the model)', value: round(one.wall_s, 2), unit: 's' });

    const bigProject = join(root, '-work-big');
    mkdirSync(bigProject, { recursive: true });
    const bigId = randomUUID();
    const bigPath = join(bigProject, `${bigId}.jsonl`);
    writeFileSync(bigPath, bigSessionLines(bigId, '/work/big', BIG_SESSION_BYTES, prng(18)));
    const big = timedCli(['index'], env, true);
    if (big.code !== 0) throw new Error(`run with the 3 MB session failed (${big.code}): ${big.stderr}`);
    const bigRun = readFileSync(join(home, 'logs', 'index.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { event: string; indexed?: number; chunks_added?: number; seconds?: number }).filter((r) => r.event === 'index-run').at(-1);
    figures.push(
      { metric: `scheduled run with 1 new ${(statSync(bigPath).size / 1048576).toFixed(1)} MB session, store of ${n + 1} (loads the model)`, value: round(big.wall_s, 2), unit: 's', target: `≤ ${TARGET_BIG_S} s`, pass: opts.quick ? undefined : big.wall_s <= TARGET_BIG_S },
      big.rss_mb === null
        ? { metric: 'same: peak RSS', value: `not measured (${GNU_TIME} missing)` }
        : { metric: 'same: peak RSS (GNU time %M)', value: Math.round(big.rss_mb), unit: 'MB', target: `≤ ${TARGET_BIG_RSS_MB} MB`, pass: big.rss_mb <= TARGET_BIG_RSS_MB },
    );
    if (bigRun?.chunks_added !== undefined) notes.push(`3 MB session: ${bigRun.chunks_added} chunks added by that run (${bigRun.seconds ?? '?'} s inside the indexer)`);
    const storeBytes = statSync(join(home, 'store.sqlite')).size;
    notes.push(
      `${n} generated real-format transcripts (${EXCHANGES} exchanges each, ${PROJECTS} project folders), seed 16; store ${(storeBytes / 1048576).toFixed(1)} MB (hashed twice per run for the soak record)`,
      'wall = spawn of `node bin/active-brain.js index` to its exit, as the timer runs it (Node start-up and module loading included); no model is loaded when nothing changed',
      `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`,
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'schedule', about: 'issue 16: the scheduled incremental index over 1,000 sessions', figures, notes };
}
