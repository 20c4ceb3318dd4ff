/**
 * End to end, "a team of two users": a real PostgreSQL server, `store init` with alice and bob,
 * the team's notes pushed with audience team and alice's private past-session notes (the one
 * that holds the fix for the pool error) pushed with audience user:alice (`store push`, the
 * real CLI). Two real daemons with separate homes read through alice's and bob's reader URLs
 * and tail one transcript each that hits the same tool error: alice's daemon offers the past
 * fix from her private notes; bob's never does (a decision for the error turn, no offer). The
 * control: the same notes pushed again with audience team → bob's daemon offers them on his
 * next session, so the negative side fails if row-level security lets the rows through. Then
 * vice versa: alice's notes private again and bob's own copy private to bob — each daemon
 * offers its owner's copy (different handles), never the other's. Neither reader role can
 * INSERT; `label` on a terminal shows the offered chunk read from the team store.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { buildStore, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER } from '../retrieval/fixture.js';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { repoRoot } from '../helpers/model.js';
import { PG_WARMUP, appendPgErrorExchange } from '../daemon/pg-error-session.js';
import { writeConfig } from '../helpers/faults.js';
import {
  STEADY_CONFIG, appendExchange, decisions, newSession, readJson, startDaemon, tempEnv, waitCanary, waitFor,
  type Daemon, type Env, type Session,
} from '../daemon/helpers.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');


interface Cache { turn: number; offer: { type: string; handle: string; region: string } | null }

describe('a team of two users on one team store (real server, real daemons)', () => {
  let server: TestPostgres;
  let teamNotes: TestStore;
  let aliceNotes: TestStore;
  let bobNotes: TestStore | undefined;
  let init: { writerUrl: string; readerUrl: string; users: Record<string, string> };
  const envs: Env[] = [];
  const daemons: Daemon[] = [];
  const push = (local: string, audience: string) => {
    const r = spawnSync(process.execPath, [BIN, 'store', 'push', '--to', init.writerUrl, '--audience', audience, '--json'], {
      env: { ...process.env, ACTIVE_BRAIN_HOME: join(local, '..', 'push-home'), ACTIVE_BRAIN_STORE: local, ACTIVE_BRAIN_STORE_URL: '' }, encoding: 'utf8', timeout: 60_000,
    });
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout) as { added: number; replaced: number; removed: number; moved: number; wrote: boolean };
  };
  const session = async (e: Env): Promise<{ s: Session; cache: Cache }> => {
    const s = newSession(e);
    for (const [u, a] of PG_WARMUP) appendExchange(s, u, a);
    appendPgErrorExchange(s);
    const cache = await waitFor(() => {
      const c = readJson<Cache>(join(e.home, 'cache', `${s.id}.json`));
      return c && c.turn === 4 ? c : null;
    }, 25_000, 'cache for the error turn');
    await waitFor(() => decisions(e).find((r) => r.sessionId === s.id && r.turn === 4), 5000, 'decision for the error turn');
    return { s, cache };
  };

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    const r = spawnSync(process.execPath, [BIN, 'store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--user', 'bob', '--json'], { encoding: 'utf8', env: { ...process.env, ACTIVE_BRAIN_STORE_URL: '' } });
    expect(r.status, r.stderr).toBe(0);
    init = JSON.parse(r.stdout);
    teamNotes = await buildStore(FILLER);
    aliceNotes = await buildStore(FIXTURE);
    expect(push(teamNotes.path, 'team').added).toBeGreaterThan(0);
    expect(push(aliceNotes.path, 'user:alice').added).toBeGreaterThan(0);
  }, 180_000);
  afterAll(() => {
    for (const d of daemons) d.child.kill('SIGTERM');
    for (const e of envs) e.cleanup();
    teamNotes?.cleanup();
    aliceNotes?.cleanup();
    bobNotes?.cleanup();
    server?.stop();
  });

  const daemonFor = async (url: string): Promise<Env> => {
    const e = tempEnv('ab-team-');
    delete e.env.ACTIVE_BRAIN_STORE;
    e.env.ACTIVE_BRAIN_STORE_URL = url;
    envs.push(e);
    writeConfig(e, STEADY_CONFIG); // which offer each daemon makes, and the hook's would-fire `label` shows, are what is checked
    const d = startDaemon(e, ['session.cooldownSeconds=0']);
    daemons.push(d);
    await waitCanary(e, d.pid);
    return e;
  };

  it('alice is offered her private past fix; bob never; after a push as team, bob is', async () => {
    const alice = await daemonFor(init.users.alice);
    const bob = await daemonFor(init.users.bob);
    const a = await session(alice);
    expect(a.cache.offer).toMatchObject({ type: 'past-fix' });
    const aliceHandle = a.cache.offer!.handle;
    // The hook (soak) logs the offer; `label` on a terminal shows its chunk read from the team store.
    const hook = spawnSync(process.execPath, [join(repoRoot, 'bin', 'active-brain-hook.js')], {
      env: alice.env, encoding: 'utf8',
      input: JSON.stringify({ session_id: a.s.id, transcript_path: a.s.path, cwd: a.s.cwd, hook_event_name: 'UserPromptSubmit', prompt: 'what now?' }),
    });
    expect(hook.status).toBe(0);
    if (spawnSync('sh', ['-c', 'command -v script']).status === 0) {
      const l = spawnSync('sh', ['-c', `(sleep 4; printf 'y\\n') | script -qec "${process.execPath} ${BIN} label --seed 1" /dev/null`], { env: alice.env, encoding: 'utf8', timeout: 40_000 });
      expect(l.stdout).toContain(`chunk (${a.cache.offer!.region}, `);
      expect(l.stdout).not.toContain('chunk not shown');
    }
    const b = await session(bob);
    expect(b.cache.offer?.handle ?? null).not.toBe(aliceHandle);
    expect(decisions(bob).filter((r) => r.sessionId === b.s.id).map((r) => (r.offer as { handle?: string } | null)?.handle)).not.toContain(aliceHandle);

    // Control: the same notes for the whole team → bob's daemon now offers that fix.
    expect(push(aliceNotes.path, 'team')).toMatchObject({ added: 0, replaced: 0, removed: 0, wrote: true }); // rows moved, none rewritten
    const b2 = await session(bob);
    expect(b2.cache.offer).toMatchObject({ type: 'past-fix', handle: aliceHandle });

    // Vice versa: alice's notes private again, bob's own copy of them private to him (another
    // source, so other handles): each daemon offers its owner's copy, never the other's.
    expect(push(aliceNotes.path, 'user:alice')).toMatchObject({ added: 0, replaced: 0, removed: 0, wrote: true });
    bobNotes = await buildStore(FIXTURE);
    expect(push(bobNotes.path, 'user:bob').added).toBeGreaterThan(0);
    const b3 = await session(bob);
    expect(b3.cache.offer).toMatchObject({ type: 'past-fix' });
    expect(b3.cache.offer!.handle).not.toBe(aliceHandle);
    const a2 = await session(alice);
    expect(a2.cache.offer).toMatchObject({ type: 'past-fix', handle: aliceHandle });
    expect(decisions(alice).map((r) => (r.offer as { handle?: string } | null)?.handle)).not.toContain(b3.cache.offer!.handle);
  }, 200_000);

  it('neither reader can write (INSERT fails on the server)', () => {
    for (const url of [init.users.alice, init.users.bob]) {
      const r = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', url, '-c', `INSERT INTO regions (name, scope) VALUES ('x${randomUUID().slice(0, 6)}', 'global')`], { encoding: 'utf8' });
      expect(r.status).not.toBe(0);
      expect(r.stderr).toMatch(/read-only transaction|permission denied/);
    }
    // control: the writer can
    const w = spawnSync('psql', ['-X', '-q', '-v', 'ON_ERROR_STOP=1', init.writerUrl, '-c', `INSERT INTO regions (name, scope) VALUES ('writer-ok', 'global')`], { encoding: 'utf8' });
    expect(w.status, w.stderr).toBe(0);
  });
});
