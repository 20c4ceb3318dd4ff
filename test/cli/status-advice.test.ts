/**
 * `status` says what is true now: a config-reload error from a config.json that has been
 * fixed since is not shown (the daemon clears it at its next reload; a stopped daemon never
 * will, so status drops it — it has just loaded the file itself); with the kill switch on it
 * advises `unkill` before `start --detach` (which would refuse). Real daemon and CLI.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, readJson, startDaemon, tempEnv, waitFor, type Env } from '../daemon/helpers.js';
import { modelLine } from '../../cli/commands/status.js';

let e: Env;
afterEach(() => e?.cleanup());

describe('status tells the truth after a fix', () => {
  it('a config-reload error goes once config.json loads again: the daemon clears it, a stopped one does not show it', async () => {
    e = tempEnv('ab-status-err-');
    const d = startDaemon(e);
    const canary = join(e.home, 'canary.json');
    await waitFor(() => readJson(canary), 30_000, 'canary');
    writeFileSync(join(e.home, 'config.json'), '{ "modes": ');
    await waitFor(() => String(readJson<{ lastError: string | null }>(canary)?.lastError ?? '').startsWith('config-reload'), 20_000, 'reload error');
    writeFileSync(join(e.home, 'config.json'), '{}\n');
    // the daemon itself clears it at its next reload
    await waitFor(() => readJson<{ lastError: string | null }>(canary)?.lastError === null, 20_000, 'error cleared');
    d.child.kill('SIGTERM');
    await d.exited;
    // a daemon that stopped before it could reload left the error in its canary: not shown
    const c = readJson<Record<string, unknown>>(canary)!;
    writeFileSync(canary, JSON.stringify({ ...c, lastError: 'config-reload: /x/config.json is not valid JSON (Unexpected end of JSON input)' }));
    const st = cli(e, ['status']);
    expect(st.stdout).not.toContain('last error');
    expect(JSON.parse(cli(e, ['status', '--json']).stdout).last_error).toBeNull();
    // control: another error of the stopped daemon is still shown
    writeFileSync(canary, JSON.stringify({ ...c, lastError: 'embedder: the model cannot load' }));
    expect(cli(e, ['status']).stdout).toContain('last error: embedder: the model cannot load');
  }, 60_000);

  it('with the kill switch on, status advises unkill first (control: without it, start --detach)', () => {
    e = tempEnv('ab-status-kill-');
    expect(cli(e, ['status']).stdout).toContain('Start it with "active-brain start --detach"');
    expect(cli(e, ['kill']).code).toBe(0);
    const st = cli(e, ['status']);
    expect(st.stdout).toContain('The kill switch is on: "active-brain unkill", then "active-brain start --detach"');
    expect(st.stdout).not.toContain('Start it with "active-brain start --detach"');
  });

  it('the model line names the model by the id the store records, and says what to do when it differs or does not resolve', () => {
    const base = { configured: '/m/offline-glove-sif', localPath: '/m/offline-glove-sif', store: 'offline-glove-sif', id: 'offline-glove-sif', problem: null };
    // control: the same model as the store is not reported as "store built with" another
    expect(modelLine(base)).toBe('offline-glove-sif (local folder /m/offline-glove-sif), matches the store');
    expect(modelLine({ ...base, configured: 'Xenova/all-MiniLM-L6-v2', localPath: null, id: 'Xenova/all-MiniLM-L6-v2' })).toMatch(/the store was built with offline-glove-sif: re-index with "active-brain index --rebuild"/);
    expect(modelLine({ ...base, id: null, problem: 'no transformers.js model at /m (config.json missing)' })).toContain('does not resolve: no transformers.js model');
  });
});
