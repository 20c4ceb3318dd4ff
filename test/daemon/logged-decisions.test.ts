/**
 * daemon/logged-decisions.ts: the decisions a restarted daemon finds in its log (so one decided
 * again after a crash is not logged twice). The whole path — SIGKILLs between the record and
 * the offset, and no exchange logged twice — is test/faults/crashes.test.ts "after repeated
 * kills"; here the reading itself: final decisions only, the window's cut line, a torn record,
 * a log that is not a regular file.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTemp, tempDir } from '../hook/helpers.js';
import { DAEMON_LOG_FILE } from '../../daemon/logs.js';
import { exchangeKey, loggedKey, readLoggedDecisions, toolStepKey } from '../../daemon/logged-decisions.js';

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
    const keys = readLoggedDecisions(dir);
    expect([...keys].sort()).toEqual([exchangeKey('s1', 'u1'), exchangeKey('s2', 'u3'), toolStepKey('s1', 'toolu_1')].sort());
  });

  it('reads only the tail: the line the window cuts is not taken; control: a window over the whole file takes the first', () => {
    const lines = Array.from({ length: 50 }, (_, k) => exchange('s', `u${k}`));
    const dir = logWith(lines);
    const tail = readLoggedDecisions(dir, 10 * (lines[49].length + 1) + 5); // ten whole lines and a cut one
    expect(tail.size).toBe(10);
    expect(tail.has(exchangeKey('s', 'u49'))).toBe(true);
    expect(tail.has(exchangeKey('s', 'u39'))).toBe(false);
    expect(readLoggedDecisions(dir).size).toBe(50);
  });

  it('none when the log is absent or not a regular file (a symlink, a folder): the start never fails on it', () => {
    expect(readLoggedDecisions(tempDir('ab-logged-none-')).size).toBe(0);
    const real = logWith([exchange('s', 'u')]);
    expect(readLoggedDecisions(real).size).toBe(1); // control
    const linked = tempDir('ab-logged-link-');
    symlinkSync(join(real, DAEMON_LOG_FILE), join(linked, DAEMON_LOG_FILE));
    expect(readLoggedDecisions(linked).size).toBe(0);
    const folder = tempDir('ab-logged-dir-');
    mkdirSync(join(folder, DAEMON_LOG_FILE));
    expect(readLoggedDecisions(folder).size).toBe(0);
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
