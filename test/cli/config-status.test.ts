/**
 * `config` shows every value a user depends on — the transcripts root and the store path
 * too, with the default they come from when unset — and `status` shows the transcripts root
 * and says when it does not exist (a wrong root means silence forever). Real CLI, temp home.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { cli, tempEnv, type Env } from '../daemon/helpers.js';

let e: Env;
afterEach(() => e?.cleanup());

describe('config and status show the roots', () => {
  it('config prints transcriptsRoot and store.path even when unset, with their computed defaults', () => {
    e = tempEnv('ab-cfg-');
    const env = { ...e.env };
    delete env.ACTIVE_BRAIN_TRANSCRIPTS;
    delete env.ACTIVE_BRAIN_STORE;
    env.CLAUDE_CONFIG_DIR = join(e.home, '..', 'claude');
    const r = cli({ ...e, env }, ['config']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^transcriptsRoot +"${join(env.CLAUDE_CONFIG_DIR, 'projects')}" +\\(default: \\$CLAUDE_CONFIG_DIR/projects`, 'm'));
    expect(r.stdout).toMatch(new RegExp(`^store\\.path +"${join(e.home, 'store.sqlite')}" +\\(default: \\$ACTIVE_BRAIN_HOME/store\\.sqlite\\)`, 'm'));
    const j = JSON.parse(cli({ ...e, env }, ['config', '--json']).stdout) as { effective: Record<string, string> };
    expect(j.effective).toEqual({ transcriptsRoot: join(env.CLAUDE_CONFIG_DIR, 'projects'), 'store.path': join(e.home, 'store.sqlite') });
    // Control: a value that is set shows its source.
    expect(cli(e, ['config']).stdout).toMatch(/^transcriptsRoot +".*" +\(env\)$/m);
  });

  it('status names the transcripts root, and warns when it does not exist (control: it exists)', () => {
    e = tempEnv('ab-status-');
    const ok = cli(e, ['status']);
    expect(ok.stdout).toMatch(new RegExp(`^sessions: ${e.root}$`, 'm'));
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).transcripts_root).toEqual({ path: e.root, exists: true });
    const missing = join(e.home, '..', 'nope');
    const bad = cli({ ...e, env: { ...e.env, ACTIVE_BRAIN_TRANSCRIPTS: missing } }, ['status']);
    expect(bad.stdout).toContain(`sessions: ${missing} — does not exist: set ACTIVE_BRAIN_TRANSCRIPTS`);
    mkdirSync(missing);
    expect(cli({ ...e, env: { ...e.env, ACTIVE_BRAIN_TRANSCRIPTS: missing } }, ['status']).stdout).not.toContain('does not exist');
  });

  it('status names the Codex sessions root when the user has Codex (control: no Codex, no line)', () => {
    e = tempEnv('ab-status-');
    const root = join(e.env.CODEX_HOME!, 'sessions');
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).codex_sessions_root).toEqual({ path: root, exists: false });
    expect(cli(e, ['status']).stdout).not.toMatch(/^codex:/m);
    mkdirSync(root, { recursive: true });
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).codex_sessions_root).toEqual({ path: root, exists: true });
    expect(cli(e, ['status']).stdout).toMatch(new RegExp(`^codex: +${root} \\(Codex CLI rollouts, tailed too\\)$`, 'm'));
  });

  it('config prints every key, the unset optional ones too (embedding.model, localModelPath, url, store.url), with what sets them', () => {
    e = tempEnv('ab-cfg-');
    const env = { ...e.env };
    for (const k of ['ACTIVE_BRAIN_MODEL_PATH', 'ACTIVE_BRAIN_MODEL', 'ACTIVE_BRAIN_EMBEDDING_URL', 'ACTIVE_BRAIN_STORE_URL']) delete env[k];
    const r = cli({ ...e, env }, ['config']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^embedding\.model +unset +\(set it with ACTIVE_BRAIN_MODEL or config\.json\)$/m);
    expect(r.stdout).toMatch(/^embedding\.localModelPath +unset +\(set it with ACTIVE_BRAIN_MODEL_PATH or config\.json\)$/m);
    expect(r.stdout).toMatch(/^embedding\.url +unset +\(set it with ACTIVE_BRAIN_EMBEDDING_URL or config\.json\)$/m);
    expect(r.stdout).toMatch(/^store\.url +unset +\(set it with ACTIVE_BRAIN_STORE_URL or config\.json\)$/m);
    const j = JSON.parse(cli({ ...e, env }, ['config', '--json']).stdout) as { unset: string[] };
    expect(j.unset).toEqual(expect.arrayContaining(['embedding.model', 'embedding.localModelPath', 'embedding.url', 'store.url']));
    // control: once set, the key shows its value and source, and is not listed as unset
    const set = cli(e, ['config']);
    expect(set.stdout).toMatch(/^embedding\.localModelPath +".+" +\(env\)$/m);
    expect((JSON.parse(cli(e, ['config', '--json']).stdout) as { unset: string[] }).unset).not.toContain('embedding.localModelPath');
  });
});
