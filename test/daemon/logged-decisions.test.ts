/**
 * daemon/logged-decisions.ts: the decisions a restarted daemon finds in its log and the redo
 * windows it may find them again in (so one decided again after a crash is not logged twice).
 * The real-process paths are test/daemon/crash-redo.test.ts (the window made certain; a resumed
 * copy read after a clean restart is logged) and test/faults/crashes.test.ts "after repeated
 * kills"; here the reading and the rule: final decisions only, the cut line, a torn record, the
 * rotated file, a log that is not a regular file, the window, once per record.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTemp, tempDir } from '../hook/helpers.js';
import { DAEMON_LOG_FILE } from '../../daemon/logs.js';
import { LoggedBefore, exchangeKey, loggedBefore, loggedKey, readLoggedDecisions, redoWindows, toolStepKey } from '../../daemon/logged-decisions.js';

afterAll(cleanupTemp);

const exchange = (sessionId: string, uuid: string, provisional = false) => JSON.stringify({ type: 'decision', ts: 1, sessionId, exchangeUuid: uuid, provisional, would_fire: true });
const tool = (sessionId: string, id: string | null) => JSON.stringify({ type: 'decision', channel: 'tool', ts: 1, sessionId, tool_use_id: id, would_fire: false });
const event = JSON.stringify({ type: 'event', ts: 1, pid: 1, event: 'start' });

/** Objects shaped like log records, each field present or not, of the right type or not. */
const anyOf = (...v: unknown[]) => fc.constantFrom(...v);
const recordLike = fc.record(
  {
    type: anyOf('decision', 'event', 1, null),
    channel: anyOf('tool', 'exchange', 7),
    sessionId: fc.oneof(fc.string({ maxLength: 6 }), fc.integer()),
    exchangeUuid: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)),
    tool_use_id: fc.oneof(fc.string({ maxLength: 6 }), fc.constant(null)),
    provisional: anyOf(true, false, 'true', 0),
  },
  { requiredKeys: [] },
);

function logWith(lines: string[]): string {
  const dir = tempDir('ab-logged-');
  writeFileSync(join(dir, DAEMON_LOG_FILE), lines.join('\n') + '\n');
  return dir;
}

describe('the decisions a restarted daemon finds in its log', () => {
  it('final exchange decisions and tool decisions with an id; not provisional ones, events or a torn last record', () => {
    const dir = logWith([event, exchange('s1', 'u1'), exchange('s1', 'u2', true), tool('s1', 'toolu_1'), tool('s1', null), exchange('s2', 'u3')]);
    // A record torn by the crash (no newline after it, cut mid-JSON).
    writeFileSync(join(dir, DAEMON_LOG_FILE), exchange('s2', 'u4').slice(0, 30), { flag: 'a' });
    const keys = readLoggedDecisions(dir, 0);
    expect([...keys.keys()].sort()).toEqual([exchangeKey('s1', 'u1'), exchangeKey('s2', 'u3'), toolStepKey('s1', 'toolu_1')].sort());
    expect(keys.get(exchangeKey('s1', 'u1'))).toBe(1);
    expect(keys.get(toolStepKey('s1', 'toolu_1')!)).toBe(1);
  });

  it('reads only the tail: the line the window cuts is not taken; control: a window over the whole file takes the first', () => {
    const lines = Array.from({ length: 50 }, (_, k) => exchange('s', `u${k}`));
    const dir = logWith(lines);
    const tail = readLoggedDecisions(dir, 0, 10 * (lines[49].length + 1) + 5); // ten whole lines and a cut one
    expect(tail.size).toBe(10);
    expect(tail.has(exchangeKey('s', 'u49'))).toBe(true);
    expect(tail.has(exchangeKey('s', 'u39'))).toBe(false);
    expect(readLoggedDecisions(dir, 0).size).toBe(50);
  });

  it('reads back as far as the oldest save it needs: a window that reaches an older record stops there; a later save needs less (windows grow ×4 from 1 MiB)', () => {
    const pad = 'p'.repeat(150);
    const lines = Array.from({ length: 30_000 }, (_, k) => JSON.stringify({ type: 'decision', ts: k, sessionId: 's', exchangeUuid: `u${k}`, provisional: false, would_fire: true, pad }));
    const dir = logWith(lines);
    // ~256 bytes a record: the first window holds the last ~4,100, the next the last ~16,400.
    const late = readLoggedDecisions(dir, 27_000);
    expect(late.has(exchangeKey('s', 'u27000'))).toBe(true);
    expect(late.has(exchangeKey('s', 'u29999'))).toBe(true);
    expect(late.has(exchangeKey('s', 'u20000'))).toBe(false); // past the first window, not needed
    const early = readLoggedDecisions(dir, 15_000);
    expect(early.has(exchangeKey('s', 'u15000'))).toBe(true); // the window grew to reach it
    expect(early.has(exchangeKey('s', 'u100'))).toBe(false);
  });

  it('a live log shorter than the window is topped up from the newest rotated file (a rotation just before the crash)', () => {
    const dir = logWith([exchange('s', 'live')]);
    writeFileSync(join(dir, `${DAEMON_LOG_FILE}.1`), [exchange('s', 'rotated-old'), exchange('s', 'rotated-new')].join('\n') + '\n');
    writeFileSync(join(dir, `${DAEMON_LOG_FILE}.2`), exchange('s', 'older') + '\n');
    expect([...readLoggedDecisions(dir, 0).keys()].sort()).toEqual([exchangeKey('s', 'live'), exchangeKey('s', 'rotated-new'), exchangeKey('s', 'rotated-old')].sort());
  });

  it('none when the log is absent or not a regular file (a symlink, a folder): the start never fails on it', () => {
    expect(readLoggedDecisions(tempDir('ab-logged-none-'), 0).size).toBe(0);
    const real = logWith([exchange('s', 'u')]);
    expect(readLoggedDecisions(real, 0).size).toBe(1); // control
    const linked = tempDir('ab-logged-link-');
    symlinkSync(join(real, DAEMON_LOG_FILE), join(linked, DAEMON_LOG_FILE));
    expect(readLoggedDecisions(linked, 0).size).toBe(0);
    const folder = tempDir('ab-logged-dir-');
    mkdirSync(join(folder, DAEMON_LOG_FILE));
    expect(readLoggedDecisions(folder, 0).size).toBe(0);
  });

  it('property: any JSON line gives a key only for a final decision naming its session and exchange or tool call', () => {
    fc.assert(
      fc.property(fc.oneof(fc.jsonValue(), recordLike), (v) => {
        const key = loggedKey(v);
        if (key === null) return;
        const r = v as Record<string, unknown>;
        expect(r.type).toBe('decision');
        expect(typeof r.sessionId).toBe('string');
        if (r.channel === 'tool') expect(key).toBe(toolStepKey(r.sessionId as string, r.tool_use_id as string));
        else {
          expect(r.provisional).not.toBe(true);
          expect(key).toBe(exchangeKey(r.sessionId as string, r.exchangeUuid as string));
        }
      }),
      { numRuns: 300 },
    );
    expect(loggedKey(JSON.parse(exchange('s', 'u', true)))).toBeNull();
    expect(loggedKey(JSON.parse(exchange('s', 'u')))).toBe(exchangeKey('s', 'u'));
  });
});

describe('which decisions count as logged before', () => {
  const transcript = (bytes: number) => {
    const dir = tempDir('ab-redo-');
    const path = join(dir, 's.jsonl');
    writeFileSync(path, 'x'.repeat(bytes));
    return { dir, path };
  };
  const offsetsWith = (dir: string, path: string, offset: number, same = true) => {
    const st = statSync(path);
    const file = join(dir, 'offsets.json');
    writeFileSync(file, JSON.stringify({ version: 1, files: { [path]: { offset, size: offset, dev: st.dev, ino: same ? st.ino : st.ino + 1, birthtimeMs: Math.round(st.birthtimeMs || 0), seedUntil: 0, updatedAt: 1 } } }));
    return file;
  };

  it('a redo window is the bytes past the saved offset of the file it was saved for; none when all was saved, the file was replaced, or the offsets are unreadable', () => {
    const { dir, path } = transcript(1000);
    expect([...redoWindows([offsetsWith(dir, path, 600)]).windows]).toEqual([[path, 1000]]);
    expect(redoWindows([offsetsWith(dir, path, 600)]).since).toBe(1); // when that offset was saved
    expect(redoWindows([offsetsWith(dir, path, 1000)])).toEqual({ windows: new Map(), since: Infinity });
    expect(redoWindows([offsetsWith(dir, path, 600, false)]).windows.size).toBe(0);
    writeFileSync(join(dir, 'bad.json'), '{ not json');
    expect(redoWindows([join(dir, 'bad.json'), join(dir, 'absent.json')]).windows.size).toBe(0);
  });

  it('with no file to redo, the log is not read at all; with one, what it logged since that save counts', () => {
    const { dir, path } = transcript(1000);
    writeFileSync(join(dir, DAEMON_LOG_FILE), exchange('s', 'u') + '\n');
    expect(loggedBefore(dir, [offsetsWith(dir, path, 1000)], true).take(path, exchangeKey('s', 'u'), 900)).toBe(false);
    expect(loggedBefore(dir, [offsetsWith(dir, path, 600)], true).take(path, exchangeKey('s', 'u'), 900)).toBe(true);
  });

  it('in the window, same key: once per record; outside the window, in another file, or after a reset: new', () => {
    const k = exchangeKey('s', 'u');
    const before = (n = 1) => new LoggedBefore(new Map([[k, n]]), new Map([['/t/s.jsonl', 1000]]));
    const b = before();
    expect(b.take('/t/s.jsonl', k, 900)).toBe(true);
    expect(b.take('/t/s.jsonl', k, 900)).toBe(false); // the record answered once
    const two = before(2); // two records of one key (a copy in a file read before the crash too)
    expect([two.take('/t/s.jsonl', k, 900), two.take('/t/s.jsonl', k, 950), two.take('/t/s.jsonl', k, 990)]).toEqual([true, true, false]);
    expect(before().take('/t/s.jsonl', k, 1001)).toBe(false); // past the window: new
    expect(before().take('/t/copy.jsonl', k, 900)).toBe(false); // another file: a resumed copy
    expect(before().take('/t/s.jsonl', exchangeKey('s', 'other'), 900)).toBe(false);
    expect(before().take('/t/s.jsonl', null, 900)).toBe(false);
    const reset = before();
    reset.forget('/t/s.jsonl');
    expect(reset.take('/t/s.jsonl', k, 900)).toBe(false);
  });
});
