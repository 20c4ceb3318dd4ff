/**
 * `active-brain backtest` as a new user runs it, real CLI on temp dirs: two real-format
 * sessions under the transcripts root — an earlier one where `git push` failed for want of an
 * upstream and was fixed, a later one meeting the same error — indexed into the store. The
 * backtest offers the Past fix in the later session only (never a session its own fix, never
 * one from its future), writes the page, and its offers become labelable; `soak report` shows
 * the history's figures under their own name and counts history labels apart.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NO_UPSTREAM, appendFixedPushSession, cli, newSession, tempEnv, toolResultLine, toolUseLine, userLine, type Env } from '../daemon/helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

/** Move a transcript's records and mtime back by `ms` (an earlier, closed session). */
function backdate(path: string, ms: number): void {
  const lines = readFileSync(path, 'utf8').split('\n').filter(Boolean).map((l) => {
    const r = JSON.parse(l) as { timestamp?: string };
    if (r.timestamp) r.timestamp = new Date(Date.parse(r.timestamp) - ms).toISOString();
    return JSON.stringify(r);
  });
  writeFileSync(path, lines.join('\n') + '\n');
  const old = (Date.now() - ms) / 1000;
  utimesSync(path, old, old);
}

describe('active-brain backtest', () => {
  it('offers the Past fix where the error came back, writes the page, and makes the offer labelable', () => {
    e = tempEnv('ab-backtest-');
    const early = newSession(e);
    appendFixedPushSession(early, 'feature-a');
    const late = newSession(e);
    appendFileSync(late.path, [
      userLine(late, 'push the cart branch'),
      toolUseLine(late, 'toolu_l1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(late, 'toolu_l1', NO_UPSTREAM('feature-b'), true),
    ].join('\n') + '\n');
    // The late session happened a day later (its records are stamped now; the early one is backdated).
    const lines = readFileSync(early.path, 'utf8').split('\n').filter(Boolean).map((l) => {
      const r = JSON.parse(l) as { timestamp?: string };
      if (r.timestamp) r.timestamp = new Date(Date.parse(r.timestamp) - 86_400_000).toISOString();
      return JSON.stringify(r);
    });
    writeFileSync(early.path, lines.join('\n') + '\n');
    const old = (Date.now() - 86_400_000) / 1000;
    utimesSync(early.path, old, old);
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);

    const html = join(e.home, '..', 'history.html');
    const r = cli(e, ['backtest', '--since', '7d', '--json', '--html', html]);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { offers: Array<Record<string, unknown>>; tool_steps: number; history_offers: number; sidechain_offers: number };
    const tool = j.offers.filter((o) => o.channel === 'tool' && (o.hook === 'would-fire' || o.hook === 'printed'));
    expect(tool).toHaveLength(1);
    expect(tool[0]).toMatchObject({ session: late.id, channel: 'tool', step: 1, tool_use_id: 'toolu_l1', type: 'past-fix', hook: 'would-fire' });
    expect(j.offers.some((o) => o.session === early.id && o.type === 'past-fix' && o.hook === 'would-fire')).toBe(false);
    expect(j.history_offers).toBe(1);
    expect(j.sidechain_offers).toBe(0);
    expect(existsSync(html)).toBe(true);
    expect(readFileSync(html, 'utf8')).toContain(`data-session="${late.id}"`);
    // The offer carries the text it would have printed, in the history file and on the page.
    const hist = JSON.parse(readFileSync(join(e.home, 'logs', 'backtest-offers.jsonl'), 'utf8').split('\n')[0]) as { reason?: string };
    expect(hist.reason).toMatch(/^fixed by git push --set-upstream origin/);
    expect(readFileSync(html, 'utf8')).toContain('fixed by git push --set-upstream origin');

    // The offer is labelable, marked as from history …
    const lab = cli(e, ['label', '--offer', String(JSON.parse(readFileSync(join(e.home, 'logs', 'backtest-offers.jsonl'), 'utf8').split('\n')[0]).offer_id), '--session', late.id, '--verdict', 'useful', '--json']);
    expect(lab.code, lab.stderr).toBe(0);
    const labels = readFileSync(join(e.home, 'labels.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
    expect(labels.at(-1)).toMatchObject({ session: late.id, channel: 'tool', history: true, useful: true });
    // … and soak report names the history's figures apart from the live soak's.
    const soak = JSON.parse(cli(e, ['soak', 'report', '--json', '--channel', 'tool']).stdout) as { figures: { history: Record<string, unknown> | null }; gates: Array<{ name: string; figure: string }> };
    expect(soak.figures.history).toMatchObject({ sessions: 2, tool_offers: 1, labels: { n: 1, useful: 1 } });
    expect(soak.gates.find((g) => g.name.startsWith('tool.usefulness'))!.figure).toContain('0 live, 1 from history');
  });

  it('says which Past fixes the session then confirmed (ran the fix, got through) and the steps between; a session that did something else does not confirm', () => {
    e = tempEnv('ab-backtest-');
    const early = newSession(e);
    appendFixedPushSession(early, 'feature-a');
    backdate(early.path, 86_400_000);
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
    // Took it: pushed with --set-upstream after one look at the branch, and got through.
    const took = newSession(e);
    appendFileSync(took.path, [
      userLine(took, 'push the cart branch'),
      toolUseLine(took, 'toolu_t1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(took, 'toolu_t1', NO_UPSTREAM('feature-b'), true),
      toolUseLine(took, 'toolu_t2', 'Bash', { command: 'git branch --show-current' }),
      toolResultLine(took, 'toolu_t2', 'feature-b', false),
      toolUseLine(took, 'toolu_t3', 'Bash', { command: 'git push --set-upstream origin feature-b 2>&1' }),
      toolResultLine(took, 'toolu_t3', "branch 'feature-b' set up to track 'origin/feature-b'.", false),
    ].join('\n') + '\n');
    // Control: met the same error and went on with other work.
    const other = newSession(e);
    appendFileSync(other.path, [
      userLine(other, 'push the search branch'),
      toolUseLine(other, 'toolu_o1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(other, 'toolu_o1', NO_UPSTREAM('feature-c'), true),
      toolUseLine(other, 'toolu_o2', 'Bash', { command: 'npm test' }),
      toolResultLine(other, 'toolu_o2', 'all tests passed', false),
    ].join('\n') + '\n');

    const r = cli(e, ['backtest', '--since', '7d', '--json']);
    expect(r.code, r.stderr).toBe(0);
    const j = JSON.parse(r.stdout) as { offers: Array<Record<string, unknown>>; past_fix_offers: number; confirmed_offers: number; steps_saved: number; printed: number; tool_would_fire: number };
    const shown = j.offers.filter((o) => o.type === 'past-fix' && (o.hook === 'would-fire' || o.hook === 'printed'));
    expect(shown.find((o) => o.session === took.id)).toMatchObject({ confirmed: true, steps_saved: 1 });
    expect(shown.find((o) => o.session === other.id)).toMatchObject({ confirmed: false, steps_saved: null });
    expect(j).toMatchObject({ past_fix_offers: 2, confirmed_offers: 1, steps_saved: 1 });
    // The text output says it per line and in all; soak report carries the history's figures.
    const page = join(e.home, '..', 'uptake.html');
    const text = cli(e, ['backtest', '--since', '7d', '--html', page]).stdout;
    expect(text).toMatch(/confirmed by the session \(1 step\(s\) between\)/);
    // The page's header counts the sessions with the text output's numbers.
    const [, n, main, side] = /replayed (\d+) sessions \((\d+) main, (\d+) sidechain\)/.exec(text)!;
    const html = readFileSync(page, 'utf8');
    expect(html).toContain(`${n} session(s) (${main} main, ${side} sidechain) from 3 transcript(s)`);
    // The first screen: both offers with the uptake of each.
    const said = /<table class="said-table" id="said">([\s\S]*?)<\/table>/.exec(html)![1];
    // As many rows as the text output's counts of offers past the hook's gates.
    expect((said.match(/<tr>/g) ?? []).length - 1).toBe(j.printed + j.tool_would_fire);
    expect(j.printed + j.tool_would_fire).toBe(2);
    expect((said.match(/✓ confirmed<br>/g) ?? []).length).toBe(1);
    expect((said.match(/not confirmed/g) ?? []).length).toBe(1);
    expect(html).toContain('<span class="big">1 of 2</span> Past fixes confirmed by the session');
    expect(text).toContain('Past fixes confirmed by the session (ran the fix, then got through): 1 of 2');
    const soak = JSON.parse(cli(e, ['soak', 'report', '--json', '--channel', 'tool']).stdout) as { figures: { history: Record<string, unknown> } };
    expect(soak.figures.history).toMatchObject({ past_fix_offers: 2, confirmed_offers: 1, steps_saved: 1 });
    const soakText = cli(e, ['soak', 'report', '--channel', 'tool']).stdout;
    expect(soakText).toContain('Past fixes confirmed by the session: none shown yet');
    expect(soakText).toContain('Past fixes confirmed by the session 1 of 2 (1 steps between, an upper bound)');
  });

  it('a wrong root or an empty window is a clear error (exit 3) naming what to do', () => {
    e = tempEnv('ab-backtest-');
    const none = cli(e, ['backtest']);
    expect(none.code).toBe(3);
    expect(none.stderr).toMatch(/no transcripts under .* written in the last 14d/);
    const bad = cli(e, ['backtest', '--since', 'soon']);
    expect(bad.code).toBe(2);
  });

  it('a page path it cannot write fails at once, before the replay (exit 3, nothing replayed)', () => {
    e = tempEnv('ab-backtest-');
    const s = newSession(e);
    appendFixedPushSession(s, 'feature-a');
    const t0 = Date.now();
    const r = cli(e, ['backtest', '--since', 'all', '--html', '/no/such/dir/x.html']);
    expect(r.code).toBe(3);
    expect(r.stderr).toContain('cannot write /no/such/dir/x.html: its folder /no/such/dir does not exist; choose a writable path');
    // Failed before loading the model and replaying: no history snapshot was written.
    expect(existsSync(join(e.home, 'logs', 'backtest-offers.jsonl'))).toBe(false);
    expect(Date.now() - t0).toBeLessThan(20_000);
    const dir = cli(e, ['backtest', '--since', 'all', '--html', e.root]);
    expect(dir.code).toBe(3);
    expect(dir.stderr).toMatch(/cannot write .*: it is a folder/);
    // Control: a writable path runs the backtest and writes the page.
    const ok = cli(e, ['backtest', '--since', 'all', '--html', join(e.root, '..', 'page.html')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(existsSync(join(e.root, '..', 'page.html'))).toBe(true);
    expect(existsSync(join(e.home, 'logs', 'backtest-offers.jsonl'))).toBe(true);
  });
});
