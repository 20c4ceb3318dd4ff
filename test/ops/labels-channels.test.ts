/**
 * Labels per channel: which offers are sampled on each channel (a prompt offer needs its
 * daemon decision; a tool offer is the hook's own record — a Past fix from fixes/<sig>.json
 * has no decision), labels record their channel, counts per channel (old labels = prompt),
 * `label --offer` from a script on the tool channel, and the tool offer's context on a real
 * terminal: the failing call and the calls around it, read from the transcript by
 * tool_use_id (control: by step number when the id is gone).
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { labelCounts, labelFor, offerSamples, sampleUnlabeled, withheldFrom, type LabelRecord } from '../../ops/labels.js';
import type { DecisionLine, HookLine } from '../../ops/channel-records.js';
import { homeWith, label, promptDecision, promptRun, toolDecision, toolRun } from './channel-fixtures.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
const H = (xs: Record<string, unknown>[]) => xs as unknown as HookLine[];
const D = (xs: Record<string, unknown>[]) => xs as unknown as DecisionLine[];

describe('offer samples per channel', () => {
  it('prompt offers need the hook to have shown them and a decision; tool offers come from the hook alone', () => {
    const hook = H([
      promptRun(1, { outcome: 'would-fire' }),                    // p1: shown, decision below
      promptRun(2, { outcome: 'would-fire' }),                    // p2: shown, no decision: not sampled
      toolRun(3, { outcome: 'would-fire', session: 'sA' }),        // a Past fix from a fixes file
      toolRun(3, { outcome: 'would-fire', session: 'sB' }),        // the same fix id in another session
      toolRun(4, { outcome: 'silent', reason: 'low-confidence', offer_id: 'held-1', handle: 'x#1', type: 'past-fix', confidence: 0.4 }),
    ]);
    const decisions = D([promptDecision(1, { would_fire: true }), toolDecision(9, { would_fire: true })]);
    const s = offerSamples(hook, decisions);
    expect(s.filter((x) => x.channel === 'prompt').map((x) => x.offerId)).toEqual(['p1']);
    const tool = s.filter((x) => x.channel === 'tool');
    expect(tool.map((x) => [x.offerId, x.session])).toEqual([['fix-a1b2c3d4e5f607-3', 'sA'], ['fix-a1b2c3d4e5f607-3', 'sB']]);
    expect(tool[0]).toMatchObject({ step: 4, toolUseId: 'toolu_sA_3', sig: 'a1b2c3d4e5f607', type: 'past-fix' });
    // The tool offer the hook held back and the tool decision no hook run met are withheld, with why.
    expect(withheldFrom(hook, decisions)).toEqual(expect.arrayContaining([
      { id: 'tool-off-9', channel: 'tool', reason: 'not-seen' },
      { id: 'held-1', channel: 'tool', reason: 'low-confidence' },
    ]));
    expect(withheldFrom(hook, decisions).some((w) => w.id === 'p1' || w.id.startsWith('fix-'))).toBe(false);
  });

  it('labels carry their channel; counts per channel; labels without a channel are prompt; sampling filters by channel', () => {
    const s = offerSamples(H([toolRun(3, { outcome: 'would-fire', session: 'sA' }), promptRun(1, { outcome: 'would-fire' })]), D([promptDecision(1, { would_fire: true })]));
    const tool = s.find((x) => x.channel === 'tool')!;
    const l = labelFor(tool, true, 5);
    expect(l).toEqual({ ts: 5, offer_id: tool.offerId, session: 'sA', handle: tool.handle, type: 'past-fix', mode: 'default', useful: true, channel: 'tool', step: 4, tool_use_id: 'toolu_sA_3', sig: 'a1b2c3d4e5f607' });
    const labels = [label(1, true), label(2, false), l, { ...l, useful: false, ts: 6 }] as unknown as LabelRecord[];
    expect(labelCounts(labels, { channel: 'prompt' })).toEqual({ n: 2, useful: 1 });
    expect(labelCounts(labels, { channel: 'tool' })).toEqual({ n: 1, useful: 0 }); // the latest verdict wins
    expect(labelCounts(labels)).toEqual({ n: 3, useful: 1 });
    expect(sampleUnlabeled(s, [], 1, { channel: 'tool' }).map((x) => x.channel)).toEqual(['tool']);
    expect(sampleUnlabeled(s, [l], 1, {}).map((x) => x.channel)).toEqual(['prompt']);
  });
});

describe('label from a script, per channel', () => {
  it('--offer on a tool Past fix met in two sessions needs --session; the label records channel, step, id and signature', () => {
    const home = homeWith({ hook: [toolRun(3, { outcome: 'would-fire', session: 'sA' }), toolRun(3, { outcome: 'would-fire', session: 'sB' })] }, 'ab-label-tool-');
    const env = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: join(home, 'none') };
    const run = (args: string[]) => spawnSync(process.execPath, [cli, 'label', ...args], { env, encoding: 'utf8' });
    const amb = run(['--offer', 'fix-a1b2c3d4e5f607-3', '--verdict', 'useful']);
    expect(amb.status).toBe(2);
    expect(amb.stderr).toMatch(/shown in 2 sessions \(sA, sB\): add --session/);
    const ok = run(['--offer', 'fix-a1b2c3d4e5f607-3', '--session', 'sB', '--verdict', 'useful', '--json']);
    expect(ok.status).toBe(0);
    expect(JSON.parse(ok.stdout)).toEqual({ labeled: 'fix-a1b2c3d4e5f607-3', session: 'sB', channel: 'tool', useful: true });
    const rec = JSON.parse(readFileSync(join(home, 'labels.jsonl'), 'utf8').trim());
    expect(rec).toMatchObject({ channel: 'tool', session: 'sB', step: 4, tool_use_id: 'toolu_sB_3', sig: 'a1b2c3d4e5f607', type: 'past-fix' });
    const stats = run(['--stats', '--json']);
    expect(stats.status).toBe(1);
    const st = JSON.parse(stats.stdout);
    expect(st).toMatchObject({ labels: 1, useful: 1, pass: false });
    expect(st.channels.tool).toMatchObject({ labels: 1, useful: 1, gate: { name: 'tool.usefulness', pass: false } });
    expect(st.channels.prompt).toMatchObject({ labels: 0, gate: { name: 'prompt.usefulness' } });
    const onlyTool = JSON.parse(run(['--stats', '--json', '--channel', 'tool']).stdout);
    expect(Object.keys(onlyTool.channels)).toEqual(['tool']);
    const bad = run(['--stats', '--channel', 'pager']);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown channel "pager"; channels: prompt, tool/);
  });

  it('the usefulness gate passes per channel at ≥ 70% over ≥ 50 (control) and fails on the other channel', () => {
    const labels = [
      ...Array.from({ length: 50 }, (_, i) => label(i, i < 35, { channel: 'tool' })),
      ...Array.from({ length: 50 }, (_, i) => label(100 + i, i < 34)),
    ];
    const home = homeWith({ labels }, 'ab-label-gate-');
    const env = { ...process.env, ACTIVE_BRAIN_HOME: home };
    const tool = spawnSync(process.execPath, [cli, 'label', '--stats', '--channel', 'tool'], { env, encoding: 'utf8' });
    expect(tool.status).toBe(0);
    expect(tool.stdout).toMatch(/PASS {2}tool {3}70% useful \(35\/50, 95% CI 56–81%\)/);
    const prompt = spawnSync(process.execPath, [cli, 'label', '--stats', '--channel', 'prompt'], { env, encoding: 'utf8' });
    expect(prompt.status).toBe(1);
    expect(prompt.stdout).toMatch(/FAIL {2}prompt 68% useful \(34\/50/);
  });
});

// ---------- the tool offer's context on a terminal ----------

function transcriptLines(session: string): string[] {
  const base = { isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: session, version: '2.1.39', gitBranch: 'main' };
  let n = 0;
  const at = () => new Date(Date.UTC(2026, 10, 1, 10, 0, n++)).toISOString();
  const user = (content: unknown) => JSON.stringify({ ...base, type: 'user', uuid: `u${n}`, timestamp: at(), message: { role: 'user', content } });
  const assistant = (content: unknown[]) => JSON.stringify({ ...base, type: 'assistant', uuid: `a${n}`, timestamp: at(), message: { role: 'assistant', id: `m${n}`, type: 'message', content } });
  const call = (id: string, command: string, text?: string) => assistant([...(text ? [{ type: 'text', text }] : []), { type: 'tool_use', id, name: 'Bash', input: { command } }]);
  const result = (id: string, content: string, isError = false) => user([{ type: 'tool_result', tool_use_id: id, content, is_error: isError }]);
  return [
    user('make the build green'),
    call('toolu_1', 'git status'), result('toolu_1', 'nothing to commit'),
    call('toolu_2', 'npm install'), result('toolu_2', 'added 3 packages'),
    call('toolu_3', 'npm run build', 'Building to see the type errors.'),
    result('toolu_3', "Exit code 2\nsrc/pool.ts(4,1): error TS2304: Cannot find name 'idleTimeoutMillis'.", true),
    call('toolu_4', 'sed -n 1,20p src/pool.ts'), result('toolu_4', 'const pool = new Pool({})'),
    call('toolu_5', 'npm run build'), result('toolu_5', 'built'),
    call('toolu_6', 'npm test'), result('toolu_6', 'PRIVATE-LATER-STEP 12 passing'),
  ];
}

describe.skipIf(!hasScript)('label on a terminal: a tool offer', () => {
  it('shows the failing call and the calls around it (by tool_use_id; by step when the id is gone)', () => {
    const session = 'sess-tool-1';
    const base = homeWith({
      hook: [toolRun(2, { outcome: 'would-fire', session, tool_use_id: 'toolu_3', step: 3 })],
    }, 'ab-label-tty-tool-');
    const root = join(base, 'projects');
    mkdirSync(join(root, 'p'), { recursive: true });
    writeFileSync(join(root, 'p', `${session}.jsonl`), transcriptLines(session).join('\n') + '\n');
    const env = { ...process.env, ACTIVE_BRAIN_HOME: base, ACTIVE_BRAIN_TRANSCRIPTS: root };
    const r = spawnSync('sh', ['-c', `(sleep 3; printf 'n\\n') | script -qec "${process.execPath} ${cli} label --channel tool --seed 1" /dev/null`], { env, encoding: 'utf8', timeout: 30_000 });
    const out = r.stdout;
    expect(out).toContain('tool offer fix-a1b2c3d4e5f607-2 · session sess-tool-1 · tool step 3');
    expect(out).toMatch(/#1 Bash: git status — ok/);
    expect(out).toMatch(/▶ #3 Bash: npm run build — FAILED: Exit code 2 src\/pool\.ts\(4,1\): error TS2304/);
    expect(out).toContain('agent before it: Building to see the type errors.');
    expect(out).toMatch(/#5 Bash: npm run build — ok/);
    // Two calls after it, no more: the sixth call's output is not shown.
    expect(out).not.toContain('PRIVATE-LATER-STEP');
    expect(out).not.toContain('#6');
    expect(out).toContain('labeled 1 now; 0/1 useful overall on the tool channel.');
    const rec = JSON.parse(readFileSync(join(base, 'labels.jsonl'), 'utf8').trim());
    expect(rec).toMatchObject({ channel: 'tool', useful: false, tool_use_id: 'toolu_3', step: 3 });

    // The id no longer in the transcript: found by its step number, and it says so.
    const home2 = homeWith({ hook: [toolRun(2, { outcome: 'would-fire', session, tool_use_id: 'toolu_gone', step: 3 })] }, 'ab-label-tty-tool2-');
    const env2 = { ...env, ACTIVE_BRAIN_HOME: home2 };
    const r2 = spawnSync('sh', ['-c', `(sleep 3; printf 'q\\n') | script -qec "${process.execPath} ${cli} label --channel tool --seed 1" /dev/null`], { env: env2, encoding: 'utf8', timeout: 30_000 });
    expect(r2.stdout).toContain('found by step number 3');
    expect(r2.stdout).toMatch(/▶ #3 Bash: npm run build — FAILED/);
  }, 60_000);
});
