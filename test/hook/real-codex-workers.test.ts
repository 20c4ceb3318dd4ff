/**
 * The worker rule against the real Codex CLI (docs/HOOK.md "Session kinds", row "Codex exec"):
 * `codex exec` run offline against a tiny local stand-in of the Responses API, with our hook
 * registered in $CODEX_HOME/hooks.json. Codex gives its hooks no entrypoint variable, so the
 * hook observes a `codex exec` session under the default config — as the daemon does, whose
 * `codex_exec` originator the default list does not name; named by directory in
 * `workers.cwdGlobs`, it is `worker-cwd-glob` on both paths.
 *
 * Needs the CLI: the pinned one (`node scripts/install-hosts.mjs`; CI fails without it), `codex` on PATH or ACTIVE_BRAIN_CODEX_BIN (e.g. after
 * `npm install --prefix /tmp/cx @openai/codex`; verified with 0.171.0); skipped, saying so,
 * without it. ~2 s per run.
 */
import { findHostCli } from '../host/hosts.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { writeHookSettings } from '../../config/hook-settings.js';
import { isWorkerSession } from '../../core/workers.js';
import { hookCommand, ourEntry } from '../../ops/hook-install.js';
import { hookBundle } from './helpers.js';

const CODEX = findHostCli('codex', 'ACTIVE_BRAIN_CODEX_BIN');
const RUN_TIMEOUT_MS = 60_000;

/** A stand-in of the Responses API (streamed): every turn answers with one short message. */
function fakeResponses(): Promise<{ server: Server; port: number }> {
  let n = 0;
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"models":[],"data":[]}');
        return;
      }
      const id = `resp_${++n}`;
      const item = { type: 'message', id: `m_${n}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text: 'done', annotations: [] }] };
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const ev = (type: string, data: object) => res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
      ev('response.created', { response: { id } });
      ev('response.output_item.added', { output_index: 0, item });
      ev('response.output_item.done', { output_index: 0, item });
      ev('response.completed', { response: { id, output: [item], usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 } } });
      res.end();
    });
  });
  return new Promise((done) => server.listen(0, '127.0.0.1', () => {
    const a = server.address();
    done({ server, port: typeof a === 'object' && a ? a.port : 0 });
  }));
}

describe.skipIf(!CODEX)(`the real codex exec${CODEX ? '' : ' (skipped: no `codex` on PATH and no ACTIVE_BRAIN_CODEX_BIN)'}`, () => {
  let base: string;
  let bundle: string;
  let api: { server: Server; port: number };

  beforeAll(async () => {
    base = mkdtempSync(join(tmpdir(), 'ab-real-codex-'));
    bundle = await hookBundle();
    api = await fakeResponses();
  });
  afterAll(() => {
    api?.server.close();
    rmSync(base, { recursive: true, force: true });
  });

  /** One `codex exec` run in `dir` (a fresh state dir and CODEX_HOME): the hook's prompt record
   *  and the daemon's verdict from the rollout's session_meta. */
  async function run(name: string, workers: Record<string, unknown>): Promise<{ hook: Record<string, unknown> | undefined; daemon: string | null; exit: number | null }> {
    const dir = join(base, name);
    const home = join(dir, 'home');
    const codexHome = join(dir, 'codex');
    const cwd = join(dir, 'srv', 'ci', 'job-1');
    for (const d of [home, codexHome, cwd]) mkdirSync(d, { recursive: true });
    const env = { PATH: process.env.PATH, HOME: dir, ACTIVE_BRAIN_HOME: home, CODEX_HOME: codexHome };
    // The hook's own deadline wide (a loaded machine can pass 150 ms before the payload is read:
    // silent, no event); the deadline has its own tests (test/hook/contract.test.ts).
    const config = ConfigSchema.parse({ workers, hook: { deadlineMs: 2000 }, modes: { default: { state: 'live', tool: { state: 'live' } } } });
    writeHookSettings(config, env);
    writeFileSync(join(codexHome, 'config.toml'), [
      'model = "gpt-test"', 'model_provider = "stand-in"', '[model_providers.stand-in]', 'name = "stand-in"',
      `base_url = "http://127.0.0.1:${api.port}/v1"`, 'env_key = "STAND_IN_KEY"', 'wire_api = "responses"', '[features]', 'hooks = true', '',
    ].join('\n'));
    const entry = [{ hooks: [ourEntry(hookCommand(process.execPath, bundle, home))] }];
    writeFileSync(join(codexHome, 'hooks.json'), JSON.stringify({ hooks: { UserPromptSubmit: entry, PostToolUse: entry } }));
    const child = spawn(CODEX!, ['exec', '--skip-git-repo-check', '--dangerously-bypass-hook-trust', 'say done'], {
      cwd, env: { ...env, STAND_IN_KEY: 'dummy' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
    const exit = await new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    clearTimeout(timer);
    const log = join(home, 'logs', 'hook.jsonl');
    const hook = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>).find((r) => r.event === 'UserPromptSubmit') : undefined;
    // The daemon's facts: the rollout's session_meta (originator → entrypoint, cwd).
    const find = (d: string): string[] => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? find(join(d, e.name)) : e.name.endsWith('.jsonl') ? [join(d, e.name)] : []));
    const rollout = find(join(codexHome, 'sessions'))[0];
    const meta = JSON.parse(readFileSync(rollout, 'utf8').split('\n')[0]) as { payload: { originator?: string; cwd?: string; meta?: { originator?: string; cwd?: string } } };
    const m = meta.payload.meta ?? meta.payload;
    const daemon = isWorkerSession({ path: rollout, cwd: m.cwd ?? null, entrypoint: m.originator ?? null }, config.workers, home);
    return { hook, daemon, exit };
  }

  it('observed on both paths by default (Codex gives its hooks no entrypoint); worker-cwd-glob on both when named by directory', async () => {
    const [plain, glob] = await Promise.all([run('default', {}), run('glob', { cwdGlobs: ['**/srv/ci/**'] })]);
    for (const r of [plain, glob]) {
      expect(r.exit).toBe(0);
      expect(r.hook, 'the hook ran at the prompt').toBeDefined();
    }
    expect(String(plain.hook!.reason)).not.toMatch(/^worker-/);
    expect(plain.daemon).toBeNull();
    expect(glob.hook).toMatchObject({ outcome: 'silent', reason: 'worker-cwd-glob' });
    expect(glob.daemon).toBe('cwd-glob');
  }, 2 * RUN_TIMEOUT_MS);
});
