/**
 * The live report's first screen (ops/report-model.ts liveReportModel) from real files: a
 * state dir whose hook log holds a tool-channel Past fix (from a fixes file: no daemon
 * decision) and whose daemon log holds prompt decisions of a main and a subagent session, and
 * the session's transcript under the transcripts root. The Past fix is a row with the line the
 * hook printed (its reason from the fixes file) and whether the session confirmed it; the
 * header counts the sessions as `report` prints them; the prompt channel's rate is over the
 * main session's exchanges.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { ConfigSchema } from '../../config/schema.js';
import { liveReportModel } from '../../ops/report-model.js';
import { renderReport, sessionsLine } from '../../ops/report-html.js';
import { NO_UPSTREAM, toolResultLine, toolUseLine, userLine, type Session } from '../daemon/helpers.js';

const KEY = 'abcdef01234567';
const OFFER_ID = `fix-${KEY}-3`;
let dir = '';
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

const decision = (sessionId: string, turn: number, over: Record<string, unknown> = {}) => ({
  type: 'decision', ts: Date.now() - 60_000 + turn, sessionId, turn, exchangeUuid: `${sessionId}-${turn}`, offset: turn * 100, mode: 'default', mode_state: 'soak',
  worker: false, sidechain: false, seed: false, prompt_only: false, injected: false, trigger: null, trigger_values: { drift_z: -2 }, gates: [],
  would_fire: false, silence: 'no-trigger', offer: null, sufficiency: null, candidates: 0, latency_ms: {}, provisional: false, ...over,
});

describe('live report: the first screen', () => {
  it('shows the hook\'s Past fix with its printed line and the session\'s uptake; counts sessions as the header says', () => {
    dir = mkdtempSync(join(tmpdir(), 'ab-live-report-'));
    const home = join(dir, 'home');
    const root = join(dir, 'projects');
    mkdirSync(join(home, 'logs'), { recursive: true });
    mkdirSync(join(home, 'fixes'));
    mkdirSync(join(root, '-work-app'), { recursive: true });
    const reason = 'fixed by git push --set-upstream origin <branch> — same "has no upstream branch" error in session 9f8e… (2026-12-01)';
    writeFileSync(join(home, 'fixes', `${KEY}.json`), JSON.stringify({
      version: 1, sig: KEY, storeStamp: 's', createdAt: 1,
      fixes: [{ offer: { id: OFFER_ID, chunkId: 3, handle: 'sessions#3', type: 'past-fix', confidence: 0.85, reason, region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool' }, sourceSession: 'other', scope: 'global' }],
    }));
    const id = randomUUID();
    const s: Session = { id, path: join(root, '-work-app', `${id}.jsonl`), cwd: '/work/app', last: null };
    appendFileSync(s.path, [
      userLine(s, 'push it'),
      toolUseLine(s, 'toolu_1', 'Bash', { command: 'git push' }),
      toolResultLine(s, 'toolu_1', NO_UPSTREAM('feat'), true),
      toolUseLine(s, 'toolu_2', 'Bash', { command: 'git push -u origin feat' }),
      toolResultLine(s, 'toolu_2', 'ok', false),
    ].join('\n') + '\n');
    const sub = randomUUID();
    writeFileSync(join(home, 'logs', 'daemon.jsonl'), [decision(id, 0), decision(id, 1), decision(sub, 0, { sidechain: true })].map((l) => JSON.stringify(l)).join('\n') + '\n');
    const hook = { ts: Date.now() - 1000, session: id, outcome: 'would-fire', reason: 'would-fire', latency_ms: 4, boot_ms: 30, mode: 'default', mode_state: 'soak', channel: 'tool', event: 'PostToolUseFailure', step: 1, tool_use_id: 'toolu_1', sig: KEY, source: 'fixes', offer_id: OFFER_ID, handle: 'sessions#3', type: 'past-fix', confidence: 0.85, bytes: 200, exit: 0 };
    writeFileSync(join(home, 'logs', 'hook.jsonl'), JSON.stringify(hook) + '\n');

    const config = ConfigSchema.parse({ transcriptsRoot: root });
    const m = liveReportModel(config, { ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: root });
    expect(m.counts).toEqual({ sessions: 2, main: 1, sidechain: 1, transcripts: null });
    expect(m.offers).toHaveLength(1);
    expect(m.offers[0]).toMatchObject({ session: id, channel: 'tool', type: 'past-fix', outcome: 'would-fire', uptake: { confirmed: true, steps_between: 0 } });
    expect(m.offers[0].text).toContain('fixed by git push --set-upstream origin');
    expect(m.offers[0].text).toContain('(recall: active-brain recall sessions#3)');
    expect(m.uptake).toMatchObject({ past_fix_offers: 1, confirmed_offers: 1, steps_saved: 0, unread: 0 });
    const html = renderReport(m);
    expect(html).toContain(sessionsLine(m.counts));
    // The session with the offer is drawn open; the quiet subagent session is folded.
    expect(html.indexOf(`data-session="${id}"`)).toBeLessThan(html.indexOf('<details class="quiet">'));
    expect(html.indexOf(`data-session="${sub}"`)).toBeGreaterThan(html.indexOf('<details class="quiet">'));
  });
});
