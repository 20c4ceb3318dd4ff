/**
 * shared/recall-log.ts: one JSON line per recall ({ts, handle, via}) under <home>/logs, private
 * permissions, and a failure to write is reported (false), never thrown.
 */
import { describe, it, expect, afterEach } from 'vitest';
import { readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { logRecall, recallsLogPath, MAX_LOGGED_HANDLE } from '../../shared/recall-log.js';
import { tempDir } from './helpers.js';

let cleanup: () => void = () => {};
afterEach(() => cleanup());

describe('logRecall', () => {
  it('appends {ts, handle, via} lines to <home>/logs/recalls.jsonl (0600 in a 0700 dir)', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const env = { ACTIVE_BRAIN_HOME: join(t.dir, 'home') };
    expect(logRecall('notes/a.md#1', 'cli', env, 1000)).toBe(true);
    expect(logRecall('notes/b.md#0', 'mcp', env, 2000)).toBe(true);
    expect(logRecall('x'.repeat(MAX_LOGGED_HANDLE + 50), 'cli', env, 3000)).toBe(true);
    const path = recallsLogPath(env);
    expect(path).toBe(join(t.dir, 'home', 'logs', 'recalls.jsonl'));
    const lines = readFileSync(path, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(lines.slice(0, 2)).toEqual([
      { ts: 1000, handle: 'notes/a.md#1', via: 'cli' },
      { ts: 2000, handle: 'notes/b.md#0', via: 'mcp' },
    ]);
    expect(lines[2].handle).toHaveLength(MAX_LOGGED_HANDLE);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.dir, 'home', 'logs')).mode & 0o777).toBe(0o700);
  });

  it('an unwritable log returns false instead of throwing', () => {
    const t = tempDir();
    cleanup = t.cleanup;
    const home = join(t.dir, 'home');
    mkdirSync(home);
    writeFileSync(join(home, 'logs'), 'a file where the logs dir should be');
    expect(logRecall('notes/a.md#1', 'cli', { ACTIVE_BRAIN_HOME: home })).toBe(false);
  });
});
