/**
 * Parts of the daemon shell on real files in temp dirs: the one cache sink (daemon/cache-sink.ts:
 * KILL wins, a failed write is logged with its code and kept as the last error, latency only
 * once written), the reporter (messages redacted and clipped before the log and the canary),
 * config reload (a rewrite noticed once, a broken file thrown once), and the layouts' rules
 * (daemon/claude-layout.ts, codex-layout.ts): the watcher never filters out a transcript the
 * layout classifies, nor a folder on its way.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { CacheSink } from '../../daemon/cache-sink.js';
import { CacheWriter } from '../../daemon/cache-writer.js';
import { ConfigReload } from '../../daemon/config-reload.js';
import { openJsonlLog, DAEMON_LOG_FILE, type EventRecord } from '../../daemon/logs.js';
import { Reporter } from '../../daemon/reporter.js';
import { classifyTranscriptPath, claudeIgnored } from '../../daemon/claude-layout.js';
import { CODEX_LAYOUT } from '../../daemon/codex-layout.js';
import type { Stats } from 'node:fs';
import type { ToolCache } from '../../shared/types.js';

const made: string[] = [];
afterAll(() => {
  for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
});
function temp(): string {
  const d = mkdtempSync(join(tmpdir(), 'ab-parts-'));
  made.push(d);
  return d;
}

const LOGS = ConfigSchema.parse({}).logs;

async function events(report: Reporter, logs: string): Promise<EventRecord[]> {
  await report.log.close();
  return readFileSync(join(logs, DAEMON_LOG_FILE), 'utf8').trim().split('\n').filter(Boolean).map((l) => JSON.parse(l) as EventRecord);
}

function sinkIn(dir: string, cacheDir = join(dir, 'cache')) {
  const logs = join(dir, 'logs');
  const report = new Reporter(openJsonlLog(logs, LOGS), 4242);
  const sink = new CacheSink(new CacheWriter(cacheDir), join(dir, 'KILL'), report);
  return { report, sink, logs, cacheDir };
}

const cache = (sessionId: string): ToolCache => ({ version: 1, sessionId, mode: 'default', step: 1, toolUseId: 't', sig: 's', createdAt: 1, expiresAt: 2, offer: null });

describe('cache sink', () => {
  it('writes a decision cache and times it (control for the KILL case)', async () => {
    const dir = temp();
    const { sink, report, logs, cacheDir } = sinkIn(dir);
    const d = { sessionId: 'sess-1', latency: {} as Record<string, number> };
    sink.forDecision(d, performance.now(), (c) => c.writeTool(cache('sess-1')));
    expect(existsSync(join(cacheDir, 'sess-1.tool.json'))).toBe(true);
    expect(d.latency.cache).toBeGreaterThanOrEqual(0);
    expect(report.lastError).toBeNull();
    expect((await events(report, logs)).filter((e) => e.event === 'cache-write-failed')).toEqual([]);
  });

  it('writes nothing once the KILL file exists, and times nothing', async () => {
    const dir = temp();
    const { sink, report, logs, cacheDir } = sinkIn(dir);
    writeFileSync(join(dir, 'KILL'), '');
    const d = { sessionId: 'sess-1', latency: {} as Record<string, number> };
    let called = false;
    sink.forDecision(d, performance.now(), () => { called = true; });
    expect(called).toBe(false);
    expect(existsSync(cacheDir)).toBe(false);
    expect(d.latency).toEqual({});
    await events(report, logs);
  });

  it('a failed write is logged with its errno code and kept as the last error; the daemon goes on', async () => {
    const dir = temp();
    const blocked = join(dir, 'not-a-dir');
    writeFileSync(blocked, 'a file where the cache folder should be');
    const { sink, report, logs } = sinkIn(dir, blocked);
    const d = { sessionId: 'sess-2', latency: {} as Record<string, number> };
    sink.forDecision(d, performance.now(), (c) => c.writeTool(cache('sess-2')));
    expect(d.latency).toEqual({});
    expect(report.lastError).toMatch(/^cache-write-failed: /);
    expect(sink.write('../escape', (c) => c.writeTool(cache('../escape')))).toBe('EUNSAFEID');
    const failed = (await events(report, logs)).filter((e) => e.event === 'cache-write-failed');
    expect(failed.map((e) => e.sessionId)).toEqual(['sess-2', '../escape']);
    expect(failed[0].reason).toMatch(/^E[A-Z]+$/);
    expect(failed[1].reason).toBe('EUNSAFEID');
  });
});

describe('reporter', () => {
  it('redacts and clips error messages before the log and the last error', async () => {
    const dir = temp();
    const logs = join(dir, 'logs');
    const report = new Reporter(openJsonlLog(logs, LOGS), 4242);
    const token = 'ghp_' + 'A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8';
    report.fail('hook-settings', new Error(`could not run: curl -H "Authorization: token ${token}" ${'x'.repeat(1000)}`));
    expect(report.lastError).not.toContain(token);
    expect(report.lastError!.length).toBeLessThanOrEqual('hook-settings: '.length + 300);
    report.attempt('housekeeping', () => undefined); // a step that works: nothing logged
    const [e, ...rest] = await events(report, logs);
    expect(rest).toEqual([]);
    expect(e).toMatchObject({ type: 'event', pid: 4242, event: 'error', reason: 'hook-settings' });
    expect(e.message).not.toContain(token);
    expect(e.message!.length).toBeLessThanOrEqual(300);
  });
});

describe('config reload', () => {
  it('notices a rewrite once, and a file that does not load throws once, until it changes again', () => {
    const home = temp();
    const env = { ACTIVE_BRAIN_HOME: home } as NodeJS.ProcessEnv;
    const path = join(home, 'config.json');
    writeFileSync(path, JSON.stringify({}));
    const reload = new ConfigReload(env, undefined);
    expect(reload.changed()).toBeNull();
    const bump = (text: string) => {
      writeFileSync(path, text);
      const t = statSync(path).mtimeMs / 1000 + 5 + Math.random();
      utimesSync(path, t, t);
    };
    bump(JSON.stringify({ modes: { default: {}, work: { cwdGlobs: ['/work/**'] } } }));
    expect(Object.keys(reload.changed()?.modes ?? {})).toEqual(['default', 'work']);
    expect(reload.changed()).toBeNull();
    bump('{ not json');
    expect(() => reload.changed()).toThrow();
    expect(reload.changed()).toBeNull();
  });
});

/** A stat-like object saying file or folder (what chokidar may hand the filter). */
const stat = (file: boolean) => ({ isFile: () => file, isDirectory: () => !file }) as Stats;

describe('layouts: the watcher keeps what the layout reads', () => {
  const seg = fc.stringMatching(/^[a-z0-9-]{1,8}$/);
  it('Claude Code: a classified transcript and the folders above it are never filtered out', () => {
    fc.assert(fc.property(seg, seg, seg, fc.boolean(), fc.boolean(), (project, session, agent, nested, sub) => {
      const root = '/r';
      const p = nested ? join(root, project, session, 'subagents', `agent-${agent}.jsonl`) : join(root, project, `${session}.jsonl`);
      const c = classifyTranscriptPath(root, p, sub);
      if (!c) return;
      expect(claudeIgnored(root, p, stat(true), sub)).toBe(false);
      for (let d = dirname(p); d !== root; d = dirname(d)) expect(claudeIgnored(root, d, stat(false), sub)).toBe(false);
    }));
  });
  it('Claude Code: subagent folders only when asked; other files and outside paths are filtered', () => {
    expect(claudeIgnored('/r', '/r', stat(false), false)).toBe(false);
    expect(claudeIgnored('/r', '/elsewhere/p/s.jsonl', stat(true), true)).toBe(true);
    expect(claudeIgnored('/r', '/r/notes.txt', stat(true), true)).toBe(true);
    expect(claudeIgnored('/r', '/r/p/s', stat(false), false)).toBe(true);
    expect(claudeIgnored('/r', '/r/p/s', stat(false), true)).toBe(false); // control
    expect(claudeIgnored('/r', '/r/p/s/other', stat(false), true)).toBe(true);
    expect(claudeIgnored('/r', '/r/p/s/subagents/a.txt', stat(true), true)).toBe(true);
    expect(claudeIgnored('/r', '/r/p/s/subagents/a/b.jsonl', stat(true), true)).toBe(true);
  });
  it('Codex CLI: a classified rollout and its day folders are never filtered out', () => {
    fc.assert(fc.property(fc.integer({ min: 2000, max: 2099 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 31 }), seg, (y, m, d, tail) => {
      const root = '/r';
      const p = join(root, String(y), String(m).padStart(2, '0'), String(d).padStart(2, '0'), `rollout-${tail}.jsonl`);
      expect(CODEX_LAYOUT.classify(root, p)).not.toBeNull();
      expect(CODEX_LAYOUT.ignored(root, p, stat(true))).toBe(false);
      for (let dir = dirname(p); dir !== root; dir = dirname(dir)) expect(CODEX_LAYOUT.ignored(root, dir, stat(false))).toBe(false);
    }));
  });
});

