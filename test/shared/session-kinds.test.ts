/**
 * The session kinds of docs/HOOK.md ("Session kinds"): for each, what the hook sees (its
 * host's environment and payload, as the real hosts give them) and what the daemon sees (the
 * transcript's records), run through the hook's real prelude (hook/gates.ts) and the daemon's
 * real pipeline (core/pipeline.ts processToolStep, at a failing `git push`). Both must give
 * the same verdict: the same `worker-<reason>` silence, or both observe. A property checks
 * the same over generated sessions; shared/workers.ts unit cases pin each reason.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { ConfigSchema, type Config } from '../../config/schema.js';
import { hookSettingsFromConfig } from '../../config/hook-settings.js';
import { Pipeline } from '../../core/pipeline.js';
import { prelude } from '../../hook/gates.js';
import { workerEnv } from '../../retrieval/reasoner.js';
import type { ToolStep } from '../../transcript/tool-steps.js';
import {
  describeWorkerRule, HOST_UNATTENDED_ENTRYPOINTS, hookFacts, hostEnvFor, isUnattended, workerReason, WORKER_REASONS,
  type WorkerRule,
} from '../../shared/workers.js';

const HOME = '/home/user/.active-brain';
const ROOT = '/home/user/.claude/projects';
const CWD = '/home/user/projects/demo';
const SID = '11111111-2222-4333-8444-555555555555';
const MAIN = `${ROOT}/-home-user-projects-demo/${SID}.jsonl`;
const ERROR = 'Exit code 128\nfatal: The current branch feature/login has no upstream branch.';

/** What Claude Code 2.1.332 gave a hook under `claude -p` (seen: docs/HOOK.md). */
const P_ENV = { CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'sdk-cli', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' };
/** …and, from its code, to a hook of an interactive session. */
const INTERACTIVE_ENV = { CLAUDECODE: '1', CLAUDE_CODE_ENTRYPOINT: 'cli', CLAUDE_CODE_SESSION_ATTENDED: '1', CLAUDE_CODE_CHILD_SESSION: '1' };

interface Kind {
  /** The row's name in docs/HOOK.md. */
  name: string;
  config?: Record<string, unknown>;
  /** The hook's side. */
  env: Record<string, string>;
  payload?: Record<string, unknown>;
  /** The daemon's side. */
  transcript: { path?: string; cwd?: string; entrypoint?: string | null; isSidechain?: boolean; subagent?: boolean };
  /** The verdict both must give: a worker reason, or null (observed, may be offered to). */
  verdict: string | null;
}

const KINDS: Kind[] = [
  { name: 'interactive', env: INTERACTIVE_ENV, transcript: { entrypoint: 'cli' }, verdict: null },
  { name: '-p (claude -p)', env: P_ENV, transcript: { entrypoint: 'sdk-cli' }, verdict: 'entrypoint' },
  { name: 'SDK (Agent SDK, TypeScript)', env: { CLAUDE_CODE_ENTRYPOINT: 'sdk-ts', CLAUDE_CODE_SESSION_ATTENDED: '0', CLAUDE_CODE_CHILD_SESSION: '1' }, transcript: { entrypoint: 'sdk-ts' }, verdict: 'entrypoint' },
  { name: 'SDK (Agent SDK, Python)', env: { CLAUDE_CODE_ENTRYPOINT: 'sdk-py', CLAUDE_CODE_SESSION_ATTENDED: '0' }, transcript: { entrypoint: 'sdk-py' }, verdict: 'entrypoint' },
  {
    name: 'subagent', env: INTERACTIVE_ENV, payload: { agent_id: 'a881341', agent_type: 'general-purpose' },
    transcript: { path: `${ROOT}/-home-user-projects-demo/${SID}/subagents/agent-a881341.jsonl`, entrypoint: 'cli', isSidechain: true, subagent: true }, verdict: 'sidechain',
  },
  {
    // Our reasoner calls an HTTP API (no session at all); were it ever to run a model subprocess,
    // workerEnv() gives it the env marker and a config dir under the state dir.
    name: 'our own reasoner (workerEnv)', env: { ...workerEnv(HOME, 'ACTIVE_BRAIN_WORKER', {}), ...P_ENV },
    payload: { transcript_path: `${HOME}/worker-claude/projects/-home-user-projects-demo/${SID}.jsonl` },
    transcript: { path: `${HOME}/worker-claude/projects/-home-user-projects-demo/${SID}.jsonl`, entrypoint: 'sdk-cli' }, verdict: 'active-brain-home',
  },
  {
    // Codex gives its hooks no entrypoint variable (0.171, seen); the daemon reads `codex_exec`
    // from session_meta.originator, which the default list does not name: both observe.
    name: 'Codex exec', env: {}, payload: { turn_id: 't1', model: 'gpt-5' },
    transcript: { path: `/home/user/.codex/sessions/2026/12/02/rollout-2026-12-02T14-38-13-${SID}.jsonl`, entrypoint: 'codex_exec' }, verdict: null,
  },
  {
    name: 'Codex exec in a worker directory (workers.cwdGlobs)', config: { workers: { cwdGlobs: ['/srv/ci/**'] } }, env: {},
    payload: { turn_id: 't1', model: 'gpt-5', cwd: '/srv/ci/job-1' },
    transcript: { path: `/home/user/.codex/sessions/2026/12/02/rollout-2026-12-02T14-38-13-${SID}.jsonl`, cwd: '/srv/ci/job-1', entrypoint: 'codex_exec' }, verdict: 'cwd-glob',
  },
  { name: 'VS Code (attended, not interactive)', env: { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode', CLAUDE_CODE_SESSION_ATTENDED: '1' }, transcript: { entrypoint: 'claude-vscode' }, verdict: null },
  { name: 'GitHub Action', env: { CLAUDE_CODE_ENTRYPOINT: 'claude-code-github-action', CLAUDE_CODE_SESSION_ATTENDED: '0' }, transcript: { entrypoint: 'claude-code-github-action' }, verdict: 'unattended' },
  { name: '-p with workers.entrypoints cleared (unattended = worker)', config: { workers: { entrypoints: [] } }, env: P_ENV, transcript: { entrypoint: 'sdk-cli' }, verdict: 'unattended' },
  {
    name: "-p, a user's own CI run (entrypoints [], unattended = entrypoints)", config: { workers: { entrypoints: [], unattended: 'entrypoints' } },
    env: P_ENV, transcript: { entrypoint: 'sdk-cli' }, verdict: null,
  },
  { name: 'a worker directory (workers.cwdGlobs)', config: { workers: { cwdGlobs: ['/srv/bots/**'] } }, env: INTERACTIVE_ENV, payload: { cwd: '/srv/bots/nightly' }, transcript: { cwd: '/srv/bots/nightly', entrypoint: 'cli' }, verdict: 'cwd-glob' },
];

function configOf(k: Kind): Config {
  return ConfigSchema.parse({ ...(k.config ?? {}), modes: { default: { state: 'live', tool: { state: 'live' } } } });
}

/** The hook's verdict: its real prelude, with the row's environment and payload. */
function hookVerdict(k: Kind, config: Config): string {
  const settings = hookSettingsFromConfig(config, { ACTIVE_BRAIN_HOME: HOME, HOME: '/home/user' });
  const payload = {
    session_id: SID, transcript_path: MAIN, cwd: k.transcript.cwd ?? CWD, hook_event_name: 'PostToolUseFailure',
    tool_name: 'Bash', tool_use_id: 'toolu_1', error: ERROR, is_interrupt: false, ...(k.payload ?? {}),
  };
  const pre = prelude({ payload, stdin: 'ok', settings, env: k.env, killed: false, home: HOME });
  return pre.done ? pre.done.reason : 'observed';
}

/** The daemon's verdict: the real pipeline on the failing step, from the transcript's facts. */
function daemonVerdict(k: Kind, config: Config): string {
  const pipeline = new Pipeline({ embedder: { embed: async () => [] }, offerBuilder: null, config, home: HOME, now: () => 1_800_000_000_000, rng: () => 0.5 });
  const step: ToolStep = {
    step: 1, toolUseId: 'toolu_1', name: 'Bash', summary: 'Bash: git push', isError: true, toolUseError: false, resultText: ERROR,
    callAt: null, resultAt: null, startOffset: 0, endOffset: 100, sessionId: SID, cwd: k.transcript.cwd ?? CWD, note: '',
  };
  const d = pipeline.processToolStep({
    step, path: k.transcript.path ?? MAIN, sessionId: SID, entrypoint: k.transcript.entrypoint ?? null,
    isSidechain: Boolean(k.transcript.isSidechain), subagent: Boolean(k.transcript.subagent),
  });
  return d.worker ? (d.silence ?? '') : 'observed';
}

describe('session kinds: the hook and the daemon give the same verdict (docs/HOOK.md table)', () => {
  it.each(KINDS.map((k) => [k.name, k] as const))('%s', (_name, k) => {
    const config = configOf(k);
    const expected = k.verdict ? `worker-${k.verdict}` : 'observed';
    expect(daemonVerdict(k, config)).toBe(expected);
    expect(hookVerdict(k, config)).toBe(expected);
  });

  it('property: a session the host describes the same way to both gets the same verdict', () => {
    const entrypoint = fc.constantFrom(null, 'cli', 'sdk-cli', 'sdk-ts', 'sdk-py', 'claude-vscode', 'claude-desktop', 'claude-code-github-action', 'codex_exec', 'mcp');
    const cwd = fc.constantFrom(CWD, '/srv/bots/x', HOME, `${HOME}/reasoner`, '/srv/botsx');
    const rule = fc.record({
      entrypoints: fc.subarray(['sdk-cli', 'sdk-ts', 'sdk-py', 'cli', 'claude-code-github-action']),
      unattended: fc.constantFrom('worker' as const, 'entrypoints' as const),
      cwdGlobs: fc.subarray(['/srv/bots/**', '/opt/**']),
    });
    fc.assert(
      fc.property(entrypoint, cwd, rule, fc.boolean(), fc.boolean(), (ep, dir, r, sidechain, child) => {
        const config = ConfigSchema.parse({ workers: r, modes: { default: { state: 'live', tool: { state: 'live' } } } });
        // The host's rule (2.1.332): attended = interactive (`cli`) or an app host; the rest not.
        const attended = ep === null || ep === 'codex_exec' ? undefined : (HOST_UNATTENDED_ENTRYPOINTS as readonly string[]).includes(ep) || ep === 'mcp' ? '0' : '1';
        const env: Record<string, string> = { ...hostEnvFor(ep), ...(attended ? { CLAUDE_CODE_SESSION_ATTENDED: attended } : {}), ...(child ? { CLAUDE_CODE_CHILD_SESSION: '1' } : {}) };
        const k: Kind = { name: 'generated', env, payload: sidechain ? { agent_id: 'a1' } : {}, transcript: { cwd: dir, entrypoint: ep, isSidechain: sidechain }, verdict: null };
        // `mcp` sessions are unattended to the host but not in HOST_UNATTENDED_ENTRYPOINTS: only the
        // hook knows (they run no tool hooks of ours); everything else must agree.
        if (ep === 'mcp' && r.unattended === 'worker' && !sidechain) return;
        expect(hookVerdict(k, config)).toBe(daemonVerdict(k, config));
      }),
      { numRuns: 300 },
    );
  });
});

describe('shared/workers.ts: each marker, and its control', () => {
  const rule: WorkerRule = { cwdGlobs: ['/srv/bots/**'], envMarker: 'ACTIVE_BRAIN_WORKER' };
  const main = { session_id: SID, transcript_path: MAIN, cwd: CWD };
  const verdict = (payload: Record<string, unknown>, env: Record<string, string>, r: WorkerRule = rule) => workerReason(hookFacts(payload, env, r), r, HOME);

  it('control: an interactive session is not a worker', () => {
    expect(verdict(main, INTERACTIVE_ENV)).toBeNull();
    expect(verdict(main, {})).toBeNull();
  });

  it.each([
    ['sidechain', { ...main, agent_id: 'a1' }, INTERACTIVE_ENV],
    ['sidechain', { ...main, agent_type: 'Explore' }, INTERACTIVE_ENV],
    ['subagent', { ...main, transcript_path: `${ROOT}/p/${SID}/subagents/agent-a1.jsonl` }, INTERACTIVE_ENV],
    ['active-brain-home', { ...main, cwd: `${HOME}/x` }, INTERACTIVE_ENV],
    ['active-brain-home', main, { ...INTERACTIVE_ENV, CLAUDE_CONFIG_DIR: `${HOME}/worker-claude` }],
    ['env-marker', main, { ...INTERACTIVE_ENV, ACTIVE_BRAIN_WORKER: '1' }],
    ['cwd-glob', { ...main, cwd: '/srv/bots/a' }, INTERACTIVE_ENV],
    ['entrypoint', main, { CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' }],
    ['unattended', main, { CLAUDE_CODE_ENTRYPOINT: 'claude-vscode', CLAUDE_CODE_SESSION_ATTENDED: '0' }],
  ] as const)('%s', (reason, payload, env) => {
    expect(verdict(payload, env)).toBe(reason);
  });

  it('the order is WORKER_REASONS: a subagent of a -p session is a sidechain', () => {
    expect(verdict({ ...main, agent_id: 'a1' }, P_ENV)).toBe('sidechain');
    expect(WORKER_REASONS[0]).toBe('sidechain');
  });

  it('hostEnvFor: the entrypoint a Claude Code transcript names, none for a Codex originator', () => {
    expect(hostEnvFor('sdk-cli')).toEqual({ CLAUDE_CODE_ENTRYPOINT: 'sdk-cli' });
    expect(hostEnvFor('codex_exec')).toEqual({});
    expect(hostEnvFor(null)).toEqual({});
  });

  it('CLAUDE_CODE_CHILD_SESSION says nothing (the host sets it for every process it spawns)', () => {
    expect(verdict(main, { CLAUDE_CODE_CHILD_SESSION: '1' })).toBeNull();
  });

  it('the host\'s attended flag wins over the entrypoint; without it, the entrypoint decides', () => {
    expect(isUnattended({ entrypoint: 'sdk-cli', attended: null })).toBe(true);
    expect(isUnattended({ entrypoint: 'cli', attended: null })).toBe(false);
    expect(isUnattended({ entrypoint: 'claude-vscode', attended: false })).toBe(true);
    expect(isUnattended({ entrypoint: 'sdk-cli', attended: true })).toBe(false);
  });

  it('settings written before entrypoints/unattended read as the defaults (more silence, never less)', () => {
    expect(verdict(main, P_ENV, { cwdGlobs: [], envMarker: 'ACTIVE_BRAIN_WORKER' })).toBe('entrypoint');
  });

  it('describeWorkerRule names every marker and warns of a Codex entrypoint the hook cannot see', () => {
    const lines = describeWorkerRule({ ...rule, entrypoints: ['sdk-cli', 'codex_exec'] }, HOME).join('\n');
    for (const w of ['agent_id', HOME, 'ACTIVE_BRAIN_WORKER', '/srv/bots/**', 'sdk-cli', 'CLAUDE_CODE_SESSION_ATTENDED=0', 'codex_exec is seen by the daemon only']) expect(lines).toContain(w);
    expect(describeWorkerRule({ ...rule, unattended: 'entrypoints' }, HOME).join('\n')).toContain('only when their entrypoint is listed');
  });

  it('property: total over arbitrary payloads and environments', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string(), fc.jsonValue()), fc.dictionary(fc.string(), fc.string()), (payload, env) => {
        const r = verdict(payload, env);
        expect(r === null || (WORKER_REASONS as readonly string[]).includes(r)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
