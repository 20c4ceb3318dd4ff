/**
 * `active-brain eval prompts` end to end, a real process over real-format transcripts: a
 * project of two sessions a day apart and a resumed copy of the second (its records repeated
 * under a new session id, uuids kept). Each session is replayed against a store of only the
 * earlier ones; the report counts the prompts the hook ran for (the copy's repeated prompts are
 * history: no hook), gives the hook's reason at each prompt and, with a gold, scores each gold
 * prompt with its reason when silent. A project whose earlier session fixed the error a later
 * one meets again shows that Past fix at the later session's next prompt: scored a hit when the
 * gold names that session as the source, wrong when the reviewer judged the offered exchange N
 * or the prompt needed nothing. A gold of another project, or naming a prompt the transcripts
 * do not have, is exit 2 naming it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { SESSION_T0, sessionLines, writeLines } from './transcripts.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
const A = 'aaaaaaaa-0000-4000-8000-00000000000a';
const B = 'bbbbbbbb-0000-4000-8000-00000000000b';
const C = 'cccccccc-0000-4000-8000-00000000000c';
const DAY = 24 * 3600_000;
let tmp: string;
let project: string;
let env: NodeJS.ProcessEnv;

/** One session's lines with uuids of its own (the helper numbers them from 1 in every file). */
const own = (id: string, t0: number, resolved = false) =>
  sessionLines({ sessionId: id, t0, resolved }).map((l) => l.replaceAll('00000000-0000-4000-8000-', `${id.slice(0, 8)}-0000-4000-8000-`).replaceAll('toolu_pg1', `toolu_${id.slice(0, 8)}`).replaceAll('toolu_pg2', `toolu_${id.slice(0, 7)}2`));
/** The prompt uuids of a file, in order. */
const promptUuids = (path: string) =>
  readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { type: string; uuid: string; message: { content: unknown } })
    .filter((r) => r.type === 'user' && typeof r.message.content === 'string').map((r) => r.uuid);

beforeAll(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ab-eval-prompts-'));
  env = { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath() };
  delete env.ACTIVE_BRAIN_MODEL;
  project = join(tmp, 'projects', '-work-app');
  writeLines(join(project, `${A}.jsonl`), own(A, SESSION_T0));
  const b = own(B, SESSION_T0 + DAY);
  writeLines(join(project, `${B}.jsonl`), b);
  // A resumed copy of B: B's records under C's id (as Claude Code 1.0's continue does), then
  // one new prompt of its own.
  const copy = b.map((l) => l.replaceAll(B, C));
  const last = JSON.parse(copy.at(-1)!) as { uuid: string };
  const t = new Date(SESSION_T0 + 2 * DAY).toISOString();
  copy.push(JSON.stringify({ parentUuid: last.uuid, isSidechain: false, userType: 'external', cwd: '/work/app', sessionId: C, version: '2.1.39', gitBranch: 'main', type: 'user', uuid: 'cccccccc-0000-4000-8000-0000000000ff', timestamp: t, message: { role: 'user', content: 'Where did we leave the pool settings?' } }));
  writeLines(join(project, `${C}.jsonl`), copy);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function cli(args: string[]) {
  const r = spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 180_000 });
  return { code: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function gold(items: unknown[], name = '-work-app'): string {
  const f = join(tmp, `gold-${Math.random().toString(36).slice(2)}.json`);
  writeFileSync(f, JSON.stringify({ project: name, items }));
  return f;
}

/** A project where session A met the postgres ECONNRESET and fixed it, and B (a day later)
 *  meets it again: the daemon's decision on B's error turn reaches the hook at B's next prompt. */
function fixedProject(): { dir: string; closing: string } {
  const dir = join(tmp, 'fixed', '-work-app');
  const a = own(A, SESSION_T0, true);
  const i = a.findIndex((l) => l.includes('The postgres connection pool drops'));
  const rec = JSON.parse(a[i]) as { message: { content: unknown } };
  rec.message.content = [{ type: 'text', text: 'The pool handed out dead sockets. Fixed by setting idleTimeoutMillis to 10000 in src/db/pool.ts; npm run test:db passes now.' }];
  a[i] = JSON.stringify(rec);
  writeLines(join(dir, `${A}.jsonl`), a);
  const b = writeLines(join(dir, `${B}.jsonl`), own(B, SESSION_T0 + DAY));
  return { dir, closing: promptUuids(b).at(-1)! };
}

describe('eval prompts', () => {
  it('an offer the hook shows at a prompt is scored: a hit from the source session; wrong from a candidate judged N or where nothing was needed', () => {
    const f = fixedProject();
    const aPrompts = promptUuids(join(f.dir, `${A}.jsonl`));
    const pgExchange = aPrompts[4]; // A's postgres turn, where the fix is
    const score = (it: Record<string, unknown>) => {
      const r = cli(['eval', 'prompts', f.dir, '--gold', gold([{ id: 'w:p1', session: B, uuid: f.closing, ...it }]), '--json']);
      expect(r.code, r.stderr).toBe(0);
      return JSON.parse(r.stdout) as { shown_offers: number; self_lineage_offers: number; offers: Array<{ exchange: string; line: string }>; gold: Record<string, unknown> & { events: Array<Record<string, unknown>> } };
    };
    const hit = score({ needs_past: true, sources: [{ session: A, uuid: pgExchange, type: 'past-fix' }], judged_candidates: [{ session: A, uuid: pgExchange, verdict: 'W' }] });
    expect(hit).toMatchObject({ shown_offers: 1, self_lineage_offers: 0 });
    // The offered chunk's exchange is found by its time, and the line carries what was met.
    expect(hit.offers[0].exchange).toBe(pgExchange);
    expect(hit.offers[0].line).toContain('same ECONNRESET');
    expect(hit.gold).toMatchObject({ needs_past: 1, hits: 1, recall: 1, right_offers: 1, wrong_offers: 0, precision: 1, unjudged_offers: 0 });
    expect(hit.gold.events).toMatchObject([{ item: 'w:p1', outcome: 'hit', exchange: pgExchange, reason: null }]);
    const judgedN = score({ needs_past: true, sources: [{ session: A, uuid: aPrompts[0], type: 'fact' }], judged_candidates: [{ session: A, uuid: pgExchange, verdict: 'N' }] });
    expect(judgedN.gold).toMatchObject({ hits: 0, misses: 1, wrong_offers: 1, precision: 0 });
    const needless = score({ needs_past: false, sources: [], judged_candidates: [] });
    expect(needless.gold).toMatchObject({ needs_past: 0, wrong_offers: 1, precision: 0 });
    expect(needless.gold.events[0]).toMatchObject({ outcome: 'wrong-offer' });
  });

  it('replays in time order and reads the hook at each prompt it ran for; a resumed copy\'s repeated prompts are history', () => {
    const r = cli(['eval', 'prompts', project, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j).toMatchObject({ projects: 1, sessions: 3, self_lineage_offers: 0, gold: null });
    // Six prompts in A and in B each; C repeats B's six (no hook) and adds one.
    expect(j.hooked_prompts).toBe(13);
    expect(j.typed_prompts).toBe(13);
    const reasons = Object.values(j.by_reason as Record<string, number>).reduce((a, b) => a + b, 0);
    expect(reasons).toBe(13);
    // The first prompt of each session finds no cache.
    expect(j.by_reason['no-cache']).toBeGreaterThanOrEqual(3);
    expect(j.offer_rate).toBe(Math.round((j.shown_offers / j.typed_prompts) * 10000) / 10000);
  });

  it('--gold: each gold prompt scored with the hook\'s reason when silent; a prompt needing the past and missed is a miss', () => {
    const [b1, , , , , b6] = promptUuids(join(project, `${B}.jsonl`));
    const g = gold([
      { id: 'w:p1', session: B, uuid: b1, needs_past: true, sources: [{ session: A, uuid: promptUuids(join(project, `${A}.jsonl`))[4], type: 'fact' }], judged_candidates: [] },
      { id: 'w:p2', session: B, uuid: b6, needs_past: false, sources: [], judged_candidates: [] },
    ]);
    const r = cli(['eval', 'prompts', project, '--gold', g, '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout);
    expect(j.gold).toMatchObject({ project: '-work-app', items: 2, judged_prompts: 2, needs_past: 1 });
    const p1 = j.gold.events.find((e: { item: string }) => e.item === 'w:p1');
    // The first prompt of B: nothing in the cache yet.
    expect(p1).toMatchObject({ outcome: 'miss', reason: 'no-cache', handle: null });
    const p2 = j.gold.events.find((e: { item: string }) => e.item === 'w:p2');
    expect(['silent', 'wrong-offer']).toContain(p2.outcome);
    expect(j.gold.hits + j.gold.misses).toBe(1);
    const text = cli(['eval', 'prompts', project, '--gold', g]);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toMatch(/judged gold \(-work-app, 2 prompts\): need the past 1 · hit 0/);
    expect(text.stdout).toMatch(/miss: bbbbbbbb w:p1 \(no-cache\)/);
  });

  it('a gold of another project, or naming a prompt the transcripts do not have, is exit 2 naming it; no folder is exit 3', () => {
    const [b1] = promptUuids(join(project, `${B}.jsonl`));
    const other = cli(['eval', 'prompts', project, '--gold', gold([{ id: 'x:p1', session: B, uuid: b1, needs_past: false }], '-home-ken')]);
    expect(other.code).toBe(2);
    expect(other.stderr).toMatch(/the gold is for project "-home-ken", but the transcripts are project "-work-app"/);
    const missing = cli(['eval', 'prompts', project, '--gold', gold([{ id: 'w:p9', session: B, uuid: 'nope', needs_past: false }])]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/gold item w:p9 names prompt nope of session bbbbbbbb/);
    const bad = cli(['eval', 'prompts', project, '--gold', join(tmp, 'absent.json')]);
    expect(bad.code).toBe(2);
    expect(cli(['eval', 'prompts', join(tmp, 'absent')]).code).toBe(3);
    const help = cli(['eval', 'prompts', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/gold\.recall +hits \/ prompts that need the past/);
  });
});
