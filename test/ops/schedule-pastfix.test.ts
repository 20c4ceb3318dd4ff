/**
 * "Keep the store fresh", joined end to end on real processes: an error met and fixed in
 * today's session becomes a Past fix for the next session after ONE scheduled index run.
 * A real daemon on a temp home (tool channel live), the timer's exact command line (from
 * the generated unit's ExecStart= / Environment=), and the registered hook process fed the
 * PostToolUseFailure payload of the same error in a new session.
 *   before the run      → the hook is silent (no-fix): the fix is only in a transcript
 *   after one run       → the daemon rebuilds the hook's fixes within a cycle; the hook prints it
 */
import { afterAll, describe, expect, it } from 'vitest';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { errorSignature } from '../../shared/error-signature.js';
import { failurePayload, hookRecords, runHook } from '../daemon/hook-process.js';
import { writeConfig } from '../helpers/faults.js';
import { NO_UPSTREAM, STEADY_CONFIG, appendExchange, appendFixedPushSession, cli, newSession, startDaemon, tempEnv, waitCanary, waitFor, type Env } from '../daemon/helpers.js';
import { runScheduled, scheduledCommand } from './scheduled-run.js';

const envs: Env[] = [];
afterAll(() => envs.forEach((e) => e.cleanup()));

describe('a fix made today is offered after the next scheduled index run', () => {
  it('silent before the run, the Past fix printed after it (real daemon, the unit\'s command, the hook process)', async () => {
    const e = tempEnv('ab-sched-fix-');
    envs.push(e);
    writeConfig(e, STEADY_CONFIG); // the hook's runs are judged on what they print and log
    appendExchange(newSession(e), 'how do the retries work', 'They back off exponentially.');
    expect(cli(e, ['index', 'add', e.root, '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
    const cmd = scheduledCommand(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const en = cli(e, ['enable', 'default', '--channel', 'tool', '--force']);
    expect(en.code, en.stderr + en.stdout).toBe(0);

    // Today: git push fails for want of an upstream branch and the agent fixes it.
    appendFixedPushSession(newSession(e), 'feature-today');
    const sig = errorSignature(NO_UPSTREAM('feature-next'))!.sig;
    const fixFile = join(e.home, 'fixes', `${sig}.json`);

    // Control: before the scheduled run the fix is only in a transcript — nothing to offer.
    const before = runHook(e, failurePayload(e, randomUUID(), NO_UPSTREAM('feature-next')));
    expect(before).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ channel: 'tool', outcome: 'silent', reason: 'no-fix' });
    expect(existsSync(fixFile)).toBe(false);

    // One scheduled run.
    const run = await runScheduled(cmd, e);
    expect(run.code, run.stderr).toBe(0);
    const ranAt = Date.now();
    await waitFor(() => existsSync(fixFile), 20_000, 'the daemon to rebuild the fixes after the run');
    const syncedMs = Date.now() - ranAt;

    const session = randomUUID();
    const after = runHook(e, failurePayload(e, session, NO_UPSTREAM('feature-next')));
    expect(after.code).toBe(0);
    const line = (JSON.parse(after.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    expect(line).toMatch(/\[active-brain · Past fix · 0\.\d\d\]/);
    expect(line).toContain('] fixed by git push --set-upstream origin');
    expect(hookRecords(e).at(-1)).toMatchObject({ session, channel: 'tool', outcome: 'print', sig });
    // The daemon follows the store within its cycle (QUICK: 200 ms), far inside any schedule.
    expect(syncedMs).toBeLessThan(10_000);
  });
});
