/**
 * Codex CLI rollouts through the offline tools, real processes on the fixture sessions tree
 * (test/fixtures/codex/sessions): `replay` reads rollout files and folders into exchanges and
 * tool steps with their errors (the parser chosen per file; a rollout copied out of its tree
 * is still recognized by its session_meta); `index add --kind transcripts` indexes them with
 * their error episodes (the torn line counted, not fatal); `eval pastfix` takes the tree as
 * one project per cwd and recalls the recurring error; `backtest` replays codexSessionsRoot
 * (also with no Claude Code root); exchangesFromFile reads a rollout. A Claude Code folder beside it is
 * unaffected (control: its host is still Claude Code).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { CODEX_FIXTURES, ROLLOUT_1, ROLLOUT_2, S1, S2, rolloutFixedByInstall } from '../helpers/codex.js';
import { readTimedExchanges } from '../../eval/replay-read.js';
import { findProjects } from '../../eval/pastfix.js';
import { exchangesFromFile } from '../../transcript/exchanges.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
let tmp: string;
let env: NodeJS.ProcessEnv;
/** The fixture tree with the first rollout fixed by an install instead of a code edit
 *  (test/helpers/codex.ts rolloutFixedByInstall). */
let installTree: string;

function writeInstallTree(root: string): void {
  const text = rolloutFixedByInstall(readFileSync(ROLLOUT_1, 'utf8'));
  const one = join(root, '2026', '11', '30');
  const two = join(root, '2026', '12', '01');
  mkdirSync(one, { recursive: true });
  mkdirSync(two, { recursive: true });
  writeFileSync(join(one, ROLLOUT_1.split('/').pop()!), text);
  copyFileSync(ROLLOUT_2, join(two, ROLLOUT_2.split('/').pop()!));
}

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ab-codex-replay-'));
  env = { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(), ACTIVE_BRAIN_STORE: join(tmp, 'home', 'store.sqlite') };
  delete env.ACTIVE_BRAIN_MODEL;
  installTree = join(tmp, 'install-tree');
  writeInstallTree(installTree);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

describe('Codex rollouts in replay, index and eval pastfix', () => {
  it('replay-read: a rollout gives its exchange and its tool steps, the failing one with its error', async () => {
    const r = await readTimedExchanges(ROLLOUT_1);
    expect(r.exchanges.filter((x) => !x.provisional)).toHaveLength(1);
    expect(r.steps.map((s) => [s.step.step, s.step.name, s.step.isError])).toEqual([[1, 'Bash', true], [2, 'apply_patch', false], [3, 'Bash', false]]);
    expect(r.steps[0].step.resultText).toContain("TypeError: Cannot read properties of undefined (reading 'rate')");
    // Copied out of its YYYY/MM/DD tree: recognized by its first line (session_meta).
    const copy = join(tmp, 'copied.jsonl');
    copyFileSync(ROLLOUT_1, copy);
    expect((await readTimedExchanges(copy)).steps).toHaveLength(3);
  });

  it('replay CLI on the sessions tree (no store): both rollouts, 2 exchanges, 4 steps, 2 errors', () => {
    const a = cli(['replay', CODEX_FIXTURES, '--json', '--store', join(tmp, 'none.sqlite')]);
    expect(a.code, a.stderr).toBe(0);
    const j = JSON.parse(a.stdout);
    expect(j).toMatchObject({ sessions: 2, exchanges: 2, tool_steps: 4, tool_errors: 2, store: { status: 'no-store' } });
    const sessions = new Set(j.decisions.map((d: { session: string; sessionId?: string }) => d.sessionId ?? d.session));
    expect([...sessions].some((s) => String(s).startsWith(S1.slice(0, 8)))).toBe(true);
  });

  it('index add --kind transcripts: the rollouts and their error episodes; the torn line is counted, not fatal', () => {
    const r = cli(['index', 'add', CODEX_FIXTURES, '--region', 'sessions', '--kind', 'transcripts', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ files_seen: 2, indexed: 2, episodes_added: 2, warnings: { malformed_lines: 1 } });
    const s = cli(['search', 'member discount rate undefined', '--json']);
    expect(s.code, s.stderr).toBe(0);
    expect(JSON.parse(s.stdout).hits[0].handle).toContain(S1);
  });

  it('eval pastfix: the tree is one project per cwd; the error of the first rollout, fixed by an install, is recalled in the second (control: fixed by editing the code, it is not — rules small-change, code-being-written)', () => {
    expect(findProjects(CODEX_FIXTURES)).toEqual([{ name: '-home-dev-shop-api', sessions: [ROLLOUT_1, expect.stringContaining(S2)] }]);
    const r = cli(['eval', 'pastfix', installTree, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ projects: 1, sessions: 2, errors: 2, recurrences: 1, recalled: 1, offers: 1, correct_offers: 1, first_seen_offers: 0 });
    const edited = cli(['eval', 'pastfix', CODEX_FIXTURES, '--json']);
    expect(edited.code, edited.stderr).toBe(0);
    expect(JSON.parse(edited.stdout)).toMatchObject({ projects: 1, sessions: 2, errors: 2, recurrences: 1, offers: 0, first_seen_offers: 0 });
  });

  it('eval pastfix --gold: a judged recurrence shown at the failure is a hit; a gold naming a call that does not exist, or another project, is exit 2 naming it', () => {
    const name = (p: string) => p.split('/').pop()!.replace(/\.jsonl$/, '');
    const gold = (over: Record<string, unknown> = {}, project = '-home-dev-shop-api') => {
      const f = join(tmp, `gold-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(f, JSON.stringify({ project, items: [{ id: 'g1', session: name(ROLLOUT_2), tool_use_id: 'call_St90Uv12Wx34', step: 0, hookable: true, verdict: 'recurrence', sources: [{ session: name(ROLLOUT_1) }], ...over }] }));
      return f;
    };
    const r = cli(['eval', 'pastfix', installTree, '--gold', gold(), '--json']);
    expect(r.code, r.stderr).toBe(0);
    const g = JSON.parse(r.stdout).gold;
    expect(g).toMatchObject({ project: '-home-dev-shop-api', hookable_recurrences: 1, hits: 1, recall_at_failure: 1, right_offers: 1, precision: 1, unjudged_offers: 0 });
    expect(g.events).toEqual([expect.objectContaining({ item: 'g1', outcome: 'hit', tool_use_id: 'call_St90Uv12Wx34' })]);
    // Control: the same offer judged `different` is a wrong offer.
    expect(JSON.parse(cli(['eval', 'pastfix', installTree, '--gold', gold({ verdict: 'different' }), '--json']).stdout).gold).toMatchObject({ wrong_offers: 1, precision: 0 });
    const missing = cli(['eval', 'pastfix', CODEX_FIXTURES, '--gold', gold({ tool_use_id: 'call_nope' })]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('gold item g1 names step 0 (tool_use_id call_nope)');
    const other = cli(['eval', 'pastfix', CODEX_FIXTURES, '--gold', gold({}, '-home-ken')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('the gold is for project "-home-ken"');
    const notJson = join(tmp, 'bad-gold.json');
    writeFileSync(notJson, '{"project":');
    expect(cli(['eval', 'pastfix', CODEX_FIXTURES, '--gold', notJson]).code).toBe(2);
  });

  it('backtest: a Codex-only user (no Claude Code root) replays the rollouts of codexSessionsRoot', () => {
    const b = cli(['backtest', '--since', 'all', '--json', '--set', `transcriptsRoot=${join(tmp, 'no-claude')}`, '--set', `codexSessionsRoot=${CODEX_FIXTURES}`]);
    expect(b.code, b.stderr).toBe(0);
    expect(JSON.parse(b.stdout)).toMatchObject({ sessions: 2, tool_steps: 4, tool_errors: 2 });
    // control: neither root exists → the environment error naming the Claude Code root
    const none = cli(['backtest', '--since', 'all', '--set', `transcriptsRoot=${join(tmp, 'no-claude')}`, '--set', `codexSessionsRoot=${join(tmp, 'no-codex')}`]);
    expect(none.code).toBe(3);
    expect(none.stderr).toContain('cannot read the transcripts root');
  });

  it('exchangesFromFile (used by label\'s context) reads a rollout with its session id', async () => {
    const out = [];
    for await (const ex of exchangesFromFile(ROLLOUT_1)) out.push(ex);
    expect(out.filter((x) => !x.isSidechain)).toHaveLength(1);
    expect(out[0]).toMatchObject({ sessionId: S1, cwd: '/home/dev/shop-api' });
    expect(out[0].toolErrors[0]).toMatch(/^Exit code 1/);
  });

  it('control: a Claude Code projects folder is still read as Claude Code (no Codex sessions tree there)', () => {
    const claude = join(repoRoot, 'test', 'fixtures', 'transcripts', 'projects');
    expect(findProjects(claude).length).toBeGreaterThan(0);
    expect(findProjects(claude).every((p) => !p.name.startsWith('-home-dev'))).toBe(true);
  });
});
