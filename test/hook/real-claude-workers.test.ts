/**
 * The worker rule against the real Claude Code CLI (issue 27): a `claude -p` session whose
 * `git push` fails, run offline against a tiny local stand-in of the Messages API, with our
 * hook registered for its three events and a fixes file holding a Past fix for exactly that
 * error. Under the default config the session gets nothing at its failure, in either channel
 * (the hook logs `worker-entrypoint` at the prompt and at the failure, and no request the CLI
 * sends to the model holds the offer); with the entrypoint list cleared and `unattended:
 * entrypoints` (a user's own CI run) the same session gets the Past fix, and the model's next
 * request carries it (the control); with the list cleared under the default policy, the host's
 * own CLAUDE_CODE_SESSION_ATTENDED=0 keeps it silent (`worker-unattended`). The daemon's
 * pipeline, given the transcript the CLI wrote, gives the same verdict.
 *
 * Needs the CLI: the pinned one (`node scripts/install-hosts.mjs`; CI fails without it), `claude` on PATH or ACTIVE_BRAIN_CLAUDE_BIN (e.g. after
 * `npm install --prefix /tmp/cc @anthropic-ai/claude-code`); skipped, saying so, without it.
 * Each run takes ~1–3 s.
 */
import { findHostCli } from '../host/hosts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, spawnSync } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { writeHookSettings } from '../../config/hook-settings.js';
import { Pipeline } from '../../core/pipeline.js';
import { EVENT_MATCHERS, hookCommand, ourEntry } from '../../ops/hook-install.js';
import { errorSignature } from '../../shared/error-signature.js';
import { fixPath } from '../../shared/paths.js';
import type { FixFile } from '../../shared/types.js';
import { HOOK_EVENTS } from '../../shared/vocabulary.js';
import { hookBundle } from './helpers.js';

const CLAUDE = findHostCli('claude', 'ACTIVE_BRAIN_CLAUDE_BIN');
/** One CLI run's bound (it usually takes 1–3 s). */
const RUN_TIMEOUT_MS = 60_000;
const HANDLE = 'sessions/258c7280#ep-3';
/** The hook's own deadline, wide: three CLIs run at once and on a loaded machine a hook start
 *  alone can pass the default 150 ms, so the run is silent before it reads its payload (no
 *  event, no worker reason). The deadline has its own tests (test/hook/contract.test.ts). */
const HOOK = { deadlineMs: 2000 };

/** The subagent's task, as the main agent hands it over (how the stand-in tells the two apart). */
const SUBTASK = 'SUBTASK: push the branch';
type Block = { type?: string; name?: string; text?: string };
const blocks = (c: unknown): Block[] => (Array.isArray(c) ? (c as Block[]) : typeof c === 'string' ? [{ type: 'text', text: c }] : []);

/** A stand-in of the Messages API (streamed): a Bash `git push` first, then, once a tool
 *  result came back, a text reply. With `viaSubagent`, the main agent instead starts one
 *  subagent (the Agent tool) whose first step is that `git push`. Every request body is kept
 *  (what the model would read). */
function fakeApi(viaSubagent = false): Promise<{ server: Server; port: number; bodies: string[] }> {
  const bodies: string[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      if (!req.url?.startsWith('/v1/messages') || req.url.includes('count_tokens')) {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ input_tokens: 10 }));
        return;
      }
      bodies.push(body);
      let j: { messages?: Array<{ content?: unknown }>; tools?: Array<{ name?: string }>; model?: string; stream?: boolean } = {};
      try {
        j = JSON.parse(body);
      } catch { /* an empty reply below */ }
      const msgs = (j.messages ?? []) as Array<{ role?: string; content?: unknown }>;
      const answered = blocks(msgs.at(-1)?.content).some((b) => b.type === 'tool_result');
      const tools = (j.tools ?? []).map((t) => t.name);
      const inSubagent = msgs.some((m) => m.role === 'user' && blocks(m.content).some((b) => b.text?.includes(SUBTASK)));
      const delegated = msgs.some((m) => blocks(m.content).some((b) => b.type === 'tool_use' && b.name === 'Agent'));
      const anyResult = msgs.some((m) => blocks(m.content).some((b) => b.type === 'tool_result'));
      // Main lane: Bash (or, via a subagent, the Agent tool once); the subagent: Bash once.
      const tool = viaSubagent
        ? inSubagent ? (!anyResult && tools.includes('Bash') ? 'Bash' : null) : (!delegated && tools.includes('Agent') ? 'Agent' : null)
        : (!answered && tools.includes('Bash') ? 'Bash' : null);
      const useTool = tool !== null;
      const id = `msg_${bodies.length}`;
      const usage = { input_tokens: 10, output_tokens: 5, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 };
      const stop = useTool ? 'tool_use' : 'end_turn';
      const input = tool === 'Agent'
        ? { description: 'push', prompt: SUBTASK, subagent_type: 'general-purpose' }
        : { command: 'git push', description: 'push the branch' };
      if (!j.stream) {
        const block = useTool ? { type: 'tool_use', id: `toolu_${id}`, name: tool, input } : { type: 'text', text: 'done' };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ id, type: 'message', role: 'assistant', model: j.model, content: [block], stop_reason: stop, stop_sequence: null, usage }));
        return;
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('message_start', { message: { id, type: 'message', role: 'assistant', model: j.model, content: [], stop_reason: null, stop_sequence: null, usage } });
      if (useTool) {
        ev('content_block_start', { index: 0, content_block: { type: 'tool_use', id: `toolu_${id}`, name: tool, input: {} } });
        ev('content_block_delta', { index: 0, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } });
      } else {
        ev('content_block_start', { index: 0, content_block: { type: 'text', text: '' } });
        ev('content_block_delta', { index: 0, delta: { type: 'text_delta', text: 'done' } });
      }
      ev('content_block_stop', { index: 0 });
      ev('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
      ev('message_stop', {});
      res.end();
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    done({ server, port: typeof a === 'object' && a ? a.port : 0, bodies });
  }));
}

interface Run {
  /** Hook log records of this run (logs/hook.jsonl). */
  hook: Array<Record<string, unknown>>;
  /** Request bodies the model received. */
  bodies: string[];
  /** The daemon pipeline's verdict on the transcript the CLI wrote. */
  daemon: string;
  exit: number | null;
}

describe.skipIf(!CLAUDE)(`the real claude -p${CLAUDE ? '' : ' (skipped: no `claude` on PATH and no ACTIVE_BRAIN_CLAUDE_BIN)'}`, () => {
  let base: string;
  let bundle: string;

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'ab-real-claude-'));
    bundle = await hookBundle();
  });
  afterAll(() => rmSync(base, { recursive: true, force: true }));

  /** One `claude -p` session in a fresh state dir, config dir and git repo. */
  async function session(name: string, workers: Record<string, unknown>, viaSubagent = false): Promise<Run> {
    const dir = join(base, name);
    const home = join(dir, 'home');
    const configDir = join(dir, 'claude');
    const repo = join(dir, 'repo');
    for (const d of [home, configDir, repo]) mkdirSync(d, { recursive: true });
    spawnSync('git', ['init', '-q'], { cwd: repo });
    // The error the hook will receive: Claude Code's Bash failure text, `Exit code N` + output.
    const push = spawnSync('git', ['push'], { cwd: repo, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: dir } });
    const error = `Exit code ${push.status}\n${(push.stdout + push.stderr).trimEnd()}`;
    const sig = errorSignature(error)!.sig;
    const env = { PATH: process.env.PATH, HOME: dir, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: join(configDir, 'projects') };

    const config = ConfigSchema.parse({ workers, hook: HOOK, modes: { default: { state: 'live', tool: { state: 'live' } } } });
    writeHookSettings(config, env);
    const fixes: FixFile = {
      version: 1, sig, storeStamp: 'test', createdAt: Date.now() - 86_400_000,
      fixes: [{
        sourceSession: '258c7280-ae70-4798-800f-63464d01a85d', scope: 'global',
        offer: { id: `fix-${sig}`, chunkId: 7, handle: HANDLE, type: 'past-fix', confidence: 0.86, reason: 'same push error: fixed by adding the remote first', region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool' },
      }],
    };
    mkdirSync(join(home, 'fixes'), { recursive: true });
    writeFileSync(fixPath(sig, env)!, JSON.stringify(fixes));
    // Our hook, registered for its three events as `install` does (the test bundle).
    const command = hookCommand(process.execPath, bundle, home);
    const hooks = Object.fromEntries(HOOK_EVENTS.map((e) => [e, [{ ...(EVENT_MATCHERS[e] ? { matcher: EVENT_MATCHERS[e] } : {}), hooks: [ourEntry(command)] }]]));
    writeFileSync(join(configDir, 'settings.json'), JSON.stringify({ hooks }));

    const api = await fakeApi(viaSubagent);
    try {
      const child = spawn(CLAUDE!, ['-p', 'push my branch', '--allowedTools', viaSubagent ? 'Bash,Agent' : 'Bash', '--output-format', 'json'], {
        cwd: repo,
        env: {
          ...env, CLAUDE_CONFIG_DIR: configDir, ANTHROPIC_BASE_URL: `http://127.0.0.1:${api.port}`, ANTHROPIC_API_KEY: 'sk-test-dummy',
          DISABLE_TELEMETRY: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1',
        },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
      const exit = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
      clearTimeout(timer);
      const logPath = join(home, 'logs', 'hook.jsonl');
      const hook = existsSync(logPath) ? readFileSync(logPath, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>) : [];
      return { hook, bodies: api.bodies, daemon: daemonVerdict(config, home, join(configDir, 'projects'), viaSubagent), exit };
    } finally {
      api.server.close();
    }
  }

  /** The daemon pipeline on the failing step, from the facts of the transcript the CLI wrote. */
  function daemonVerdict(config: ReturnType<typeof ConfigSchema.parse>, home: string, root: string, subagent: boolean): string {
    const project = readdirSync(root).map((d) => join(root, d)).find((d) => readdirSync(d).some((f) => f.endsWith('.jsonl')))!;
    const main = readdirSync(project).find((f) => f.endsWith('.jsonl'))!;
    // The subagent's own transcript: <session>/subagents/agent-<id>.jsonl.
    const subDir = join(project, main.replace(/\.jsonl$/, ''), 'subagents');
    const file = subagent ? join(subDir, readdirSync(subDir).find((f) => f.endsWith('.jsonl'))!) : join(project, main);
    const first = readFileSync(file, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => typeof r.entrypoint === 'string')!;
    const pipeline = new Pipeline({ embedder: { embed: async () => [] }, offerBuilder: null, config, home, now: () => Date.now(), rng: () => 0.5 });
    const d = pipeline.processToolStep({
      step: { step: 1, toolUseId: 't', name: 'Bash', summary: 'Bash: git push', isError: true, toolUseError: false, resultText: 'Exit code 128', callAt: null, resultAt: null, startOffset: 0, endOffset: 1, sessionId: String(first.sessionId), cwd: String(first.cwd), note: '' },
      path: file, sessionId: String(first.sessionId), entrypoint: String(first.entrypoint), isSidechain: first.isSidechain === true, subagent,
    });
    return d.worker ? String(d.silence) : 'observed';
  }

  const failure = (r: Run) => r.hook.find((x) => x.event === 'PostToolUseFailure');
  const prompt = (r: Run) => r.hook.find((x) => x.event === 'UserPromptSubmit');
  const reached = (r: Run) => r.bodies.some((b) => b.includes(HANDLE));

  it('default config: nothing at the failure in either channel (worker-entrypoint on both paths); control: the list cleared for a CI run gets the Past fix', async () => {
    const [worker, ci, unattended] = await Promise.all([
      session('default', {}),
      session('ci', { entrypoints: [], unattended: 'entrypoints' }),
      session('cleared', { entrypoints: [] }),
    ]);
    for (const r of [worker, ci, unattended]) {
      expect(r.exit).toBe(0);
      expect(failure(r), 'the hook ran at the failing git push').toBeDefined();
      expect(prompt(r), 'the hook ran at the prompt').toBeDefined();
    }
    // The worker: silent at the prompt and at the failure, the offer never reaches the model.
    expect(prompt(worker)).toMatchObject({ outcome: 'silent', reason: 'worker-entrypoint' });
    expect(failure(worker)).toMatchObject({ outcome: 'silent', reason: 'worker-entrypoint' });
    expect(reached(worker)).toBe(false);
    expect(worker.daemon).toBe('worker-entrypoint');
    // The control: the same session, its user's own headless run, gets the Past fix.
    expect(failure(ci)).toMatchObject({ outcome: 'print', reason: 'printed', handle: HANDLE, source: 'fixes' });
    expect(prompt(ci)!.reason).not.toMatch(/^worker-/);
    expect(reached(ci)).toBe(true);
    expect(ci.daemon).toBe('observed');
    // The list cleared under the default policy: the host's attended flag (or the entrypoint, on
    // a host too old to set it) still keeps it a worker.
    expect(failure(unattended)).toMatchObject({ outcome: 'silent', reason: 'worker-unattended' });
    expect(reached(unattended)).toBe(false);
    expect(unattended.daemon).toBe('worker-unattended');
  }, 3 * RUN_TIMEOUT_MS);

  it('a subagent\'s failure is silent (worker-sidechain, from the payload\'s agent_id) even where its parent may be offered to; the daemon agrees from the subagent transcript', async () => {
    const r = await session('subagent', { entrypoints: [], unattended: 'entrypoints' }, true);
    expect(r.exit).toBe(0);
    const f = failure(r)!;
    expect(f, 'the hook ran at the subagent\'s failing git push').toBeDefined();
    expect(f).toMatchObject({ outcome: 'silent', reason: 'worker-sidechain' });
    expect(prompt(r)!.reason).not.toMatch(/^worker-/); // the parent's own prompt: observed
    expect(reached(r)).toBe(false);
    expect(r.daemon).toBe('worker-sidechain');
  }, 2 * RUN_TIMEOUT_MS);
});
