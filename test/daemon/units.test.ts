/**
 * Small pure parts of the daemon: status diagnosis (lock + pid + canary → running or why
 * not), the offer cache stamp, the log file order, the exchange texts the daemon embeds.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { diagnose } from '../../daemon/status.js';
import { buildOfferCache } from '../../core/publish.js';
import { daemonLogFiles } from '../../daemon/logs.js';
import { exchangeTexts } from '../../core/exchange-text.js';
import { canaryFresh } from '../../daemon/canary.js';
import type { Canary } from '../../shared/types.js';
import type { LockState } from '../../daemon/lock.js';

const NOW = 1_800_000_000_000;
const canary = (over: Partial<Canary> = {}): Canary => ({
  version: 1, pid: 42, startedAt: NOW - 60_000, cycles: 30, lastCycleAt: NOW - 100, cycleMs: 2000, sessionsWatched: 3, killed: false, lastError: null, ...over,
});
const lock = (over: Partial<LockState> = {}): LockState => ({ held: true, pid: 42, pidAlive: true, lockAgeMs: 1000, ...over });

describe('status diagnosis', () => {
  it('running only when lock held, pid alive, canary fresh and the same pid', () => {
    expect(diagnose(lock(), canary(), NOW)).toEqual({ running: true, pid: 42, problem: null });
    expect(diagnose(lock({ pidAlive: false }), canary(), NOW).problem).toBe('dead-pid');
    expect(diagnose(lock(), canary({ lastCycleAt: NOW - 6001 }), NOW).problem).toBe('stale-canary');
    expect(diagnose(lock(), canary({ pid: 43 }), NOW).problem).toBe('canary-pid-mismatch');
    expect(diagnose(lock(), null, NOW).problem).toBe('no-canary');
    expect(diagnose(lock({ pid: null, pidAlive: false }), canary(), NOW).problem).toBe('no-pid-file');
    expect(diagnose(lock({ held: false, lockAgeMs: 60_000 }), canary(), NOW).problem).toBe('stale-lock');
    expect(diagnose(lock({ held: false, lockAgeMs: null, pid: null, pidAlive: false }), canary(), NOW)).toEqual({ running: false, pid: null, problem: null });
  });

  it('freshness is 3 cycles, whatever the cycle length', () => {
    fc.assert(fc.property(fc.integer({ min: 100, max: 60_000 }), fc.integer({ min: 0, max: 500_000 }), (cycleMs, age) => {
      expect(canaryFresh(canary({ cycleMs, lastCycleAt: NOW - age }), NOW)).toBe(age <= 3 * cycleMs);
    }));
  });
});

describe('offer cache stamp', () => {
  it('carries what it was computed for and expires after the TTL', () => {
    const c = buildOfferCache({ sessionId: 's', mode: 'default', turn: 7, transcriptOffset: 1234, transcriptPath: '/t/s.jsonl', exchangeUuid: 'u' }, null, NOW, 900);
    expect(c).toEqual({ version: 1, sessionId: 's', mode: 'default', turn: 7, transcriptOffset: 1234, transcriptPath: '/t/s.jsonl', exchangeUuid: 'u', createdAt: NOW, expiresAt: NOW + 900_000, offer: null });
  });
});

describe('log files', () => {
  it('oldest rotated file first, the live file last; other files ignored', () => {
    const names = ['daemon.jsonl', 'daemon.jsonl.2', 'hook.jsonl', 'daemon.jsonl.10', 'daemon.jsonl.1', 'daemon.out'];
    expect(daemonLogFiles('/l', names)).toEqual(['/l/daemon.jsonl.10', '/l/daemon.jsonl.2', '/l/daemon.jsonl.1', '/l/daemon.jsonl']);
  });
});

describe('exchange texts', () => {
  it('never exceed maxChars, keep errors and tools, and keep both sides when they fit', () => {
    fc.assert(fc.property(fc.string({ maxLength: 5000 }), fc.string({ maxLength: 5000 }), fc.array(fc.string({ maxLength: 300 }), { maxLength: 12 }),
      fc.array(fc.string({ maxLength: 1000 }), { maxLength: 5 }), fc.integer({ min: 64, max: 4000 }), (user, assistant, toolCalls, toolErrors, max) => {
        const t = exchangeTexts({ user, assistant, toolCalls, toolErrors }, max);
        expect(t.whole.length).toBeLessThanOrEqual(max);
        expect(t.user.length).toBeLessThanOrEqual(max);
        expect(t.assistant.length).toBeLessThanOrEqual(max);
      }));
    const t = exchangeTexts({ user: 'why does the pool reset', assistant: 'idle timeout', toolCalls: ['Bash: npm test', 'Bash: npm test'], toolErrors: ['Error: ECONNRESET\n    at x'] }, 2000);
    expect(t.whole).toContain('why does the pool reset');
    expect(t.whole).toContain('idle timeout');
    expect(t.whole).toContain('Error: ECONNRESET');
    expect(t.whole).not.toContain('at x');
    expect(t.whole.match(/npm test/g)?.length).toBe(1);
  });
});
