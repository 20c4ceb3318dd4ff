/**
 * hook/inputs.ts transcriptLineage on real files: a resumed or forked transcript's first
 * records carry the session ids they were written in (the parent's), so the hook learns its
 * lineage from one bounded read of its own file — a fix from that parent is then its own past
 * (hook/tool-gates.ts own-session). Control: a fresh session's file names only itself.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LINEAGE_HEAD_BYTES, transcriptLineage } from '../../hook/inputs.js';

const root = mkdtempSync(join(tmpdir(), 'ab-tlineage-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const rec = (sessionId: string, i: number) => JSON.stringify({ type: 'user', uuid: `u-${i}`, sessionId, message: { role: 'user', content: 'x' } });

describe('transcriptLineage', () => {
  it('a resumed file names its parents; a fresh one names none; the own id is never listed', () => {
    const dir = join(root, '-home-dev-app');
    mkdirSync(dir, { recursive: true });
    const resumed = join(dir, 'cccc.jsonl');
    writeFileSync(resumed, [rec('aaaa', 1), rec('bbbb', 2), rec('cccc', 3)].join('\n') + '\n');
    expect(transcriptLineage(resumed, root, 'cccc').sort()).toEqual(['aaaa', 'bbbb']);
    const fresh = join(dir, 'dddd.jsonl');
    writeFileSync(fresh, [rec('dddd', 1), rec('dddd', 2)].join('\n') + '\n');
    expect(transcriptLineage(fresh, root, 'dddd')).toEqual([]);
  });

  it('bounded and safe: only the head is read; a path outside the root, missing, or not .jsonl gives []', () => {
    const dir = join(root, '-home-dev-big');
    mkdirSync(dir, { recursive: true });
    const big = join(dir, 'eeee.jsonl');
    writeFileSync(big, 'x'.repeat(LINEAGE_HEAD_BYTES + 10) + '\n' + rec('ffff', 1) + '\n');
    expect(transcriptLineage(big, root, 'eeee')).toEqual([]); // past the head: not read
    expect(transcriptLineage('/etc/passwd', root, 'x')).toEqual([]);
    expect(transcriptLineage(join(dir, 'none.jsonl'), root, 'x')).toEqual([]);
    expect(transcriptLineage(join(dir, '..', '..', 'escape.jsonl'), root, 'x')).toEqual([]);
    expect(transcriptLineage(42, root, 'x')).toEqual([]);
  });
});
