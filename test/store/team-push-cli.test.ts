import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

// `store push` and `store grant` / `store revoke` through the real CLI (dist/ binaries) on a
// real PostgreSQL server: a local SQLite store is indexed, pushed with an audience, read back
// through each user's reader role (row-level security decides), pushed again (nothing
// written), pushed after one file changed (one document replaced); bad --to URLs and a model
// mismatch are refused with nothing written; a project:<glob> audience is seen only by a
// reader granted it, and no longer once revoked.
const cli = join(repoRoot, 'bin', 'active-brain.js');

interface PushOut { to: string; from: string; audience: string; regions: number; sources: number; added: number; replaced: number; unchanged: number; removed: number; chunks: number; moved: number; wrote: boolean }

describe('store push and store grant on a real PostgreSQL server', () => {
  let server: TestPostgres;
  let dir: string;
  let init: { url: string; readerUrl: string; writerUrl: string; users: Record<string, string> };
  const run = (args: string[], opts: { storeUrl?: string; home?: string } = {}) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ACTIVE_BRAIN_HOME: opts.home ?? join(dir, 'home-alice'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    delete env.ACTIVE_BRAIN_STORE_URL;
    if (opts.storeUrl) env.ACTIVE_BRAIN_STORE_URL = opts.storeUrl;
    const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 90_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const push = (args: string[], home = join(dir, 'home-alice')) => run(['store', 'push', ...args], { home });
  const handles = (url: string, query: string) => {
    const r = run(['search', query, '--k', '10', '--json'], { storeUrl: url });
    // A reader that may see no chunk at all is told none of its audiences holds one (exit 3).
    if (r.code === 3 && /holds no chunks for this reader's audiences/.test(r.err)) {
      expect(r.err).not.toContain(new URL(url).password); // the URL is shown without its password
      return [];
    }
    expect(r.code, r.err).toBe(0);
    return [...new Set((JSON.parse(r.out) as { hits: Array<{ handle: string }> }).hits.map((h) => h.handle.split('#')[0]))].sort();
  };
  const rows = () => server.psql('SELECT (SELECT count(*) FROM active_brain.documents) || \' \' || (SELECT count(*) FROM active_brain.chunks) || \' \' || (SELECT value FROM active_brain.meta WHERE key = \'generation\')', 'team').trim();
  const note = (sub: string, name: string, body: string) => {
    mkdirSync(join(dir, sub), { recursive: true });
    writeFileSync(join(dir, sub, name), body);
  };
  const Q = 'sidecar restart pool idle timeout ECONNRESET';

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    dir = mkdtempSync(join(tmpdir(), 'ab-push-'));
    note('alice-notes', 'sidecar.md', '# Pool sidecar\n\nRestart the pool sidecar before raising the idle timeout when ECONNRESET appears.\n');
    note('alice-notes', 'deploy.md', '# Deploy checklist\n\nTag the release, then run the canary for ten minutes before the full rollout.\n');
    note('api-notes', 'api-pool.md', '# API pool sidecar\n\nThe api service restarts its pool sidecar on ECONNRESET and keeps the idle timeout at 20 seconds.\n');
    const r = run(['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--user', 'bob', '--json']);
    expect(r.code, r.err).toBe(0);
    init = JSON.parse(r.out);
    // alice's local (SQLite) store, and a project's local store in another home.
    expect(run(['index', 'add', join(dir, 'alice-notes'), '--region', 'alice', '--json']).code).toBe(0);
    expect(run(['index', 'add', join(dir, 'api-notes'), '--region', 'api', '--json'], { home: join(dir, 'home-api') }).code).toBe(0);
  }, 180_000);
  afterAll(() => {
    server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('--help and usage errors', () => {
    const h = run(['store', 'push', '--help']);
    expect(h.code).toBe(0);
    expect(h.out).toMatch(/^usage: active-brain store push --to/);
    expect(run(['store', 'grant', '--help']).out).toMatch(/^usage: active-brain store grant/);
    expect(run(['store', '--help']).out).toMatch(/store init[\s\S]*store push[\s\S]*store grant/);
    expect(push(['--to', 'file.sqlite']).code).toBe(2);
    const a = push(['--to', init.writerUrl, '--audience', 'everyone']);
    expect(a.code).toBe(2);
    expect(a.err).toMatch(/--audience "everyone" is not valid/);
  });

  it('bad URLs are refused with a clear error and nothing is written', () => {
    const before = rows();
    const reader = push(['--to', init.users.alice]);
    expect(reader.code).toBe(2);
    expect(reader.err).toMatch(/cannot write the team store: give --to the writer URL/);
    expect(reader.err).not.toContain(new URL(init.users.alice).password);
    const dead = new URL(init.writerUrl);
    dead.port = '1';
    const unreachable = push(['--to', dead.toString()]);
    expect(unreachable.code).toBe(3);
    expect(unreachable.err).toMatch(/cannot reach the team store/);
    const wrongPw = new URL(init.writerUrl);
    wrongPw.password = 'wrong';
    const refused = push(['--to', wrongPw.toString()]);
    expect(refused.code).toBe(3);
    expect(refused.err).toMatch(/refused the login/);
    expect(rows()).toBe(before);
    expect(before.startsWith('0 0')).toBe(true);
  });

  it('push with user:alice: alice reads it, bob and the team do not; a second push writes nothing', () => {
    const r = push(['--to', init.writerUrl, '--audience', 'user:alice', '--json']);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out) as PushOut;
    expect(out).toMatchObject({ audience: 'user:alice', regions: 1, sources: 1, added: 2, replaced: 0, unchanged: 0, removed: 0, wrote: true });
    expect(out.chunks).toBeGreaterThan(0);
    expect(out.to).not.toContain(new URL(init.writerUrl).password);
    expect(handles(init.users.alice, Q)).toContain('alice/sidecar.md');
    expect(handles(init.users.bob, Q)).toEqual([]);
    expect(handles(init.readerUrl, Q)).toEqual([]);
    // vectors were copied, not re-embedded: the team store holds the local store's bytes
    const local = spawnSync('sqlite3', [join(dir, 'home-alice', 'store.sqlite'), 'SELECT hex(vec) FROM vectors ORDER BY chunk_id LIMIT 1'], { encoding: 'utf8' });
    if (local.status === 0) {
      const remote = server.psql('SELECT upper(encode(vec, \'hex\')) FROM active_brain.chunks ORDER BY id LIMIT 1', 'team').trim();
      expect(remote).toBe(local.stdout.trim());
    }

    const before = rows();
    const again = push(['--to', init.writerUrl, '--audience', 'user:alice', '--json']);
    expect(again.code, again.err).toBe(0);
    expect(JSON.parse(again.out)).toMatchObject({ added: 0, replaced: 0, removed: 0, unchanged: 2, chunks: 0, wrote: false });
    expect(rows()).toBe(before); // same rows, generation unmoved: nothing written
    const text = push(['--to', init.writerUrl, '--audience', 'user:alice']);
    expect(text.out).toMatch(/^nothing to push: .* already holds the 2 document\(s\)/);

    // Only the audience changes: no document is written, yet the push moved the source's rows
    // (bob's reader sees them now) and says so; pushing it back moves them back.
    const toTeam = push(['--to', init.writerUrl, '--audience', 'team', '--json']);
    expect(JSON.parse(toTeam.out)).toMatchObject({ added: 0, replaced: 0, removed: 0, unchanged: 2, moved: 1, wrote: true });
    expect(handles(init.users.bob, Q)).toContain('alice/sidecar.md');
    const back = push(['--to', init.writerUrl, '--audience', 'user:alice']);
    expect(back.out).toMatch(/1 source\(s\) moved to audience user:alice with their rows/);
    expect(handles(init.users.bob, Q)).toEqual([]);
  });

  it('a changed file replaces only its document', () => {
    const ids = () => server.psql(`SELECT d.name || ':' || d.id || ':' || d.hash FROM active_brain.documents d ORDER BY d.name`, 'team').trim().split('\n');
    const before = ids();
    note('alice-notes', 'deploy.md', '# Deploy checklist\n\nTag the release, run the canary for twenty minutes, then roll out region by region.\n');
    expect(run(['index', '--json']).code).toBe(0);
    const r = push(['--to', init.writerUrl, '--audience', 'user:alice', '--json']);
    expect(r.code, r.err).toBe(0);
    expect(JSON.parse(r.out)).toMatchObject({ added: 0, replaced: 1, unchanged: 1, removed: 0, wrote: true });
    const after = ids();
    expect(after.find((x) => x.startsWith('sidecar.md'))).toBe(before.find((x) => x.startsWith('sidecar.md')));
    expect(after.find((x) => x.startsWith('deploy.md'))).not.toBe(before.find((x) => x.startsWith('deploy.md')));
    expect(handles(init.users.alice, 'canary twenty minutes region by region')).toContain('alice/deploy.md');
  });

  it('a team store of another embedding model is refused before anything is written', () => {
    const model = server.psql(`SELECT value FROM active_brain.meta WHERE key = 'model'`, 'team').trim();
    server.psql(`UPDATE active_brain.meta SET value = 'other/model' WHERE key = 'model'`, 'team');
    try {
      note('alice-notes', 'new.md', '# New note\n\nSomething new about the sidecar.\n');
      expect(run(['index', '--json']).code).toBe(0);
      const before = rows();
      const r = push(['--to', init.writerUrl, '--audience', 'user:alice']);
      expect(r.code).toBe(3);
      expect(r.err).toMatch(/refusing to push: the team store holds vectors of other\/model/);
      expect(rows()).toBe(before);
    } finally {
      server.psql(`UPDATE active_brain.meta SET value = '${model}' WHERE key = 'model'`, 'team');
    }
  });

  it('project:<glob> audience: seen only by a reader granted it, until revoked', () => {
    const p = push(['--to', init.writerUrl, '--audience', 'project:/work/api/**', '--json'], join(dir, 'home-api'));
    expect(p.code, p.err).toBe(0);
    expect(JSON.parse(p.out)).toMatchObject({ audience: 'project:/work/api/**', added: 1 });
    // control first: nobody sees it before a grant
    expect(handles(init.users.alice, Q)).not.toContain('api/api-pool.md');
    const g = run(['store', 'grant', '--url', server.urlFor('team'), '--user', 'alice', '--audience', 'project:/work/api/**', '--json']);
    expect(g.code, g.err).toBe(0);
    expect(JSON.parse(g.out)).toEqual({ schema: 'active_brain', role: 'active_brain_reader_alice', audience: 'project:/work/api/**', action: 'grant', changed: true, audiences: ['project:/work/api/**', 'team', 'user:alice'] });
    expect(handles(init.users.alice, Q)).toContain('api/api-pool.md');
    expect(handles(init.users.bob, Q)).not.toContain('api/api-pool.md');
    expect(handles(init.readerUrl, Q)).not.toContain('api/api-pool.md');
    const twice = run(['store', 'grant', '--url', server.urlFor('team'), '--user', 'alice', '--audience', 'project:/work/api/**']);
    expect(twice.code).toBe(0);
    expect(twice.out).toMatch(/already reads project:\/work\/api\/\*\*: nothing changed/);
    // store init again (new passwords) keeps the grant
    const re = run(['store', 'init', '--url', server.urlFor('team'), '--user', 'alice', '--user', 'bob', '--json']);
    expect(re.code, re.err).toBe(0);
    init = JSON.parse(re.out);
    expect(handles(init.users.alice, Q)).toContain('api/api-pool.md');
    const rv = run(['store', 'revoke', '--url', server.urlFor('team'), '--user', 'alice', '--audience', 'project:/work/api/**', '--json']);
    expect(rv.code, rv.err).toBe(0);
    expect(JSON.parse(rv.out)).toMatchObject({ action: 'revoke', changed: true, audiences: ['team', 'user:alice'] });
    expect(handles(init.users.alice, Q)).not.toContain('api/api-pool.md');
  });

  it('grant: unknown reader, base audience, non-admin URL are clear errors', () => {
    const unknown = run(['store', 'grant', '--url', server.urlFor('team'), '--user', 'carol', '--audience', 'project:/x/**']);
    expect(unknown.code).toBe(2);
    expect(unknown.err).toMatch(/no reader carol .*store init .*--user carol/);
    const base = run(['store', 'revoke', '--url', server.urlFor('team'), '--user', 'alice', '--audience', 'team']);
    expect(base.code).toBe(2);
    expect(base.err).toMatch(/always reads audience team/);
    const writer = run(['store', 'grant', '--url', init.writerUrl, '--user', 'bob', '--audience', 'project:/x/**']);
    expect(writer.code).toBe(3);
    expect(writer.err).toMatch(/may not change the reader grants|cannot|no team store/);
    expect(run(['store', 'grant', '--url', server.urlFor('team'), '--audience', 'project:/x/**']).code).toBe(2);
  });
});
