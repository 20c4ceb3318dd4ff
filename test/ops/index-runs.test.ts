/**
 * The index-run log (daemon/index-runs.ts): a start/finish pair written to a real temp state dir
 * in the documented shape with the store's fingerprint before and after; a log that cannot be
 * written warns and does not throw; the last run and a run under way as `service status`
 * shows them.
 */
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeLastRun, lastIndexRun, readIndexLog, recordBusyRun, startIndexRun, type IndexLogRecord } from '../../daemon/index-runs.js';
import { loadSchema, validate } from '../helpers/json-schema.js';

const counts = { sources: 1, files_seen: 3, indexed: 1, unchanged: 2, removed: 0, skipped: 0, chunks_added: 4, seconds: 0.05 };

describe('index-run log', () => {
  it('a run records its start and end with the fingerprints before and after, in the documented shape', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-runs-'));
    const env = { ...process.env, ACTIVE_BRAIN_HOME: home };
    const store = join(home, 'store.sqlite');
    const run = startIndexRun(store, { env });
    writeFileSync(store, 'written by the run');
    run.finish({ result: 'ok', exit: 0, counts });
    run.finish({ result: 'error', exit: 1 }); // idempotent: one end only
    recordBusyRun(store, 'another indexer (pid 7) is running', { env, exit: 1 });
    const log = readIndexLog(env);
    expect(log.map((r) => r.event)).toEqual(['index-start', 'index-run', 'index-run']);
    expect(log[0]).toMatchObject({ run: run.run, before_sha256: null, before_bytes: 0 });
    expect(log[1]).toMatchObject({ run: run.run, result: 'ok', exit: 0, before_sha256: null, sha256: expect.stringMatching(/^[0-9a-f]{64}$/), ...counts });
    expect(log[2]).toMatchObject({ result: 'busy', exit: 1 });
    expect(log[2]).not.toHaveProperty('sha256');
    const schema = loadSchema('index-run');
    for (const r of log) expect(validate(schema, r)).toEqual([]);
    // control: the schema rejects a record that lost its fingerprint
    const { sha256: _sha, ...broken } = log[1] as unknown as Record<string, unknown>;
    expect(validate(schema, broken).length).toBeGreaterThan(0);
  });

  it('a log that cannot be written is a warning, never a failed run', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-runs-ro-'));
    mkdirSync(join(home, 'logs', 'index.jsonl'), { recursive: true }); // a directory where the log should be: EISDIR, even for root
    const env = { ...process.env, ACTIVE_BRAIN_HOME: home };
    const warnings: string[] = [];
    const run = startIndexRun(join(home, 'store.sqlite'), { env, warn: (m) => warnings.push(m) });
    expect(() => run.finish({ result: 'ok', exit: 0, counts })).not.toThrow();
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(/could not record the index run in .*index\.jsonl: EISDIR/);
  });

  it('last run, a run under way, and one that never finished', () => {
    const s = '/h/store.sqlite';
    const start = (ts: number, pid = 5): IndexLogRecord => ({ ts, event: 'index-start', run: `${pid}-${ts}`, pid, store: s, before_sha256: null, before_bytes: 0 });
    const end = (ts: number, started: number, pid = 5): IndexLogRecord => ({ ts, event: 'index-run', run: `${pid}-${started}`, pid, store: s, started, result: 'ok', exit: 0, ...counts, before_sha256: null, sha256: null, bytes: 0 });
    const busy: IndexLogRecord = { ts: 3500, event: 'index-run', pid: 9, store: s, started: 3000, result: 'busy', exit: 1, message: 'another indexer (pid 5) is running' };
    const now = 4000;
    expect(lastIndexRun([], s, now)).toEqual({ last: null, pending: null });
    const done = lastIndexRun([start(1000), end(1500, 1000)], s, now, () => true);
    expect(done).toMatchObject({ last: { result: 'ok', age_s: 2.5 }, pending: null });
    expect(describeLastRun(done)).toBe('ok 3 s ago, exit 0 (indexed 1, unchanged 2, removed 0; 0.05 s)');
    // a run under way, and a busy run that ended while it went on
    const going = lastIndexRun([start(1000), end(1500, 1000), start(2000), busy], s, now, () => true);
    expect(going.last).toMatchObject({ result: 'busy' });
    expect(going.pending).toMatchObject({ pid: 5, state: 'running', age_s: 2 });
    expect(describeLastRun(going)).toMatch(/^busy 1 s ago, exit 1 — another indexer .*; a run \(pid 5\) is in progress for 2 s$/);
    expect(lastIndexRun([start(2000)], s, now, () => false).pending).toMatchObject({ state: 'unfinished' });
    // other stores are not this one's
    expect(lastIndexRun([start(1000), end(1500, 1000)], '/other.sqlite', now)).toEqual({ last: null, pending: null });
  });
});
