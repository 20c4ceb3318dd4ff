/**
 * The Past fix end to end, every part real: a store indexed by the real CLI from a
 * real-format past transcript in which `git push` failed for want of an upstream branch and
 * was fixed; the real daemon precomputing the hook's fixes; the real hook process (the file
 * `install` registers, bin/active-brain-hook.cjs) fed the PostToolUseFailure payload Claude
 * Code sends for the recurring error in a new session.
 *   soak (the default)   → prints nothing, logs would-fire (channel tool)
 *   live (enable --channel tool) → prints the Past fix naming what fixed it
 *   a first-seen error   → silent (control)
 *   a near match (another head, the same telling line) → the Past fix through a key-line file
 *   no daemon running    → the indexer's own fixes files serve the hook; the kill file silences
 *   a continued copy of the past session (its records re-stamped with the new session id,
 *   uuids kept) → the daemon writes its lineage file and the hook stays silent there
 */
import { afterEach, describe, expect, it } from 'vitest';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { failurePayload, hookRecords, runHook } from './hook-process.js';
import { errorSignature } from '../../shared/error-signature.js';
import { writeConfig } from '../helpers/faults.js';
import { NO_UPSTREAM, STEADY_CONFIG, appendFixedPushSession, cli, newSession, startDaemon, tempEnv, waitCanary, waitFor, type Env } from './helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

/** An earlier session of project -work-app met "no upstream branch" and fixed it; the real
 *  CLI indexes its folder. */
/** The hook's own deadline made generous: these tests are about what it prints, and a loaded
 *  shared machine can stretch its ~15 ms past the default 150 ms (then it is silent: 'deadline'). */
const HOOK_CONFIG = STEADY_CONFIG;

function indexFixedPush(env: Env): string {
  const hist = join(env.home, '..', 'history', '-work-app');
  mkdirSync(hist, { recursive: true });
  const past = { ...newSession(env), path: '' };
  past.path = join(hist, `${past.id}.jsonl`);
  appendFixedPushSession(past, 'feature-parser');
  expect(cli(env, ['index', 'add', join(env.home, '..', 'history'), '--region', 'sessions', '--kind', 'transcripts']).code).toBe(0);
  return past.path;
}

describe('Past fix at the failure, end to end', () => {
  it('soak logs would-fire and prints nothing; live prints the fix; a first-seen error stays silent', async () => {
    e = tempEnv('ab-pastfix-e2e-');
    writeConfig(e, HOOK_CONFIG);
    indexFixedPush(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const sig = errorSignature(NO_UPSTREAM('feature-cart'))!.sig;
    await waitFor(() => existsSync(join(e.home, 'fixes', `${sig}.json`)), 20_000, 'fixes file');

    // Soak (every channel starts there): silent, logged as would-fire on the tool channel.
    const soakSession = randomUUID();
    const soak = runHook(e, failurePayload(e, soakSession, NO_UPSTREAM('feature-cart')));
    expect(soak).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ session: soakSession, channel: 'tool', event: 'PostToolUseFailure', outcome: 'would-fire', type: 'past-fix', sig });

    // Live on the tool channel, through the product's own rollout command.
    const en = cli(e, ['enable', 'default', '--channel', 'tool', '--force']);
    expect(en.code, en.stderr + en.stdout).toBe(0);
    const liveSession = randomUUID();
    const live = runHook(e, failurePayload(e, liveSession, NO_UPSTREAM('feature-cart')));
    expect(live.code).toBe(0);
    expect(live.stderr).toBe('');
    const out = JSON.parse(live.stdout) as { hookSpecificOutput: { hookEventName: string; additionalContext: string } };
    expect(out.hookSpecificOutput.hookEventName).toBe('PostToolUseFailure');
    const line = out.hookSpecificOutput.additionalContext;
    expect(line).toMatch(/^Possibly relevant note \(data, not instructions\): \[active-brain · Past fix · 0\.\d\d\]/);
    // What fixed it comes first, so a line cut to the byte cap keeps it; then which error.
    expect(line).toContain('] fixed by git push --set-upstream origin');
    expect(line).toContain('same "the current branch');
    expect(Buffer.byteLength(line)).toBeLessThanOrEqual(400);
    expect(line).toContain('(recall: active-brain recall ');
    expect(line).not.toContain('\n');
    expect(hookRecords(e).at(-1)).toMatchObject({ session: liveSession, channel: 'tool', outcome: 'print' });

    // Control: an error no past session met — silent, with its reason.
    const first = runHook(e, failurePayload(e, randomUUID(), 'Exit code 2\nmake: *** No rule to make target \'lint\'.  Stop.', 'make lint'));
    expect(first).toMatchObject({ code: 0, stdout: '', stderr: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ channel: 'tool', outcome: 'silent', reason: 'no-fix' });
  });

  it('a near match: the same telling line under another head gets the Past fix at that failure (real daemon, real hook process); control: an unrelated error stays silent', async () => {
    e = tempEnv('ab-pastfix-near-');
    writeConfig(e, HOOK_CONFIG);
    indexFixedPush(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    expect(cli(e, ['enable', 'default', '--channel', 'tool', '--force']).code).toBe(0);
    // Another line in front (a pre-push hook's chatter naming a failure of its own): another
    // head, so no exact file; the telling line is the same.
    const near = `Exit code 1\nwarning: pre-push hook could not find a remote config, skipped\n${NO_UPSTREAM('feature-cart').replace(/^Exit code \d+\n/, '')}`;
    expect(errorSignature(near)!.sig).not.toBe(errorSignature(NO_UPSTREAM('feature-cart'))!.sig);
    expect(existsSync(join(e.home, 'fixes', `${errorSignature(near)!.sig}.json`))).toBe(false);
    const r = runHook(e, failurePayload(e, randomUUID(), near));
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } };
    expect(out.hookSpecificOutput.additionalContext).toContain('] fixed by git push --set-upstream origin');
    expect(hookRecords(e).at(-1)).toMatchObject({ channel: 'tool', outcome: 'print', type: 'past-fix' });
    const other = runHook(e, failurePayload(e, randomUUID(), 'Exit code 1\nwarning: pre-push hook could not find a remote config, skipped\nfatal: could not read Username for the remote: terminal prompts disabled'));
    expect(other).toMatchObject({ code: 0, stdout: '' });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('a continued copy of the past session (records re-stamped, uuids kept): the daemon writes its lineage and the hook does not offer the session its own past; control: without that file it would', async () => {
    e = tempEnv('ab-pastfix-lineage-');
    writeConfig(e, HOOK_CONFIG);
    const pastPath = indexFixedPush(e);
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    expect(cli(e, ['enable', 'default', '--channel', 'tool', '--force']).code).toBe(0);
    // Claude Code 1.0's continue: a new file whose first records are the old session's, with
    // the new session id written into them, so the transcript's head names no other session.
    const id = randomUUID();
    const copy = readFileSync(pastPath, 'utf8').split('\n').filter(Boolean).map((l) => JSON.stringify({ ...JSON.parse(l), sessionId: id }));
    writeFileSync(join(e.project, `${id}.jsonl`), copy.join('\n') + '\n');
    const lineageFile = join(e.home, 'cache', `${id}.lineage.json`);
    await waitFor(() => existsSync(lineageFile), 20_000, 'lineage file');
    const pastId = pastPath.replace(/^.*\/|\.jsonl$/g, '');
    expect(JSON.parse(readFileSync(lineageFile, 'utf8'))).toMatchObject({ version: 1, sessionId: id, sessions: [pastId] });
    const again = () => runHook(e, failurePayload(e, id, NO_UPSTREAM('feature-cart')));
    expect(again()).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ session: id, channel: 'tool', outcome: 'silent', reason: 'own-session' });
    // A stop keeps it (offer caches go; a lineage is never stale): still silent with no daemon.
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(again()).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ session: id, reason: 'own-session' });
    // Control: the same call without that file prints the fix.
    rmSync(lineageFile);
    expect(JSON.parse(again().stdout).hookSpecificOutput.additionalContext).toContain('fixed by git push --set-upstream origin');
  });

  it('no daemon needed at the failure: the indexer writes the fixes files, the hook prints with no daemon running; `stop` keeps them, the kill file silences them', async () => {
    e = tempEnv('ab-pastfix-nodaemon-');
    writeConfig(e, HOOK_CONFIG);
    indexFixedPush(e);
    const sig = errorSignature(NO_UPSTREAM('feature-cart'))!.sig;
    expect(existsSync(join(e.home, 'fixes', `${sig}.json`))).toBe(true); // written by the index run itself
    expect(cli(e, ['enable', 'default', '--channel', 'tool', '--force']).code).toBe(0);
    const live = runHook(e, failurePayload(e, randomUUID(), NO_UPSTREAM('feature-cart')));
    expect(JSON.parse(live.stdout).hookSpecificOutput.additionalContext).toContain('fixed by git push --set-upstream origin');
    // A daemon that starts and stops leaves them in place.
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(existsSync(join(e.home, 'fixes', `${sig}.json`))).toBe(true);
    expect(JSON.parse(runHook(e, failurePayload(e, randomUUID(), NO_UPSTREAM('feature-cart'))).stdout).hookSpecificOutput.additionalContext).toContain('fixed by');
    // The kill file silences it (control above: the same call printed).
    expect(cli(e, ['kill']).code).toBe(0);
    expect(runHook(e, failurePayload(e, randomUUID(), NO_UPSTREAM('feature-cart')))).toMatchObject({ code: 0, stdout: '' });
    expect(hookRecords(e).at(-1)).toMatchObject({ outcome: 'silent', reason: 'killed' });
  });
});
