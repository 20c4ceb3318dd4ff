/**
 * A crash between a batch's decision records and the offset that covers them (the real daemon
 * process): after the restart those exchanges and tool steps are decided again from the last
 * saved offset, and none is logged a second time (daemon/logged-decisions.ts). The window is
 * made wide and certain: offsets.json is put back to what it held after the first exchange
 * before the killed daemon is restarted. Controls: a decision the log does not hold (an exchange
 * appended while the daemon was down) is logged; after a clean restart, a resumed copy (the
 * parent's records, session id and uuids included, in a new file, as Claude Code writes it) is
 * logged as it is by a daemon that never restarted. And a session that ended mid-turn: the tool
 * steps of its open exchange, decided at once, are not decided again at the next start even when
 * the log no longer holds them (rotated away); control: a step appended after the start is.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import {
  appendExchange,
  decisions,
  newSession,
  readJson,
  startDaemon,
  tempEnv,
  toolResultLine,
  toolUseLine,
  turnEndLine,
  userLine,
  waitCanary,
  waitFor,
  type Env,
  type Session,
} from './helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

const offsetsFile = (env: Env) => join(env.home, 'offsets.json');
const committedOffset = (env: Env, s: Session) => readJson<{ files?: Record<string, { offset?: number }> }>(offsetsFile(env))?.files?.[s.path]?.offset ?? -1;
const finalsOf = (env: Env, sessionId: string) => decisions(env).filter((r) => r.channel !== 'tool' && r.provisional !== true && r.sessionId === sessionId).length;
const caughtUp = (env: Env, s: Session) => committedOffset(env, s) === statSync(s.path).size;

/** Final decisions per exchange uuid and per tool_use_id. */
function counts(env: Env): Map<string, number> {
  const n = new Map<string, number>();
  for (const r of decisions(env)) {
    if (r.provisional === true) continue;
    const key = r.channel === 'tool' ? `tool ${String(r.tool_use_id)}` : `exchange ${String(r.exchangeUuid)}`;
    n.set(key, (n.get(key) ?? 0) + 1);
  }
  return n;
}

describe('a crash between the decision records and the saved offset (real process)', () => {
  it('the exchanges and tool steps decided again after the restart are logged once; control: one appended while it was down is logged', async () => {
    e = tempEnv('ab-crash-redo-');
    const s = newSession(e);
    const first = startDaemon(e);
    await waitCanary(e, first.pid);
    appendExchange(s, 'How do I configure the worker pool size in the scheduler?', 'Set pool.size in scheduler.toml; the default is four workers.');
    await waitFor(() => caughtUp(e, s), 20_000, 'the first exchange committed');
    const early = readFileSync(offsetsFile(e), 'utf8');

    appendExchange(s, 'And where do the retry limits for failed jobs live?', 'In jobs/retry.ts: maxAttempts and the backoff table.');
    appendFileSync(s.path, [
      userLine(s, 'Run the migration for the jobs table please.'),
      toolUseLine(s, 'toolu_redo_1', 'Bash', { command: 'npm run migrate' }),
      toolResultLine(s, 'toolu_redo_1', 'Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432', true),
      turnEndLine(s),
    ].join('\n') + '\n');
    appendExchange(s, 'Thanks, what about the cron schedule for the cleanup job?', 'It runs nightly at 02:00 from cron/cleanup.yaml.');
    await waitFor(() => caughtUp(e, s), 20_000, 'every exchange committed');
    const before = counts(e);
    expect(before.get('tool toolu_redo_1')).toBe(1);
    expect([...before.values()].filter((v) => v === 1).length).toBeGreaterThanOrEqual(4);

    first.child.kill('SIGKILL');
    await first.exited;
    // As if the kill had come after the records and before the offset was saved.
    writeFileSync(offsetsFile(e), early);
    appendExchange(s, 'One more: which port does the admin UI listen on?', 'Port 8081, set in admin/server.ts.');

    const second = startDaemon(e);
    await waitCanary(e, second.pid);
    await waitFor(() => caughtUp(e, s), 20_000, 'caught up after the restart');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);

    const after = counts(e);
    expect([...after.entries()].filter(([, v]) => v !== 1)).toEqual([]);
    expect(after.size).toBe(before.size + 1); // control: the exchange appended while it was down
  }, 60_000);

  for (const restart of [false, true]) {
    it(`a resumed copy read after ${restart ? 'a clean restart' : 'no restart (control)'} is logged: the copied exchanges again under the parent's id, and the new one`, async () => {
      e = tempEnv('ab-crash-copy-');
      const s = newSession(e);
      let d = startDaemon(e);
      await waitCanary(e, d.pid);
      appendExchange(s, 'How do I configure the worker pool size in the scheduler?', 'Set pool.size in scheduler.toml.');
      appendExchange(s, 'And where do the retry limits for failed jobs live?', 'In jobs/retry.ts: maxAttempts.');
      await waitFor(() => caughtUp(e, s), 20_000, 'the parent committed');
      if (restart) {
        d.child.kill('SIGTERM');
        expect(await d.exited).toBe(0);
        d = startDaemon(e);
        await waitCanary(e, d.pid);
      }
      expect(finalsOf(e, s.id)).toBe(2);
      const copy: Session = { ...s, id: randomUUID(), path: join(e.project, `${randomUUID()}.jsonl`) };
      writeFileSync(copy.path, readFileSync(s.path, 'utf8'));
      appendExchange(copy, 'Now which port does the admin UI listen on?', 'Port 8081.');
      await waitFor(() => caughtUp(e, copy), 20_000, 'the copy committed');
      d.child.kill('SIGTERM');
      expect(await d.exited).toBe(0);
      expect(finalsOf(e, s.id)).toBe(4);
      expect(finalsOf(e, copy.id)).toBe(1);
    }, 60_000);
  }

  it('the tool steps of an exchange left open are not decided again at the next start, though the log no longer holds them; control: a new step is', async () => {
    e = tempEnv('ab-crash-open-');
    const s = newSession(e);
    const toolDecisions = (id: string) => decisions(e).filter((r) => r.channel === 'tool' && r.tool_use_id === id).length;
    const first = startDaemon(e);
    await waitCanary(e, first.pid);
    appendExchange(s, 'How do I configure the worker pool size in the scheduler?', 'Set pool.size in scheduler.toml.');
    // The session ends mid-turn: a failed call and nothing after it.
    appendFileSync(s.path, [
      userLine(s, 'Run the migration for the jobs table please.'),
      toolUseLine(s, 'toolu_open_1', 'Bash', { command: 'npm run migrate' }),
      toolResultLine(s, 'toolu_open_1', 'Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5432', true),
    ].join('\n') + '\n');
    await waitFor(() => toolDecisions('toolu_open_1') === 1 && committedOffset(e, s) > 0, 20_000, 'the open step decided');
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(committedOffset(e, s)).toBeLessThan(statSync(s.path).size); // the open exchange is past the saved offset
    rmSync(join(e.home, 'logs'), { recursive: true, force: true }); // its records rotated away

    const second = startDaemon(e);
    await waitCanary(e, second.pid);
    appendFileSync(s.path, [
      toolUseLine(s, 'toolu_open_2', 'Bash', { command: 'npm run migrate -- --retry' }),
      toolResultLine(s, 'toolu_open_2', 'Exit code 1\nError: connect ECONNREFUSED 127.0.0.1:5433', true),
    ].join('\n') + '\n');
    await waitFor(() => toolDecisions('toolu_open_2') === 1, 20_000, 'the new step decided');
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
    expect(toolDecisions('toolu_open_1')).toBe(0);
  }, 60_000);
});
