/**
 * The environment the real Claude Code gives hook processes under `claude -p` (what the worker
 * rule can read: docs/HOOK.md "What the host tells the hook"). A recording hook saves `env` at
 * UserPromptSubmit and PostToolUseFailure; the values the product may rely on are asserted, so
 * a host that changes them fails here first.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { requireHost } from './hosts.js';
import { hostWorld, type HostWorld } from './scenario.js';

const host = requireHost('claude');
let w: HostWorld;

const parseEnv = (text: string) => Object.fromEntries(text.split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]));

describe.skipIf(!!host.skip)('hook environment under claude -p', () => {
  beforeAll(() => {
    w = hostWorld(host.bin, 'ab-host-env-');
  });
  afterAll(() => w?.cleanup());

  it('names the entrypoint sdk-cli, an unattended session, the session id and the project dir', async () => {
    const rec = join(w.base, 'env');
    mkdirSync(rec);
    const save = { type: 'command', command: `env > "${rec}/$(cat | sed -n 's/.*"hook_event_name":"\\([A-Za-z]*\\)".*/\\1/p')"`, timeout: 5 };
    mkdirSync(join(w.userHome, '.claude'), { recursive: true });
    writeFileSync(join(w.userHome, '.claude', 'settings.json'), JSON.stringify({ hooks: { UserPromptSubmit: [{ hooks: [save] }], PostToolUseFailure: [{ hooks: [save] }] } }));
    const cwd = join(w.base, 'work');
    const { run } = await w.claude([{ tool: 'Bash', input: { command: 'exit 3', description: 'Fail' } }, { text: 'Done.' }], { cwd });
    expect(run.code, run.stderr).toBe(0);
    expect(readdirSync(rec).sort()).toEqual(['PostToolUseFailure', 'UserPromptSubmit']);
    for (const event of ['UserPromptSubmit', 'PostToolUseFailure']) {
      const env = parseEnv(readFileSync(join(rec, event), 'utf8'));
      expect(env, event).toMatchObject({
        CLAUDECODE: '1',
        CLAUDE_CODE_ENTRYPOINT: 'sdk-cli',
        CLAUDE_CODE_SESSION_ATTENDED: '0',
        CLAUDE_CODE_SESSION_ID: String(run.json?.session_id),
        CLAUDE_PROJECT_DIR: cwd,
      });
      const names = Object.keys(env).filter((k) => /^(CLAUDE|AI_AGENT)/.test(k)).sort();
      console.log(`[host] ${event} hook env under claude -p: ${names.map((k) => (/TOKEN|SOCKET/.test(k) ? k : `${k}=${env[k]}`)).join(' ')}`);
    }
  });
});
