/**
 * `active-brain eval drift` and `eval stall` end to end: the real CLI process, the offline
 * model, small synthetic TIAGE / OpenHands files written to a temp dir (CI-safe: no eval
 * data needed), JSON keys as fixed by DESIGN.md, and clear errors on bad input.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { dialogue } from './dialogues.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
let dir: string;
let model: string;

function cli(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, ACTIVE_BRAIN_HOME: join(dir, 'home') }, timeout: 120_000 });
}

function trajectoryLine(id: string, loop: boolean): string {
  const history: unknown[] = [
    { source: 'agent', action: 'system', args: { content: 'You are an agent' } },
    { source: 'user', action: 'message', args: { content: 'fix the parser crash' } },
  ];
  const act = (action: string, args: Record<string, unknown>, obs: string) => {
    history.push({ source: 'agent', action, args });
    history.push({ source: 'agent', observation: action, content: obs, extras: {} });
  };
  act('run', { command: 'ls src', thought: 'look around' }, 'parser.c lexer.c main.c');
  act('run', { command: 'grep -n crash src/parser.c', thought: 'find the crash site' }, '120: crash();');
  act('read', { path: '/workspace/repo/src/lexer.c', thought: 'check the lexer' }, 'int lex() {}');
  act('run', { command: 'make test', thought: 'run the tests' }, '3 passed');
  act('edit', { path: '/workspace/repo/src/main.c', old_str: 'a', thought: 'patch main' }, 'edited');
  act('run', { command: 'git diff', thought: 'review' }, 'diff --git a/main.c');
  if (loop) for (let i = 0; i < 4; i++) act('read', { path: '/workspace/repo/src/parser.c', view_range: [100 + i, 150 + i], thought: 'look at the parser again' }, `parser line ${100 + i}`);
  act('run', { command: 'cat README.md', thought: 'read docs' }, 'readme text');
  act('finish', { final_thought: 'done' }, '');
  return JSON.stringify({ instance_id: id, history });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ab-trig-eval-'));
  model = offlineModelPath();
  writeFileSync(
    join(dir, 'tiage.json'),
    JSON.stringify({ d1: dialogue([0, 1, 2]), d2: dialogue([3, 0, 1]), d3: dialogue([2, 3, 0]), d4: dialogue([1, 2, 3]) }),
  );
  writeFileSync(join(dir, 'openhands.jsonl'), [trajectoryLine('t1', true), trajectoryLine('t2', false), trajectoryLine('t3', true)].join('\n') + '\n');
  writeFileSync(join(dir, 'bad.json'), '{"d1": "not a list"}');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('eval drift', () => {
  it('prints the fixed JSON keys with both baselines; segments clear topic blocks better than chance', () => {
    const r = cli(['eval', 'drift', '--tiage', join(dir, 'tiage.json'), '--model', model, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const k of ['dialogues', 'shifts', 'precision', 'recall', 'f1', 'pk', 'baselines']) expect(j).toHaveProperty(k);
    expect(j.dialogues).toBe(4);
    expect(j.shifts).toBe(8);
    expect(Object.keys(j.baselines).sort()).toEqual(['random', 'texttiling', 'texttiling_same_rate']);
    expect(j.baselines.random.seeds).toBe(20);
    for (const k of ['precision_ci95', 'precision_minus_texttiling_same_rate_ci95', 'f1_minus_texttiling_same_rate_ci95', 'f1_minus_random_ci95']) {
      expect(j[k], k).toHaveLength(2);
      expect(j[k][0], k).toBeLessThanOrEqual(j[k][1]);
    }
    expect(j.cooldown_turns).toBe(2);
    // the firings split by cue add up to all firings
    const byCue = Object.values(j.firings_by_cue as Record<string, { fired: number; hits: number }>);
    expect(byCue).toHaveLength(3);
    expect(byCue.reduce((a, v) => a + v.fired, 0)).toBe(j.fired);
    // the ablation fires on the one same-topic question inside each later block (warm), never at a shift
    expect(j.ablation_question_cue_only.fired).toBe(8);
    expect(j.ablation_question_cue_only.precision).toBe(0);
    expect(j.thresholds.driftQuestionBonus).toBeGreaterThan(0);
    // exact-position figures are low here by design (see eval-drift-positions.test.ts: the
    // trigger fires on the exchange whose reply opens the new topic); Pk sees the segmentation
    expect(j.pk).toBeLessThan(j.baselines.random.pk);
    expect(j.precision).toBeGreaterThan(0);
  });

  it('a file of another shape is a usage error naming the problem; no flag is a usage error', () => {
    const bad = cli(['eval', 'drift', '--tiage', join(dir, 'bad.json'), '--model', model]);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/not a TIAGE file: dialogue d1/);
    const none = cli(['eval', 'drift', '--json']);
    expect(none.status).toBe(2);
    expect(none.stderr).toMatch(/--tiage FILE/);
    const missing = cli(['eval', 'drift', '--tiage', join(dir, 'nope.json')]);
    expect(missing.status).toBe(3);
  });

  it('--help explains the exchange mapping', () => {
    const r = cli(['eval', 'drift', '--help']);
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/utterance i\+1 as its reply/);
  });
});

describe('eval stall', () => {
  it('finds the constructed loops, no false firings elsewhere, and the flow-repair guard holds', () => {
    const r = cli(['eval', 'stall', '--openhands', join(dir, 'openhands.jsonl'), '--model', model, '--json']);
    expect(r.status, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    for (const k of ['trajectories', 'precision', 'recall', 'f1']) expect(j).toHaveProperty(k);
    expect(j.trajectories).toBe(3);
    expect(j.runs).toBe(2);
    expect(j.recall).toBe(1);
    expect(j.false_firings).toBe(0);
    expect(j.flow_repair.cases).toBeGreaterThanOrEqual(4);
    expect(j.flow_repair.guard_held).toBe(j.flow_repair.cases);
    expect(j.flow_repair.control_fired).toBe(j.flow_repair.cases);
  });

  it('a malformed line is a usage error naming the line', () => {
    writeFileSync(join(dir, 'broken.jsonl'), trajectoryLine('t1', false) + '\n{oops\n');
    const r = cli(['eval', 'stall', '--openhands', join(dir, 'broken.jsonl'), '--model', model]);
    expect(r.status).toBe(2);
    expect(r.stderr).toMatch(/line 2/);
  });
});
