/**
 * core/workers.ts: every worker marker refuses, and the control (an ordinary interactive
 * session) passes; property: the function is total.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigSchema } from '../../config/schema.js';
import { isSubagentPath, isWorkerSession, projectDirName } from '../../core/workers.js';

const workers = ConfigSchema.parse({}).workers;
const HOME = '/home/user/.active-brain';
const ROOT = '/home/user/.claude/projects';
const S = '11111111-2222-4333-8444-555555555555';
const ordinary = { path: `${ROOT}/-home-user-projects-demo/${S}.jsonl`, cwd: '/home/user/projects/demo', entrypoint: 'cli', isSidechain: false };

describe('isWorkerSession', () => {
  it('control: an ordinary interactive session is not a worker', () => {
    expect(isWorkerSession(ordinary, workers, HOME)).toBeNull();
    expect(isWorkerSession({ ...ordinary, entrypoint: null }, workers, HOME)).toBeNull();
    expect(isWorkerSession({ path: ordinary.path }, workers, HOME)).toBeNull();
  });

  it('sidechain records', () => {
    expect(isWorkerSession({ ...ordinary, isSidechain: true }, workers, HOME)).toBe('sidechain');
  });

  it('subagent files', () => {
    expect(isWorkerSession({ ...ordinary, path: `${ROOT}/-home-user-projects-demo/${S}/subagents/agent-a1.jsonl` }, workers, HOME)).toBe('subagent');
    expect(isSubagentPath(`${ROOT}/p/agent-a1.jsonl`)).toBe(true); // older layout
    expect(isSubagentPath(ordinary.path)).toBe(false);
  });

  it('configured entrypoints (claude -p writes sdk-cli)', () => {
    expect(isWorkerSession({ ...ordinary, entrypoint: 'sdk-cli' }, workers, HOME)).toBe('entrypoint');
    // The list cleared: still unattended (Claude Code always runs sdk-cli unattended) under the
    // default policy; only `unattended: entrypoints` lets a user's own headless run through.
    expect(isWorkerSession({ ...ordinary, entrypoint: 'sdk-cli' }, { ...workers, entrypoints: [] }, HOME)).toBe('unattended');
    expect(isWorkerSession({ ...ordinary, entrypoint: 'sdk-cli' }, { ...workers, entrypoints: [], unattended: 'entrypoints' }, HOME)).toBeNull();
    expect(isWorkerSession({ ...ordinary, entrypoint: 'claude-vscode' }, workers, HOME)).toBeNull();
  });

  it('configured cwd globs', () => {
    const w = { ...workers, cwdGlobs: ['/srv/bots/**'] };
    expect(isWorkerSession({ ...ordinary, cwd: '/srv/bots/nightly' }, w, HOME)).toBe('cwd-glob');
    expect(isWorkerSession({ ...ordinary, cwd: '/srv/bots' }, w, HOME)).toBe('cwd-glob');
    expect(isWorkerSession({ ...ordinary, cwd: '/srv/botsx' }, w, HOME)).toBeNull();
  });

  it("active-brain's own sessions: cwd under the state dir, or its project folder before any cwd is known", () => {
    expect(isWorkerSession({ ...ordinary, cwd: HOME }, workers, HOME)).toBe('active-brain-home');
    expect(isWorkerSession({ ...ordinary, cwd: `${HOME}/reasoner` }, workers, HOME)).toBe('active-brain-home');
    expect(isWorkerSession({ ...ordinary, cwd: `${HOME}-other` }, workers, HOME)).toBeNull();
    const p = `${ROOT}/${projectDirName(`${HOME}/reasoner`)}/${S}.jsonl`;
    expect(isWorkerSession({ path: p }, workers, HOME)).toBe('active-brain-home');
    // once the cwd is known, it decides
    expect(isWorkerSession({ path: p, cwd: '/home/user/projects/demo' }, workers, HOME)).toBeNull();
  });

  it('projectDirName matches Claude Code folder names', () => {
    expect(projectDirName('/home/user/projects/spotter')).toBe('-home-user-projects-spotter');
    expect(projectDirName('/home/u/.active-brain')).toBe('-home-u--active-brain');
  });

  it('property: total over arbitrary metadata', () => {
    const opt = fc.option(fc.string(), { nil: null });
    fc.assert(
      fc.property(opt, opt, opt, fc.boolean(), fc.array(fc.string(), { maxLength: 3 }), (path, cwd, entrypoint, isSidechain, globs) => {
        const r = isWorkerSession({ path, cwd, entrypoint, isSidechain }, { ...workers, cwdGlobs: globs }, HOME);
        expect(r === null || typeof r === 'string').toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
