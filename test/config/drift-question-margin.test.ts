/**
 * The config refuses a mode whose question bonus would let a question fire drift on its own
 * (driftQuestionBonus > driftZ − DRIFT_QUESTION_MARGIN): in process (ConfigError, exit code 2,
 * the message says what to set) and as the CLI a user runs. Controls: the defaults and a
 * consistent pair load.
 */
import { describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { loadConfig, ConfigError } from '../../config/load.js';
import { DRIFT_QUESTION_MARGIN } from '../../config/schema.js';

const home = () => mkdtempSync(join(tmpdir(), 'ab-cfg-'));

describe('driftQuestionBonus ≤ driftZ − margin', () => {
  it('defaults and a consistent pair load (controls)', () => {
    const h = home();
    try {
      const env = { ACTIVE_BRAIN_HOME: h };
      const d = loadConfig({ env }).config.modes.default;
      expect(d.driftQuestionBonus).toBeLessThanOrEqual(d.driftZ - DRIFT_QUESTION_MARGIN);
      const ok = loadConfig({ env, flags: ['modes.default.driftZ=2', 'modes.default.driftQuestionBonus=1.5'] }).config.modes.default;
      expect([ok.driftZ, ok.driftQuestionBonus]).toEqual([2, 1.5]);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });

  it('an old pinned driftZ with the new default bonus is refused, naming the key and the fix', () => {
    const h = home();
    try {
      let err: unknown;
      try {
        loadConfig({ env: { ACTIVE_BRAIN_HOME: h }, flags: ['modes.default.driftZ=2'] });
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).exitCode).toBe(2);
      expect((err as Error).message).toMatch(/modes\.default\.driftQuestionBonus/);
      expect((err as Error).message).toMatch(/lower driftQuestionBonus to 1\.5 or raise driftZ to 3/);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });

  it('as a process: `config --set` exits 2 with the message on stderr', () => {
    const h = home();
    try {
      const bin = resolve(__dirname, '../../bin/active-brain.js');
      const r = spawnSync(process.execPath, [bin, 'config', '--set', 'modes.default.driftZ=1'], { env: { PATH: process.env.PATH, ACTIVE_BRAIN_HOME: h }, encoding: 'utf8' });
      expect(r.status).toBe(2);
      expect(r.stderr).toMatch(/driftQuestionBonus.*at most driftZ − 0\.5/);
      expect(r.stdout).toBe('');
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});
