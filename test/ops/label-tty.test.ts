/**
 * `active-brain label` on a real terminal (a pty from util-linux `script`): shows a sampled
 * would-fire offer, re-asks on a bad key, records the verdict; then `--stats` counts it.
 * The decision log line is in the daemon's real record format (logs-schema/daemon-decision).
 */
import { describe, it, expect } from 'vitest';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { repoRoot } from '../helpers/model.js';
import { loadSchema, validate } from '../helpers/json-schema.js';

const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
const cli = join(repoRoot, 'bin', 'active-brain.js');

describe.skipIf(!hasScript)('label on a terminal', () => {
  it('shows the offer, takes y/n/s/q, appends the label', () => {
    const home = mkdtempSync(join(tmpdir(), 'ab-label-'));
    mkdirSync(join(home, 'logs'));
    const decision = {
      type: 'decision', ts: Date.now(), sessionId: 's1', turn: 4, exchangeUuid: 'u4', offset: 100, mode: 'default', mode_state: 'soak',
      worker: false, sidechain: false, seed: false, prompt_only: false, injected: false, trigger: 'error', trigger_values: {}, gates: [],
      would_fire: true, silence: null,
      offer: { id: 'off1', chunkId: 1, handle: 'notes/pg.md#0', type: 'past-fix', confidence: 0.8, region: 'notes', wildcard: false, reasoned: false, reason: 'raise pool.max to 20 — same ECONNRESET under load in session 4d56… (2026-02-11)' },
      sufficiency: 0.7, candidates: 3, latency_ms: {}, provisional: false,
    };
    expect(validate(loadSchema('daemon-decision'), decision)).toEqual([]);
    writeFileSync(join(home, 'logs', 'daemon.jsonl'), JSON.stringify(decision) + '\n');
    // Only offers the hook let through are labeled: first without the hook's record …
    const env0 = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: join(home, 'none') };
    const none = spawnSync(process.execPath, [cli, 'label', '--offer', 'off1', '--verdict', 'useful'], { env: env0, encoding: 'utf8' });
    expect(none.status).toBe(1);
    expect(none.stderr).toMatch(/offer off1 was not shown by the hook \(not-seen\)/);
    // the hook saw it and held it back: its reason is given
    const held = { ts: Date.now(), session: 's1', outcome: 'silent', reason: 'low-confidence', latency_ms: 5, boot_ms: 30, mode: 'default', mode_state: 'soak', offer_id: 'off1', handle: 'notes/pg.md#0', type: 'past-fix', confidence: 0.8, exit: 0 };
    writeFileSync(join(home, 'logs', 'hook.jsonl'), JSON.stringify(held) + '\n');
    const heldBack = spawnSync(process.execPath, [cli, 'label', '--offer', 'off1', '--verdict', 'useful'], { env: env0, encoding: 'utf8' });
    expect(heldBack.status).toBe(1);
    expect(heldBack.stderr).toMatch(/not shown by the hook \(low-confidence\)/);
    const ttyless = spawnSync('sh', ['-c', `script -qec "${process.execPath} ${cli} label" /dev/null < /dev/null`], { env: env0, encoding: 'utf8', timeout: 30_000 });
    expect(ttyless.stdout).toMatch(/no offers past the hook's gates yet \(1 would-fire held back: 1 low-confidence\)/);
    const bad = spawnSync(process.execPath, [cli, 'label', '--offer', 'off1', '--verdict', 'maybe'], { env: env0, encoding: 'utf8' });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/--verdict must be useful or not-useful \(got "maybe"\)/);
    // … then with it (soak: would-fire).
    const hookRec = { ts: Date.now(), session: 's1', outcome: 'would-fire', reason: 'would-fire', latency_ms: 5, boot_ms: 30, mode: 'default', mode_state: 'soak', offer_id: 'off1', handle: 'notes/pg.md#0', type: 'past-fix', confidence: 0.8, exit: 0 };
    expect(validate(loadSchema('hook-record'), hookRec)).toEqual([]);
    writeFileSync(join(home, 'logs', 'hook.jsonl'), JSON.stringify(hookRec) + '\n');
    const env = { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: join(home, 'none') };
    // `script` gives the CLI a pty; the keys arrive after it has drawn its question.
    const r = spawnSync('sh', ['-c', `(sleep 3; printf 'x\\n'; sleep 1; printf 'y\\n') | script -qec "${process.execPath} ${cli} label --seed 1" /dev/null`], { env, encoding: 'utf8', timeout: 30_000 });
    // The line as printed: the reason Claude was given, not just the handle.
    expect(r.stdout).toContain('[active-brain · Past fix · 0.80] raise pool.max to 20 — same ECONNRESET under load in session 4d56… (2026-02-11) (recall: active-brain recall notes/pg.md#0)');
    expect(r.stdout).not.toContain('reason line is not in the logs');
    expect(r.stdout).toContain('labeled 1 now; 1/1 useful overall.');
    const labels = readFileSync(join(home, 'labels.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
    expect(labels).toEqual([expect.objectContaining({ offer_id: 'off1', useful: true, type: 'past-fix', mode: 'default' })]);
    const stats = spawnSync(process.execPath, [cli, 'label', '--stats', '--json'], { env, encoding: 'utf8' });
    expect(stats.status).toBe(1); // 1 label is far from the gate's 50
    expect(JSON.parse(stats.stdout)).toMatchObject({ labels: 1, useful: 1 });
  }, 60_000);

  /** A tool-channel Past fix the hook read from a fixes file (no daemon decision at all). */
  function toolOfferHome(): { home: string; env: NodeJS.ProcessEnv } {
    const home = mkdtempSync(join(tmpdir(), 'ab-label-tool-'));
    mkdirSync(join(home, 'logs'));
    mkdirSync(join(home, 'fixes'));
    const sig = '0123456789abcd';
    const id = `fix-${sig}-7`;
    const offer = { id, chunkId: 7, handle: 'sessions/-work-app/s0.jsonl#3', type: 'past-fix', confidence: 0.89, reason: 'fixed by git push --set-upstream origin ‹branch› — same "no upstream branch" error in session 4d56… (2026-02-11)', region: 'sessions', wildcard: false, trigger: 'error', reasoned: false, channel: 'tool' };
    writeFileSync(join(home, 'fixes', `${sig}.json`), JSON.stringify({ version: 1, sig, storeStamp: 'x', createdAt: Date.now(), fixes: [{ offer, sourceSession: 's0', scope: 'global' }] }));
    const hookRec = {
      ts: Date.now(), session: 's1', outcome: 'would-fire', reason: 'would-fire', latency_ms: 5, boot_ms: 30, mode: 'default', mode_state: 'soak',
      channel: 'tool', event: 'PostToolUseFailure', step: 3, sig, tool_use_id: 'toolu_01', source: 'fixes', offer_id: id, handle: offer.handle, type: 'past-fix', confidence: 0.89, exit: 0,
    };
    expect(validate(loadSchema('hook-record'), hookRec)).toEqual([]);
    writeFileSync(join(home, 'logs', 'hook.jsonl'), JSON.stringify(hookRec) + '\n');
    return { home, env: { ...process.env, ACTIVE_BRAIN_HOME: home, ACTIVE_BRAIN_TRANSCRIPTS: join(home, 'none') } };
  }

  it('a tool offer read from a fixes file shows its "fixed by …" reason (the fixes file has it; the hook log does not)', () => {
    const { env } = toolOfferHome();
    const r = spawnSync('sh', ['-c', `(sleep 3; printf 'q\n') | script -qec "${process.execPath} ${cli} label --channel tool --seed 1" /dev/null`], { env, encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).toContain('[active-brain · Past fix · 0.89] fixed by git push --set-upstream origin ‹branch› — same "no upstream branch" error in session 4d56… (2026-02-11) (recall: active-brain recall sessions/-work-app/s0.jsonl#3)');
  }, 60_000);

  it.each([
    ['Ctrl-D', '\\004'],
    ['Ctrl-C', '\\003'],
  ])('%s at the prompt quits like q: no stack trace, exit 0, labels so far kept', (_name, key) => {
    const { home, env } = toolOfferHome();
    const r = spawnSync('sh', ['-c', `(sleep 3; printf '${key}'; sleep 1) | script -qec "${process.execPath} ${cli} label --channel tool --seed 1; echo exit=\\$?" /dev/null`], { env, encoding: 'utf8', timeout: 30_000 });
    expect(r.stdout).toContain('useful? [y]es');
    expect(r.stdout).not.toMatch(/AbortError|unexpected error|\bat .*\.js:\d+/);
    expect(r.stdout).toContain('labeled 0 now');
    expect(r.stdout).toMatch(/exit=0/);
    expect(existsSync(join(home, 'labels.jsonl'))).toBe(false);
  }, 60_000);
});
