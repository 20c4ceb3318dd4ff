import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, storeInitCli, type TestPostgres } from '../helpers/postgres.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

// Two indexers on two "machines" (processes with their own state dirs, so the per-machine
// file lock does not serialise them) index the same folder into one team store at once:
// both finish, no document or handle is duplicated, and a third run finds nothing to do
// (incremental, as with SQLite).
const cli = join(repoRoot, 'bin', 'active-brain.js');
const NOTES = 30;

describe('team store: two writers at once', () => {
  let server: TestPostgres;
  let dir: string;
  let writerUrl: string;

  const run = (home: string, args: string[]) =>
    new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const env = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(), ACTIVE_BRAIN_STORE_URL: writerUrl };
      const c = spawn(process.execPath, [cli, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '';
      let err = '';
      c.stdout.on('data', (b) => (out += b));
      c.stderr.on('data', (b) => (err += b));
      c.on('exit', (code) => resolve({ code, out, err }));
    });

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    dir = mkdtempSync(join(tmpdir(), 'ab-pgwriters-'));
    writerUrl = (await storeInitCli(server.urlFor('team'), join(dir, 'h0'))).writerUrl;
    mkdirSync(join(dir, 'notes'));
    for (let i = 0; i < NOTES; i++) {
      writeFileSync(join(dir, 'notes', `n${String(i).padStart(2, '0')}.md`), `# Note ${i}\n\nThe service number ${i} restarts its worker pool after a timeout.\n\n## More\n\nSection two of note ${i} talks about retries and backoff.\n`);
    }
  }, 120_000);
  afterAll(() => {
    server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('both finish; no duplicate documents or handles; a third run changes nothing', async () => {
    const [a, b] = await Promise.all([
      run(join(dir, 'ha'), ['index', 'add', join(dir, 'notes'), '--region', 'notes', '--json']),
      run(join(dir, 'hb'), ['index', 'add', join(dir, 'notes'), '--region', 'notes', '--json']),
    ]);
    expect(a.code, a.err).toBe(0);
    expect(b.code, b.err).toBe(0);
    // Each saw every file (indexed or, when the other got there first, unchanged).
    for (const r of [a, b]) expect(JSON.parse(r.out)).toMatchObject({ files_seen: NOTES });
    const q = (sql: string) => server.psql(sql, 'team').trim();
    expect(q('SELECT count(*) FROM active_brain.sources')).toBe('1');
    expect(q('SELECT count(*) FROM active_brain.documents')).toBe(String(NOTES));
    expect(q('SELECT count(*) - count(DISTINCT handle) FROM active_brain.chunks')).toBe('0');
    expect(q('SELECT count(*) FROM (SELECT document_id, ordinal FROM active_brain.chunks GROUP BY 1, 2 HAVING count(*) > 1) d')).toBe('0');
    expect(q('SELECT count(*) FROM active_brain.chunks')).toBe(String(NOTES * 2));
    const third = await run(join(dir, 'hc'), ['index', '--json']);
    expect(third.code, third.err).toBe(0);
    expect(JSON.parse(third.out)).toMatchObject({ indexed: 0, unchanged: NOTES, removed: 0 });
  });
});
