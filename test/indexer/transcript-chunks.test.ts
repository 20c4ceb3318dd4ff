/**
 * Transcript chunks: an error is kept with what resolved it ("Past fix" shape), joining
 * stops when the error stops recurring or the assistant reports success, bounded sizes,
 * sidechain exchanges dropped, malformed lines skipped and counted — on synthetic
 * transcripts written to real temp files and read by the real transcript parser.
 */
import { afterAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdtempSync, rmSync, writeFileSync, existsSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chunkTranscript, errorLines, groupExchanges, reportsFailure, reportsSuccess, toolNames } from '../../indexer/transcript-chunks.js';
import { readTranscript } from '../../indexer/transcript-file.js';
import { createRedactor } from '../../shared/redact.js';
import type { Exchange } from '../../shared/types.js';
import { TranscriptBuilder, pastFixSession } from './transcript-fixture.js';

const LIMITS = { maxChunkChars: 1500, minChunkChars: 40, maxJoinExchanges: 3, titleChars: 80 };
const dir = mkdtempSync(join(tmpdir(), 'ab-tchunks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function chunksOf(b: TranscriptBuilder, limits = LIMITS) {
  const file = join(dir, `${b.sessionId}.jsonl`);
  writeFileSync(file, b.text());
  const read = await readTranscript(file, 8 * 1024 * 1024, createRedactor());
  return { read, ...chunkTranscript(read.exchanges, limits) };
}

let seq = 0;
function ex(p: Partial<Exchange>): Exchange {
  const i = seq++;
  return {
    sessionId: 's', uuid: `u${i}`, index: i, startOffset: i * 10, endOffset: i * 10 + 9, timestamp: Date.parse('2026-03-01T10:00:00Z') + i * 60_000,
    cwd: '/w', gitBranch: null, entrypoint: 'cli', isSidechain: false, user: '', assistant: '', toolCalls: [], toolErrors: [],
    assistantVisible: true, injected: false, ...p,
  };
}

describe('Past fix shape', () => {
  it('keeps the failing exchange together with the one that fixed it', async () => {
    const { title, chunks, read } = await chunksOf(pastFixSession());
    expect(read.exchanges.filter((e) => !e.isSidechain)).toHaveLength(3);
    expect(title).toBe('run the integration tests for the orders service');
    const fix = chunks.find((c) => c.hasError)!;
    expect(fix).toBeDefined();
    expect(fix.resolved).toBe(true);
    expect(fix.heading).toBe('2026-03-01 exchanges 1–2');
    // the error line and the fix are in the same chunk
    expect(fix.text).toContain('ECONNREFUSED 127.0.0.1:5432');
    expect(fix.text).toContain('docker compose');
    expect(fix.text).toContain('tests pass now');
    expect(fix.text).toContain('Tools: Bash');
    // tool noise (stack frames) is left out
    expect(fix.text).not.toContain('TCPConnectWrap');
    // the unrelated follow-up is its own chunk, not an error
    const after = chunks.find((c) => c.text.includes('changelog'))!;
    expect(after.hasError).toBe(false);
    expect(after.resolved).toBe(false);
    expect(after.heading).toBe('2026-03-01 exchange 3');
  });

  it('joins while the error recurs and marks the chunk resolved when it stops', async () => {
    const b = new TranscriptBuilder()
      .prompt('build the docs site')
      .tool('Bash', { command: 'make docs' }, 'sphinx-build: error: No module named sphinx_rtd_theme', true)
      .reply('The theme is missing.')
      .endTurn()
      .prompt('install it')
      .tool('Bash', { command: 'pip install sphinx-rtd-theme' }, 'ERROR: Could not find a version that satisfies the requirement', true)
      .reply('pip could not find that name.')
      .endTurn()
      .prompt('the package is sphinx_rtd_theme with underscores')
      .tool('Bash', { command: 'pip install sphinx_rtd_theme && make docs' }, 'build succeeded.')
      .reply('Installed sphinx_rtd_theme; the docs build succeeded.')
      .endTurn();
    const { chunks } = await chunksOf(b);
    expect(chunks).toHaveLength(1);
    expect(chunks[0]).toMatchObject({ hasError: true, resolved: true, heading: '2026-03-01 exchanges 1–3' });
    expect(chunks[0].text).toContain('No module named sphinx_rtd_theme');
    expect(chunks[0].text).toContain('docs build succeeded');
  });

  it('leaves an error unresolved when the conversation moves on without a fix', async () => {
    const b = new TranscriptBuilder()
      .prompt('deploy to staging')
      .tool('Bash', { command: './deploy.sh staging' }, 'Permission denied (publickey).', true)
      .reply('The deploy key was rejected by the staging host.')
      .endTurn()
      .prompt('never mind, what is the capital of Australia?')
      .reply('Canberra.')
      .endTurn();
    const { chunks } = await chunksOf(b);
    const err = chunks.find((c) => c.hasError)!;
    expect(err.resolved).toBe(false);
    expect(err.text).toContain('Permission denied (publickey)');
  });

  it('an error fixed inside the same turn is resolved on its own', async () => {
    const b = new TranscriptBuilder()
      .prompt('fix the failing lint job')
      .tool('Bash', { command: 'npm run lint' }, "error  'x' is defined but never used  no-unused-vars", true)
      .tool('Edit', { file_path: 'src/a.ts' }, 'ok')
      .tool('Bash', { command: 'npm run lint' }, 'clean')
      .reply('Removed the unused variable; lint passes and the job is fixed.')
      .endTurn()
      .prompt('great, open a PR with a long enough description please')
      .tool('Bash', { command: 'gh pr create' }, 'https://github.com/o/r/pull/1')
      .reply('Opened the pull request.')
      .endTurn();
    const { chunks } = await chunksOf(b);
    expect(chunks[0]).toMatchObject({ hasError: true, resolved: true, heading: '2026-03-01 exchange 1' });
    expect(chunks[1].hasError).toBe(false);
  });

  it('bounds joining at maxJoinExchanges', () => {
    const failing = Array.from({ length: 6 }, (_, i) => ex({ user: `attempt ${i}`, assistant: 'still failing with the same error', toolCalls: ['Bash: make'], toolErrors: ['make: *** [all] Error 2'] }));
    const groups = groupExchanges(failing, { ...LIMITS, maxJoinExchanges: 2 });
    expect(groups.map((g) => g.group.length)).toEqual([2, 2, 2]);
    expect(groups.every((g) => g.hasError && !g.resolved)).toBe(true);
  });
});

describe('transcript input', () => {
  it('drops sidechain exchanges and skips malformed lines (counted)', async () => {
    const b = pastFixSession()
      .raw('{"type":"user","message":')
      .raw('not json at all')
      .raw('{"type":"brand-new-record","x":1}');
    const side = new TranscriptBuilder(b.sessionId, true).prompt('subagent: search the codebase for pool config').reply('Found it in src/db.ts, done.').endTurn();
    for (const l of side.lines) b.raw(l);
    const { read, chunks } = await chunksOf(b);
    expect(read.malformedLines).toBe(2);
    expect(read.exchanges.some((e) => e.isSidechain)).toBe(true);
    expect(chunks.some((c) => c.text.includes('subagent'))).toBe(false);
    expect(chunks.some((c) => c.hasError && c.resolved)).toBe(true);
  });

  it('an empty or noise-only transcript gives no chunks and no title', async () => {
    const { chunks, title } = await chunksOf(new TranscriptBuilder().noise().noise());
    expect(chunks).toEqual([]);
    expect(title).toBe('');
  });

  it('a long reply gets continuation chunks so the whole narrative stays searchable', async () => {
    const story = Array.from({ length: 60 }, (_, i) => `Step ${i}: checked module m${i} and adjusted its retry policy.`).join(' ');
    const b = new TranscriptBuilder().prompt('harden the retry policies').tool('Bash', { command: 'grep -r retry' }, 'src/...').reply(story).endTurn();
    const { chunks } = await chunksOf(b);
    expect(chunks.length).toBeGreaterThan(2);
    expect(chunks[0].heading).toBe('2026-03-01 exchange 1');
    expect(chunks.slice(1).every((c) => c.heading.endsWith('(reply, cont.)') && c.text.startsWith('Prompt: harden the retry policies'))).toBe(true);
    for (const n of [0, 30, 59]) expect(chunks.some((c) => c.text.includes(`module m${n} `))).toBe(true);
    for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(LIMITS.maxChunkChars);
  });

  it('reads the real eval transcripts when present (skipped otherwise)', async () => {
    const root = join(process.env.ACTIVE_BRAIN_EVAL_DIR ?? join(import.meta.dirname, '..', '..', '..', 'shared', 'eval'), 'claude-code', 'projects');
    if (!existsSync(root)) return;
    for (const project of readdirSync(root)) {
      for (const f of readdirSync(join(root, project)).filter((n) => n.endsWith('.jsonl'))) {
        const read = await readTranscript(join(root, project, f), 8 * 1024 * 1024, createRedactor());
        const { chunks, title } = chunkTranscript(read.exchanges, LIMITS);
        expect(title.length).toBeGreaterThan(0);
        expect(chunks.length).toBeGreaterThan(0);
        for (const c of chunks) expect(c.text.length).toBeLessThanOrEqual(LIMITS.maxChunkChars);
      }
    }
  });
});

describe('helpers', () => {
  it('summarises tool names with counts and picks the informative error lines', () => {
    expect(toolNames(['Bash: ls', 'Read: a.ts', 'Bash: make', 'Bash: make'])).toBe('Bash×3, Read');
    expect(errorLines(['Traceback (most recent call last):\n  File "x.py", line 1\nKeyError: \'id\'', 'Exit code 1\nError: same\nError: same', 'Exit code 2\nmake: *** [all] Error 2'])).toEqual([
      "KeyError: 'id'",
      'Exit code 1: Error: same',
      'Error: same',
      'Exit code 2: make: *** [all] Error 2',
    ]);
    expect(errorLines(['Lint hook failed:\\n\\n[STYLE] Files need reformatting.\\nRun the formatter'])).toEqual(['Lint hook failed: [STYLE] Files need reformatting.']);
    expect(errorLines(['Exit code 1'])).toEqual(['Exit code 1']);
  });

  it('reads success and failure from the end of a reply', () => {
    expect(reportsSuccess('I changed the config. All tests pass.')).toBe(true);
    expect(reportsSuccess('I changed the config but the tests still fail.')).toBe(false);
    expect(reportsSuccess('Looking into it.')).toBe(false);
    expect(reportsFailure('same error as before')).toBe(true);
  });
});

// ---- property: every exchange is covered, sizes bounded, flags consistent -------------------
const arbExchange = fc.record({
  user: fc.string({ maxLength: 400 }),
  assistant: fc.string({ maxLength: 5000 }),
  toolCalls: fc.array(fc.constantFrom('Bash: make', 'Read: a.ts', 'Edit: b.ts'), { maxLength: 30 }),
  toolErrors: fc.array(fc.string({ maxLength: 300 }), { maxLength: 4 }),
  isSidechain: fc.boolean(),
});

describe('transcript chunk properties', () => {
  it('bounded chunks, every main-lane exchange with content in some chunk, resolved ⇒ hasError', () => {
    fc.assert(
      fc.property(fc.array(arbExchange, { maxLength: 12 }), fc.integer({ min: 200, max: 2000 }), fc.integer({ min: 1, max: 4 }), (xs, max, join) => {
        seq = 0;
        const exchanges = xs.map((x) => ex(x));
        const limits = { maxChunkChars: max, minChunkChars: 40, maxJoinExchanges: join, titleChars: 60 };
        const { chunks, title } = chunkTranscript(exchanges, limits);
        expect(title.length).toBeLessThanOrEqual(60);
        for (const c of chunks) {
          expect(c.text.length).toBeLessThanOrEqual(max);
          if (c.resolved) expect(c.hasError).toBe(true);
        }
        const ranges = chunks.map((c) => {
          const m = /exchanges? (\d+)(?:–(\d+))?/.exec(c.heading)!;
          return [Number(m[1]), Number(m[2] ?? m[1])];
        });
        for (const e of exchanges) {
          const content = e.user.trim() || e.assistant.trim() || e.toolCalls.length || e.toolErrors.length;
          const n = e.index + 1;
          const covered = ranges.some(([a, b]) => a <= n && n <= b);
          if (e.isSidechain || !content) continue;
          expect(covered).toBe(true);
        }
      }),
      { numRuns: 200 },
    );
  });
});
