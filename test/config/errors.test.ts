/**
 * Config errors name what the user can act on: an unknown key by its full name and source
 * (not its parent object), a value nobody set as "(its default)" — in process, exit code 2.
 */
import { describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, ConfigError } from '../../config/load.js';

function errorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return e as ConfigError;
  }
  throw new Error('expected a ConfigError');
}

describe('config error messages', () => {
  it('an unknown key is named in full with its source; control: a known key loads', () => {
    const h = mkdtempSync(join(tmpdir(), 'ab-cfg-e-'));
    try {
      const env = { ACTIVE_BRAIN_HOME: h };
      expect(loadConfig({ env, flags: ['daemon.cycleMs=500'] }).config.daemon.cycleMs).toBe(500);
      const top = errorOf(() => loadConfig({ env, flags: ['nosuch.key=1'] }));
      expect(top.message).toMatch(/unknown config key "nosuch" \(from flag\)/);
      expect(top.exitCode).toBe(2);
      const nested = errorOf(() => loadConfig({ env, flags: ['daemon.cycleMS=500'] }));
      expect(nested.message).toMatch(/unknown config key "daemon\.cycleMS" \(from flag\)/);
      writeFileSync(join(h, 'config.json'), JSON.stringify({ hook: { nope: true } }));
      const fromFile = errorOf(() => loadConfig({ env })).message;
      expect(fromFile).toMatch(/unknown config key "hook\.nope" \(from config\.json\): remove or rename it in .*config\.json/);
      // Never the command that fails the same way; the keys that are allowed there instead.
      expect(fromFile).not.toContain('run `active-brain config`');
      expect(fromFile).toContain('Keys here: deadlineMs, maxBytes');
      expect(nested.message).toContain('Did you mean "daemon.cycleMs"?');
      expect(nested.message).toContain('fix the --set flag');
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });

  it('a cross-key check on a key nobody set says "(its default)", not undefined', () => {
    const h = mkdtempSync(join(tmpdir(), 'ab-cfg-e-'));
    try {
      const err = errorOf(() => loadConfig({ env: { ACTIVE_BRAIN_HOME: h }, flags: ['modes.default.driftZ=1'] }));
      expect(err.message).toMatch(/"modes\.default\.driftQuestionBonus" = \(its default\) \(from default\)/);
      expect(err.message).not.toMatch(/undefined/);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});

describe('--set and mode names', () => {
  it('a misspelled mode is refused, naming the modes there are; control: an existing mode can be set', () => {
    const h = mkdtempSync(join(tmpdir(), 'ab-cfg-m-'));
    try {
      const env = { ACTIVE_BRAIN_HOME: h };
      expect(loadConfig({ env, flags: ['modes.default.minConfidence=0.7'] }).config.modes.default.minConfidence).toBe(0.7);
      const err = errorOf(() => loadConfig({ env, flags: ['modes.defualt.state=live'] }));
      expect(err.message).toMatch(/mode "defualt", which does not exist \(modes: default\)/);
      expect(err.exitCode).toBe(2);
      // with modes in config.json, those are the ones that exist
      writeFileSync(join(h, 'config.json'), JSON.stringify({ modes: { work: { cwdGlobs: ['/work/**'] } } }));
      expect(loadConfig({ env, flags: ['modes.work.minGapTurns=2'] }).config.modes.work.minGapTurns).toBe(2);
      expect(errorOf(() => loadConfig({ env, flags: ['modes.default.state=live'] })).message).toMatch(/mode "default", which does not exist \(modes: work\)/);
    } finally {
      rmSync(h, { recursive: true, force: true });
    }
  });
});
