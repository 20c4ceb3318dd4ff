import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

// `eval retrieval` and `eval beir` with --store-url (dist/ binaries, a real PostgreSQL
// server, a tiny synthetic data set written here — no ../shared): the temporary store is a
// fresh schema on the server, the figures come from it (backend postgres; an easy data set
// scores high on both backends), and the schema and its roles are gone afterwards, also when
// the run fails; a non-postgres URL is a usage error, an unreachable server an environment one.
const cli = join(repoRoot, 'bin', 'active-brain.js');

const TOPICS = [
  ['pool', 'The connection pool resets with ECONNRESET when the idle timeout is too short'],
  ['deploy', 'The canary deploy waits ten minutes before the full rollout of the release'],
  ['cache', 'The redis cache evicts keys under memory pressure with the allkeys-lru policy'],
  ['build', 'The webpack build fails when the node version is older than eighteen'],
  ['auth', 'The oauth token refresh happens five minutes before the access token expires'],
  ['backup', 'The nightly database backup is copied to cold storage every Sunday'],
] as const;

describe('eval retrieval / eval beir --store-url on a real PostgreSQL server', () => {
  let server: TestPostgres;
  let dir: string;
  const run = (args: string[]) => {
    const env: Record<string, string> = { ...(process.env as Record<string, string>), ACTIVE_BRAIN_HOME: join(dir, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    delete env.ACTIVE_BRAIN_STORE_URL;
    const r = spawnSync(process.execPath, [cli, ...args], { env, encoding: 'utf8', timeout: 90_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };
  const leftovers = () => server.psql(`SELECT (SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'ab\\_tmp\\_%') || ' ' || (SELECT count(*) FROM pg_roles WHERE rolname LIKE 'ab\\_tmp\\_%')`).trim();
  let beir: string[];
  let locomo: string;

  beforeAll(async () => {
    server = await startPostgres();
    dir = mkdtempSync(join(tmpdir(), 'ab-evalpg-'));
    writeFileSync(join(dir, 'corpus.jsonl'), TOPICS.map(([id, text]) => JSON.stringify({ _id: id, title: id, text })).join('\n') + '\n');
    writeFileSync(join(dir, 'queries.jsonl'), TOPICS.map(([id, text]) => JSON.stringify({ _id: `q-${id}`, text: text.split(' ').slice(1, 6).join(' ') })).join('\n') + '\n');
    writeFileSync(join(dir, 'qrels.tsv'), 'query-id\tcorpus-id\tscore\n' + TOPICS.map(([id]) => `q-${id}\t${id}\t1`).join('\n') + '\n');
    beir = ['--corpus', join(dir, 'corpus.jsonl'), '--queries', join(dir, 'queries.jsonl'), '--qrels', join(dir, 'qrels.tsv'), '--model', offlineModelPath(), '--json'];
    locomo = join(dir, 'locomo.json');
    writeFileSync(locomo, JSON.stringify([{
      sample_id: 'conv-t',
      conversation: {
        speaker_a: 'Ann', speaker_b: 'Ben', session_1_date_time: '1:00 pm on 8 May, 2023',
        session_1: TOPICS.map(([, text], i) => ({ speaker: i % 2 ? 'Ben' : 'Ann', dia_id: `D1:${i + 1}`, text })),
      },
      qa: TOPICS.map(([, text], i) => ({ question: `What about ${text.split(' ').slice(1, 5).join(' ')}?`, answer: 'x', evidence: [`D1:${i + 1}`], category: 1 })),
    }]));
  }, 120_000);
  afterAll(() => {
    server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('eval beir: same data set on both backends, the postgres one in a schema dropped afterwards', () => {
    const lite = run(['eval', 'beir', ...beir]);
    expect(lite.code, lite.err).toBe(0);
    const pg = run(['eval', 'beir', ...beir, '--store-url', server.url]);
    expect(pg.code, pg.err).toBe(0);
    const a = JSON.parse(lite.out);
    const b = JSON.parse(pg.out);
    expect(a.backend).toBe('sqlite');
    expect(b.backend).toBe('postgres');
    expect(b.queries).toBe(TOPICS.length);
    // Each query quotes its document: every arm of both backends finds it near the top.
    for (const r of [a, b]) for (const arm of ['keyword', 'hybrid'] as const) expect(r['ndcg@10'][arm]).toBeGreaterThan(0.8);
    // Vectors are the same bytes on both backends: the vector arm scores identically.
    expect(b['ndcg@10'].vector).toBe(a['ndcg@10'].vector);
    expect(leftovers()).toBe('0 0');
  });

  it('eval retrieval --store-url: LoCoMo-shaped data scored on the server, nothing left behind', () => {
    const r = run(['eval', 'retrieval', '--locomo', locomo, '--model', offlineModelPath(), '--json', '--store-url', server.url]);
    expect(r.code, r.err).toBe(0);
    const out = JSON.parse(r.out);
    expect(out).toMatchObject({ questions: TOPICS.length, backend: 'postgres' });
    expect(out['recall@10'].hybrid).toBeGreaterThan(0.8);
    expect(leftovers()).toBe('0 0');
  });

  it('bad --store-url: not postgres is a usage error; an unreachable server an environment error', () => {
    const bad = run(['eval', 'beir', ...beir, '--store-url', join(dir, 'x.sqlite')]);
    expect(bad.code).toBe(2);
    expect(bad.err).toMatch(/--store-url needs postgres:\/\//);
    const dead = new URL(server.url);
    dead.port = '1';
    const down = run(['eval', 'retrieval', '--locomo', locomo, '--model', offlineModelPath(), '--store-url', dead.toString()]);
    expect(down.code).toBe(3);
    expect(down.err).toMatch(/cannot reach the team store/);
    expect(down.err).not.toContain('test-superuser-pw');
  });
});
