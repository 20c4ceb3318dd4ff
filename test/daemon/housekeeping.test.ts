/**
 * daemon/housekeeping.ts: which per-session files go (pure plan, property-tested), the real
 * removal on a temp state dir, and the real daemon pruning at start (event logged, schema-
 * valid) — each with its control: fresh files and files of other shapes stay.
 */
import { afterEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LEFTOVER_MS, planPrune, runHousekeeping, type PrunePolicy } from '../../daemon/housekeeping.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { events, sleep, startDaemon, tempEnv, waitCanary, waitFor, type Env } from './helpers.js';

const DAY = 24 * 60 * 60 * 1000;
const POLICY: PrunePolicy = { hookStateRetentionDays: 30, cacheTtlSeconds: 900 };
const NOW = 1_800_000_000_000;

let e: Env | undefined;
afterEach(() => {
  e?.cleanup();
  e = undefined;
});

function age(path: string, ms: number): void {
  const t = new Date(Date.now() - ms);
  utimesSync(path, t, t);
}

describe('planPrune', () => {
  it('hook state goes after the retention, not before; 0 keeps it forever', () => {
    const entries = [
      { name: 'old.json', mtimeMs: NOW - 31 * DAY },
      { name: 'new.json', mtimeMs: NOW - 29 * DAY },
    ];
    expect(planPrune('hook-state', entries, NOW, POLICY)).toEqual(['old.json']);
    expect(planPrune('hook-state', entries, NOW, { ...POLICY, hookStateRetentionDays: 0 })).toEqual([]);
  });

  it('a lineage file goes with the hook state (after the retention, never with the offer caches); 0 keeps it', () => {
    const entries = [
      { name: 's.lineage.json', mtimeMs: NOW - 901_000 },
      { name: 'old.lineage.json', mtimeMs: NOW - 31 * DAY },
      { name: 's.json', mtimeMs: NOW - 901_000 },
    ];
    expect(planPrune('cache', entries, NOW, POLICY)).toEqual(['old.lineage.json', 's.json']);
    expect(planPrune('cache', entries, NOW, { ...POLICY, hookStateRetentionDays: 0 })).toEqual(['s.json']);
  });

  it('caches go once expired for the hook; locks and temp files once clearly dead', () => {
    expect(planPrune('cache', [{ name: 'a.json', mtimeMs: NOW - 901_000 }, { name: 'b.json', mtimeMs: NOW - 899_000 }], NOW, POLICY)).toEqual(['a.json']);
    const leftovers = [
      { name: 's.lock', mtimeMs: NOW - LEFTOVER_MS - 1 },
      { name: 't.lock', mtimeMs: NOW - 5_000 },
      { name: 's.lock.break', mtimeMs: NOW - LEFTOVER_MS - 1 },
      { name: 't.lock.break', mtimeMs: NOW - 5_000 },
      { name: '.s.json.123.456.0.tmp', mtimeMs: NOW - LEFTOVER_MS - 1 },
      { name: 's.json.99.tmp', mtimeMs: NOW - 1_000 },
    ];
    expect(planPrune('hook-state', leftovers, NOW, POLICY)).toEqual(['s.lock', 's.lock.break', '.s.json.123.456.0.tmp']);
    // a lock in the cache folder is not ours to judge
    expect(planPrune('cache', [{ name: 's.lock', mtimeMs: 0 }], NOW, POLICY)).toEqual([]);
  });

  it('property: only our file shapes, only when old enough, and the plan is a subset of the input', () => {
    const name = fc.oneof(
      fc.constantFrom('offsets.json', 'canary.json', 'KILL', 'store.sqlite', 'daemon.jsonl', 'x.lock', 'x.lock.break', 'y.json', '.z.json.1.2.3.tmp', 'notes.txt', 'a.jsonl'),
      fc.string({ maxLength: 12 }),
    );
    fc.assert(
      fc.property(fc.constantFrom('hook-state' as const, 'cache' as const), fc.uniqueArray(fc.record({ name, mtimeMs: fc.integer({ min: NOW - 400 * DAY, max: NOW + DAY }) }), { selector: (x) => x.name }), (folder, entries) => {
        const plan = planPrune(folder, entries, NOW, POLICY);
        for (const n of plan) {
          const e = entries.find((x) => x.name === n)!;
          expect(e).toBeDefined();
          expect(n.endsWith('.json') || n.endsWith('.lock') || n.endsWith('.lock.break') || n.endsWith('.tmp')).toBe(true);
          const a = NOW - e.mtimeMs;
          if (n.endsWith('.json') && folder === 'hook-state') expect(a).toBeGreaterThan(30 * DAY);
          else if (n.endsWith('.json')) expect(a).toBeGreaterThan(900_000);
          else expect(a).toBeGreaterThan(LEFTOVER_MS);
        }
        // nothing newer than a minute is ever planned
        for (const x of entries) if (NOW - x.mtimeMs < 60_000) expect(plan).not.toContain(x.name);
      }),
    );
  });
});

describe('runHousekeeping on a real state dir', () => {
  it('removes the stale files and counts them; fresh files and other files stay', () => {
    e = tempEnv('ab-hk-');
    const hs = join(e.home, 'hook-state');
    const cache = join(e.home, 'cache');
    mkdirSync(hs, { recursive: true });
    mkdirSync(cache, { recursive: true });
    const files: Record<string, number> = {
      [join(hs, 'old.json')]: 40 * DAY,
      [join(hs, 'fresh.json')]: DAY,
      [join(hs, 'dead.lock')]: 2 * LEFTOVER_MS,
      [join(hs, 'live.lock')]: 500,
      [join(cache, 'expired.json')]: 3600_000,
      [join(cache, 'valid.json')]: 10_000,
      [join(cache, '.valid.json.1.2.3.tmp')]: 2 * LEFTOVER_MS,
      [join(e.home, 'offsets.json')]: 400 * DAY,
    };
    for (const [p, ms] of Object.entries(files)) {
      writeFileSync(p, '{}');
      age(p, ms);
    }
    const r = runHousekeeping(POLICY, e.env);
    expect(r).toEqual({ hookStates: 1, caches: 1, leftovers: 2, failed: 0 });
    const left = Object.keys(files).filter(existsSync).map((p) => p.slice(e!.home.length + 1)).sort();
    expect(left).toEqual(['cache/valid.json', 'hook-state/fresh.json', 'hook-state/live.lock', 'offsets.json']);
    // idempotent
    expect(runHousekeeping(POLICY, e.env)).toEqual({ hookStates: 0, caches: 0, leftovers: 0, failed: 0 });
  });
});

describe('runHousekeeping and the hook\'s session lock', () => {
  it('an old hook state whose session lock is held right now stays; control: once released it goes', () => {
    e = tempEnv('ab-hk-l-');
    const hs = join(e.home, 'hook-state');
    mkdirSync(hs, { recursive: true });
    const state = join(hs, 'sess-1.json');
    const lock = join(hs, 'sess-1.lock');
    writeFileSync(state, '{}');
    age(state, 40 * DAY);
    writeFileSync(lock, '12345'); // a hook holding the session (fresh lock)
    expect(runHousekeeping(POLICY, e.env)).toEqual({ hookStates: 0, caches: 0, leftovers: 0, failed: 0 });
    expect(existsSync(state)).toBe(true);
    expect(existsSync(lock)).toBe(true);
    rmSync(lock);
    expect(runHousekeeping(POLICY, e.env)).toMatchObject({ hookStates: 1 });
    expect(existsSync(state)).toBe(false);
    expect(existsSync(lock)).toBe(false); // housekeeping's own lock is released
  });
});

describe('the daemon prunes at start', () => {
  it('old hook state is removed and a schema-valid housekeeping event logged; control: fresh hook state stays', async () => {
    e = tempEnv('ab-hk-d-');
    const hs = join(e.home, 'hook-state');
    mkdirSync(hs, { recursive: true });
    const old = join(hs, 'aaaaaaaa-0000-4000-8000-00000000000a.json');
    const fresh = join(hs, 'aaaaaaaa-0000-4000-8000-00000000000b.json');
    writeFileSync(old, '{}');
    writeFileSync(fresh, '{}');
    age(old, 31 * DAY);
    age(fresh, 2 * DAY);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    await waitFor(() => !existsSync(old), 15_000, 'old hook state removed');
    await sleep(300);
    expect(existsSync(fresh)).toBe(true);
    const ev = await waitFor(() => events(e!, 'housekeeping')[0], 10_000, 'housekeeping event');
    expect(ev).toMatchObject({ reason: 'prune', figures: { hookStates: 1, caches: 0, leftovers: 0, failed: 0 } });
    expect(validate(loadSchema('daemon-event'), ev)).toEqual([]);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
