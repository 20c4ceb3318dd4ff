/**
 * The zero-store-writes rule (ops/store-writes.ts) as a property: over any history of index
 * runs, busy runs, interrupted runs, runs killed mid-way and writes by anyone else, the gate
 * passes exactly when every change of the store was made inside a recorded, finished index
 * run. Plus the tolerated cases, each with its control.
 */
import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { auditStoreWrites, type StoreWriteFigures } from '../../ops/store-writes.js';
import type { IndexLogRecord } from '../../daemon/index-runs.js';

const STORE = '/h/store.sqlite';
type Event = 'run' | 'busy' | 'interrupted' | 'foreign' | 'killed';

/** Replays a history into index-log records and the store's final fingerprint. */
function history(events: Event[], opts: { baselineAt?: number } = {}) {
  let n = 0;
  let hash: string | null = 'h0';
  let t = 1000;
  const pid = 4242;
  const records: IndexLogRecord[] = [];
  const next = () => `h${++n}`;
  for (const e of events) {
    t += 10;
    const run = `${pid}-${t}`;
    const start = () => records.push({ ts: t, event: 'index-start', run, pid, store: STORE, before_sha256: hash, before_bytes: 1 });
    if (e === 'foreign') hash = next();
    else if (e === 'busy') records.push({ ts: t, event: 'index-run', pid, store: STORE, started: t, result: 'busy', exit: 1, message: 'another indexer (pid 1) is running' });
    else if (e === 'killed') {
      start();
      hash = next(); // it wrote, then died without a record
    } else {
      const before = hash;
      start();
      hash = next();
      records.push({
        ts: t + 5, event: 'index-run', run, pid, store: STORE, started: t, result: e === 'run' ? 'ok' : 'interrupted',
        exit: e === 'run' ? 0 : 143, before_sha256: before, sha256: hash, bytes: 1,
      });
    }
  }
  const figures: StoreWriteFigures = { baseline: { takenAt: opts.baselineAt ?? 0, sha256: 'h0' }, records, current: hash, alive: () => false };
  return figures;
}

describe('zero-store-writes: which changes are the indexer\'s', () => {
  it('property: passes iff no write happened outside a finished index run', () => {
    fc.assert(
      fc.property(fc.array(fc.constantFrom<Event>('run', 'busy', 'interrupted', 'foreign', 'killed'), { maxLength: 14 }), (events) => {
        const v = auditStoreWrites(history(events));
        const clean = !events.includes('foreign') && !events.includes('killed');
        expect(v.pass).toBe(clean);
        if (!clean) expect(v.figure).toMatch(/something other than the indexer|never finished/);
      }),
      { numRuns: 500 },
    );
  });

  it('a foreign write stays a failure after later index runs (it is not explained away)', () => {
    const v = auditStoreWrites(history(['run', 'foreign', 'run', 'run']));
    expect(v).toMatchObject({ pass: false, figure: expect.stringContaining('store changed outside an index run') });
    // control: the same runs without the foreign write
    expect(auditStoreWrites(history(['run', 'run', 'run']))).toMatchObject({ pass: true, figure: expect.stringContaining('only by the indexer (3 runs') });
  });

  it('a foreign write after the last run is named as such', () => {
    expect(auditStoreWrites(history(['run', 'foreign'])).figure).toMatch(/differs from what the index run that ended .* left/);
    expect(auditStoreWrites(history(['foreign'])).figure).toMatch(/differs from what the soak baseline left/);
    expect(auditStoreWrites(history([]))).toMatchObject({ pass: true, figure: 'store unchanged since the soak began' });
  });

  it('a run under way (its pid holds the indexer lock) passes until it ends; a dead one fails', () => {
    const f = history(['run', 'killed']);
    expect(auditStoreWrites(f)).toMatchObject({ pass: false, figure: expect.stringContaining('never finished') });
    expect(auditStoreWrites({ ...f, alive: () => true })).toMatchObject({ pass: true, figure: expect.stringContaining('under way') });
    // an unfinished run that is not the last one cannot be under way
    expect(auditStoreWrites({ ...history(['killed', 'run']), alive: () => true }).pass).toBe(false);
    // under way, but it started from a store someone else had changed
    expect(auditStoreWrites({ ...history(['run', 'foreign', 'killed']), alive: () => true }).pass).toBe(false);
  });

  it('the run that was under way when the baseline was taken is the indexer\'s', () => {
    // baseline taken at t=1015, inside the first run (1010–1015 would end at 1015): its start
    // fingerprint predates the baseline, which saw a half-written store.
    const f = history(['run', 'run'], { baselineAt: 1012 });
    const mid = { ...f, baseline: { takenAt: 1012, sha256: 'half-written' } };
    expect(auditStoreWrites(mid).pass).toBe(true);
    // control: a run that started after the baseline must start from it
    const late = { ...f, baseline: { takenAt: 1005, sha256: 'half-written' } };
    expect(auditStoreWrites(late).pass).toBe(false);
  });

  it('records from before runs were paired (no start, no before) are checked by their end only', () => {
    const legacy: IndexLogRecord[] = [{ ts: 2000, event: 'index-run', pid: 1, store: STORE, sha256: 'h1', bytes: 1, indexed: 1, removed: 0 }];
    const base = { baseline: { takenAt: 0, sha256: 'h0' }, records: legacy, alive: () => false };
    expect(auditStoreWrites({ ...base, current: 'h1' }).pass).toBe(true);
    expect(auditStoreWrites({ ...base, current: 'h2' }).pass).toBe(false);
  });

  it('runs before the soak began do not count; no store at all fails', () => {
    const f = history(['foreign', 'run'], { baselineAt: 5000 });
    expect(auditStoreWrites({ ...f, baseline: { takenAt: 5000, sha256: f.current } }).pass).toBe(true);
    expect(auditStoreWrites({ ...f, current: null })).toMatchObject({ pass: false, figure: expect.stringContaining('no knowledge store yet') });
  });
});
