/**
 * The real daemon on the team store (real PostgreSQL, test/helpers/postgres.ts) when the
 * server goes away: the daemon stays up, decides silently (`store-down`, no offer cache),
 * status and the canary say the store is unreachable and since when; once the server is back
 * it reconnects within the backoff and the same kind of exchange gets its offer again
 * (control). And the hook's Past-fix files follow the team store while the daemon runs: a
 * resolved episode the writer commits appears as `<home>/fixes/<sig>.json` within a cycle
 * (the reader's change stamp is meta.generation).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { T0 } from '../retrieval/helpers.js';
import { PG_WARMUP, appendPgErrorExchange } from './pg-error-session.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { FIXTURE, FILLER } from '../retrieval/fixture.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { errorSignature } from '../../shared/error-signature.js';
import { PgError } from '../../store/pg-sync.js';
import { STORE_RETRY_FIRST_MS, STORE_RETRY_MAX_MS, StoreDownError, StoreGuard, retryDelayMs } from '../../daemon/store-health.js';
import type { StoreReader } from '../../store/types.js';
import { writeConfig } from '../helpers/faults.js';
import {
  STEADY_CONFIG, appendExchange, cli, decisions, events, newSession, readJson, startDaemon, statusRunning, tempEnv, waitCanary, waitFor,
  type Daemon, type Env, type Session,
} from './helpers.js';

/** Four warm-up exchanges, then a failing Bash call whose error the store has a past fix for (turn 4). */
function appendErrorSession(s: Session): void {
  for (const [u, a] of PG_WARMUP) appendExchange(s, u, a);
  appendPgErrorExchange(s);
}

type Cache = { turn: number; offer: Record<string, unknown> | null };
type Health = { state: string; since: number; location: string; message: string | null; nextRetryAt: number | null };

describe('store guard (daemon/store-health.ts)', () => {
  it('backoff: 1 s doubling, capped at 60 s', () => {
    expect([1, 2, 3, 4, 5, 6, 7, 8, 100].map(retryDelayMs)).toEqual([1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000]);
    expect(retryDelayMs(1)).toBe(STORE_RETRY_FIRST_MS);
    expect(retryDelayMs(1e9)).toBe(STORE_RETRY_MAX_MS);
  });

  it('a lost connection marks the store down and every later call through that reader throws; other errors do not', () => {
    let t = 1_000_000;
    const g = new StoreGuard('postgres://r:***@h/db', () => t);
    let mode: 'ok' | 'lost' | 'bad' = 'ok';
    const reader = g.wrap({
      regions: () => {
        if (mode === 'lost') throw new PgError({ message: 'Connection terminated unexpectedly', code: 'CONNECTION_LOST' });
        if (mode === 'bad') throw new PgError({ message: 'syntax error', code: '42601' });
        return [];
      },
      close: () => undefined,
    } as unknown as StoreReader);
    g.ok();
    expect(reader.regions()).toEqual([]);
    mode = 'bad';
    expect(() => reader.regions()).toThrow(/syntax error/);
    expect(g.down).toBe(false);
    expect(g.faults).toBe(0);
    mode = 'lost';
    expect(() => reader.regions()).toThrow(PgError);
    expect(g.faults).toBe(1);
    expect(g.snapshot()).toMatchObject({ state: 'down', since: t, failures: 1, nextRetryAt: t + 1000 });
    expect(g.snapshot()!.message).toBe('lost the connection: Connection terminated unexpectedly'); // not the CLI's "run the command again"
    mode = 'ok';
    expect(() => reader.regions()).toThrow(StoreDownError); // a dead reader stays dead
    expect(g.due()).toBe(false);
    t += 1000;
    expect(g.due()).toBe(true);
    g.lost(new Error('ECONNREFUSED')); // the reconnect failed: same since, longer wait, same fault
    expect(g.snapshot()).toMatchObject({ state: 'down', since: t - 1000, failures: 2, nextRetryAt: t + 2000 });
    expect(g.faults).toBe(1);
    g.ok();
    expect(g.snapshot()).toMatchObject({ state: 'ok', message: null, nextRetryAt: null });
  });
});

describe('daemon on the team store: faults', () => {
  let server: TestPostgres;
  let init: { readerUrl: string; writerUrl: string; users: Record<string, string> };
  let e: Env;
  let d: Daemon;

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    const e0 = tempEnv('ab-daemon-pgf-');
    const r = cli(e0, ['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--json']);
    e0.cleanup();
    expect(r.code, r.stderr).toBe(0);
    init = JSON.parse(r.stdout);
    // The retrieval fixture, written into the team store through the writer role.
    const embedder = await offlineEmbedder();
    const w = openStoreWriter(init.writerUrl);
    try {
      w.setModel(embedder.modelId, embedder.dim);
      const sources = new Map<string, number>();
      for (const doc of [...FIXTURE, ...FILLER]) {
        w.ensureRegion(doc.region, doc.scope ?? 'global');
        let sid = sources.get(doc.region);
        if (sid === undefined) sources.set(doc.region, (sid = w.addSource(doc.region, `/fixture/${doc.region}`, doc.kind ?? 'notes').id));
        const vectors = await embedder.embed(doc.chunks.map((c) => `${doc.title}\n${c.heading ?? ''}\n${c.text}`));
        w.replaceDocument(
          { sourceId: sid, path: `/fixture/${doc.region}/${doc.file}`, hash: doc.file, mtime: T0, size: 1, title: doc.title },
          doc.chunks.map((c) => ({ heading: c.heading ?? doc.title, text: c.text, createdAt: c.createdAt ?? T0, hasError: c.hasError, resolved: c.resolved, aliases: c.aliases })),
          vectors,
        );
      }
    } finally {
      w.close();
    }
    e = tempEnv('ab-daemon-pgf-');
    e.env.ACTIVE_BRAIN_STORE_URL = init.users.alice;
    writeConfig(e, STEADY_CONFIG); // the error turn's past-fix offer is what the control checks
    d = startDaemon(e, ['session.cooldownSeconds=0']);
    await waitCanary(e, d.pid);
  }, 180_000);
  afterAll(() => {
    e?.cleanup();
    server?.stop();
  });

  const status = () => JSON.parse(cli(e, ['status', '--json']).stdout) as { running: boolean; store_health: Health | null; last_error: string | null };
  const cacheAt = (s: Session, turn: number) => () => {
    const c = readJson<Cache>(join(e.home, 'cache', `${s.id}.json`));
    return c && c.turn === turn ? c : null;
  };

  it('control: with the server up the error turn gets a past-fix offer; status says ok', async () => {
    const s = newSession(e);
    appendErrorSession(s);
    const cache = await waitFor(cacheAt(s, 4), 30_000, 'cache for the error turn');
    expect(cache.offer).toMatchObject({ type: 'past-fix', trigger: 'error' });
    expect(await statusRunning(e)).toMatchObject({ running: true, store_health: { state: 'ok' } });
  }, 60_000);

  it('server stopped: no offer, status and canary say unreachable since when, daemon alive; back up: reconnects and offers again', async () => {
    const before = Date.now();
    server.halt();
    try {
      const s = newSession(e);
      appendErrorSession(s);
      const dec = await waitFor(() => decisions(e).find((r) => r.sessionId === s.id && r.turn === 4), 30_000, 'decision for the error turn while down');
      expect(dec).toMatchObject({ would_fire: false });
      expect(dec.offer ?? null).toBeNull();
      expect(dec.silence).toBe('store-down');
      // No cache for that turn (and never a cache holding an offer).
      const c = readJson<Cache>(join(e.home, 'cache', `${s.id}.json`));
      expect(c?.offer ?? null).toBeNull();
      const st = await waitFor(() => { const x = status(); return x.store_health?.state === 'down' ? x : null; }, 10_000, 'status down');
      expect(st.running).toBe(true);
      expect(st.store_health!.since).toBeGreaterThanOrEqual(before - 1000);
      expect(st.store_health!.location).not.toContain(new URL(init.users.alice).password);
      expect(st.last_error).toMatch(/^store-down: /);
      const human = cli(e, ['status']).stdout;
      expect(human).toMatch(/UNREACHABLE since \d{4}-\d\d-\d\dT/);
      const doctor = JSON.parse(cli(e, ['doctor', '--json']).stdout) as { checks: Array<{ name: string; pass: boolean; detail: string }> };
      expect(doctor.checks.find((c) => c.name === 'daemon')).toMatchObject({ pass: false, detail: expect.stringMatching(/team store .* unreachable since/) });
      const canary = readJson<{ store?: Health }>(join(e.home, 'canary.json'));
      expect(canary?.store?.state).toBe('down');
      expect(events(e, 'store-down').length).toBeGreaterThanOrEqual(1);
      expect(d.child.exitCode).toBeNull();
    } finally {
      server.resume();
    }
    // Back: the reader is reopened within the backoff (a few seconds here: the loss is fresh).
    await waitFor(() => status().store_health?.state === 'ok', 30_000, 'status ok again');
    expect(events(e, 'store-reconnected').length).toBeGreaterThanOrEqual(1);
    expect(status().last_error).toBeNull();
    const s2 = newSession(e);
    appendErrorSession(s2);
    const cache = await waitFor(cacheAt(s2, 4), 30_000, 'cache after reconnect');
    expect(cache.offer).toMatchObject({ type: 'past-fix', trigger: 'error' });
    expect(d.child.exitCode).toBeNull();
  }, 120_000);

  it('a resolved episode the writer commits while the daemon runs → its fixes file appears', async () => {
    const text = 'fatal: the current branch feature-x has no upstream branch.';
    const sig = errorSignature(text)!;
    expect(sig).not.toBeNull();
    const fixFile = join(e.home, 'fixes', `${sig.sig}.json`);
    expect(existsSync(fixFile)).toBe(false);
    const embedder = await offlineEmbedder();
    const w = openStoreWriter(init.writerUrl);
    try {
      w.ensureRegion('past-sessions', 'global');
      const src = w.addSource('past-sessions', '/fixture/episodes', 'transcripts').id;
      const body = `git push failed: ${text} Fixed with git push --set-upstream origin feature-x.`;
      w.replaceDocument(
        { sourceId: src, path: '/fixture/episodes/push.jsonl', hash: 'push', mtime: T0, size: 1, title: 'git push without upstream' },
        [{ heading: 'git push', text: body, createdAt: T0, hasError: true, resolved: true, episode: {
          sig: sig.sig, head: sig.head, words: sig.words, sessionId: 'past-1', tool: 'Bash', action: 'Bash: git push', fix: 'git push --set-upstream origin feature-x', resolved: true, at: T0,
        } }],
        await embedder.embed([body]),
      );
    } finally {
      w.close();
    }
    const f = await waitFor(() => readJson<{ sig: string; storeStamp: string; fixes: Array<{ offer: { text?: string }; sourceSession: string }> }>(fixFile), 10_000, 'fixes file');
    expect(f).toMatchObject({ sig: sig.sig, storeStamp: expect.stringMatching(/^generation:\d+$/) });
    expect(f.fixes[0].sourceSession).toBe('past-1');
    expect(JSON.stringify(f.fixes[0].offer)).toContain('--set-upstream origin feature-x');
    await waitFor(() => events(e, 'fixes-synced').length >= 1, 5000, 'fixes-synced event');
  }, 60_000);
});
