/**
 * soak report over decision logs in the daemon's record format: one exchange counts once
 * (provisional + final), and sessions without a mode or in an `off` mode have no rate gate;
 * a baseline taken late (from older logs) starts the store-write chain when it was taken.
 */
import { describe, it, expect } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { soakReport } from '../../ops/soak-report.js';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';

function rec(i: number, over: Record<string, unknown> = {}) {
  const fired = over.would_fire === true;
  return {
    type: 'decision', ts: Date.now(), sessionId: `s${i % 3}`, turn: i, exchangeUuid: `u${i}`, offset: i * 100, mode: 'default', mode_state: 'soak',
    worker: false, sidechain: false, seed: false, prompt_only: false, injected: false, trigger: fired ? 'error' : null, trigger_values: {}, gates: [],
    would_fire: fired, silence: fired ? null : 'no-trigger',
    offer: fired ? { id: `o${i}`, chunkId: i, handle: `notes/n.md#${i}`, type: 'past-fix', confidence: 0.8, region: 'notes', wildcard: false, reasoned: false } : null,
    sufficiency: null, candidates: 0, latency_ms: {}, provisional: false, ...over,
  };
}

describe('soak report: counting exchanges', () => {
  it('counts an exchange once, fired when its provisional decision offered; skips no-mode and off-mode sessions', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-soakrep-'));
    mkdirSync(join(home, 'logs'));
    const lines: object[] = [];
    for (let i = 0; i < 100; i++) lines.push(rec(i));
    // Exchange 7: offered while open (provisional), then finally silent (cooled down).
    lines.push(rec(7, { provisional: true, would_fire: true }));
    lines.push(rec(200, { mode: null, mode_state: null, silence: 'no-mode' }));
    lines.push(rec(201, { mode: 'quiet', mode_state: 'off', silence: 'mode-off' }));
    const schema = loadSchema('daemon-decision');
    for (const l of lines) expect(validate(schema, l)).toEqual([]);
    writeFileSync(join(home, 'logs', 'daemon.jsonl'), lines.map((l) => JSON.stringify(l)).join('\n') + '\n');
    const config = ConfigSchema.parse({ modes: { default: {}, quiet: { state: 'off', cwdGlobs: ['/q/**'] } } });
    const r = soakReport(config, { env: { ACTIVE_BRAIN_HOME: home }, sinceMs: 0 });
    const rate = r.gates.filter((g) => g.name.startsWith('prompt.would-fire-rate'));
    expect(rate.map((g) => g.name)).toEqual(['prompt.would-fire-rate:default']);
    expect(rate[0].figure).toContain('1/100');
    expect(rate[0].pass).toBe(true); // 1 per 100 is inside the default band [1, 15]
    expect(r.figures.would_fire).toBe(1);
    expect(r.figures.by_type['past-fix']).toBe(1);
  });
});

describe('soak report: a baseline taken after the soak began', () => {
  it('index runs logged before the baseline was taken do not count against it (control: a baseline without takenAt would)', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-soakrep-late-'));
    mkdirSync(join(home, 'logs'));
    // an older state dir: daemon records from an hour ago, no soak.json
    writeFileSync(join(home, 'logs', 'daemon.jsonl'), JSON.stringify(rec(0, { ts: Date.now() - 3_600_000 })) + '\n');
    const notes = mkdtempSync(join(tmpdir(), 'ab-soakrep-notes-'));
    writeFileSync(join(notes, 'a.md'), '# Pool\n\nRaise the idle timeout of the postgres pool when ECONNRESET shows up.\n');
    const env: NodeJS.ProcessEnv = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
    delete env.ACTIVE_BRAIN_STORE;
    const r = spawnSync(process.execPath, [join(repoRoot, 'bin', 'active-brain.js'), 'index', 'add', notes, '--region', 'notes'], { env, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    const config = ConfigSchema.parse({});
    const gate = () => soakReport(config, { env: { ACTIVE_BRAIN_HOME: home } }).gates.find((g) => g.name === 'zero-store-writes')!;
    expect(gate()).toMatchObject({ pass: true, figure: 'store unchanged since the soak began' });
    const baseline = JSON.parse(readFileSync(join(home, 'soak.json'), 'utf8'));
    expect(baseline.startedAt).toBeLessThan(baseline.takenAt);
    // control: the same baseline, read as if its fingerprint dated from the soak's start
    delete baseline.takenAt;
    writeFileSync(join(home, 'soak.json'), JSON.stringify(baseline));
    expect(gate()).toMatchObject({ pass: false, figure: expect.stringContaining('outside an index run') });
  });
});
