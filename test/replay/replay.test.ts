/**
 * eval/replay.ts with real parts: real-format transcripts written to a temp projects folder,
 * a real SQLite store (the retrieval fixture, offline model), the daemon's Pipeline, the real
 * offer builder and the hook's gates. Control: a warm session that hits the postgres
 * ECONNRESET error gets a Past-fix offer the hook would show; the same content as a subagent
 * sidechain (or a sidechain-flagged file, or a file under subagents/) never does.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, mkdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema, type Config } from '../../config/schema.js';
import { findTranscripts, readTimedExchanges } from '../../eval/replay-read.js';
import { replayTranscripts, seededRng, type ReplayResult } from '../../eval/replay.js';
import type { StoreReader } from '../../store/types.js';
import { buildStore, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER } from '../retrieval/fixture.js';
import { MAIN_ID, SUB_AGENT, sessionLines, writeLines, writeProjects } from './transcripts.js';
import { repoRoot } from '../helpers/model.js';

let s: TestStore;
let tmp: string;
beforeAll(async () => {
  s = await buildStore([...FIXTURE, ...FILLER]);
  tmp = mkdtempSync(join(tmpdir(), 'ab-replay-'));
});
afterAll(() => {
  s?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

let n = 0;
function dir(): string {
  const d = join(tmp, `case-${++n}`);
  mkdirSync(d, { recursive: true });
  return d;
}

function cfg(over: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse(over);
}

async function replay(target: string, opts: { config?: Config; store?: StoreReader | null; seed?: number } = {}): Promise<ReplayResult> {
  return replayTranscripts(findTranscripts(target), {
    config: opts.config ?? cfg(),
    embedder: s.embedder,
    store: opts.store === undefined ? s.reader : opts.store,
    seed: opts.seed ?? 1,
    home: join(tmp, 'no-home'),
  });
}

describe('replay', () => {
  it('control: the main session gets one Past-fix offer the hook would show; the subagent copy gets none', async () => {
    const d = dir();
    writeProjects(d);
    const r = await replay(d);
    const sum = r.summary;
    for (const k of ['sessions', 'exchanges', 'would_fire', 'fire_rate', 'by_type', 'sidechain_offers']) expect(sum).toHaveProperty(k);
    expect(sum).toMatchObject({ sessions: 2, main_sessions: 1, sidechain_sessions: 1, exchanges: 12, main_exchanges: 6, would_fire: 1, sidechain_offers: 0, printed: 1 });
    expect(sum.by_type).toEqual({ 'past-fix': 1, analogous: 0, contradicts: 0, tangent: 0 });
    expect(sum.fire_rate).toBeCloseTo(1 / 6, 4);
    const offer = r.rows.find((x) => x.offer)!;
    expect(offer).toMatchObject({ turn: 4, trigger: 'error', sidechain: false, hook: 'would-fire' });
    expect(offer.offer!.handle).toBe('past-sessions/proj-a/2026-10-12.jsonl#0');
    // The sidechain copy: the same error turn triggers, and the observed gate silences it.
    const side = r.rows.filter((x) => x.file.includes('/subagents/'));
    expect(side).toHaveLength(6);
    expect(side.every((x) => x.offer === null && x.sidechain)).toBe(true);
    expect(side[4]).toMatchObject({ trigger: 'error', silence: 'worker-sidechain' });
  });

  it('a file under subagents/ without sidechain flags, and a sidechain-flagged top-level file, stay silent', async () => {
    const d = dir();
    writeLines(join(d, '-work-app', MAIN_ID, 'subagents', `agent-${SUB_AGENT}.jsonl`), sessionLines({ sessionId: MAIN_ID }));
    writeLines(join(d, '-work-app', 'bbbbbbbb-1111-4222-8333-444444444444.jsonl'), sessionLines({ sessionId: 'bbbbbbbb-1111-4222-8333-444444444444', sidechain: true }));
    const r = await replay(d);
    expect(r.summary.would_fire).toBe(0);
    expect(r.summary.sidechain_offers).toBe(0);
    expect(r.summary.sidechain_sessions).toBe(2);
    const errTurns = r.rows.filter((x) => x.trigger === 'error');
    expect(errTurns.map((x) => x.silence).sort()).toEqual(['worker-sidechain', 'worker-subagent']);
    // Control: the same lines as an ordinary main session are offered.
    const c = dir();
    writeLines(join(c, '-work-app', `${MAIN_ID}.jsonl`), sessionLines({ sessionId: MAIN_ID }));
    expect((await replay(c)).summary.would_fire).toBe(1);
  });

  it('older format (subagent records inside the main file): sidechain is decided per record — the main session keeps its offer and its count', async () => {
    // Claude Code 1.x wrote a Task subagent's records into the main file with isSidechain:
    // true. A sidechain exchange before the failing turn and one after the offer.
    const side = sessionLines({ sessionId: MAIN_ID, sidechain: true, agentId: SUB_AGENT }).map((l) => l.replaceAll('-8000-', '-9000-'));
    const main = sessionLines({ sessionId: MAIN_ID });
    const mixed = [...main.slice(0, 6), ...side.slice(0, 3), ...main.slice(6, 17), ...side.slice(3, 6), ...main.slice(17)];
    const d = dir();
    writeLines(join(d, '-work-app', `${MAIN_ID}.jsonl`), mixed);
    const r = await replay(d);
    expect(r.summary).toMatchObject({ sessions: 1, main_sessions: 1, sidechain_sessions: 0, main_exchanges: 6, sidechain_exchanges: 2, would_fire: 1, printed: 1, sidechain_offers: 0 });
    expect(r.rows.find((x) => x.offer)).toMatchObject({ turn: 4, trigger: 'error', sidechain: false, worker: null });
    const sideRows = r.rows.filter((x) => x.channel === 'prompt' && x.sidechain);
    expect(sideRows).toHaveLength(2);
    expect(sideRows.every((x) => x.offer === null && x.silence === 'worker-sidechain')).toBe(true);
    // Control: the same file's records all flagged sidechain is a sidechain session, silent.
    const s2 = dir();
    writeLines(join(s2, '-work-app', `${MAIN_ID}.jsonl`), sessionLines({ sessionId: MAIN_ID, sidechain: true, agentId: SUB_AGENT }));
    expect((await replay(s2)).summary).toMatchObject({ main_sessions: 0, sidechain_sessions: 1, would_fire: 0, sidechain_offers: 0 });
  });

  it('a claude -p recording (entrypoint sdk-cli) stays silent under the default worker rule; control: let through as a CI run, it is offered', async () => {
    const asHeadless = (lines: string[]) => lines.map((l) => JSON.stringify({ ...(JSON.parse(l) as object), entrypoint: 'sdk-cli' }));
    const d = dir();
    writeLines(join(d, '-work-app', `${MAIN_ID}.jsonl`), asHeadless(sessionLines({ sessionId: MAIN_ID })));
    const r = await replay(d);
    expect(r.summary.would_fire).toBe(0);
    expect(r.rows.find((x) => x.trigger === 'error')).toMatchObject({ silence: 'worker-entrypoint', worker: 'entrypoint' });
    const ci = await replay(d, { config: cfg({ workers: { entrypoints: [], unattended: 'entrypoints' } }) });
    expect(ci.summary.would_fire).toBe(1);
    expect(ci.rows.find((x) => x.offer)!.hook).toBe('would-fire');
  });

  it('is deterministic: the same input replays to identical output (also without timestamps)', async () => {
    const d = dir();
    writeProjects(d);
    const a = await replay(d, { seed: 7 });
    const b = await replay(d, { seed: 7 });
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const u = dir();
    writeProjects(u, { noTimestamps: true });
    const x = await replay(u);
    await new Promise((res) => setTimeout(res, 5));
    const y = await replay(u);
    expect(x.summary.synthetic_times).toBe(12);
    expect(JSON.stringify(y)).toBe(JSON.stringify(x));
  });

  it('wander randomness is seeded: always-wander replays repeat per seed', async () => {
    const d = dir();
    writeProjects(d);
    const config = cfg({ retrieval: { wanderProbability: 1 } });
    const a = await replay(d, { config, seed: 3 });
    const b = await replay(d, { config, seed: 3 });
    const diff = a.rows.map((row, i) => [JSON.stringify(row), JSON.stringify(b.rows[i])]).filter(([x, y]) => x !== y);
    expect(diff).toEqual([]);
    const rng = seededRng(3);
    const seq = [rng(), rng(), rng()];
    const again = seededRng(3);
    expect([again(), again(), again()]).toEqual(seq);
    expect(seq.every((v) => v >= 0 && v < 1)).toBe(true);
  });

  it('no store: every trigger ends in silence (no-store), nothing crashes', async () => {
    const d = dir();
    writeProjects(d);
    const r = await replay(d, { store: null });
    expect(r.summary.would_fire).toBe(0);
    expect(r.summary.by_silence['no-store']).toBeGreaterThanOrEqual(1);
    expect(r.rows.find((x) => x.trigger === 'error' && !x.sidechain)?.silence).toBe('no-store');
  });

  it("the hook's gates: confidence, budget, live mode, and an offer no prompt ever saw", async () => {
    const d = dir();
    writeProjects(d);
    const high = await replay(d, { config: cfg({ modes: { default: { minConfidence: 0.99 } } }) });
    expect(high.summary).toMatchObject({ would_fire: 1, printed: 0, by_hook: { 'low-confidence': 1 } });
    const budget = await replay(d, { config: cfg({ modes: { default: { sessionBudget: 0 } } }) });
    expect(budget.summary).toMatchObject({ would_fire: 1, printed: 0, by_hook: { budget: 1 } });
    const live = await replay(d, { config: cfg({ modes: { default: { state: 'live' } } }) });
    expect(live.summary).toMatchObject({ would_fire: 1, printed: 1, by_hook: { printed: 1 } });
    // The error turn is the last exchange: no next prompt, so the hook never shows it.
    const e = dir();
    writeLines(join(e, `${MAIN_ID}.jsonl`), sessionLines({ sessionId: MAIN_ID }).slice(0, -3));
    const end = await replay(e);
    expect(end.summary).toMatchObject({ would_fire: 1, printed: 0, by_hook: { 'no-next-prompt': 1 } });
  });

  it('finds transcripts: one file, or *.jsonl recursively (hidden folders skipped), subagents marked', () => {
    const d = dir();
    writeProjects(d);
    writeFileSync(join(d, 'notes.txt'), 'x');
    mkdirSync(join(d, '.hidden'));
    writeFileSync(join(d, '.hidden', 'x.jsonl'), '{}\n');
    const files = findTranscripts(d);
    expect(files.map((f) => [f.rel, f.subagent])).toEqual([
      [`-work-app/${MAIN_ID}.jsonl`, false],
      [`-work-app/${MAIN_ID}/subagents/agent-${SUB_AGENT}.jsonl`, true],
    ]);
    expect(findTranscripts(files[1].path)).toEqual([{ path: files[1].path, rel: `agent-${SUB_AGENT}.jsonl`, subagent: true }]);
  });

  it('replays the shared transcript fixtures (malformed lines, subagent folder) without offers in sidechains', async () => {
    const r = await replay(join(repoRoot, 'test', 'fixtures', 'transcripts'));
    expect(r.summary.sessions).toBe(7); // 5 main sessions + 2 subagent files (the episodes fixture added one of each)
    expect(r.summary.sidechain_offers).toBe(0);
    const sub = r.summary.per_session.find((p) => p.file.includes('/subagents/'));
    expect(sub).toMatchObject({ sidechain: true, would_fire: 0 });
  });

  it('settle points: a pause after reply text yields a provisional decision on the open exchange, which stays open', async () => {
    const d = dir();
    const t = Date.UTC(2026, 10, 3, 9, 0, 0);
    const at = (ms: number) => new Date(t + ms).toISOString();
    const rec = (o: Record<string, unknown>) => JSON.stringify({ isSidechain: false, cwd: '/work/app', sessionId: MAIN_ID, ...o });
    const path = writeLines(join(d, 's.jsonl'), [
      rec({ type: 'user', uuid: 'u1', timestamp: at(0), message: { role: 'user', content: 'check the build' } }),
      rec({ type: 'assistant', uuid: 'a1', timestamp: at(1000), message: { role: 'assistant', id: 'm1', content: [{ type: 'text', text: 'Looking at it.' }] } }),
      rec({ type: 'progress', uuid: 'p1', timestamp: at(1100), data: { type: 'hook_progress' } }),
      rec({ type: 'assistant', uuid: 'a2', timestamp: at(5000), message: { role: 'assistant', id: 'm2', content: [{ type: 'tool_use', id: 'tu1', name: 'Bash', input: { command: 'npm run build' } }] } }),
      rec({ type: 'user', uuid: 'r1', timestamp: at(6000), message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'tu1', content: 'ok' }] } }),
      rec({ type: 'assistant', uuid: 'a3', timestamp: at(7000), message: { role: 'assistant', id: 'm3', content: [{ type: 'text', text: 'Build passes.' }] } }),
    ]);
    const whole = await readTimedExchanges(path);
    expect(whole.exchanges).toHaveLength(1);
    expect(whole.exchanges[0]).toMatchObject({ hookFires: true, settledAt: t + 7000 });
    const split = await readTimedExchanges(path, { settleMs: 150 });
    // One provisional copy at the pause (the hook fires before it), then the whole turn.
    expect(split.exchanges.map((x) => [Boolean(x.provisional), x.hookFires, x.exchange.index])).toEqual([[true, true, 0], [false, false, 0]]);
    expect(split.exchanges[0].settledAt).toBe(t + 1000);
    expect(split.exchanges[0].exchange.assistant).toBe('Looking at it.');
    expect(split.exchanges[1].exchange.assistant).toContain('Build passes.');
    // A pause shorter than the settle delay gives no provisional decision.
    expect((await readTimedExchanges(path, { settleMs: 10_000 })).exchanges).toHaveLength(1);
    // Replayed, the exchange counts once.
    const r = await replayTranscripts([{ path, rel: 's.jsonl', subagent: false }], { config: cfg(), embedder: s.embedder, store: s.reader, seed: 1, settleMs: 150, home: join(tmp, 'no-home') });
    expect(r.summary.exchanges).toBe(1);
    expect(r.rows.filter((x) => x.provisional)).toHaveLength(1);
  });

  it('an unreadable file is skipped and listed; the rest replays', async () => {
    const d = dir();
    writeProjects(d);
    const locked = writeLines(join(d, 'locked.jsonl'), sessionLines({ sessionId: 'cccccccc-1111-4222-8333-444444444444' }));
    const files = findTranscripts(d);
    rmSync(locked);
    const r = await replayTranscripts(files, { config: cfg(), embedder: s.embedder, store: s.reader, seed: 1, home: join(tmp, 'no-home') });
    expect(r.summary.unreadable_files).toEqual(['locked.jsonl: ENOENT']);
    expect(r.summary).toMatchObject({ sessions: 2, would_fire: 1 });
  });
});
