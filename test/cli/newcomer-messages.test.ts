/**
 * What a newcomer reads matches what the commands do (issue 40 item 8), real CLI on temp homes:
 * doctor's help names exactly the checks doctor runs; `config set k v` says how values are set
 * (config.json or --set), not "unexpected argument"; enable / disable keep config.json as a
 * person's indented file; a daemon that is down with no user service manager is not told to
 * `service install`; a model that cannot load gets its fix said once.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cli, tempEnv, type Env } from '../daemon/helpers.js';
import { checkDaemon } from '../../ops/doctor.js';
import type { daemonStatus } from '../../daemon/status.js';

let e: Env;
afterEach(() => e?.cleanup());

describe('help and messages a newcomer meets', () => {
  it("doctor's help lists exactly the checks it runs (hook:<event> for the events it checks)", () => {
    e = tempEnv('ab-doc-help-');
    const help = cli(e, ['doctor', '--help']).stdout;
    const listed = [...help.matchAll(/^ {2}([a-z][a-z:<>-]+) {2,}/gm)].map((m) => m[1]);
    const checks = (JSON.parse(cli(e, ['doctor', '--json']).stdout) as { checks: Array<{ name: string }> }).checks.map((c) => c.name);
    const names = [...new Set(checks.map((n) => (n.startsWith('hook:') ? 'hook:<event>' : n)))];
    expect(listed.sort()).toEqual(names.sort());
    // the hook events it names are the ones it checks
    const events = checks.filter((n) => n.startsWith('hook:')).map((n) => n.slice(5));
    const line = help.slice(help.indexOf('hook:<event>'), help.indexOf('  codex'));
    for (const ev of ['UserPromptSubmit', 'PostToolUseFailure', 'PostToolUse']) expect(new RegExp(`\\b${ev}\\b`).test(line), ev).toBe(events.includes(ev));
  });

  it('`config set k v` names the file and --set (control: `config` still prints)', () => {
    e = tempEnv('ab-config-set-');
    const r = cli(e, ['config', 'set', 'daemon.cycleMs', '500']);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`edit "daemon.cycleMs" in ${join(e.home, 'config.json')}`);
    expect(r.stderr).toContain('--set daemon.cycleMs=500');
    expect(r.stderr).not.toContain('unexpected argument');
    expect(cli(e, ['config']).code).toBe(0);
  });

  it('disable (like enable) keeps config.json indented', () => {
    e = tempEnv('ab-config-pretty-');
    mkdirSync(e.home, { recursive: true });
    const file = join(e.home, 'config.json');
    writeFileSync(file, JSON.stringify({ daemon: { cycleMs: 500 }, modes: { default: { state: 'soak' } } }, null, 2) + '\n');
    const r = cli(e, ['disable', 'default', '--channel', 'tool', '--off']);
    expect(r.code, r.stderr).toBe(0);
    const text = readFileSync(file, 'utf8');
    expect(JSON.parse(text)).toMatchObject({ daemon: { cycleMs: 500 }, modes: { default: { state: 'soak', tool: { state: 'off' } } } });
    expect(text).toBe(JSON.stringify(JSON.parse(text), null, 2) + '\n');
  });

  it('a daemon that is down: "service install" only where a service manager answers', () => {
    const down = { running: false, pid: null, problem: null, store_health: null } as unknown as ReturnType<typeof daemonStatus>;
    const none = checkDaemon(down, () => false);
    expect(none.pass).toBe(false);
    expect(none.fix).not.toContain('service install');
    expect(none.fix).toContain('active-brain start --detach');
    expect(checkDaemon(down, () => true).fix).toContain('active-brain service install'); // control
  });

  it('a model that cannot load: its fix said once', () => {
    e = tempEnv('ab-setup-nomodel-');
    const env: NodeJS.ProcessEnv = { ...e.env, HOME: join(e.home, '..'), ACTIVE_BRAIN_MODEL_PATH: mkdtempSync(join(tmpdir(), 'ab-no-model-')) };
    delete env.ACTIVE_BRAIN_HOME;
    const r = cli({ ...e, env }, ['setup', '--no-manage', '--json']);
    expect(r.code).toBe(3);
    const model = (JSON.parse(r.stdout) as { steps: Array<{ name: string; detail: string }> }).steps.find((s) => s.name === 'model')!;
    expect(model.detail.match(/model:offline/g)).toHaveLength(1);
  });
});
