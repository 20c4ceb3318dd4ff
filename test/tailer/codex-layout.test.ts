/**
 * The tailer on a Codex CLI sessions root (daemon/codex-layout.ts): rollout paths classify to
 * the uuid in their name and nothing else does; a real TailerGroup over a Claude Code root and
 * a Codex root delivers the lines of both (each with its session id), a rollout in a day
 * folder created after start is found, other files in the tree are ignored, commits reach
 * each child's own offsets file, and the day-folder rescan lists the newest days first.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { classifyCodexPath, codexDayFolders, codexIgnored, CODEX_RESCAN_DAYS } from '../../daemon/codex-layout.js';
import { TailerGroup } from '../../daemon/tailer-group.js';
import { SMALL, removeTempDirs, tempDirs, waitFor } from './harness.js';

afterAll(() => removeTempDirs());
const ID = '0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000';

describe('Codex layout rules', () => {
  it('classifies rollouts under YYYY/MM/DD only', () => {
    expect(classifyCodexPath('/r', `/r/2026/12/01/rollout-2026-12-01T10-00-00-${ID}.jsonl`)).toEqual({ sessionId: ID, subagent: false });
    for (const p of ['/r/2026/12/01/notes.jsonl', '/r/2026/12/rollout-x.jsonl', '/r/abcd/12/01/rollout-x.jsonl', '/r/2026/12/01/x/rollout-y.jsonl', '/elsewhere/2026/12/01/rollout-x.jsonl', '/r/2026/12/01/rollout-x.json']) {
      expect(classifyCodexPath('/r', p)).toBeNull();
    }
  });
  it('the watcher descends year/month/day folders only', () => {
    expect(codexIgnored('/r', '/r')).toBe(false);
    expect(codexIgnored('/r', '/r/2026')).toBe(false);
    expect(codexIgnored('/r', '/r/archive')).toBe(true);
    expect(codexIgnored('/r', '/r/2026/12/01/rollout-a.jsonl')).toBe(false);
    expect(codexIgnored('/r', '/r/2026/12/01/other.txt')).toBe(true);
    expect(codexIgnored('/r', '/r/2026/12/01/x/y.jsonl')).toBe(true);
  });
  it('the rescan lists the newest day folders first, at most CODEX_RESCAN_DAYS', async () => {
    const { root } = tempDirs();
    for (let d = 1; d <= CODEX_RESCAN_DAYS + 3; d++) mkdirSync(join(root, '2026', '11', String(d).padStart(2, '0')), { recursive: true });
    mkdirSync(join(root, '2026', '12', '01'), { recursive: true });
    const days = await codexDayFolders(root);
    expect(days).toHaveLength(CODEX_RESCAN_DAYS);
    expect(days[0]).toBe(join(root, '2026', '12', '01'));
    expect(await codexDayFolders(join(root, 'missing'))).toEqual([]);
  });
});

describe('TailerGroup: a Claude Code root and a Codex root, one consumer', () => {
  it('delivers both, finds a rollout in a new day folder, keeps offsets apart', async () => {
    const { base, root } = tempDirs();
    const codexRoot = join(base, 'codex', 'sessions');
    mkdirSync(join(root, '-work-app'), { recursive: true });
    mkdirSync(codexRoot, { recursive: true });
    const offsets = join(base, 'home', 'offsets.json');
    const codexOffsets = join(base, 'home', 'offsets-codex.json');
    const got: Array<{ path: string; sessionId: string; line: string }> = [];
    const group: TailerGroup = new TailerGroup(
      [
        { root, offsetsPath: offsets, daemon: SMALL },
        { root: codexRoot, host: 'codex', offsetsPath: codexOffsets, daemon: SMALL },
      ],
      {
        async lines(path, sessionId, lines, info) {
          await new Promise((r) => setTimeout(r, 5)); // a slow consumer: the tailer awaits it
          for (const l of lines) got.push({ path, sessionId, line: l.line });
          group.commit(path, info.endOffset, { n: got.length });
        },
      },
    );
    await group.start();
    try {
      const claude = join(root, '-work-app', 's1.jsonl');
      writeFileSync(claude, '{"type":"user"}\n');
      const day = join(codexRoot, '2026', '12', '01');
      mkdirSync(day, { recursive: true });
      const rollout = join(day, `rollout-2026-12-01T10-00-00-${ID}.jsonl`);
      writeFileSync(rollout, '{"type":"session_meta"}\n');
      writeFileSync(join(day, 'notes.txt'), 'not a rollout\n');
      await waitFor(() => got.some((g) => g.path === rollout) && got.some((g) => g.path === claude), 10_000, 'both files');
      appendFileSync(rollout, '{"type":"response_item"}\n');
      await waitFor(() => got.filter((g) => g.path === rollout).length === 2, 10_000, 'the appended line');
      expect(got.filter((g) => g.path === rollout).map((g) => g.sessionId)).toEqual([ID, ID]);
      expect(got.find((g) => g.path === claude)?.sessionId).toBe('s1');
      expect(got.some((g) => g.path.endsWith('notes.txt'))).toBe(false);
      expect(group.watchedFiles).toBe(2);
      await group.sweep();
    } finally {
      await group.close();
    }
    await waitFor(() => existsSync(codexOffsets) && existsSync(offsets), 5000, 'offsets files');
    expect(readFileSync(codexOffsets, 'utf8')).toContain('rollout-');
    expect(readFileSync(codexOffsets, 'utf8')).not.toContain('s1.jsonl');
    expect(readFileSync(offsets, 'utf8')).not.toContain('rollout-');
  });
});
