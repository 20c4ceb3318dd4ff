/**
 * Live uptake (ops/live-uptake.ts) on real files: a state dir with the fixes file the daemon
 * wrote, real-format transcripts under a transcripts root, and hook log records as the hook
 * writes them. A session that ran the offered fix and got through is confirmed; the control
 * (same offer, the session went on with other work) is not; an offer whose transcript is gone
 * is counted and said unread, never confirmed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { NO_UPSTREAM, toolResultLine, toolUseLine, userLine, type Session } from '../daemon/helpers.js';
import { liveUptake } from '../../ops/live-uptake.js';
import type { HookLine } from '../../ops/channel-records.js';

const KEY = '0123456789abcd';
const OFFER_ID = `fix-${KEY}-7`;
let dir = '';
afterEach(() => dir && rmSync(dir, { recursive: true, force: true }));

function setup() {
  dir = mkdtempSync(join(tmpdir(), 'ab-uptake-'));
  const home = join(dir, 'home');
  const root = join(dir, 'projects');
  mkdirSync(join(home, 'fixes'), { recursive: true });
  mkdirSync(join(root, '-work-app'), { recursive: true });
  const reason = 'fixed by git push --set-upstream origin <branch> — same "fatal: The current branch <branch> has no upstream branch" error in session 1a2b… (2026-01-25)';
  writeFileSync(join(home, 'fixes', `${KEY}.json`), JSON.stringify({
    version: 1, sig: KEY, storeStamp: 's', createdAt: 1,
    fixes: [{ offer: { id: OFFER_ID, chunkId: 7, handle: 'sessions#7', type: 'past-fix', confidence: 0.85, reason, region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool' }, sourceSession: 'other', scope: 'global', actions: ['git push'] }],
  }));
  const session = (): Session => {
    const id = randomUUID();
    return { id, path: join(root, '-work-app', `${id}.jsonl`), cwd: '/work/app', last: null };
  };
  const env = { ...process.env, ACTIVE_BRAIN_HOME: home };
  return { home, root, env, session, reason };
}

const hookLine = (s: Session, id: string, outcome = 'would-fire'): HookLine => ({
  ts: 1, session: s.id, outcome, reason: outcome, latency_ms: 1, boot_ms: 1, mode: 'default', mode_state: 'soak', channel: 'tool', event: 'PostToolUseFailure',
  tool_use_id: id, step: 1, offer_id: OFFER_ID, handle: 'sessions#7', type: 'past-fix', confidence: 0.85, exit: 0,
} as HookLine);

describe('live uptake', () => {
  it('confirms the session that ran the fix and got through; not the one that did something else; an unread transcript is counted, not confirmed', () => {
    const { root, env, session, reason } = setup();
    const took = session();
    appendFileSync(took.path, [
      userLine(took, 'push it'),
      toolUseLine(took, 'toolu_a1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(took, 'toolu_a1', NO_UPSTREAM('feature-b'), true),
      toolUseLine(took, 'toolu_a2', 'Bash', { command: 'git push --set-upstream origin feature-b' }),
      toolResultLine(took, 'toolu_a2', "branch 'feature-b' set up to track 'origin/feature-b'.", false),
    ].join('\n') + '\n');
    const other = session();
    appendFileSync(other.path, [
      userLine(other, 'push it'),
      toolUseLine(other, 'toolu_b1', 'Bash', { command: 'git push 2>&1' }),
      toolResultLine(other, 'toolu_b1', NO_UPSTREAM('feature-c'), true),
      toolUseLine(other, 'toolu_b2', 'Bash', { command: 'npm test' }),
      toolResultLine(other, 'toolu_b2', 'ok', false),
    ].join('\n') + '\n');
    const gone = session();
    // The hook ran twice at one call (user and project scope): one offer.
    const hook = [hookLine(took, 'toolu_a1'), hookLine(took, 'toolu_a1'), hookLine(other, 'toolu_b1', 'print'), hookLine(gone, 'toolu_c1'), { ...hookLine(took, 'toolu_x'), outcome: 'silent', reason: 'budget' } as HookLine];
    const u = liveUptake(hook, root, env);
    expect(u).toMatchObject({ past_fix_offers: 3, confirmed_offers: 1, steps_saved: 0, unread: 1 });
    expect(u.rows.find((r) => r.session === took.id)).toMatchObject({ confirmed: true, steps_between: 0, reason, unread: null });
    expect(u.rows.find((r) => r.session === other.id)).toMatchObject({ confirmed: false, steps_between: null, unread: null });
    expect(u.rows.find((r) => r.session === gone.id)).toMatchObject({ confirmed: false, unread: 'no-transcript' });
  });
});
