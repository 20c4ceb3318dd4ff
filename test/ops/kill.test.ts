import { describe, it, expect } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { killState } from '../../ops/kill-switch.js';

const cli = join(repoRoot, 'bin', 'active-brain.js');
const run = (home: string, ...args: string[]) =>
  execFileSync(process.execPath, [cli, ...args], { env: { ...process.env, ACTIVE_BRAIN_HOME: home }, encoding: 'utf8' });

describe('kill / unkill', () => {
  it('creates and removes the same file a person would touch', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-kill-'));
    expect(killState({ ACTIVE_BRAIN_HOME: home }).killed).toBe(false);
    const out = JSON.parse(run(home, 'kill', '--reason', 'testing', '--json'));
    expect(out.killed).toBe(true);
    expect(out.reason).toBe('testing');
    expect(existsSync(join(home, 'KILL'))).toBe(true);
    expect(JSON.parse(run(home, 'unkill', '--json')).removed).toBe(true);
    expect(existsSync(join(home, 'KILL'))).toBe(false);
    expect(JSON.parse(run(home, 'unkill', '--json')).removed).toBe(false);
  });

  it('treats an empty touched file as killed', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-kill-'));
    writeFileSync(join(home, 'KILL'), '');
    const s = killState({ ACTIVE_BRAIN_HOME: home });
    expect(s.killed).toBe(true);
    expect(s.since).toBeNull();
  });
});
