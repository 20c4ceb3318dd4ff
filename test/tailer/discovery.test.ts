/**
 * daemon/discovery.ts on real folders, and the tailer's use of it: a transcript file whose
 * watcher `add` event was lost (the polling-mode race seen in CI) is still found and read
 * in full by the next sweep.
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mkdirSync, utimesSync, writeFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { DirectoryDiscovery } from '../../daemon/discovery.js';
import { harness, rec, removeTempDirs, tempDirs, waitFor, type Harness } from './harness.js';

const S1 = 'bbbbbbbb-0000-4000-8000-000000000001';
const S2 = 'bbbbbbbb-0000-4000-8000-000000000002';
const open: Harness[] = [];
afterEach(async () => {
  for (const h of open.splice(0)) await h.tailer.close();
});
afterAll(() => removeTempDirs());

/** Set a folder's mtime well in the past (a settled folder). */
function settle(dir: string): Date {
  const t = new Date(Date.now() - 60_000);
  utimesSync(dir, t, t);
  return t;
}

describe('DirectoryDiscovery', () => {
  it('lists every transcript on the first scan, only .jsonl files one level down', async () => {
    const { root } = tempDirs();
    const p = join(root, '-home-u-a');
    mkdirSync(join(p, S1, 'subagents'), { recursive: true });
    writeFileSync(join(p, `${S1}.jsonl`), '');
    writeFileSync(join(p, 'notes.txt'), '');
    writeFileSync(join(p, S1, 'subagents', 'agent-1.jsonl'), '');
    const d = new DirectoryDiscovery(root);
    expect(await d.scan()).toEqual([join(p, `${S1}.jsonl`)]);
    // subagent folders only for the sessions named
    settle(p);
    const withSub = await new DirectoryDiscovery(root).scan([join(p, S1)]);
    expect(withSub.sort()).toEqual([join(p, `${S1}.jsonl`), join(p, S1, 'subagents', 'agent-1.jsonl')].sort());
  });

  it('lists a settled folder again only when its mtime moved; control: a moved mtime finds the new file', async () => {
    const { root } = tempDirs();
    const p = join(root, '-home-u-b');
    mkdirSync(p, { recursive: true });
    writeFileSync(join(p, `${S1}.jsonl`), '');
    const old = settle(p);
    const d = new DirectoryDiscovery(root);
    expect(await d.scan()).toHaveLength(1);
    // a new file, but the folder's mtime put back: not listed (the scan stays cheap)
    writeFileSync(join(p, `${S2}.jsonl`), '');
    utimesSync(p, old, old);
    expect(await d.scan()).toEqual([]);
    // control: the mtime moves (as creating a file does) → listed
    const later = new Date(old.getTime() + 1000);
    utimesSync(p, later, later);
    expect((await d.scan()).sort()).toEqual([join(p, `${S1}.jsonl`), join(p, `${S2}.jsonl`)].sort());
  });

  it('a folder changed within the settle window is listed again next time (coarse mtimes)', async () => {
    const { root } = tempDirs();
    const p = join(root, '-home-u-c');
    mkdirSync(p, { recursive: true });
    writeFileSync(join(p, `${S1}.jsonl`), '');
    // a recent, whole-millisecond mtime (a Date cannot carry sub-milliseconds, so the same
    // Date can be set again below and the folder's mtime really does not move)
    const recent = new Date(Math.floor(Date.now() / 1000) * 1000 - 1000);
    utimesSync(p, recent, recent);
    const d = new DirectoryDiscovery(root);
    expect(await d.scan()).toHaveLength(1);
    writeFileSync(join(p, `${S2}.jsonl`), '');
    utimesSync(p, recent, recent); // unchanged mtime, as a 1-second-granularity file system shows
    expect(statSync(p).mtimeMs).toBe(recent.getTime());
    expect(await d.scan()).toHaveLength(2);
  });

  it('a missing root gives nothing, not an error', async () => {
    const { root } = tempDirs();
    expect(await new DirectoryDiscovery(join(root, 'nope')).scan()).toEqual([]);
  });
});

describe('tailer: a lost watcher event', () => {
  it('a new session file the watcher never reported is found by the sweep and read from its start', async () => {
    const { root, offsets } = tempDirs();
    const p = join(root, '-home-u-d');
    mkdirSync(p, { recursive: true });
    const h = harness(root, offsets);
    open.push(h);
    await h.tailer.start();
    // lose every future `add` from the watcher
    (h.tailer as unknown as { watcher: { removeAllListeners(e: string): void } }).watcher.removeAllListeners('add');
    const f = join(p, `${S1}.jsonl`);
    writeFileSync(f, rec(1) + '\n' + rec(2) + '\n');
    await h.tailer.sweep();
    await waitFor(() => h.got.length === 2, 8000, 'both lines of the missed file');
    expect(h.got.map((g) => [g.path, g.seed, g.startOffset])).toEqual([
      [f, false, 0],
      [f, false, h.got[0].endOffset],
    ]);
  });

  it('watch-limit errors are reported once with what to do, not once per file; another kind is reported on its own', async () => {
    const { root, offsets } = tempDirs();
    mkdirSync(join(root, '-home-u-e'), { recursive: true });
    const h = harness(root, offsets);
    open.push(h);
    const details = () => h.warningDetails.filter((w) => w.reason === 'watch-error').map((w) => w.detail);
    await h.tailer.start();
    const w = (h.tailer as unknown as { watcher: { emit(e: string, x: unknown): void } }).watcher;
    const err = (code: string) => Object.assign(new Error(`${code}: System limit reached, watch '/x'`), { code });
    for (let i = 0; i < 500; i++) w.emit('error', err('ENOSPC'));
    expect(details()).toHaveLength(1);
    expect(details()[0].message).toMatch(/inotify watch limit.*sysctl fs\.inotify\.max_user_watches/);
    w.emit('error', err('EMFILE'));
    expect(details().map((d) => d.code)).toEqual(['ENOSPC', 'EMFILE']);
  });
});
