/**
 * File faults against the real daemon and hook:
 *  - transcripts truncated, rotated (moved away, a new file at the same path), deleted and
 *    re-created, appended a few bytes at a time, and carrying a 20 MB line — counted: every
 *    complete exchange decided exactly once;
 *  - the state dir read-only (a read-only bind mount: as root, chmod 0500 does not stop
 *    writes, EROFS does) at start and mid-run;
 *  - disk full (the state dir on a 1 MB tmpfs filled to ENOSPC) on cache and log writes;
 *  - corrupt config, store, cache, canary, offsets and hook settings;
 *  - the model folder missing at start and removed mid-run.
 * Each: the daemon logs a reason and keeps running (or exits with a clear message where that
 * is right), the hook stays silent (or prints one well-formed offer) and exits 0, and nothing
 * already decided is lost. The mount-based cases need root and skip otherwise.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  closeSync,
  cpSync,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { join } from 'node:path';
import { offlineModelPath } from '../helpers/model.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import {
  BIN,
  OFFER_SETS,
  WARMUP,
  appendLines,
  appendPgErrors,
  canMount,
  cli,
  decisions,
  events,
  exchangeLines,
  hookRecords,
  liveConfig,
  newSession,
  payloadFor,
  pgErrorLines,
  printedOffer,
  promptUuid,
  readJson,
  runHook,
  sh,
  sleep,
  startDaemon,
  storeTemplate,
  tempEnv,
  trySh,
  waitCanary,
  waitFor,
  writeConfig,
  daemonLog,
  tolerantDecisions,
  type Env,
  type Session,
} from '../helpers/faults.js';

let e: Env;
const mounts: string[] = [];
afterEach(() => {
  for (const m of mounts.splice(0).reverse()) trySh('umount', ['-l', m]);
  e?.cleanup();
});
const store = storeTemplate();
afterAll(() => store.cleanup());

/** The hook must exit 0 with nothing on stderr; returns the printed offer or null. */
async function hookOnce(env: Env, s: Session): Promise<string | null> {
  const r = await runHook(env, payloadFor(s));
  expect(r.code).toBe(0);
  expect(r.stderr).toBe('');
  return printedOffer(r.stdout);
}

/** Warm a session up and make one offer, so a fresh offer cache exists for it. */
async function warmWithOffer(env: Env, s: Session): Promise<void> {
  for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
  appendLines(s, pgErrorLines(s, 0));
  await waitFor(() => decisions(env).some((r) => r.sessionId === s.id && r.would_fire === true), 30_000, 'an offer');
}

describe('files: transcripts that change under the daemon', () => {
  it('truncated, rotated, deleted + re-created, partial appends, a 20 MB line: every exchange decided exactly once', async () => {
    e = tempEnv('ab-f-files-tx-');
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const appended: string[] = [];
    const add = (s: Session, tag: string, i: number) => {
      const lines = exchangeLines(s, `${tag} question number ${i} about the build`, `${tag} answer ${i}: changed the config.`);
      appended.push(promptUuid(lines));
      appendLines(s, lines);
    };
    const decided = (uuids: string[]) => () => {
      const seen = new Set(decisions(e).map((r) => r.exchangeUuid));
      return uuids.every((u) => seen.has(u));
    };

    // Truncated: three exchanges, then the file cut to nothing and two shorter ones written.
    const tr = newSession(e);
    for (let i = 0; i < 3; i++) add(tr, 'truncated', i);
    await waitFor(decided(appended), 20_000, 'truncated: first exchanges');
    truncateSync(tr.path, 0);
    for (let i = 0; i < 2; i++) add(tr, 'cut', i);

    // Rotated: moved away (no longer a .jsonl), a new file at the same path.
    const ro = newSession(e);
    for (let i = 0; i < 3; i++) add(ro, 'rotated', i);
    await waitFor(decided(appended), 20_000, 'rotated: first exchanges');
    renameSync(ro.path, `${ro.path}.1`);
    for (let i = 0; i < 2; i++) add(ro, 'fresh', i);

    // Deleted and re-created.
    const de = newSession(e);
    for (let i = 0; i < 2; i++) add(de, 'deleted', i);
    await waitFor(decided(appended), 20_000, 'deleted: first exchanges');
    unlinkSync(de.path);
    await waitFor(() => events(e, 'file-removed').some((r) => r.path === de.path), 10_000, 'file-removed');
    for (let i = 0; i < 2; i++) add(de, 'recreated', i);

    // Appended a few bytes at a time (a writer flushing mid-line), with a 20 MB line in between.
    const pa = newSession(e);
    for (let i = 0; i < 3; i++) {
      const lines = exchangeLines(pa, `partial question ${i} about flaky tests`, `partial answer ${i}: retried the runner.`);
      appended.push(promptUuid(lines));
      const bytes = Buffer.from(lines.join('\n') + '\n');
      for (let at = 0; at < bytes.length; ) {
        const n = 1 + ((at * 7919) % 97);
        appendFileSync(pa.path, bytes.subarray(at, at + n));
        at += n;
        if (at % 5 === 0) await sleep(3);
      }
      if (i === 1) appendFileSync(pa.path, '{"type":"user","message":{"role":"user","content":"' + 'y'.repeat(20 * 1024 * 1024) + '"}}\n');
    }

    await waitFor(decided(appended), 60_000, 'every exchange decided');
    await sleep(800); // nothing late and duplicate
    // Exactly one final decision per exchange. A provisional look (the assistant went quiet for
    // settleMs mid-turn: a writer flushing a few bytes at a time does that) is logged as well,
    // by design, but never twice on the same content.
    const count = new Map<string, number>();
    const looks = new Set<string>();
    for (const r of decisions(e)) {
      const u = r.exchangeUuid as string;
      if (r.provisional === true) {
        const look = `${u}@${r.offset}`;
        expect(looks.has(look), `provisional decision repeated on unchanged content: ${look}`).toBe(false);
        looks.add(look);
        continue;
      }
      count.set(u, (count.get(u) ?? 0) + 1);
    }
    const twice = appended.filter((u) => count.get(u)! > 1);
    expect(twice).toEqual([]);
    expect(appended.filter((u) => !count.has(u))).toEqual([]);
    // Every decision belongs to an appended exchange (nothing from garbage or the middle of a file).
    expect([...count.keys(), ...[...looks].map((l) => l.split('@')[0])].filter((u) => !appended.includes(u))).toEqual([]);
    const resets = events(e, 'file-removed').map((r) => `${r.reason}`);
    expect(resets).toEqual(expect.arrayContaining(['reset-truncated', 'deleted']));
    expect(resets.some((r) => r === 'reset-replaced' || r === 'deleted')).toBe(true);
    expect(events(e, 'skipped-line').some((r) => /long/.test(String(r.reason)) && r.path === pa.path)).toBe(true);
    expect(events(e, 'skipped-line').filter((r) => r.reason === 'malformed')).toEqual([]); // partial lines waited
    expect(events(e, 'error')).toEqual([]);
    for (const s of [tr, ro, de, pa]) expect(await hookOnce(e, s)).toBeNull(); // soak default: silent
    expect(d.child.exitCode).toBeNull();
    console.log(`[faults] transcripts: ${appended.length} exchanges through truncate/rotate/delete/partial/20 MB line, each decided once; resets ${resets.join(',')}`);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});

describe.skipIf(!canMount)('files: read-only state dir (read-only bind mount)', () => {
  it('at start: exit 3 naming the state dir; the hook stays silent', async () => {
    e = tempEnv('ab-f-files-ro0-');
    mkdirSync(e.home, { recursive: true });
    sh('mount', ['--bind', e.home, e.home]);
    mounts.push(e.home);
    sh('mount', ['-o', 'remount,ro,bind', e.home]);
    expect(() => writeFileSync(join(e.home, 'probe'), 'x')).toThrow(/EROFS/);
    const r = cli(e, ['start', '--set', 'daemon.cycleMs=200']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain(e.home);
    expect(r.stderr).toMatch(/state dir|read-only/i);
    const s = newSession(e);
    appendLines(s, exchangeLines(s, 'hello', 'hi'));
    expect(await hookOnce(e, s)).toBeNull();
  });

  it('mid-run: the daemon keeps running, the hook goes silent; once writable again it catches up with nothing lost', async () => {
    e = tempEnv('ab-f-files-ro1-');
    writeConfig(e, liveConfig());
    store.copyTo(e);
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    await warmWithOffer(e, s);
    expect(await hookOnce(e, s)).not.toBeNull(); // control: prints while writable

    sh('mount', ['--bind', e.home, e.home]);
    mounts.push(e.home);
    sh('mount', ['-o', 'remount,ro,bind', e.home]);
    const during = appendPgErrors(s, 3);
    await sleep(2500);
    expect(d.child.exitCode).toBeNull();
    const hooks = await Promise.all([hookOnce(e, s), hookOnce(e, s)]);
    expect(hooks).toEqual([null, null]); // state cannot be recorded → silence

    sh('mount', ['-o', 'remount,rw,bind', e.home]);
    trySh('umount', [e.home]);
    mounts.pop();
    const after = pgErrorLines(s, 9);
    appendLines(s, after);
    await waitFor(() => decisions(e).some((r) => r.exchangeUuid === promptUuid(after)), 20_000, 'a decision once writable');
    const seen = new Set(decisions(e).map((r) => r.exchangeUuid));
    const lostDuring = during.filter((u) => !seen.has(u));
    const canary = readJson<{ lastError: string | null }>(join(e.home, 'canary.json'));
    console.log(`[faults] read-only mid-run: daemon alive, hooks silent; decisions of the ${during.length} exchanges during the outage in the log: ${during.length - lostDuring.length}; canary lastError=${canary?.lastError}`);
    expect(readJson<{ offer: unknown }>(join(e.home, 'cache', `${s.id}.json`))).toMatchObject({ exchangeUuid: promptUuid(after) });
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(lostDuring).toEqual([]);
  });
});

/** Fill the file system holding `dir` until ENOSPC; returns the filler path. */
function fillUp(dir: string): string {
  const p = join(dir, 'filler');
  const fd = openSync(p, 'w');
  const chunk = Buffer.alloc(4096, 1);
  try {
    for (;;) writeSync(fd, chunk);
  } catch (err) {
    expect((err as NodeJS.ErrnoException).code).toBe('ENOSPC');
  } finally {
    closeSync(fd);
  }
  return p;
}

describe.skipIf(!canMount)('files: disk full (1 MB tmpfs)', () => {
  it('cache and log writes fail with ENOSPC: the daemon keeps running, no partial cache, the hook stays silent; space back → it catches up', async () => {
    e = tempEnv('ab-f-files-full-');
    mkdirSync(e.home, { recursive: true });
    sh('mount', ['-t', 'tmpfs', '-o', 'size=1m,mode=0700', 'tmpfs', e.home]);
    mounts.push(e.home);
    e.env.ACTIVE_BRAIN_STORE = join(e.root, '..', 'store.sqlite'); // the store is not on the full disk
    writeConfig(e, liveConfig());
    store.copyTo(e);
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    await warmWithOffer(e, s);
    const before = readFileSync(join(e.home, 'cache', `${s.id}.json`), 'utf8');

    const filler = fillUp(e.home);
    const during = appendPgErrors(s, 3);
    await sleep(2500);
    expect(d.child.exitCode).toBeNull();
    // The cache is the old whole file (a failed write never replaces it), no temp files remain.
    expect(readFileSync(join(e.home, 'cache', `${s.id}.json`), 'utf8')).toBe(before);
    expect(readdirSync(join(e.home, 'cache')).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    const hooks = await Promise.all([hookOnce(e, s), hookOnce(e, s)]);
    expect(hooks).toEqual([null, null]);

    unlinkSync(filler);
    const after = pgErrorLines(s, 9);
    appendLines(s, after);
    await waitFor(() => readJson<{ exchangeUuid: string }>(join(e.home, 'cache', `${s.id}.json`))?.exchangeUuid === promptUuid(after), 20_000, 'a cache once space is back');
    // The decision log should resume too (see the defect note in docs/RELIABILITY.md).
    const logged = await waitFor(() => tolerantDecisions(e).some((r) => r.exchangeUuid === promptUuid(after)), 10_000, 'a decision once space is back').then(() => true, () => false);
    const seen = new Set(tolerantDecisions(e).map((r) => r.exchangeUuid));
    const lostDuring = during.filter((u) => !seen.has(u));
    const log = daemonLog(e);
    const canary = readJson<{ lastError: string | null }>(join(e.home, 'canary.json'));
    console.log(`[faults] disk full: daemon alive, hooks silent, cache kept whole, cache written again once space is back; ` +
      `decision log resumed: ${logged}; decisions of the ${during.length} exchanges while full in the log: ${during.length - lostDuring.length}; ` +
      `torn log lines: ${log.torn.length}; canary lastError=${canary?.lastError}`);
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(logged).toBe(true);
  });
});

describe('files: corrupt state', () => {
  it('corrupt config: exit 2 naming the file or the key; the hook is unaffected', () => {
    e = tempEnv('ab-f-files-cfg-');
    mkdirSync(e.home, { recursive: true });
    writeFileSync(join(e.home, 'config.json'), '{"daemon": {"cycleMs": 200,');
    const bad = cli(e, ['start']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('config.json is not valid JSON');
    writeFileSync(join(e.home, 'config.json'), JSON.stringify({ daemon: { cycleMs: 'fast' } }));
    const key = cli(e, ['start']);
    expect(key.code).toBe(2);
    expect(key.stderr).toContain('"daemon.cycleMs"');
    writeFileSync(join(e.home, 'config.json'), JSON.stringify({ modes: { default: { state: 'loud' } } }));
    const mode = cli(e, ['start']);
    expect(mode.code).toBe(2);
    expect(mode.stderr).toContain('"modes.default.state"');
    expect(existsSync(join(e.home, 'daemon.pid'))).toBe(false); // nothing started
  });

  it('corrupt store, cache, canary, offsets and hook settings: reasons logged, daemon running, hook silent, later exchanges fine', async () => {
    e = tempEnv('ab-f-files-corrupt-');
    writeConfig(e, liveConfig());
    // The store: not a database at all.
    mkdirSync(e.home, { recursive: true });
    writeFileSync(e.env.ACTIVE_BRAIN_STORE!, Buffer.from('this is not a sqlite file\n'.repeat(200)));
    // Offsets: garbage from an older crash.
    writeFileSync(join(e.home, 'offsets.json'), '{"version":1,"files":{"/x": {"offset": ');
    // Hook settings: garbage (the daemon rewrites them at start).
    writeFileSync(join(e.home, 'hook-settings.json'), '\u0000\u0001garbage');
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    expect(validate(loadSchema('hook-settings'), readJson(join(e.home, 'hook-settings.json')))).toEqual([]);
    const errs = events(e, 'error').map((r) => r.reason);
    expect(errs).toEqual(expect.arrayContaining(['store-unreadable', 'offsets-corrupt']));
    expect(readdirSync(e.home).some((n) => n.startsWith('offsets.json.corrupt-'))).toBe(true); // set aside, not lost
    const s = newSession(e);
    for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
    const pg = pgErrorLines(s, 1);
    appendLines(s, pg);
    // Waited for by its own uuid: a provisional look at a warm-up exchange (logged by design when
    // the writer pauses mid-turn) is a decision record too, and made a count reach its mark early.
    const atPg = () => decisions(e).filter((r) => r.exchangeUuid === promptUuid(pg));
    await waitFor(() => atPg().length > 0, 20_000, 'decisions without a store');
    expect(atPg().at(-1)).toMatchObject({ silence: 'store-unreadable', would_fire: false });
    expect(await hookOnce(e, s)).toBeNull();

    // A corrupt cache: the hook stays silent; the next exchange rewrites it whole.
    const cachePath = join(e.home, 'cache', `${s.id}.json`);
    writeFileSync(cachePath, '{"version":1,"sessionId":"');
    expect(await hookOnce(e, s)).toBeNull();
    expect(hookRecords(e).at(-1)).toMatchObject({ reason: 'cache-invalid' });
    const next = pgErrorLines(s, 2);
    appendLines(s, next);
    await waitFor(() => readJson<{ exchangeUuid: string }>(cachePath)?.exchangeUuid === promptUuid(next), 20_000, 'cache rewritten');

    // A corrupt canary: status does not crash; the daemon rewrites it within a cycle.
    writeFileSync(join(e.home, 'canary.json'), 'not json');
    const st = cli(e, ['status', '--json']);
    expect([0, 1]).toContain(st.code);
    expect(() => JSON.parse(st.stdout)).not.toThrow();
    await waitFor(() => readJson<{ pid: number }>(join(e.home, 'canary.json'))?.pid === d.pid, 5000, 'canary rewritten');
    expect(JSON.parse(cli(e, ['status', '--json']).stdout)).toMatchObject({ running: true, pid: d.pid });
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('a store corrupted under the running daemon: builds fail with a reason, the daemon keeps deciding, the hook stays silent or correct', async () => {
    e = tempEnv('ab-f-files-corrupt2-');
    writeConfig(e, liveConfig());
    const storePath = store.copyTo(e);
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    await warmWithOffer(e, s); // control: this store makes offers
    // Overwrite everything after the first page: the header stays, the b-trees are garbage.
    const size = readFileSync(storePath).length;
    const fd = openSync(storePath, 'r+');
    writeSync(fd, Buffer.alloc(size - 4096, 0xa5), 0, size - 4096, 4096);
    closeSync(fd);
    const later = appendPgErrors(s, 3);
    await waitFor(() => later.every((u) => decisions(e).some((r) => r.exchangeUuid === u)), 20_000, 'decisions after the corruption');
    // Pages already read stay cached in the reader: offers may still come from them, whole.
    const line = await hookOnce(e, s);
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    // A daemon started on the corrupt file: it runs, logs why, and stays silent.
    const d2 = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d2.pid);
    const s2 = newSession(e);
    for (const [u, a] of WARMUP) appendLines(s2, exchangeLines(s2, u, a));
    const last = pgErrorLines(s2, 5);
    appendLines(s2, last);
    await waitFor(() => decisions(e).some((r) => r.exchangeUuid === promptUuid(last)), 20_000, 'decisions on the corrupt store');
    const dec = decisions(e).find((r) => r.exchangeUuid === promptUuid(last))!;
    const errs = events(e, 'error').filter((r) => r.pid === d2.pid).map((r) => r.reason);
    console.log(`[faults] store corrupted: first daemon hook ${line === null ? 'silent' : 'printed a whole offer'}; restarted daemon: silence=${dec.silence}, errors=${errs.join(',')}`);
    expect(dec.would_fire).toBe(false);
    expect(dec.silence).toMatch(/store|error/);
    expect(await hookOnce(e, s2)).toBeNull();
    expect(d2.child.exitCode).toBeNull();
    d2.child.kill('SIGTERM');
    expect(await d2.exited).toBe(0);
  });
});

describe('files: the model folder', () => {
  it('missing at start: exit 3 naming the folder; removed mid-run: the loaded model keeps working', async () => {
    e = tempEnv('ab-f-files-model-');
    const missing = join(e.root, '..', 'no-such-model');
    const r = spawnSync(process.execPath, [BIN, 'start', '--set', 'daemon.cycleMs=200'], { env: { ...e.env, ACTIVE_BRAIN_MODEL_PATH: missing }, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(missing);
    expect(existsSync(join(e.home, 'daemon.pid'))).toBe(false); // lock released
    const st = cli(e, ['status', '--json']);
    expect(JSON.parse(st.stdout)).toMatchObject({ running: false });

    const copy = join(e.root, '..', 'model-copy');
    cpSync(offlineModelPath(), copy, { recursive: true });
    e.env.ACTIVE_BRAIN_MODEL_PATH = copy;
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    rmSync(copy, { recursive: true, force: true });
    const s = newSession(e);
    const lines = exchangeLines(s, 'does it still embed without the folder?', 'Yes, the model is in memory.');
    appendLines(s, lines);
    await waitFor(() => decisions(e).some((x) => x.exchangeUuid === promptUuid(lines)), 20_000, 'a decision after the folder went');
    expect(events(e, 'error').filter((x) => x.pid === d.pid)).toEqual([]);
    expect(events(e, 'error').filter((x) => x.pid !== d.pid).map((x) => x.reason)).toEqual(['embedder']); // the failed start said why
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
