/**
 * Done-when test of redaction (issue 22): real-format Claude Code transcripts and notes holding
 * a secret of every kind in every context (eval/secret-shapes.ts: command, tool output, `.env`
 * read, prose, JSON, URL) are indexed by the real CLI into SQLite (and pushed to PostgreSQL
 * when a server is here); then search, recall, MCP search/recall, replay, report, status,
 * doctor and store scan run — and no secret (nor a 16-character piece of one) is in anything
 * they print or in any file under the home. The same token failing in two sessions gives one
 * episode signature. Control: the same corpus indexed with no rules leaves the secrets in the
 * store (the check can fail), and the next default run re-scrubs it reusing unchanged vectors.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { postgresAvailable, startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { SECRET_SHAPES } from '../../eval/secret-shapes.js';
import { writeSecretCorpus } from '../../eval/secret-corpus.js';
import { seededRandom } from '../../shared/prng.js';
import { createRedactor, marker } from '../../shared/redact.js';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { runIndex } from '../../indexer/indexer.js';
import { scanLocation } from '../../store/scan-location.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
const WINDOW = 16;

/** Every file under `dir`, as text (binary files too: a secret in a page of SQLite is still one). */
function filesUnder(dir: string): Array<{ path: string; text: string }> {
  const out: Array<{ path: string; text: string }> = [];
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) out.push(...filesUnder(p));
    else out.push({ path: p, text: readFileSync(p).toString('latin1') });
  }
  return out;
}

/** The store file and its WAL / shared-memory files. */
function storeFiles(path: string): Array<{ path: string; text: string }> {
  return filesUnder(dirname(path)).filter((f) => f.path.startsWith(path));
}

/** Pieces whose presence means a secret leaked: the value, and 16-char windows of each line. */
function pieces(value: string): string[] {
  const out = new Set<string>([value]);
  for (const line of value.split('\n')) for (let i = 0; i + WINDOW <= line.length; i += 4) out.add(line.slice(i, i + WINDOW));
  return [...out];
}

function leaks(values: string[], texts: Array<{ path: string; text: string }>): string[] {
  const found: string[] = [];
  for (const v of values) {
    const ps = pieces(v);
    for (const t of texts) {
      const lower = t.text.toLowerCase();
      const hit = ps.find((p) => t.text.includes(p) || lower.includes(p.toLowerCase()));
      if (hit) found.push(`${t.path}: ${hit.slice(0, 6)}…`);
    }
  }
  return found;
}

describe('secrets never enter the store nor anything the product prints or writes', () => {
  let dir: string;
  let home: string;
  let env: NodeJS.ProcessEnv;
  const values: string[] = [];
  const outputs: Array<{ path: string; text: string }> = [];
  let pg: TestPostgres | null = null;

  const run = (args: string[], extraEnv: Record<string, string> = {}) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...env, ...extraEnv }, encoding: 'utf8', timeout: 120_000 });
    outputs.push({ path: `stdout of ${args.slice(0, 2).join(' ')}`, text: r.stdout ?? '' }, { path: `stderr of ${args.slice(0, 2).join(' ')}`, text: r.stderr ?? '' });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ab-redact-'));
    home = join(dir, 'home');
    mkdirSync(home);
    env = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(), CI: 'true' };
    delete env.ACTIVE_BRAIN_STORE_URL;
    const corpus = writeSecretCorpus(dir, seededRandom(2026));
    values.push(...corpus.values);
    const notes = corpus.notes;
    expect(run(['index', 'add', join(dir, 'projects'), '--region', 'sessions', '--kind', 'transcripts', '--json']).code).toBe(0);
    expect(run(['index', 'add', notes, '--region', 'notes', '--json']).code).toBe(0);
    if (postgresAvailable()) {
      pg = await startPostgres();
      pg.psql('CREATE DATABASE team');
    }
  }, 240_000);

  afterAll(() => {
    pg?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('the store holds markers, never the values; the same token in two sessions gives one signature', () => {
    const db = new Database(join(home, 'store.sqlite'), { readonly: true });
    try {
      const text = (db.prepare(`SELECT group_concat(text, '\n') AS t FROM chunks`).get() as { t: string }).t;
      expect(text).toContain(marker('github-token'));
      for (const s of SECRET_SHAPES) expect(text, s.kind).toContain(marker(s.kind));
      const eps = db.prepare(`SELECT sig, head, action, fix FROM episodes WHERE action LIKE '%git push%'`).all() as Array<{ sig: string; head: string; action: string }>;
      expect(eps.length).toBe(2);
      expect(eps[0].sig).toBe(eps[1].sig);
      const episodeText = (db.prepare(`SELECT group_concat(c.text, '\n') AS t FROM chunks c JOIN episodes e ON e.chunk_id = c.id WHERE e.action LIKE '%git push%'`).get() as { t: string }).t;
      expect(episodeText).toContain(marker('github-token'));
    } finally {
      db.close();
    }
    expect(leaks(values, filesUnder(home))).toEqual([]);
  });

  it('search, recall, MCP, replay, report, status, doctor and store scan print none of them', async () => {
    const handles = new Set<string>();
    for (const q of ['deploy credential rotate key', 'authentication failed push token', 'config settings json auth', 'env file production port']) {
      const s = run(['search', q, '--k', '10', '--json']);
      expect(s.code, s.err).toBe(0);
      for (const h of (JSON.parse(s.out) as { hits: Array<{ handle: string }> }).hits) handles.add(h.handle);
    }
    expect(handles.size).toBeGreaterThan(5);
    for (const h of [...handles].slice(0, 12)) expect(run(['recall', h]).code).toBe(0);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(new StdioClientTransport({ command: process.execPath, args: [BIN, 'mcp'], env: env as Record<string, string>, stderr: 'pipe' }));
    try {
      const s = (await client.callTool({ name: 'search', arguments: { query: 'credential token key password', k: 10 } })) as { content: Array<{ text: string }> };
      outputs.push({ path: 'mcp search', text: s.content.map((c) => c.text).join('\n') });
      for (const h of [...handles].slice(0, 6)) {
        const r = (await client.callTool({ name: 'recall', arguments: { handle: h } })) as { content: Array<{ text: string }> };
        outputs.push({ path: `mcp recall ${h}`, text: r.content.map((c) => c.text).join('\n') });
      }
    } finally {
      await client.close();
    }
    const replay = run(['replay', join(dir, 'projects'), '--json']);
    expect(replay.code, replay.err).toBe(0);
    writeFileSync(join(home, 'replay.json'), replay.out);
    expect(run(['report', '--html', join(home, 'report.html')]).code).toBe(0);
    run(['status', '--json']);
    const doctor = run(['doctor', '--json']);
    const secrets = (JSON.parse(doctor.out) as { checks: Array<{ name: string; pass: boolean; detail: string }> }).checks.find((c) => c.name === 'secrets');
    expect(secrets).toMatchObject({ pass: true });
    const scan = run(['store', 'scan', '--json']);
    expect(scan.code, scan.out).toBe(0);
    expect(JSON.parse(scan.out)).toMatchObject({ findings: 0, redaction: 'scrubbed' });
    expect(leaks(values, [...outputs, ...filesUnder(home)])).toEqual([]);
  }, 240_000);

  it('store push to PostgreSQL: the team store holds none of them', () => {
    if (!pg) return; // no server binaries here: the SQLite path above still ran
    const init = run(['store', 'init', '--url', pg.urlFor('team'), '--json']);
    expect(init.code, init.err).toBe(0);
    const { writerUrl } = JSON.parse(init.out) as { writerUrl: string };
    const push = run(['store', 'push', '--to', writerUrl, '--json']);
    expect(push.code, push.err).toBe(0);
    const scan = run(['store', 'scan', '--url', writerUrl, '--json']);
    expect(JSON.parse(scan.out)).toMatchObject({ findings: 0 });
    const dump = pg.psql(`SELECT string_agg(c.heading || ' ' || c.text, E'\\n') FROM active_brain.chunks c`, 'team');
    expect(dump).toContain(marker('github-token'));
    expect(leaks(values, [{ path: 'team store chunks', text: dump }])).toEqual([]);
  }, 120_000);

  it('the indexer writing the team store directly: a store redacted by other rules is re-scrubbed there too', async () => {
    if (!pg) return;
    const init = JSON.parse(run(['store', 'init', '--url', pg.urlFor('team'), '--json']).out) as { writerUrl: string };
    const config = ConfigSchema.parse({});
    const embedder = await offlineEmbedder();
    const indexPg = async (redactor = createRedactor()) => {
      const w = openStoreWriter(init.writerUrl);
      try {
        return await runIndex({ store: w, embedder, config, redactor });
      } finally {
        w.close();
      }
    };
    const dump = () => pg!.psql(`SELECT string_agg(c.heading || ' ' || c.text, E'\\n') FROM active_brain.chunks c`, 'team');
    await indexPg(createRedactor({ patterns: [], allow: [] }, [])); // as if indexed before redaction
    expect(leaks(values, [{ path: 'team store', text: dump() }]).length).toBeGreaterThan(0);
    expect(scanLocation(init.writerUrl, createRedactor())).toMatchObject({ redaction: 'other-rules' });
    const s = await indexPg();
    expect(s.redaction).toEqual({ rescrubbed: true, scrubbed: true, findings: 0 });
    expect(leaks(values, [{ path: 'team store', text: dump() }])).toEqual([]);
    expect(scanLocation(init.writerUrl, createRedactor())).toMatchObject({ findings: 0, redaction: 'scrubbed' });
  }, 180_000);

  it('control: indexed with no rules the secrets are stored; the next default run re-scrubs, reusing unchanged vectors', async () => {
    const path = join(dir, 'unscrubbed.sqlite');
    const config = ConfigSchema.parse({});
    const embedder = await offlineEmbedder();
    const w = openStoreWriter(path);
    try {
      w.ensureRegion('sessions', 'global');
      w.addSource('sessions', join(dir, 'projects'), 'transcripts');
      const none = createRedactor({ patterns: [], allow: [] }, []);
      await runIndex({ store: w, embedder, config, redactor: none });
      expect(leaks(values, storeFiles(path)).length).toBeGreaterThan(0);
      const before = scanLocation(path, createRedactor());
      expect(before.findings).toBeGreaterThan(0);
      expect(before.redaction).toBe('other-rules');
      const s = await runIndex({ store: w, embedder, config });
      expect(s.redaction).toEqual({ rescrubbed: true, scrubbed: true, findings: 0 });
      expect(s.chunks_embedded).toBeGreaterThan(0);
      expect(s.chunks_embedded).toBeLessThan(s.chunks_added); // unchanged chunks kept their vectors
      const again = await runIndex({ store: w, embedder, config });
      expect(again.redaction.rescrubbed).toBe(false);
      expect(again.indexed).toBe(0);
    } finally {
      w.close();
    }
    expect(scanLocation(path, createRedactor())).toMatchObject({ findings: 0, redaction: 'scrubbed' });
    // The old text is gone from the file too (full-text index merged, free pages vacuumed).
    expect(leaks(values, storeFiles(path))).toEqual([]);
  }, 120_000);
});
