/**
 * The hook's reads of files that may not exist (hook/inputs.ts, hook/state.ts) tell "no file"
 * from "a file that cannot be read" without throwing for the first: a missing state, cache,
 * lineage or fixes file is no file (nothing to weigh), anything else at its path is invalid
 * (the gates fail closed) — as before the reads asked statSync instead of catching ENOENT.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readJsonFile, transcriptLineage, transcriptTail } from '../../hook/inputs.js';
import { readState } from '../../hook/state.js';
import { sessionHookStatePath } from '../../shared/paths.js';

const dir = mkdtempSync(join(tmpdir(), 'ab-missing-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('files that may be missing', () => {
  it('readJsonFile: missing → undefined; under a file (ENOTDIR), a directory, too big, not JSON → invalid (control: a small JSON file parses)', () => {
    writeFileSync(join(dir, 'a.json'), '{"x":1}');
    writeFileSync(join(dir, 'bad.json'), '{');
    mkdirSync(join(dir, 'd.json'));
    expect(readJsonFile(join(dir, 'none.json'), 100, [dir])).toBeUndefined();
    expect(readJsonFile(join(dir, 'nodir', 'none.json'), 100, [dir])).toBeUndefined();
    expect(readJsonFile(join(dir, 'a.json', 'x.json'), 100, [dir])).toBe('invalid');
    expect(readJsonFile(join(dir, 'd.json'), 100, [dir])).toBe('invalid');
    expect(readJsonFile(join(dir, 'a.json'), 3, [dir])).toBe('invalid');
    expect(readJsonFile(join(dir, 'bad.json'), 100, [dir])).toBe('invalid');
    expect(readJsonFile(join(dir, 'a.json'), 100, [dir])).toEqual({ x: 1 });
  });

  it('readState: no state file → null; a directory or a file in the way → invalid', () => {
    const env = { ACTIVE_BRAIN_HOME: join(dir, 'home') };
    expect(readState('s-none', env)).toBeNull();
    const path = sessionHookStatePath('s-dir', env);
    mkdirSync(path, { recursive: true });
    expect(readState('s-dir', env)).toBe('invalid');
    const blocked = { ACTIVE_BRAIN_HOME: join(dir, 'a.json') };
    expect(readState('s-x', blocked)).toBe('invalid');
  });

  it('a transcript that is not there: no lineage, no tail (control: one that is)', () => {
    const root = join(dir, 'projects');
    mkdirSync(join(root, 'p'), { recursive: true });
    const file = join(root, 'p', 's1.jsonl');
    expect(transcriptLineage(file, root, 's1')).toEqual([]);
    expect(transcriptTail(file, root)).toBe('');
    writeFileSync(file, '{"sessionId":"s0"}\n');
    expect(transcriptLineage(file, root, 's1')).toEqual(['s0']);
    expect(transcriptTail(file, root)).toContain('s0');
  });
});
