/**
 * The daemon and CLI against a hostile machine (issue 38; docs/RELIABILITY.md "Adversarial
 * cases"; the hook's own cases are test/hook/adversarial.test.ts): a store rebuilt under a
 * daemon that started on a corrupt one, a store with two damaged pages (doctor, index), loose
 * and symlinked state folders at start and stop, and a symlink in the transcripts root to a file
 * outside it. Real daemon, real CLI, real store built by the indexer; each case with its control.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { chmodSync, closeSync, existsSync, mkdirSync, openSync, readdirSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import {
  BIN, OFFER_SETS, appendLines, cli, decisions, events, exchangeLines, liveConfig, newSession, pgErrorLines, promptUuid,
  startDaemon, storeTemplate, tempEnv, waitCanary, waitFor, writeConfig, WARMUP, type Env,
} from '../helpers/faults.js';

let e: Env | null = null;
afterEach(() => {
  e?.cleanup();
  e = null;
});
const template = storeTemplate();
afterAll(() => template.cleanup());

/** Overwrite `pages` pages of a SQLite file, counted back from its end, with garbage. */
function damagePages(path: string, pages: number[]): void {
  const size = statSync(path).size;
  const pageSize = 4096;
  const fd = openSync(path, 'r+');
  try {
    for (const p of pages) writeSync(fd, Buffer.alloc(pageSize, 0xa5), 0, pageSize, size - p * pageSize);
  } finally {
    closeSync(fd);
  }
}

describe('adversarial: the daemon heals', () => {
  it('started on a corrupt store, it serves again within 10 s of the store being rebuilt, without a restart; doctor says the daemon is silent meanwhile', async () => {
    e = tempEnv('ab-adv-heal-');
    writeConfig(e, liveConfig());
    mkdirSync(e.home, { recursive: true });
    writeFileSync(e.env.ACTIVE_BRAIN_STORE!, Buffer.from('this is not a sqlite file\n'.repeat(200)));
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    expect(events(e, 'error').map((r) => r.reason)).toContain('store-unreadable');
    const st = JSON.parse(cli(e, ['status', '--json']).stdout) as { last_error: string | null };
    expect(st.last_error).toMatch(/^store-unreadable/);
    type Doc = { checks: Array<{ name: string; pass: boolean; detail: string }> };
    const daemonCheck = () => (JSON.parse(cli(e!, ['doctor', '--json']).stdout) as Doc).checks.find((c) => c.name === 'daemon')!;
    expect(daemonCheck()).toMatchObject({ pass: false, detail: expect.stringContaining('silent: store-unreadable') });

    const s = newSession(e);
    for (const [u, a] of WARMUP) appendLines(s, exchangeLines(s, u, a));
    const before = pgErrorLines(s, 1);
    appendLines(s, before);
    await waitFor(() => decisions(e!).some((r) => r.exchangeUuid === promptUuid(before)), 20_000, 'a decision on the corrupt store');
    expect(decisions(e).filter((r) => r.exchangeUuid === promptUuid(before)).at(-1)).toMatchObject({ silence: 'store-unreadable' });

    // The store rebuilt (a sound one moved into place, as a re-index after moving it aside does).
    const tmp = `${e.env.ACTIVE_BRAIN_STORE!}.new`;
    template.copyTo({ ...e, env: { ...e.env, ACTIVE_BRAIN_STORE: tmp } });
    const t0 = Date.now();
    spawnSync('mv', [tmp, e.env.ACTIVE_BRAIN_STORE!]);
    await waitFor(() => events(e!, 'store-reconnected').some((r) => r.reason === 'file-changed'), 10_000, 'the store re-opened');
    const healedMs = Date.now() - t0;
    const after = pgErrorLines(s, 2);
    appendLines(s, after);
    await waitFor(() => decisions(e!).some((r) => r.exchangeUuid === promptUuid(after)), 20_000, 'a decision on the rebuilt store');
    const dec = decisions(e).filter((r) => r.exchangeUuid === promptUuid(after)).at(-1)!;
    console.log(`[faults] adversarial heal: re-opened ${healedMs} ms after the rebuild; next decision silence=${String(dec.silence)} would_fire=${String(dec.would_fire)}`);
    expect(dec.silence).not.toBe('store-unreadable');
    expect(healedMs).toBeLessThan(10_000);
    await waitFor(() => JSON.parse(cli(e!, ['status', '--json']).stdout).last_error === null, 10_000, 'the error cleared');
    expect(daemonCheck().pass).toBe(true); // control: the same check once it serves
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('two damaged pages: doctor fails the store (quick_check) and index refuses to write, saying what to do; control: the sound store passes and indexes', () => {
    e = tempEnv('ab-adv-pages-');
    const path = template.copyTo(e);
    // Control: sound.
    const okDoc = JSON.parse(cli(e, ['doctor', '--json']).stdout) as { checks: Array<{ name: string; pass: boolean; detail: string; fix: string }> };
    const okStore = okDoc.checks.find((c) => c.name === 'store')!;
    expect(okStore).toMatchObject({ pass: true });
    expect(okStore.detail).toContain('quick_check ok');
    expect(cli(e, ['index']).code).toBe(0);
    // Two pages near the end overwritten.
    damagePages(path, [2, 3]);
    const doc = JSON.parse(cli(e, ['doctor', '--json']).stdout) as typeof okDoc;
    const store = doc.checks.find((c) => c.name === 'store')!;
    expect(store.pass).toBe(false);
    expect(store.detail).toMatch(/quick_check/);
    expect(store.fix).toContain('mv ');
    const idx = cli(e, ['index']);
    expect(idx.code).toBe(3);
    expect(idx.stderr).toMatch(/damaged.*index will not write into it.*Fix: move it aside/s);
  });
});

describe('adversarial: its own folders', () => {
  it('start re-tightens every folder it owns (cache/, fixes/ at 0777 → 0700) and doctor flags them before; control: doctor passes after', async () => {
    e = tempEnv('ab-adv-dirs-');
    writeConfig(e, liveConfig());
    for (const sub of ['cache', 'fixes', 'logs', 'hook-state']) {
      mkdirSync(join(e.home, sub), { recursive: true });
      chmodSync(join(e.home, sub), 0o777);
    }
    const before = JSON.parse(cli(e, ['doctor', '--json']).stdout) as { checks: Array<{ name: string; pass: boolean; detail: string }> };
    const sd = before.checks.find((c) => c.name === 'state-dir')!;
    expect(sd.pass).toBe(false);
    expect(sd.detail).toContain(join(e.home, 'cache'));
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    for (const sub of ['', 'cache', 'fixes', 'logs', 'hook-state']) expect(statSync(join(e.home, sub)).mode & 0o777, sub).toBe(0o700);
    const after = JSON.parse(cli(e, ['doctor', '--json']).stdout) as typeof before;
    expect(after.checks.find((c) => c.name === 'state-dir')).toMatchObject({ pass: true });
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });

  it('cache/ a symlink: start refuses (exit 3, saying what to do) and nothing at its target is touched; control: stop clears only its own caches, not a stranger\'s .json', async () => {
    e = tempEnv('ab-adv-cachelink-');
    writeConfig(e, liveConfig());
    const victim = join(dirname(e.home), 'victim');
    mkdirSync(victim, { recursive: true });
    writeFileSync(join(victim, 'notes.json'), '{"mine":true}');
    writeFileSync(join(victim, '3f0c2a51.json'), '{"version":1,"sessionId":"3f0c2a51"}');
    mkdirSync(e.home, { recursive: true });
    symlinkSync(victim, join(e.home, 'cache'));
    const r = spawnSync(process.execPath, [BIN, 'start', '--set', 'daemon.cycleMs=200'], { env: e.env, encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(3);
    expect(r.stderr).toContain(`cannot use ${join(e.home, 'cache')}: it is a symlink`);
    expect(readdirSync(victim).sort()).toEqual(['3f0c2a51.json', 'notes.json']);

    // Control: a real cache/ folder; the daemon writes a session's caches, stop removes them
    // and leaves a file it never wrote.
    spawnSync('rm', [join(e.home, 'cache')]);
    mkdirSync(join(e.home, 'cache'), { mode: 0o700 });
    writeFileSync(join(e.home, 'cache', 'stranger.json'), '{"not":"a cache"}');
    const d = startDaemon(e, OFFER_SETS);
    await waitCanary(e, d.pid);
    const s = newSession(e);
    appendLines(s, exchangeLines(s, 'hello there', 'Hi.'));
    await waitFor(() => existsSync(join(e!.home, 'cache', `${s.id}.json`)), 20_000, 'a cache written');
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
    expect(readdirSync(join(e.home, 'cache')).filter((n) => !n.endsWith('.lineage.json'))).toEqual(['stranger.json']);
  });

  it('a symlink in the transcripts root to a file outside it is not tailed; control: the same lines in a regular file are decided', async () => {
    e = tempEnv('ab-adv-tail-');
    writeConfig(e, liveConfig());
    const d = startDaemon(e);
    await waitCanary(e, d.pid);
    // Outside the root: a "transcript" the symlink points at.
    const outsideDir = join(dirname(e.root), 'outside');
    mkdirSync(outsideDir, { recursive: true });
    const s = newSession(e);
    const outside = join(outsideDir, 'secret.jsonl');
    const lines = exchangeLines(s, 'outside the root', 'never read');
    writeFileSync(outside, '');
    const link = join(e.project, 'linked-0000-0000.jsonl');
    symlinkSync(outside, link);
    writeFileSync(outside, lines.join('\n') + '\n');
    // Control: a regular session in the root.
    appendLines(s, exchangeLines(s, 'inside the root', 'read'));
    await waitFor(() => decisions(e!).some((r) => r.sessionId === s.id), 20_000, 'the regular session decided');
    await waitFor(() => events(e!, 'skipped-line').some((r) => r.reason === 'outside-root' && r.path === link), 10_000, 'the symlink skipped');
    expect(decisions(e).some((r) => r.exchangeUuid === promptUuid(lines))).toBe(false);
    d.child.kill('SIGTERM');
    expect(await d.exited).toBe(0);
  });
});
