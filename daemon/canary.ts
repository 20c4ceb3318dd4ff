/**
 * The liveness canary `<home>/canary.json` (shared/types.ts Canary): the daemon rewrites it
 * atomically every cycle (daemon/cycle.ts); `status`, `stop` and `soak report` read it to tell a
 * live daemon from a stale pid. Freshness rule: age ≤ CANARY_FRESH_CYCLES × cycleMs.
 */
import { readFileSync } from 'node:fs';
import { writeJsonAtomic } from '../shared/atomic.js';
import type { Canary } from '../shared/types.js';

/** A canary older than this many cycles means the daemon is not cycling. */
export const CANARY_FRESH_CYCLES = 3;

export function writeCanary(path: string, canary: Canary): void {
  writeJsonAtomic(path, canary);
}

/** The canary, or null when missing or unreadable (never throws). */
export function readCanary(path: string): Canary | null {
  try {
    const v = JSON.parse(readFileSync(path, 'utf8')) as Canary;
    if (!v || v.version !== 1 || typeof v.pid !== 'number' || typeof v.lastCycleAt !== 'number') return null;
    return v;
  } catch {
    return null;
  }
}

/** Age of the canary's last cycle in ms (>= 0). */
export function canaryAgeMs(canary: Canary, now: number): number {
  return Math.max(0, now - canary.lastCycleAt);
}

export function canaryFresh(canary: Canary, now: number): boolean {
  return canaryAgeMs(canary, now) <= CANARY_FRESH_CYCLES * canary.cycleMs;
}
