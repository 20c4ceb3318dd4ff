/**
 * Scope end to end, through the real indexer, daemon and hook:
 *  - a `project:<glob>` region is never offered to a session whose cwd is outside the glob,
 *    property-style over randomly generated cwds (fast-check, fixed seed), with the control
 *    that sessions inside the glob do get offers from it;
 *  - the daemon never writes the store: its file's SHA-256 (and its WAL) are unchanged after
 *    the full run and after a replay of the same transcripts (`active-brain replay` when it
 *    exists, else a second daemon reading them as new live sessions).
 * (A write through the reader's connection failing is tested in test/store/reader.test.ts.)
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { repoRoot } from '../helpers/model.js';
import {
  BIN,
  OFFER_SETS,
  WARMUP,
  appendLines,
  decisions,
  exchangeLines,
  indexRegions,
  liveConfig,
  payloadFor,
  pgErrorLines,
  printedOffer,
  runHook,
  sha256File,
  startDaemon,
  tempEnv,
  waitCanary,
  waitFor,
  writeConfig,
  FILLER_NOTES,
  PG_NOTE,
  type Env,
  type Session,
} from '../helpers/faults.js';

let e: Env;
afterEach(() => e?.cleanup());

const APP_GLOB = '/work/app/**';
const inside = (cwd: string) => cwd.startsWith('/work/app/');
const outside = (cwd: string) => !(cwd === '/work/app' || cwd.startsWith('/work/app/'));

const seg = fc.stringMatching(/^[a-z][a-z0-9._-]{0,7}$/);
/** Random cwds: half inside /work/app/, half near misses and elsewhere. */
const cwdArb = fc.oneof(
  fc.array(seg, { minLength: 1, maxLength: 3 }).map((p) => `/work/app/${p.join('/')}`),
  fc.tuple(fc.constantFrom('/work/apple', '/work/app-2', '/work/ap', '/srv/work/app', '/home/u/work/app', '/work', '/'), fc.array(seg, { maxLength: 2 }))
    .map(([b, p]) => [b.replace(/\/$/, ''), ...p].join('/') || '/'),
);

function sessionAt(env: Env, cwd: string): Session {
  const id = randomUUID();
  return { id, path: join(env.root, cwd.replace(/[/.]/g, '-'), `${id}.jsonl`), cwd, last: null };
}

describe('scope: project regions stay in their project', () => {
  it('a project:<glob> region is never offered outside its glob (random cwds); inside it is (control); the store file never changes', async () => {
    e = tempEnv('ab-f-scope-');
    writeConfig(e, liveConfig());
    indexRegions(e, [
      // Inside its project a region's own notes are offered only as Past fix / Contradicts (an
      // "Analogous" case must come from another area): this note contradicts the turn's command.
      { name: 'app', scope: `project:${APP_GLOB}`, files: { 'db.md': PG_NOTE, 'pool.md': '# App test database\n\nNever use `npm test -- db/pool` against the shared postgres database: it exhausts the connection pool and queries fail with ECONNRESET.\n' } },
      { name: 'misc', files: FILLER_NOTES },
    ]);
    const storePath = e.env.ACTIVE_BRAIN_STORE!;
    const wal = `${storePath}-wal`;
    const walSize = () => (existsSync(wal) ? statSync(wal).size : -1);
    const hash0 = sha256File(storePath);
    const wal0 = walSize();

    const cwds = fc.sample(cwdArb, { numRuns: 10, seed: 4242 });
    cwds.push('/work/app/api', '/work/apple/api'); // at least one of each
    const sessions = cwds.map((c) => sessionAt(e, c));
    const d = startDaemon(e, [...OFFER_SETS, 'retrieval.dedupWindow=20']);
    await waitCanary(e, d.pid);
    for (const s of sessions) for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
    for (let i = 0; i < 3; i++) for (const s of sessions) appendLines(s, pgErrorLines(s, i));
    const want = sessions.length * (WARMUP.length + 3);
    await waitFor(() => decisions(e).length >= want, 60_000, 'all decisions');
    const printed: Array<{ cwd: string; line: string }> = [];
    for (const s of sessions) {
      const r = await runHook(e, payloadFor(s));
      expect(r.code).toBe(0);
      const line = printedOffer(r.stdout);
      if (line) printed.push({ cwd: s.cwd, line });
    }
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    const cwdOf = new Map(sessions.map((s) => [s.id, s.cwd]));
    const offers = decisions(e).filter((r) => r.would_fire === true).map((r) => ({ cwd: cwdOf.get(r.sessionId as string)!, region: (r.offer as { region: string }).region }));
    const leaks = offers.filter((o) => outside(o.cwd) && o.region === 'app');
    const appInside = offers.filter((o) => inside(o.cwd) && o.region === 'app');
    console.log(`[faults] scope: ${sessions.length} cwds (${sessions.filter((s) => inside(s.cwd)).length} inside ${APP_GLOB}), ${offers.length} offers, ` +
      `${appInside.length} from the project region inside, ${leaks.length} outside`);
    expect(leaks).toEqual([]);
    for (const p of printed) if (outside(p.cwd)) expect(p.line).not.toContain(' app/');
    expect(appInside.length).toBeGreaterThan(0); // control: the region is offered where it belongs

    // The store was never written by the daemon…
    expect(sha256File(storePath)).toBe(hash0);
    expect(walSize()).toBe(wal0 <= 0 ? walSize() : wal0);
    expect(Math.max(0, walSize())).toBe(Math.max(0, wal0));
    // …nor by a replay of the same transcripts.
    const hasReplay = existsSync(join(repoRoot, 'dist', 'cli', 'commands', 'replay.js'));
    if (hasReplay) {
      const r = spawnSync(process.execPath, [BIN, 'replay', e.root, '--json'], { env: e.env, encoding: 'utf8', timeout: 120_000 });
      expect(r.status, r.stderr).toBe(0);
    } else {
      const root2 = join(e.root, '..', 'projects-replay');
      const d2 = startDaemon({ ...e, env: { ...e.env, ACTIVE_BRAIN_TRANSCRIPTS: root2 } }, OFFER_SETS);
      await waitCanary(e, d2.pid);
      const before = decisions(e).length;
      cpSync(e.root, root2, { recursive: true }); // new files after start: read as live sessions
      await waitFor(() => decisions(e).length >= before + want, 60_000, 'replayed decisions');
      d2.child.kill('SIGTERM');
      expect(await d2.exited).toBe(0);
    }
    console.log(`[faults] store unchanged after the run and a ${hasReplay ? '`replay`' : 'second daemon run over the same transcripts'}: sha256 ${hash0.slice(0, 16)}…`);
    expect(sha256File(storePath)).toBe(hash0);
    expect(Math.max(0, walSize())).toBe(Math.max(0, wal0));
  });
});
