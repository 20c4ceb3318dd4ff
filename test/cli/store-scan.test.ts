/**
 * `active-brain store scan`, doctor's `secrets` check and status's redaction state on a store
 * that holds a secret written past the indexer (the control: the scan must find what is there)
 * and on a clean one: the scan lists handle, field and kind — never the value — and exits 1;
 * doctor fails the check with the fix; status says the store is unscrubbed and what to run.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { repoRoot } from '../helpers/model.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { createRedactor } from '../../shared/redact.js';
import { SECRET_SHAPES } from '../../eval/secret-shapes.js';
import { seededRandom } from '../../shared/prng.js';
import { REDACTION_META } from '../../store/schema.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');

describe('store scan, doctor secrets, status redaction', () => {
  let dir: string;
  const token = SECRET_SHAPES.find((s) => s.kind === 'github-token')!.make(seededRandom(31));
  const home = () => join(dir, 'home');
  const run = (...args: string[]) => {
    const r = spawnSync(process.execPath, [BIN, ...args], { env: { ...process.env, ACTIVE_BRAIN_HOME: home(), CI: 'true', ACTIVE_BRAIN_STORE_URL: '' }, encoding: 'utf8', timeout: 60_000 });
    return { code: r.status, out: r.stdout, err: r.stderr };
  };

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'ab-scan-'));
    mkdirSync(home());
    const w = openStoreWriter(join(home(), 'store.sqlite'));
    try {
      const src = w.addSource(w.ensureRegion('notes', 'global').name, join(dir, 'notes'), 'notes');
      w.setModel('m', 2);
      w.replaceDocument({ sourceId: src.id, path: join(dir, 'notes', 'a.md'), hash: 'h', mtime: 1, size: 1, title: 'a' }, [
        { heading: 'Deploy', text: `push with ${token} then tag`, createdAt: 1 },
        { heading: 'Clean', text: 'nothing to see: password: string', createdAt: 1 },
      ], [new Float32Array([1, 0]), new Float32Array([0, 1])]);
      w.setRedaction(createRedactor().fingerprint);
    } finally {
      w.close();
    }
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('store scan lists where the secret is, never the value, and exits 1', () => {
    const j = run('store', 'scan', '--json');
    expect(j.code).toBe(1);
    const out = JSON.parse(j.out);
    expect(out).toMatchObject({ findings: 1, by_kind: { 'github-token': 1 }, items: [{ handle: 'notes/a.md#0', field: 'chunk.text', kind: 'github-token' }], redaction: 'scrubbed' });
    expect(j.out).not.toContain(token.slice(4, 20));
    const text = run('store', 'scan');
    expect(text.code).toBe(1);
    expect(text.out).toMatch(/1 secret finding\(s\)[\s\S]*notes\/a\.md#0 {2}chunk\.text {2}github-token[\s\S]*fix: run `active-brain index`/);
    expect(text.out).not.toContain(token.slice(4, 20));
    expect(run('store', 'scan', '--help').out).toMatch(/^usage: active-brain store scan/);
    expect(run('store', 'scan', '--url', 'file.sqlite').code).toBe(2);
  });

  it('doctor fails its secrets check with the fix; status says nothing while the store is scrubbed', () => {
    const d = JSON.parse(run('doctor', '--json').out) as { checks: Array<{ name: string; pass: boolean; detail: string; fix: string }> };
    const c = d.checks.find((x) => x.name === 'secrets')!;
    expect(c.pass).toBe(false);
    expect(c.detail).toMatch(/1 secret finding\(s\) .*github-token 1/);
    expect(c.fix).toMatch(/active-brain index/);
    expect(c.detail).not.toContain(token.slice(4, 20));
    expect(JSON.parse(run('status', '--json').out).store.redaction).toBe('scrubbed');
  });

  it('a store marked unscrubbed: status and scan say so and name the command', () => {
    const db = new Database(join(home(), 'store.sqlite'));
    db.prepare(`UPDATE meta SET value = '' WHERE key = ?`).run(REDACTION_META);
    db.prepare(`UPDATE chunks SET text = 'clean now' WHERE heading = 'Deploy'`).run();
    db.close();
    const s = run('status');
    expect(s.out).toMatch(/holds text indexed before redaction: run "active-brain index"/);
    expect(JSON.parse(run('status', '--json').out).store.redaction).toBe('unscrubbed');
    const scan = run('store', 'scan', '--json');
    expect(scan.code).toBe(0);
    expect(JSON.parse(scan.out)).toMatchObject({ findings: 0, redaction: 'unscrubbed' });
    const d = JSON.parse(run('doctor', '--json').out) as { checks: Array<{ name: string; pass: boolean; detail: string }> };
    expect(d.checks.find((x) => x.name === 'secrets')).toMatchObject({ pass: true, detail: expect.stringMatching(/0 secret findings .*indexed before redaction/) });
  });
});
