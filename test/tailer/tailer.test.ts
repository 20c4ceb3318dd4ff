/**
 * daemon/tailer.ts + daemon/offsets.ts on real files in temp dirs with real chokidar:
 * live discovery, partial lines, seed history, truncation, replacement, deletion and
 * re-creation, over-long lines with bounded memory, a root created after start, and
 * offsets that survive a restart (no re-processing, no skipping).
 */
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { appendFileSync, chmodSync, utimesSync, mkdirSync, openSync, closeSync, readFileSync, renameSync, rmSync, statSync, truncateSync, unlinkSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { harness, rec, removeTempDirs, sleep, tempDirs, waitFor, type Harness } from './harness.js';
import { classifyTranscriptPath } from '../../daemon/claude-layout.js';

const S1 = 'aaaaaaaa-0000-4000-8000-000000000001';
const S2 = 'aaaaaaaa-0000-4000-8000-000000000002';
const open: Harness[] = [];
const start = async (h: Harness) => {
  open.push(h);
  await h.tailer.start();
  return h;
};
afterEach(async () => {
  for (const h of open.splice(0)) await h.tailer.close();
});
afterAll(() => removeTempDirs());

function project(root: string, name = '-home-user-demo'): string {
  const p = join(root, name);
  mkdirSync(p, { recursive: true });
  return p;
}

describe('tailer', () => {
  it('discovers a new session live, delivers complete lines, holds a partial line until its newline', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const h = await start(harness(root, offsets));
    const f = join(proj, `${S1}.jsonl`);
    writeFileSync(f, rec(1) + '\n' + rec(2) + '\n');
    await waitFor(() => h.got.length === 2, 8000, 'two lines');
    expect(h.got.map((g) => [g.sessionId, g.seed, g.subagent])).toEqual([
      [S1, false, false],
      [S1, false, false],
    ]);
    expect(h.got[0].first).toBe(true);
    expect(h.got[0].startOffset).toBe(0);
    expect(h.got[1].endOffset).toBe(statSync(f).size);

    const third = rec(3);
    appendFileSync(f, third.slice(0, 10)); // partial
    await h.tailer.sweep();
    await sleep(150);
    expect(h.got).toHaveLength(2);
    appendFileSync(f, third.slice(10) + '\n');
    await waitFor(() => h.got.length === 3, 8000, 'third line');
    expect(h.got[2].line).toBe(third);
    expect(h.got[2].first).toBe(false);
  });

  it('a line appended right after the previous one was read is delivered without waiting for the sweep (chokidar drops change events within 50 ms of the last)', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    // The safety sweep is a minute away: only file events (and the tailer's own re-check) count.
    const h = await start(harness(root, offsets, { rootPollMs: 60_000 }));
    const f = join(proj, `${S1}.jsonl`);
    writeFileSync(f, rec(0) + '\n');
    await waitFor(() => h.got.length === 1, 8000, 'first line');
    // Each time a line arrives, the "agent" writes the next one at once — as a tool_result
    // follows its tool_use — so the change event for it comes within chokidar's throttle window.
    const ROUNDS = 6;
    let written = 1;
    h.afterLines = () => {
      if (written < ROUNDS + 1) appendFileSync(f, rec(written++) + '\n');
    };
    appendFileSync(f, rec(written++) + '\n');
    for (let i = 2; i <= ROUNDS + 1; i++) {
      const t0 = Date.now();
      await waitFor(() => h.got.length >= i, 8000, `line ${i}`);
      expect(Date.now() - t0, `line ${i} waited for a sweep`).toBeLessThan(1500);
    }
    expect(h.linesOf(f)).toEqual(Array.from({ length: ROUNDS + 1 }, (_, i) => rec(i)));
  });

  it('seeds from the last seedHistoryBytes of a long file seen at start, aligned to a line start', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const f = join(proj, `${S1}.jsonl`);
    const lines = Array.from({ length: 200 }, (_, i) => rec(i, 30));
    writeFileSync(f, lines.join('\n') + '\n');
    const small = join(proj, `${S2}.jsonl`);
    writeFileSync(small, rec(900) + '\n');
    const size = statSync(f).size;
    const h = await start(harness(root, offsets, { seedHistoryBytes: 2000 }));
    await h.tailer.idle();
    await waitFor(() => h.linesOf(small).length === 1);
    const got = h.got.filter((g) => g.path === f);
    expect(got.length).toBeGreaterThan(0);
    expect(got.every((g) => g.seed)).toBe(true);
    expect(size - got[0].startOffset).toBeLessThanOrEqual(2000);
    expect(got[0].line).toBe(lines[200 - got.length]); // whole lines only, the newest ones
    expect(got.map((g) => g.line)).toEqual(lines.slice(200 - got.length));
    expect(h.got.find((g) => g.path === small)!.seed).toBe(true); // short file at start: all history

    appendFileSync(f, rec(500) + '\n');
    await waitFor(() => h.linesOf(f).length === got.length + 1);
    expect(h.got[h.got.length - 1]).toMatchObject({ line: rec(500), seed: false });
  });

  it('old sessions found at start are not read back; their new lines are', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const old = join(proj, `${S1}.jsonl`);
    const recent = join(proj, `${S2}.jsonl`);
    writeFileSync(old, [rec(1), rec(2)].join('\n') + '\n');
    writeFileSync(recent, rec(3) + '\n');
    const dayAgo = new Date(Date.now() - 24 * 3600 * 1000);
    utimesSync(old, dayAgo, dayAgo);
    const h = await start(harness(root, offsets, { seedMaxAgeMinutes: 60 }));
    await waitFor(() => h.linesOf(recent).length === 1); // control: a recent one is seeded
    await h.tailer.sweep();
    expect(h.linesOf(old)).toEqual([]);
    appendFileSync(old, rec(4) + '\n');
    await waitFor(() => h.linesOf(old).length === 1);
    expect(h.got.find((g) => g.path === old)).toMatchObject({ line: rec(4), seed: false });
  });

  it('restarts cleanly from 0 when a file is truncated', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets));
    writeFileSync(f, [rec(1), rec(2), rec(3)].join('\n') + '\n');
    await waitFor(() => h.got.length === 3);
    truncateSync(f, 0);
    writeFileSync(f, rec(10) + '\n');
    await waitFor(() => h.got.length === 4, 8000, 'line after truncation');
    expect(h.resets).toEqual([{ path: f, reason: 'truncated' }]);
    expect(h.got[3]).toMatchObject({ line: rec(10), startOffset: 0, first: true, seed: false });
  });

  it('restarts from 0 when a file is replaced (new inode), even when the new one is longer', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const f = join(proj, `${S1}.jsonl`);
    const h = await start(harness(root, offsets));
    writeFileSync(f, rec(1) + '\n');
    await waitFor(() => h.got.length === 1);
    const tmp = join(proj, 'replacement.tmp');
    writeFileSync(tmp, [rec(20), rec(21), rec(22)].join('\n') + '\n');
    renameSync(tmp, f);
    await waitFor(() => h.got.length === 4, 8000, 'lines of the replacement');
    expect(h.resets.map((r) => r.reason)).toEqual(['replaced']);
    expect(h.got.slice(1).map((g) => g.line)).toEqual([rec(20), rec(21), rec(22)]);
    expect(h.got[1].startOffset).toBe(0);
  });

  it('handles deletion and re-creation', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets));
    writeFileSync(f, rec(1) + '\n' + rec(2) + '\n');
    await waitFor(() => h.got.length === 2);
    unlinkSync(f);
    await waitFor(() => h.removed.length === 1, 8000, 'removed event');
    expect(h.removed).toEqual([f]);
    expect(h.tailer.watchedFiles).toBe(0);
    writeFileSync(f, rec(3) + '\n');
    await waitFor(() => h.got.length === 3, 8000, 'line of the re-created file');
    expect(h.got[2]).toMatchObject({ line: rec(3), startOffset: 0, first: true, seed: false });
    const saved = JSON.parse(readFileSync(offsets, 'utf8'));
    expect(saved.files[f].offset).toBe(statSync(f).size);
  });

  it('skips a 20 MB single line without holding it in memory and keeps going', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets, { maxLineBytes: 1024 * 1024, readChunkBytes: 64 * 1024 }));
    writeFileSync(f, rec(1) + '\n');
    await waitFor(() => h.got.length === 1);
    // write the 20 MB line in 1 MB pieces (never a 20 MB string here either)
    const fd = openSync(f, 'a');
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    writeSync(fd, Buffer.from('{"type":"user","message":{"content":"'));
    for (let i = 0; i < 20; i++) writeSync(fd, piece);
    writeSync(fd, Buffer.from('"}}\n' + rec(2) + '\n'));
    closeSync(fd);
    const mem = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    global.gc?.();
    const base = mem();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, mem())), 2);
    await waitFor(() => h.got.length === 2, 15000, 'line after the long one');
    clearInterval(sampler);
    expect(h.got[1].line).toBe(rec(2));
    expect(h.skipped).toHaveLength(1);
    expect(h.skipped[0]).toMatchObject({ path: f, reason: 'line-too-long' });
    const d = h.skipped[0].detail as { startOffset: number; endOffset: number };
    expect(d.endOffset - d.startOffset).toBeGreaterThan(20 * 1024 * 1024);
    // bounded: at most about maxLineBytes + a few chunks were held, never the 20 MB line
    expect(peak - base).toBeLessThan(12 * 1024 * 1024);
  });

  it('control: with a limit above the line, the same 20 MB line is delivered and the measurement sees it', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets, { maxLineBytes: 32 * 1024 * 1024, readChunkBytes: 64 * 1024 }));
    writeFileSync(f, '');
    await waitFor(() => h.tailer.watchedFiles === 1, 8000, 'the file to be known'); // else it is first seen long (seed)
    await h.tailer.sweep();
    const mem = () => process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
    const base = mem();
    let peak = base;
    const sampler = setInterval(() => (peak = Math.max(peak, mem())), 2);
    const fd = openSync(f, 'a');
    const piece = Buffer.alloc(1024 * 1024, 0x61);
    for (let i = 0; i < 20; i++) writeSync(fd, piece);
    writeSync(fd, Buffer.from('\n'));
    closeSync(fd);
    await waitFor(() => h.got.length === 1, 15000, 'the long line');
    peak = Math.max(peak, mem());
    clearInterval(sampler);
    expect(h.skipped).toHaveLength(0);
    expect(h.got[0].line.length).toBe(20 * 1024 * 1024);
    expect(peak - base).toBeGreaterThan(15 * 1024 * 1024);
  });

  it('an over-long line still being written is skipped once its newline arrives', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets, { maxLineBytes: 8 * 1024 }));
    writeFileSync(f, 'x'.repeat(20 * 1024));
    await h.tailer.sweep();
    expect(h.skipped).toHaveLength(0);
    appendFileSync(f, 'y'.repeat(20 * 1024) + '\n' + rec(1) + '\n');
    await waitFor(() => h.got.length === 1);
    expect(h.skipped).toHaveLength(1);
    expect(h.got[0].line).toBe(rec(1));
  });

  it('waits for a missing root and picks up sessions once it is created', async () => {
    const { root, offsets } = tempDirs();
    const h = await start(harness(root, offsets));
    expect(h.tailer.watching).toBe(false);
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, rec(1) + '\n');
    await waitFor(() => h.got.length === 1, 8000, 'line after the root appeared');
    expect(h.tailer.watching).toBe(true);
    expect(h.got[0]).toMatchObject({ sessionId: S1, seed: false });
    // a session created afterwards is seen live
    writeFileSync(join(root, '-home-user-demo', `${S2}.jsonl`), rec(2) + '\n');
    await waitFor(() => h.got.length === 2, 8000, 'second session');
  });

  it('the root deleted while running is waited for again and re-created sessions are read live', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets));
    writeFileSync(f, rec(1) + '\n');
    await waitFor(() => h.got.length === 1);
    rmSync(root, { recursive: true });
    await waitFor(() => !h.tailer.watching && h.removed.length === 1, 8000, 'root gone');
    expect(h.warnings).toContain('root-missing');
    writeFileSync(join(project(root), `${S1}.jsonl`), rec(2) + '\n');
    await waitFor(() => h.got.length === 2, 8000, 'line in the re-created root');
    expect(h.got[1]).toMatchObject({ line: rec(2), startOffset: 0, seed: false });
  });

  it('polling mode (daemon.usePolling) tails too', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    // New files are found only by the watcher (the sweep checks known files), so the first
    // line proves polling works; the sweep covers chokidar's own add→watchFile race later.
    const h = await start(harness(root, offsets, { usePolling: true, rootPollMs: 1000 }));
    writeFileSync(f, rec(1) + '\n');
    // Generous waits: polling intervals stretch on a loaded 2-core CI machine.
    await waitFor(() => h.got.length === 1, 30_000, 'first line by polling');
    appendFileSync(f, rec(2) + '\n');
    await waitFor(() => h.got.length === 2, 30_000, 'second line by polling');
  }, 75_000);

  it.skipIf(process.getuid?.() === 0)('a file it may not read is reported once and read when allowed', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, '');
    const h = await start(harness(root, offsets));
    await waitFor(() => h.tailer.watchedFiles === 1);
    chmodSync(f, 0o200); // write-only: the owner may append but not read
    appendFileSync(f, rec(1) + '\n');
    await waitFor(() => h.skipped.some((s) => s.reason === 'permission-denied'), 8000, 'permission-denied');
    chmodSync(f, 0o600);
    appendFileSync(f, rec(2) + '\n');
    await waitFor(() => h.got.length === 2, 8000, 'lines once readable');
    expect(h.skipped.filter((s) => s.reason === 'permission-denied')).toHaveLength(1);
  });

  it('offsets survive a restart: committed lines are not re-read, new ones are not skipped', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, '');
    const h1 = await start(harness(root, offsets));
    appendFileSync(f, [rec(1), rec(2)].join('\n') + '\n');
    await waitFor(() => h1.got.length === 2);
    await h1.tailer.close();
    open.splice(open.indexOf(h1), 1);

    appendFileSync(f, rec(3) + '\n' + rec(4).slice(0, 5)); // one new line and a partial one while down
    const h2 = await start(harness(root, offsets));
    await waitFor(() => h2.got.length === 1, 8000, 'line written while down');
    expect(h2.got[0]).toMatchObject({ line: rec(3), first: true, seed: false });
    expect(h2.got[0].state).toEqual({ count: 2 }); // the state committed with the offset comes back
    appendFileSync(f, rec(4).slice(5) + '\n');
    await waitFor(() => h2.got.length === 2);
    expect(h2.got.map((g) => g.line)).toEqual([rec(3), rec(4)]);
  });

  it('a commit that changes nothing does not rewrite the offsets file', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    const h = await start(harness(root, offsets, {}, false));
    writeFileSync(f, rec(1) + '\n');
    await waitFor(() => h.got.length === 1);
    h.tailer.commit(f, h.got[0].endOffset, { n: 1 });
    const ino = statSync(offsets).ino;
    h.tailer.commit(f, h.got[0].endOffset, { n: 1 });
    expect(statSync(offsets).ino).toBe(ino);
    h.tailer.commit(f, h.got[0].endOffset, { n: 2 }); // new state: written
    expect(statSync(offsets).ino).not.toBe(ino);
    expect(JSON.parse(readFileSync(offsets, 'utf8')).files[f]).toMatchObject({ offset: h.got[0].endOffset, state: { n: 2 } });
    h.tailer.commit(f, 10 ** 9); // beyond what was read: clamped
    expect(JSON.parse(readFileSync(offsets, 'utf8')).files[f].offset).toBe(h.got[0].endOffset);
  });

  it('a restart inside an over-long line resumes at its start and skips it again', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, '');
    const d = { maxLineBytes: 8 * 1024 };
    const h1 = await start(harness(root, offsets, d));
    appendFileSync(f, rec(1) + '\n' + 'z'.repeat(30 * 1024));
    await waitFor(() => h1.got.length === 1);
    await h1.tailer.sweep();
    await h1.tailer.close();
    open.splice(open.indexOf(h1), 1);
    expect(JSON.parse(readFileSync(offsets, 'utf8')).files[f].offset).toBe(h1.got[0].endOffset);
    appendFileSync(f, 'z'.repeat(1024) + '\n' + rec(2) + '\n');
    const h2 = await start(harness(root, offsets, d));
    await waitFor(() => h2.got.length === 1);
    expect(h2.got[0].line).toBe(rec(2));
    expect(h2.skipped).toHaveLength(1);
    expect((h2.skipped[0].detail as { startOffset: number }).startOffset).toBe(h1.got[0].endOffset);
  });

  it('uncommitted lines are delivered again after a restart (a crash never skips)', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, '');
    const h1 = await start(harness(root, offsets, {}, false)); // consumer never commits
    appendFileSync(f, rec(1) + '\n' + rec(2) + '\n');
    await waitFor(() => h1.got.length === 2);
    h1.tailer.commit(f, h1.got[0].endOffset); // only the first line was processed
    await h1.tailer.close();
    open.splice(open.indexOf(h1), 1);
    const h2 = await start(harness(root, offsets));
    await waitFor(() => h2.got.length === 1);
    await h2.tailer.sweep();
    expect(h2.got.map((g) => g.line)).toEqual([rec(2)]);
  });

  it('a file replaced while the daemon was down restarts from 0 (as live content)', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const f = join(proj, `${S1}.jsonl`);
    writeFileSync(f, '');
    const h1 = await start(harness(root, offsets));
    appendFileSync(f, rec(1) + '\n' + rec(2) + '\n');
    await waitFor(() => h1.got.length === 2);
    await h1.tailer.close();
    open.splice(open.indexOf(h1), 1);
    rmSync(f);
    writeFileSync(join(proj, 'x.tmp'), 'junk\n'); // take the inode number, maybe
    writeFileSync(f, [rec(7), rec(8), rec(9)].join('\n') + '\n');
    const h2 = await start(harness(root, offsets));
    await waitFor(() => h2.got.length === 3);
    expect(h2.got.map((g) => g.line)).toEqual([rec(7), rec(8), rec(9)]);
  });

  it('ignores subagent files by default; flags them when watchSubagents is on', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    const subDir = join(proj, S1, 'subagents');
    mkdirSync(subDir, { recursive: true });
    const main = join(proj, `${S1}.jsonl`);
    const sub = join(subDir, 'agent-a1.jsonl');
    writeFileSync(sub, rec(100) + '\n');
    writeFileSync(main, rec(1) + '\n');
    const h = await start(harness(root, offsets));
    await waitFor(() => h.got.length === 1);
    appendFileSync(sub, rec(101) + '\n');
    await sleep(200);
    await h.tailer.sweep();
    expect(h.got.map((g) => g.path)).toEqual([main]);

    const { root: root2, offsets: offsets2 } = tempDirs();
    const proj2 = project(root2);
    mkdirSync(join(proj2, S1, 'subagents'), { recursive: true });
    const h2 = await start(harness(root2, offsets2, { watchSubagents: true }));
    const sub2 = join(proj2, S1, 'subagents', 'agent-b2.jsonl');
    writeFileSync(sub2, rec(200) + '\n');
    await waitFor(() => h2.got.length === 1, 8000, 'subagent line');
    expect(h2.got[0]).toMatchObject({ path: sub2, sessionId: S1, subagent: true });
  });

  it('a corrupt offsets file is set aside and tailing starts fresh', async () => {
    const { root, offsets } = tempDirs();
    const f = join(project(root), `${S1}.jsonl`);
    writeFileSync(f, rec(1) + '\n');
    mkdirSync(join(offsets, '..'), { recursive: true });
    writeFileSync(offsets, '{"version":1,"files":{"x":');
    const h = await start(harness(root, offsets));
    await waitFor(() => h.got.length === 1);
    expect(h.warnings).toContain('offsets-corrupt');
    expect(h.got[0].seed).toBe(true); // fresh start: existing content is history
    expect(JSON.parse(readFileSync(offsets, 'utf8')).files[f].offset).toBe(statSync(f).size);
  });
});

describe('tailer lifecycle', () => {
  it('close() right after start() neither hangs nor leaves reads running', async () => {
    const { root, offsets } = tempDirs();
    const proj = project(root);
    for (let i = 0; i < 30; i++) writeFileSync(join(proj, `cccccccc-0000-4000-8000-${String(i).padStart(12, '0')}.jsonl`), rec(i) + '\n');
    const h = harness(root, offsets);
    const started = h.tailer.start();
    await h.tailer.close();
    await started;
    await h.tailer.idle();
    expect(h.tailer.watching).toBe(false);
  });
});

describe('classifyTranscriptPath', () => {
  const root = '/r';
  it('accepts sessions and (when asked) subagent files only', () => {
    expect(classifyTranscriptPath(root, '/r/p/s.jsonl', false)).toEqual({ sessionId: 's', subagent: false });
    expect(classifyTranscriptPath(root, '/r/p/s/subagents/agent-1.jsonl', false)).toBeNull();
    expect(classifyTranscriptPath(root, '/r/p/s/subagents/agent-1.jsonl', true)).toEqual({ sessionId: 's', subagent: true });
    expect(classifyTranscriptPath(root, '/r/p/agent-1.jsonl', false)).toEqual({ sessionId: 'agent-1', subagent: true });
    expect(classifyTranscriptPath(root, '/r/s.jsonl', true)).toBeNull();
    expect(classifyTranscriptPath(root, '/r/p/s.json', true)).toBeNull();
    expect(classifyTranscriptPath(root, '/elsewhere/p/s.jsonl', true)).toBeNull();
  });
});
