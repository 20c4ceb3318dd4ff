/**
 * Which records of a transcript file are copies (eval/offer-audit.ts readFileLineage): the
 * replay feeds them as history (no hook ran for them in that session). Real files in a temp
 * folder, in the shapes Claude Code writes: a resumed copy whose records keep the parent's
 * session id, and Claude Code 1.0's continue whose copied records carry the new id.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readFileLineage } from '../../eval/offer-audit.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ab-file-lineage-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const rec = (uuid: string, sessionId: string, minute: number) =>
  JSON.stringify({ type: 'user', uuid, sessionId, timestamp: new Date(Date.UTC(2026, 2, 1, 10, minute)).toISOString(), message: { role: 'user', content: 'x' } });
const file = (name: string, lines: string[]) => {
  const p = join(dir, `${name}.jsonl`);
  writeFileSync(p, lines.join('\n') + '\n');
  return p;
};

describe('readFileLineage: copies', () => {
  it('a resumed copy naming its parent, and a 1.0 continue naming nobody: the copied records are the copies, never the parent\'s own', async () => {
    const parent = file('p', [rec('u1', 'p', 0), rec('u2', 'p', 1)]);
    const resumed = file('r', [rec('u1', 'p', 0), rec('u2', 'p', 1), rec('u3', 'r', 5)]);
    const cont = file('c', [rec('u1', 'c', 0), rec('u2', 'c', 1), rec('u4', 'c', 9)]);
    const l = await readFileLineage([parent, resumed, cont]);
    expect([...(l.copies.get('r') ?? [])].sort()).toEqual(['u1', 'u2']);
    expect([...(l.copies.get('c') ?? [])].sort()).toEqual(['u1', 'u2']);
    expect(l.copies.has('p')).toBe(false);
    expect(l.groups.get('p')).toEqual(['c', 'p', 'r']);
  });

  it('a chain of resumes: records the named parent no longer holds are still copies of the session that started earlier', async () => {
    const first = file('f1', [rec('k1', 'f1', 0), rec('k2', 'f1', 1)]);
    // f2 resumed f1 but kept only a summary of it (holds k2, not k1) ...
    const second = file('f2', [rec('k2', 'f1', 1), rec('k5', 'f2', 20)]);
    // ... and f3, resumed from f2 much later, names f2 and repeats k1 from f1's history.
    const third = file('f3', [rec('k1', 'f2', 30), rec('k2', 'f2', 30), rec('k6', 'f3', 40)]);
    const l = await readFileLineage([first, second, third]);
    expect([...(l.copies.get('f3') ?? [])].sort()).toEqual(['k1', 'k2']);
    expect([...(l.copies.get('f2') ?? [])].sort()).toEqual(['k2']);
    expect(l.copies.has('f1')).toBe(false);
  });

  it('a fork that names the original, which then went on longer: the original has no copies, the fork has', async () => {
    const original = file('o', [rec('m1', 'o', 0), rec('m2', 'o', 1), rec('m3', 'o', 50)]);
    const fork = file('k', [rec('m1', 'o', 0), rec('m2', 'o', 1), rec('m4', 'k', 5)]);
    const l = await readFileLineage([original, fork]);
    expect(l.copies.has('o')).toBe(false);
    expect([...(l.copies.get('k') ?? [])].sort()).toEqual(['m1', 'm2']);
  });

  it('control: two files that share nothing have no copies; a shared record with no times tells no order (no copy)', async () => {
    const a = file('a', [rec('a1', 'a', 0)]);
    const b = file('b', [rec('b1', 'b', 3)]);
    const x = file('x', [JSON.stringify({ type: 'user', uuid: 'z1', sessionId: 'x' })]);
    const y = file('y', [JSON.stringify({ type: 'user', uuid: 'z1', sessionId: 'y' })]);
    const l = await readFileLineage([a, b, x, y]);
    expect(l.copies.size).toBe(0);
  });
});
