/**
 * The real daemon against bad input: malformed lines, a 20 MB single line, binary garbage,
 * a file deleted mid-stream, an unwritable cache dir, a transcript root created after start.
 * It logs a reason, skips, keeps running, and never writes conversation text anywhere in the
 * state dir (a sentinel planted in the transcript is searched for in every file).
 * Also: the real transcripts in ../shared/eval/claude-code replay through it without an error.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, existsSync, mkdirSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { loadSchema, validate } from '../helpers/json-schema.js';
import { repoRoot } from '../helpers/model.js';
import {
  allFiles,
  appendExchange,
  decisions,
  events,
  logRecords,
  newSession,
  readJson,
  startDaemon,
  tempEnv,
  waitCanary,
  waitFor,
  type Env,
} from './helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

const SENTINEL = 'zqxjv-sentinel-4417-privacy';

describe('daemon bad input (real process)', () => {
  it('skips malformed, huge and binary lines with a reason, keeps going, writes no conversation text', async () => {
    e = tempEnv();
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    appendExchange(s, `Please look at the ${SENTINEL} module and its tests`, `The ${SENTINEL} module has no tests yet; I will add some.`);
    await waitFor(() => decisions(e).length >= 1, 15_000, 'first decision');

    appendFileSync(s.path, '{"type":"user","message": {not json\n');
    appendFileSync(s.path, '{"type":"user","message":{"role":"user","content":"' + 'x'.repeat(20 * 1024 * 1024) + '"}}\n');
    appendFileSync(s.path, Buffer.concat([randomBytes(4096), Buffer.from('\n')]));
    appendExchange(s, `Add a unit test for ${SENTINEL} parsing`, `Added a parsing test for ${SENTINEL}.`);
    await waitFor(() => decisions(e).some((r) => r.turn === 1), 20_000, 'decision after the bad lines');

    const skipped = events(e, 'skipped-line');
    const reasons = skipped.map((r) => r.reason);
    expect(reasons).toContain('malformed');
    expect(reasons.some((r) => /long/.test(String(r)))).toBe(true);
    for (const r of skipped) expect(r.path).toBe(s.path);
    expect(d.child.exitCode).toBeNull();

    // A file deleted while watched, and a cache dir that cannot be written.
    const gone = newSession(e);
    appendExchange(gone, 'short lived session', 'ok');
    await waitFor(() => events(e, 'session-new').length >= 2, 15_000, 'second session');
    unlinkSync(gone.path);
    await waitFor(() => events(e, 'file-removed').length >= 1, 10_000, 'file-removed event');

    rmSync(join(e.home, 'cache'), { recursive: true, force: true });
    writeFileSync(join(e.home, 'cache'), 'not a directory');
    appendExchange(s, 'one more question about the release notes', 'Here is a draft of the release notes.');
    await waitFor(() => events(e, 'cache-write-failed').length >= 1, 15_000, 'cache-write-failed event');
    expect(d.child.exitCode).toBeNull();
    unlinkSync(join(e.home, 'cache'));
    appendExchange(s, 'and the changelog entry please', 'Added the changelog entry.');
    await waitFor(() => existsSync(join(e.home, 'cache', `${s.id}.json`)), 15_000, 'cache after recovery');

    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);

    // Privacy: the sentinel is in the transcript, and nowhere in the state dir.
    expect(readFileSync(s.path, 'utf8')).toContain(SENTINEL);
    const files = allFiles(e.home);
    expect(files.length).toBeGreaterThan(4);
    for (const f of files) expect(readFileSync(f, 'latin1').includes(SENTINEL), f).toBe(false);
    // Every log record still matches its schema.
    const schemas = { decision: loadSchema('daemon-decision'), event: loadSchema('daemon-event') };
    for (const r of logRecords(e)) expect(validate(r.type === 'decision' ? schemas.decision : schemas.event, r)).toEqual([]);
  });

  it('waits for a transcript root created after start', async () => {
    e = tempEnv();
    rmSync(e.root, { recursive: true, force: true });
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    mkdirSync(e.project, { recursive: true });
    const s = newSession(e);
    await new Promise((r) => setTimeout(r, 400));
    appendExchange(s, 'first prompt in a brand new root', 'Hello.');
    const cache = await waitFor(() => readJson(join(e.home, 'cache', `${s.id}.json`)), 15_000, 'cache in late root');
    expect(cache).toMatchObject({ sessionId: s.id, turn: 0 });
    d.child.kill('SIGINT'); // Ctrl-C in the foreground: the same clean stop as SIGTERM
    expect(await d.exited).toBe(0);
    expect(events(e, 'stop').at(-1)).toMatchObject({ reason: 'sigint' });
    expect(existsSync(join(e.home, 'daemon.lock'))).toBe(false);
  });

  const evalRoot = resolve(repoRoot, '..', 'shared', 'eval', 'claude-code', 'projects');
  it.skipIf(!existsSync(evalRoot))('replays the real eval transcripts without an error', async () => {
    e = tempEnv();
    const d = startDaemon(e, ['daemon.watchSubagents=true']);
    await waitCanary(e, d.pid);
    cpSync(evalRoot, e.root, { recursive: true }); // new files after start: read as live lines
    let last = -1;
    await waitFor(() => {
      const n = decisions(e).length;
      const stable = n > 0 && n === last;
      last = n;
      return stable && events(e, 'session-new').length >= 3;
    }, 60_000, 'decisions to settle');
    await new Promise((r) => setTimeout(r, 1000));
    const n = decisions(e).length;
    expect(n).toBeGreaterThan(10);
    expect(events(e, 'error')).toEqual([]);
    const subagentDecisions = decisions(e).filter((r) => String((r as { sessionId: string }).sessionId) && r.worker === true);
    // Subagent files are observed (state) but never offered to, and never get a cache of their own.
    for (const r of subagentDecisions) expect(r.would_fire).toBe(false);
    expect(d.child.exitCode).toBeNull();
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
