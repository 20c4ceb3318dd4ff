/**
 * Load: 100 sessions each appending one exchange per second for AB_LOAD_SECONDS (default 60)
 * to the real daemon (offline model, a small real store, default soak gates). Counted: every
 * appended exchange is decided or logged as skipped with a reason — nothing silently lost.
 * Measured: the daemon's RSS (VmRSS from /proc/<pid>/status, sampled each second; VmHWM at
 * the end) and the reaction time (append → its decision record's timestamp), p50/p95.
 * Figures go to <os.tmpdir()>/active-brain-faults-load.json and are printed.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  appendLines,
  decisions,
  events,
  exchangeLines,
  newSession,
  procMemMb,
  promptUuid,
  quantile,
  sleep,
  startDaemon,
  storeTemplate,
  tempEnv,
  waitCanary,
  waitFor,
  type Env,
  type Session,
} from '../helpers/faults.js';

let e: Env;
afterEach(() => e?.cleanup());
const store = storeTemplate();
afterAll(() => store.cleanup());

/** Seconds of load (env AB_LOAD_SECONDS; default 60). */
const LOAD_SECONDS = Number(process.env.AB_LOAD_SECONDS ?? 60);
const SESSIONS = 100;
/** RSS the daemon must stay under (MB) with the offline model and a small store. */
const MAX_RSS_MB = 400;
export const LOAD_FIGURES = join(tmpdir(), 'active-brain-faults-load.json');

const TOPICS = ['postgres pool', 'react effect', 'docker layer', 'flaky test', 'typescript generic', 'git rebase', 'auth token', 'rust borrow', 'k8s probe', 'css grid'];

describe('load', () => {
  it(`${SESSIONS} sessions × 1 exchange/s × ${LOAD_SECONDS} s: every exchange decided or skipped with a reason; bounded memory`, async () => {
    e = tempEnv('ab-f-load-');
    store.copyTo(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const sessions: Session[] = Array.from({ length: SESSIONS }, () => newSession(e));
    const appendedAt = new Map<string, number>();
    const rss: number[] = [];
    const t0 = Date.now();
    let tick = 0;
    while (Date.now() - t0 < LOAD_SECONDS * 1000) {
      const tickStart = Date.now();
      // One exchange per session this second, spread over the second.
      for (let i = 0; i < SESSIONS; i++) {
        const s = sessions[i];
        const topic = TOPICS[(i + tick) % TOPICS.length];
        const lines = exchangeLines(s, `session ${i} turn ${tick}: how do I fix the ${topic} problem?`, `Turn ${tick}: adjusted the ${topic} settings and reran.`);
        appendedAt.set(promptUuid(lines), Date.now());
        appendLines(s, lines);
        if (i % 10 === 9) await sleep(Math.max(0, tickStart + ((i + 1) * 1000) / SESSIONS - Date.now()));
      }
      const m = procMemMb(d.pid);
      if (m) rss.push(m.rss);
      tick++;
      await sleep(Math.max(0, tickStart + 1000 - Date.now()));
    }
    const appendDone = Date.now();
    // Drain: wait until every exchange has a decision, or the count has not moved for 5 s.
    let last = -1;
    let movedAt = Date.now();
    await waitFor(() => {
      const n = decisions(e).length;
      if (n !== last) {
        last = n;
        movedAt = Date.now();
      }
      return n >= appendedAt.size || Date.now() - movedAt > 5000;
    }, 180_000, 'the daemon to drain').catch(() => undefined);
    const drainMs = Date.now() - appendDone;
    const mem = procMemMb(d.pid);
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    const recs = decisions(e);
    const decided = new Set(recs.map((r) => r.exchangeUuid as string));
    const skippedEvents = events(e, 'skipped-line');
    const missing = [...appendedAt.keys()].filter((u) => !decided.has(u));
    const reactions = recs.filter((r) => appendedAt.has(r.exchangeUuid as string)).map((r) => (r.ts as number) - appendedAt.get(r.exchangeUuid as string)!);
    const figures = {
      date: new Date().toISOString(),
      sessions: SESSIONS,
      seconds: LOAD_SECONDS,
      appended: appendedAt.size,
      decided: [...appendedAt.keys()].filter((u) => decided.has(u)).length,
      skipped_with_reason: skippedEvents.length,
      silently_lost: missing.length,
      decisions_total: recs.length,
      errors: events(e, 'error').length,
      drain_ms_after_last_append: drainMs,
      reaction_ms: {
        p50: Math.round(quantile(reactions, 0.5)),
        p95: Math.round(quantile(reactions, 0.95)),
        max: Math.round(Math.max(...reactions)),
      },
      rss_mb: {
        first: Math.round(rss[0] ?? NaN),
        median: Math.round(quantile(rss, 0.5)),
        max_sampled: Math.round(Math.max(...rss)),
        hwm: Math.round(mem?.hwm ?? NaN),
      },
    };
    writeFileSync(LOAD_FIGURES, JSON.stringify(figures, null, 2) + '\n');
    console.log(`[faults] load figures (${LOAD_FIGURES}):\n${JSON.stringify(figures, null, 2)}`);
    expect(figures.appended).toBeGreaterThanOrEqual(SESSIONS * LOAD_SECONDS * 0.9);
    expect(missing.length).toBe(0); // decided + skipped-with-reason covers every exchange
    expect(figures.errors).toBe(0);
    expect(figures.rss_mb.hwm).toBeLessThan(MAX_RSS_MB);
  });
});
