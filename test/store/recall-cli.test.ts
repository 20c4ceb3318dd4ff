/**
 * `active-brain recall` as a user runs it: a real process (node bin/active-brain.js, built by
 * the global setup) against a real store in a temp ACTIVE_BRAIN_HOME. Prints the chunk with
 * source, region and date; logs {ts, handle, via} (no text) to logs/recalls.jsonl; unknown
 * handle → exit 1; no store → exit 3 and the command to build one.
 */
import { describe, it, expect, beforeAll, afterAll } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { tempDir, prng, randomUnit } from './helpers.js';

const bin = resolve('bin/active-brain.js');
let t: ReturnType<typeof tempDir>;
let home: string;
const CREATED = Date.UTC(2026, 9, 12, 8, 30);

function cli(args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_STORE: '', ...env },
    timeout: 30_000,
  });
  return { code: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  expect(existsSync(resolve('dist/cli/commands/recall.js')), 'dist/ is built by the test global setup').toBe(true);
  t = tempDir('ab-recall-');
  home = join(t.dir, 'home');
  const w = openStoreWriter(join(home, 'store.sqlite'));
  w.setModel('m', 4);
  w.ensureRegion('notes', 'global');
  const s = w.addSource('notes', join(t.dir, 'notes'), 'notes');
  w.replaceDocument(
    { sourceId: s.id, path: join(t.dir, 'notes', 'pg', 'pool-timeouts.md'), hash: 'h', mtime: CREATED, size: 10, title: 'Pool timeouts' },
    [
      { heading: 'Intro', text: 'intro text', createdAt: CREATED },
      { heading: 'Fix', text: 'SECRET-ISH BODY: raised idle timeout to 30s.', createdAt: CREATED },
      { heading: 'Evil', text: 'plain \u001b[2J\u001b]0;title\u0007red\tcode\n  indented', createdAt: CREATED },
    ],
    [randomUnit(prng(1), 4), randomUnit(prng(2), 4), randomUnit(prng(3), 4)],
  );
  w.close();
});
afterAll(() => t.cleanup());

describe('active-brain recall', () => {
  it('prints the full chunk with source, region, date and logs the recall (ids only)', () => {
    const r = cli(['recall', 'notes/pg/pool-timeouts.md#1']);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    expect(r.out).toContain('notes/pg/pool-timeouts.md#1');
    expect(r.out).toContain(`source:  ${join(t.dir, 'notes', 'pg', 'pool-timeouts.md')}`);
    expect(r.out).toContain('region:  notes (global)');
    expect(r.out).toContain('2026-10-12');
    expect(r.out).toContain('SECRET-ISH BODY: raised idle timeout to 30s.');
    const log = join(home, 'logs', 'recalls.jsonl');
    const lines = readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.at(-1)).toEqual({ ts: expect.any(Number), handle: 'notes/pg/pool-timeouts.md#1', via: 'cli' });
    expect(Math.abs(lines.at(-1).ts - Date.now())).toBeLessThan(60_000);
    expect(readFileSync(log, 'utf8')).not.toContain('SECRET');
    expect(statSync(log).mode & 0o777).toBe(0o600);
  });

  it('strips terminal controls from human output but keeps lines and tabs; --json keeps the text exact', () => {
    const r = cli(['recall', 'notes/pg/pool-timeouts.md#2']);
    expect(r.code).toBe(0);
    expect(r.out).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    expect(r.out).toContain('red\tcode\n  indented');
    const j = JSON.parse(cli(['recall', 'notes/pg/pool-timeouts.md#2', '--json']).out);
    expect(j.text).toBe('plain \u001b[2J\u001b]0;title\u0007red\tcode\n  indented');
  });

  it('--json prints one object', () => {
    const r = cli(['recall', 'notes/pg/pool-timeouts.md#0', '--json']);
    expect(r.code).toBe(0);
    const o = JSON.parse(r.out);
    expect(o).toMatchObject({ handle: 'notes/pg/pool-timeouts.md#0', region: 'notes', scope: 'global', kind: 'notes', title: 'Pool timeouts', heading: 'Intro', text: 'intro text', createdAt: CREATED, date: new Date(CREATED).toISOString() });
    expect(r.out.trim().split('\n')).toHaveLength(1);
  });

  it('unknown handle → exit 1 with a clear message, nothing logged', () => {
    const before = readFileSync(join(home, 'logs', 'recalls.jsonl'), 'utf8');
    const r = cli(['recall', 'notes/nope.md#3']);
    expect(r.code).toBe(1);
    expect(r.out).toBe('');
    expect(r.err).toMatch(/no chunk with handle "notes\/nope.md#3"/);
    expect(readFileSync(join(home, 'logs', 'recalls.jsonl'), 'utf8')).toBe(before);
  });

  it('no store → exit 3 and says to run active-brain index add; usage errors → exit 2', () => {
    const r = cli(['recall', 'x#1'], { ACTIVE_BRAIN_HOME: join(t.dir, 'empty-home') });
    expect(r.code).toBe(3);
    expect(r.err).toContain('active-brain index add');
    expect(existsSync(join(t.dir, 'empty-home', 'store.sqlite'))).toBe(false);
    expect(cli(['recall']).code).toBe(2);
    expect(cli(['recall', 'a', 'b']).code).toBe(2);
    const help = cli(['recall', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: active-brain recall <handle>/);
  });

  it('a store that holds no chunks yet (index add never ran) is "no store": exit 3 with the same advice as search', () => {
    const emptyHome = join(t.dir, 'sourceless-home');
    const w = openStoreWriter(join(emptyHome, 'store.sqlite'));
    w.ensureRegion('notes', 'global');
    w.close();
    const r = cli(['recall', 'a#1'], { ACTIVE_BRAIN_HOME: emptyHome });
    expect(r.code).toBe(3);
    expect(r.err).toContain('is empty');
    expect(r.err).toContain('active-brain index add');
  });

  it('store.path from config is honoured (ACTIVE_BRAIN_STORE)', () => {
    const r = cli(['recall', 'notes/pg/pool-timeouts.md#0'], { ACTIVE_BRAIN_HOME: join(t.dir, 'other-home'), ACTIVE_BRAIN_STORE: join(home, 'store.sqlite') });
    expect(r.code).toBe(0);
    expect(r.out).toContain('intro text');
  });
});
