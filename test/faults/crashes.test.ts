/**
 * Crash faults with the real daemon, hook and indexer processes:
 *  - SIGKILL of the daemon while it is writing offer caches under a hammer of exchanges, with
 *    hooks running all the while: every hook run exits 0 and prints nothing or one
 *    well-formed offer; every cache file on disk is whole; each restart recovers the stale lock.
 *  - SIGKILL of the indexer mid-index while the daemon reads the store: PRAGMA
 *    integrity_check passes, every document is wholly old or wholly new, the daemon keeps
 *    deciding, and the next index run completes.
 *  - SIGKILL of the daemon around its offset saves: after restarts, every appended exchange is
 *    decided (none skipped) and logged once, so none is counted as an offer twice (final
 *    decisions per exchange uuid in logs/daemon.jsonl; one decided again after a kill, before
 *    its offset was saved, is not logged again: daemon/logged-decisions.ts).
 * (The plain "SIGKILL then restart recovers the lock" case is in test/daemon/lifecycle.test.ts;
 * per-document atomicity of one crashed index run is in test/indexer/cli.test.ts.)
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { closeSync, existsSync, openSync, readSync, readdirSync, readFileSync, statSync, utimesSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { loadSchema, validate } from '../helpers/json-schema.js';
import {
  BIN,
  OFFER_SETS,
  WARMUP,
  appendLines,
  decisions,
  logRecords,
  events,
  exchangeLines,
  liveConfig,
  newSession,
  payloadFor,
  pgErrorLines,
  printedOffer,
  promptUuid,
  readJson,
  runHook,
  sleep,
  startDaemon,
  storeTemplate,
  tempEnv,
  waitCanary,
  waitFor,
  writeConfig,
  indexRegions,
  FILLER_NOTES,
  type Env,
  type HookResult,
  type Session,
} from '../helpers/faults.js';
import { seededRandom as prng } from '../../shared/prng.js';

let e: Env;
afterEach(() => e?.cleanup());
const store = storeTemplate();
afterAll(() => store.cleanup());

const cacheSchema = loadSchema('offer-cache');
const toolCacheSchema = loadSchema('tool-cache');


/** The next exchange of a session: warm-up turns first, then ever-new tool errors (offers). */
function nextExchange(s: Session, k: number, n: number): string[] {
  return k < WARMUP.length ? exchangeLines(s, WARMUP[k][0], WARMUP[k][1]) : pgErrorLines(s, n);
}

// What the daemon has done, read cheaply while it works: the size of its log and the offsets it
// committed (offsets.json). Parsing the whole log instead (decisions(e)) took ~0.4 s at 4 MB on a
// loaded machine; polled every 40 ms it took the CPU the daemon needed to catch up.
const logFile = (env: Env) => join(env.home, 'logs', 'daemon.jsonl');
const logSize = (env: Env) => (existsSync(logFile(env)) ? statSync(logFile(env)).size : 0);
const committed = (env: Env) => readJson<{ files?: Record<string, { offset?: number }> }>(join(env.home, 'offsets.json'))?.files ?? {};

/** A decision record in the log after byte `from` (a daemon at work, not just started). */
function decidedSince(env: Env, from: number): boolean {
  const size = logSize(env);
  if (size <= from) return false;
  const buf = Buffer.alloc(size - from);
  const fd = openSync(logFile(env), 'r');
  try {
    readSync(fd, buf, 0, buf.length, from);
  } finally {
    closeSync(fd);
  }
  return buf.toString('utf8').includes('"type":"decision"');
}

/** Every session's transcript committed to its end: each appended exchange decided and logged
 *  (the daemon moves an offset only once the decisions before it reached the log). */
function caughtUp(env: Env, sessions: Session[]): boolean {
  const files = committed(env);
  return sessions.every((s) => !existsSync(s.path) || files[s.path]?.offset === statSync(s.path).size);
}

/** Wait until `done`, as long as the daemon makes progress (its log grows or an offset moves):
 *  false once nothing moved for `stallMs`. The work (a backlog of exchanges) grows with the
 *  machine's load, so the bound is on a stall, not on the whole catch-up. */
async function whileProgressing(env: Env, done: () => boolean, stallMs: number): Promise<boolean> {
  const mark = () => `${logSize(env)} ${JSON.stringify(committed(env))}`;
  let last = mark();
  let since = Date.now();
  while (!done()) {
    await sleep(200);
    const now = mark();
    if (now !== last) {
      last = now;
      since = Date.now();
    } else if (Date.now() - since > stallMs) {
      return false;
    }
  }
  return true;
}
/** No progress for this long: the daemon is stuck (it decides an exchange in tens of ms). */
const STALL_MS = 30_000;
/** The writer stops after this many exchanges: each daemon now lives until it decides, longer on a
 *  loaded machine, and an unbounded writer made the work grow with the load (an unloaded run
 *  appends about this many over the five rounds). */
const MAX_EXCHANGES = 1500;

/** Every cache file (not temp files) is whole JSON matching the schema. */
function checkCaches(env: Env): { whole: number; temps: number } {
  const dir = join(env.home, 'cache');
  if (!existsSync(dir)) return { whole: 0, temps: 0 };
  let whole = 0;
  let temps = 0;
  for (const n of readdirSync(dir)) {
    if (n.endsWith('.tmp')) {
      temps++;
      continue;
    }
    const v = JSON.parse(readFileSync(join(dir, n), 'utf8'));
    expect(validate(n.endsWith('.tool.json') ? toolCacheSchema : cacheSchema, v), n).toEqual([]);
    whole++;
  }
  return { whole, temps };
}

function expectCleanHook(r: HookResult): string | null {
  expect(r.code).toBe(0);
  expect(r.signal).toBeNull();
  expect(r.stderr).toBe('');
  return printedOffer(r.stdout); // throws on a partial or malformed line
}

describe('crash: SIGKILL mid cache write', () => {
  it('hooks racing a daemon that is killed while writing caches never read a partial offer; restarts recover the lock', async () => {
    e = tempEnv('ab-f-crash-cache-');
    writeConfig(e, liveConfig());
    store.copyTo(e);
    const rand = prng(8);
    const sessions = Array.from({ length: 4 }, () => newSession(e));
    const turns = new Map<Session, number>(sessions.map((s) => [s, 0]));
    let stop = false;
    let n = 0;
    // Transcripts appear after the first daemon is up (content found at start is history, never offered).
    const first = startDaemon(e, OFFER_SETS);
    await waitCanary(e, first.pid);
    const writer = (async () => {
      while (!stop && n < MAX_EXCHANGES) {
        const s = sessions[n % sessions.length];
        const k = turns.get(s)!;
        appendLines(s, nextExchange(s, k, n));
        turns.set(s, k + 1);
        n++;
        await sleep(30);
      }
    })();
    const hookRuns: HookResult[] = [];
    let printed = 0;
    const hooks = (async () => {
      while (!stop) {
        const rs = await Promise.all(sessions.slice(0, 2).map((s) => runHook(e, payloadFor(s))));
        for (const r of rs) if (expectCleanHook(r) !== null) printed++;
        hookRuns.push(...rs);
      }
    })();

    const ROUNDS = 4;
    let caches = { whole: 0, temps: 0 };
    const pids: number[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const d = round === 0 ? first : startDaemon(e, OFFER_SETS);
      pids.push(d.pid);
      await waitCanary(e, d.pid);
      await sleep(1500 + Math.floor(rand() * 2000));
      d.child.kill('SIGKILL');
      await d.exited;
      caches = checkCaches(e); // right after the kill: whatever is on disk is whole
      await sleep(400); // hooks keep running against the dead daemon's caches
    }
    stop = true;
    await Promise.all([writer, hooks]);
    // Control (deterministic): after all the kills, the same daemon and hook path prints — for
    // a fresh session (the racing sessions may already have been shown this chunk, and the
    // hook never shows one chunk twice in a session).
    const again = startDaemon(e, OFFER_SETS);
    await waitCanary(e, again.pid);
    pids.push(again.pid);
    const s0 = newSession(e);
    for (let i = 0; i < WARMUP.length; i++) appendLines(s0, nextExchange(s0, i, 0));
    const last = pgErrorLines(s0, 100_000);
    appendLines(s0, last);
    await waitFor(() => {
      const c = readJson<{ exchangeUuid: string; offer: unknown }>(join(e.home, 'cache', `${s0.id}.json`));
      return c?.exchangeUuid === promptUuid(last) && c.offer !== null;
    }, 30_000, 'an offer cache after the kills');
    const control = expectCleanHook(await runHook(e, payloadFor(s0)));
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
    expect(control).not.toBeNull();

    console.log(`[faults] cache-crash: ${n} exchanges appended, ${hookRuns.length} hook runs, ${printed} printed, ` +
      `${caches.whole} cache files whole, ${caches.temps} temp files left by kills`);
    expect(hookRuns.length).toBeGreaterThan(20);
    expect(caches.whole).toBeGreaterThan(0);
    // Each restart after a SIGKILL took over the stale lock (dead pid).
    const starts = events(e, 'start');
    expect(starts.map((s) => s.pid)).toEqual(pids);
    for (const s of starts.slice(1)) expect(s.reason).toBe('recovered-dead-pid');
  });
});

/** `count` notes, each with `sections` sections carrying the version marker. */
function corpus(dir: string, count: number, version: number): void {
  mkdirSync(dir, { recursive: true });
  for (let i = 0; i < count; i++) {
    const body = Array.from({ length: 3 }, (_, s) => `## Part ${s}\n\nversion${version}marker note ${i} part ${s}: ` + 'postgres pool tuning and retries '.repeat(5)).join('\n\n');
    writeFileSync(join(dir, `n${String(i).padStart(4, '0')}.md`), `# Note ${i}\n\n${body}\n`);
  }
}

describe('crash: SIGKILL mid index', () => {
  it('the store stays consistent (integrity_check, every document old or new) while the daemon reads it; the next run finishes', async () => {
    e = tempEnv('ab-f-crash-index-');
    writeConfig(e, liveConfig());
    const FILES = 250;
    const big = join(e.root, '..', 'notes', 'big');
    corpus(big, FILES, 1);
    indexRegions(e, [{ name: 'misc', files: FILLER_NOTES }]);
    const add = spawn(process.execPath, [BIN, 'index', 'add', big, '--region', 'big'], { env: e.env, stdio: 'ignore' });
    expect(await new Promise((r) => add.once('exit', r))).toBe(0);
    const storePath = e.env.ACTIVE_BRAIN_STORE!;

    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
    await waitFor(() => decisions(e).length >= WARMUP.length, 20_000, 'warm-up decisions');

    corpus(big, FILES, 2); // every file changes
    const later = new Date(Date.now() + 60_000);
    for (let i = 0; i < FILES; i++) utimesSync(join(big, `n${String(i).padStart(4, '0')}.md`), later, later);
    const run = spawn(process.execPath, [BIN, 'index'], { env: e.env, stdio: 'ignore' });
    e.track(run);
    const versions = () => {
      const db = new Database(storePath, { readonly: true, fileMustExist: true });
      try {
        const row = db.prepare(`SELECT sum(text LIKE '%version1marker%') AS v1, sum(text LIKE '%version2marker%') AS v2 FROM chunks`).get() as { v1: number; v2: number };
        return row;
      } finally {
        db.close();
      }
    };
    // The daemon keeps deciding (reading the store) while the indexer writes.
    let k = 0;
    await waitFor(() => {
      appendLines(s, pgErrorLines(s, k++));
      return versions().v2 > 0;
    }, 60_000, 'the indexer to commit new documents');
    run.kill('SIGKILL');
    await new Promise((r) => run.once('exit', r));

    const db = new Database(storePath, { readonly: true, fileMustExist: true });
    let v1 = 0;
    let v2 = 0;
    try {
      expect(db.pragma('integrity_check', { simple: true })).toBe('ok');
      const docs = db.prepare(`SELECT d.path, sum(c.text LIKE '%version1marker%') AS v1, sum(c.text LIKE '%version2marker%') AS v2,
          count(c.id) AS n, count(v.chunk_id) AS vecs, max(c.ordinal) AS maxOrd
        FROM documents d JOIN chunks c ON c.document_id = d.id LEFT JOIN vectors v ON v.chunk_id = c.id
        WHERE d.path LIKE '%/big/%' GROUP BY d.id`).all() as Array<{ path: string; v1: number; v2: number; n: number; vecs: number; maxOrd: number }>;
      expect(docs.length).toBe(FILES);
      for (const doc of docs) {
        expect(doc.v1 === 0 || doc.v2 === 0, `${doc.path} mixes versions`).toBe(true);
        expect(doc.vecs, `${doc.path} vectors`).toBe(doc.n);
        expect(doc.maxOrd, `${doc.path} ordinals`).toBe(doc.n - 1);
        if (doc.v1) v1++;
        else v2++;
      }
      const fts = db.prepare(`SELECT count(*) AS n FROM chunks_fts`).get() as { n: number };
      const chunks = db.prepare(`SELECT count(*) AS n FROM chunks`).get() as { n: number };
      expect(fts.n).toBe(chunks.n);
    } finally {
      db.close();
    }
    console.log(`[faults] index-crash: ${v1} documents old, ${v2} new, 0 mixed; integrity_check ok`);
    expect(v2).toBeGreaterThan(0);

    // The daemon survived the crash under it: it still decides, with no store error.
    const before = decisions(e).length;
    appendLines(s, pgErrorLines(s, 999));
    await waitFor(() => decisions(e).length > before, 20_000, 'a decision after the crash');
    expect(d.child.exitCode).toBeNull();
    expect(events(e, 'error')).toEqual([]);

    const done = spawn(process.execPath, [BIN, 'index', '--json', '--set', 'indexer.lockWaitMs=2000'], { env: e.env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    done.stdout!.on('data', (b) => (out += b));
    expect(await new Promise((r) => done.once('exit', r))).toBe(0);
    const sum = JSON.parse(out) as { indexed: number; unchanged: number };
    expect(sum.indexed).toBe(v1); // exactly the old ones are redone
    expect(versions()).toMatchObject({ v1: 0 });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});

describe('crash: SIGKILL around offset saves', () => {
  it('after repeated kills and restarts every exchange is decided and logged once: none skipped, none offered twice', async () => {
    e = tempEnv('ab-f-crash-offsets-');
    writeConfig(e, liveConfig());
    store.copyTo(e);
    const rand = prng(31);
    const sessions = Array.from({ length: 3 }, () => newSession(e));
    const turns = new Map<Session, number>(sessions.map((s) => [s, 0]));
    const appended: string[] = [];
    let stop = false;
    let n = 0;
    const first = startDaemon(e, OFFER_SETS);
    await waitCanary(e, first.pid);
    const writer = (async () => {
      while (!stop && n < MAX_EXCHANGES) {
        const s = sessions[n % sessions.length];
        const k = turns.get(s)!;
        const lines = nextExchange(s, k, n);
        appended.push(promptUuid(lines));
        appendLines(s, lines);
        turns.set(s, k + 1);
        n++;
        await sleep(25);
      }
    })();
    const ROUNDS = 5;
    for (let round = 0; round < ROUNDS; round++) {
      const from = logSize(e);
      const d = round === 0 ? first : startDaemon(e, OFFER_SETS);
      await waitCanary(e, d.pid);
      // Killed while it decides and saves offsets — not while it still loads its model and
      // store, which on a loaded machine outlasts the canary by seconds (the kill then tested
      // nothing, and the whole backlog was left to the last daemon).
      await waitFor(() => decidedSince(e, from), 60_000, `daemon ${round + 1} deciding`);
      await sleep(700 + Math.floor(rand() * 1500));
      d.child.kill('SIGKILL');
      await d.exited;
      await sleep(100 + Math.floor(rand() * 300)); // exchanges keep arriving while it is down
    }
    stop = true;
    await writer;
    const last = startDaemon(e, OFFER_SETS);
    await waitCanary(e, last.pid);
    await whileProgressing(e, () => caughtUp(e, sessions), STALL_MS);
    await sleep(500);
    last.child.kill('SIGTERM');
    expect(await last.exited).toBe(0);

    const count = new Map<string, number>();
    const offers = new Map<string, number>();
    for (const r of decisions(e)) {
      if (r.provisional === true || r.channel === 'tool') continue; // a provisional look is followed by the final decision
      const u = r.exchangeUuid as string;
      count.set(u, (count.get(u) ?? 0) + 1);
      if (r.would_fire) offers.set(u, (offers.get(u) ?? 0) + 1);
    }
    const missing = appended.filter((u) => !count.has(u));
    const twice = appended.filter((u) => (count.get(u) ?? 0) > 1);
    const offeredTwice = appended.filter((u) => (offers.get(u) ?? 0) > 1);
    const offered = [...offers.keys()].length;
    console.log(`[faults] offset-crash: ${appended.length} exchanges appended over ${ROUNDS} SIGKILLs; ` +
      `${appended.length - missing.length} decided, ${missing.length} missing, ${twice.length} decided twice, ` +
      `${offered} offered, ${offeredTwice.length} offered twice`);
    expect(appended.length).toBeGreaterThan(100);
    expect(offered).toBeGreaterThan(0); // control: offers were made
    expect(missing).toEqual([]);
    if (twice.length) {
      const recs = logRecords(e);
      for (const u of twice) console.log('DUP', u, JSON.stringify(recs.map((r, i) => ({ i, r })).filter(({ r }) => r.exchangeUuid === u || r.type === 'event' && (r.event === 'start' || r.event === 'stop')).map(({ i, r }) => `${i}:${r.type === 'event' ? r.event : `${r.sessionId}@${r.offset} prov=${r.provisional} seed=${r.seed}`}`)));
      console.log('OFFSETS', JSON.stringify(committed(e)));
    }
    expect(twice).toEqual([]);
    expect(offeredTwice).toEqual([]);
  });
});
