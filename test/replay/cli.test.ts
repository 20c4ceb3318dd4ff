/**
 * `active-brain replay` as a real process: --json shape, identical output for the same input,
 * per-exchange lines and a summary without --json, a missing store (silence, said on stderr,
 * exit 0), and usage / environment errors. The store is a real one built in a temp dir.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildStore, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER } from '../retrieval/fixture.js';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { writeProjects } from './transcripts.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
let s: TestStore;
let tmp: string;
let projects: string;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  s = await buildStore([...FIXTURE, ...FILLER]);
  tmp = mkdtempSync(join(tmpdir(), 'ab-replay-cli-'));
  projects = join(tmp, 'projects');
  writeProjects(projects);
  env = { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
  delete env.ACTIVE_BRAIN_STORE;
  delete env.ACTIVE_BRAIN_MODEL;
});
afterAll(() => {
  s?.cleanup();
  rmSync(tmp, { recursive: true, force: true });
});

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, 'replay', ...args], { env, encoding: 'utf8', timeout: 60_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('active-brain replay (CLI)', () => {
  it('--json: one object with the summary keys; the same input gives the same bytes; no text leaks', () => {
    const a = cli([projects, '--json', '--store', s.path, '--seed', '5']);
    expect(a.code).toBe(0);
    const lines = a.stdout.trim().split('\n');
    expect(lines).toHaveLength(1);
    const j = JSON.parse(lines[0]);
    for (const k of ['sessions', 'exchanges', 'would_fire', 'fire_rate', 'by_type', 'sidechain_offers', 'printed', 'by_silence', 'decisions']) expect(j).toHaveProperty(k);
    expect(j).toMatchObject({ sessions: 2, exchanges: 12, would_fire: 1, sidechain_offers: 0, printed: 1, store: { status: 'ok' }, model: 'offline-glove-sif', seed: 5 });
    expect(Object.keys(j.by_type).sort()).toEqual(['analogous', 'contradicts', 'past-fix', 'tangent']);
    expect(j.decisions.filter((d: { provisional: boolean; channel: string }) => !d.provisional && d.channel === 'prompt')).toHaveLength(12);
    // offers[]: DESIGN's keys, both channels.
    expect(j.offers).toEqual([
      {
        file: expect.any(String), session: expect.any(String), channel: 'prompt', turn: 4, step: null, tool_use_id: null, trigger: 'error', type: 'past-fix', confidence: expect.any(Number), handle: 'past-sessions/proj-a/2026-10-12.jsonl#0', hook: 'would-fire',
        // issue 25: the rule behind the type, and the audit's verdicts.
        // A Past fix carries its shared error: request coverage is not judged (null).
        evidence: { rule: 'shared-window-error', detail: 'error-code', held_share: expect.any(Number), restates_share: expect.any(Number), coverage: null },
        self_lineage: false,
        already_in_session: false,
      },
    ]);
    expect(j).toMatchObject({ self_lineage_offers: { prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 }, already_in_session_offers: { prompt: 0, tool: 0 } });
    expect(j.typed_prompts).toBeGreaterThan(0);
    expect(j).toMatchObject({ tool_steps: 1, tool_errors: 1 });
    expect(a.stdout).not.toContain('ECONNRESET');
    expect(a.stdout).not.toContain('invoices');
    const b = cli([projects, '--json', '--store', s.path, '--seed', '5']);
    expect(b.stdout).toBe(a.stdout);
    // Nothing written to the state dir: no cache, no hook state, no log.
    let wrote: string[] = [];
    try {
      wrote = readdirSync(join(tmp, 'home'));
    } catch { /* never created */ }
    expect(wrote.filter((f) => ['cache', 'hook-state', 'logs'].includes(f))).toEqual([]);
  });

  it('without --json: a legend, one line per offer or silence that matters, and per-channel counts that add up', () => {
    const r = cli([projects, '--store', s.path]);
    expect(r.code).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines[0]).toMatch(/^ch: P = at the prompt \(UserPromptSubmit\), T = at a tool result/);
    expect(r.stdout).toContain('hook: what the hook would have done');
    expect(lines.some((l) => /^session +ch +turn +step +trigger +what/.test(l))).toBe(true);
    // The offer once (its provisional look is folded into the exchange), with the hook's verdict.
    const offers = lines.filter((l) => /^aaaaaaaa P +4 +error +past-fix past-sessions\/proj-a\/2026-10-12\.jsonl#0 +0\.\d\d  would-fire$/.test(l));
    expect(offers).toHaveLength(1);
    // The tool error with no earlier fix: a silence that matters.
    expect(lines.some((l) => /^aaaaaaaa T +4 +1 +error +silent: no-fix/.test(l))).toBe(true);
    // No line per quiet exchange (warm-up, no trigger, sidechain).
    expect(r.stdout).not.toContain('silent: warmup');
    expect(r.stdout).toMatch(/prompt channel: 12 exchanges \(6 in main sessions\) = 1 with an offer \+ 11 silent/);
    expect(r.stdout).toMatch(/silent exchanges by reason: cooldown 1, warmup 4, worker-sidechain 6/);
    expect(r.stdout).toMatch(/tool channel: 1 tool steps, 1 error\(s\): \d the hook sees with an error signature/);
  });

  it('missing store: replays in silence (no-store), says so on stderr, exit 0', () => {
    const r = cli([projects, '--json', '--store', join(tmp, 'absent.sqlite')]);
    expect(r.code).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ would_fire: 0, store: { status: 'no-store', chunks: 0 } });
    expect(j.by_silence['no-store']).toBeGreaterThanOrEqual(1);
    expect(r.stderr).toMatch(/no knowledge store at .*absent\.sqlite.*no-store/);
  });

  it('usage and environment errors', () => {
    expect(cli([]).code).toBe(2);
    expect(cli([projects, '--seed', 'x']).code).toBe(2);
    const missing = cli([join(tmp, 'nowhere')]);
    expect(missing.code).toBe(3);
    expect(missing.stderr).toContain('nowhere');
    const empty = mkdtempSync(join(tmp, 'empty-'));
    expect(cli([empty]).code).toBe(3);
    const help = cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('usage: active-brain replay');
  });
});
