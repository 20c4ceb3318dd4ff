/**
 * Which knowledge-store changes are the indexer's own (the zero-store-writes gate of `soak
 * report`). Pure: the caller reads the soak baseline (daemon/soak-baseline.ts), the index-run log
 * (daemon/index-runs.ts) and the store's current fingerprint (daemon/store-fingerprint.ts).
 *
 * The runs since the soak began form a chain: each run starts (under the indexer lock) from
 * exactly what the previous one left — the first from the baseline — and the store now is
 * what the last one left. A change anywhere else in the chain is a write by something other
 * than the indexer, and stays one: a later index run does not explain it away. Tolerated:
 * records without a `before` fingerprint (written before runs were paired: only their end is
 * checked), and the run that was under way when the baseline was taken. A run that started
 * and never ended (SIGKILL, power loss) cannot be told apart from anyone else: it fails.
 */
import type { IndexLogRecord, IndexRunRecord, IndexStartRecord } from '../daemon/index-runs.js';

export interface StoreWriteFigures {
  /** The soak baseline: when the store was fingerprinted for it, and that fingerprint. */
  baseline: { takenAt: number; sha256: string | null };
  /** The index-run log for this store, oldest first. */
  records: IndexLogRecord[];
  /** The store's fingerprint now (null: no store). */
  current: string | null;
  /** Is this pid alive? (for a run that has started and not ended). */
  alive: (pid: number) => boolean;
}

export interface StoreWriteVerdict {
  pass: boolean;
  figure: string;
}

interface Run {
  start?: IndexStartRecord;
  end?: IndexRunRecord;
}

const short = (sha: string | null | undefined) => (sha ? sha.slice(0, 12) : 'none');
const iso = (ms: number) => new Date(ms).toISOString();
const startedAt = (r: Run) => r.start?.ts ?? r.end?.started ?? r.end!.ts;

/** Pair start and end records by run id (records without an id stand alone). */
function runsOf(records: IndexLogRecord[]): Run[] {
  const byId = new Map<string, Run>();
  const runs: Run[] = [];
  for (const r of records) {
    const id = r.run;
    const known = id ? byId.get(id) : undefined;
    if (r.event === 'index-start') {
      if (known) known.start = r;
      else {
        const run: Run = { start: r };
        byId.set(r.run, run);
        runs.push(run);
      }
    } else if (known && !known.end) known.end = r;
    else {
      const run: Run = { end: r };
      if (id) byId.set(id, run);
      runs.push(run);
    }
  }
  return runs.sort((a, b) => startedAt(a) - startedAt(b));
}

function outside(left: string, expected: string | null, runStart: number, found: string | null): StoreWriteVerdict {
  return {
    pass: false,
    figure: `store changed outside an index run: ${left} left ${short(expected)}, the index run of ${iso(runStart)} found ${short(found)}: written by something other than the indexer`,
  };
}

/** A run that did not take the lock wrote nothing (result `busy`: no fingerprints). */
const wroteNothing = (r: Run) => !!r.end && r.end.sha256 === undefined;

export function auditStoreWrites(f: StoreWriteFigures): StoreWriteVerdict {
  if (f.current === null) return { pass: false, figure: 'no knowledge store yet (run `active-brain setup`, or `active-brain index add …`)' };
  const since = f.baseline.takenAt;
  const runs = runsOf(f.records).filter((r) => !wroteNothing(r) && (r.end ? r.end.ts >= since : r.start!.ts >= since || f.alive(r.start!.pid)));
  let expected = f.baseline.sha256;
  let left = 'the soak baseline';
  let accounted = 0;
  for (const [i, r] of runs.entries()) {
    const t0 = startedAt(r);
    if (!r.end) {
      const s = r.start!;
      if (i < runs.length - 1 || !f.alive(s.pid)) {
        return { pass: false, figure: `the index run of ${iso(s.ts)} (pid ${s.pid}) never finished (killed?): what it wrote cannot be told from anyone else's writes` };
      }
      if (s.ts >= since && s.before_sha256 !== expected) return outside(left, expected, s.ts, s.before_sha256);
      return { pass: true, figure: `store changed only by the indexer so far (${accounted} runs since the soak began); a run (pid ${s.pid}) is under way since ${iso(s.ts)}: checked when it ends` };
    }
    const before = r.end.before_sha256 !== undefined ? r.end.before_sha256 : r.start?.before_sha256;
    const straddles = t0 < since;
    if (before !== undefined && !straddles && before !== expected) return outside(left, expected, t0, before);
    expected = r.end.sha256 ?? null;
    left = `the index run that ended ${iso(r.end.ts)}`;
    accounted++;
  }
  if (f.current !== expected) {
    return {
      pass: false,
      figure: `store content differs from what ${left} left (${short(expected)} → ${short(f.current)}): written by something other than the indexer`,
    };
  }
  return {
    pass: true,
    figure: accounted === 0 ? 'store unchanged since the soak began' : `store changed only by the indexer (${accounted} runs since the soak began, each starting from what the one before left)`,
  };
}
