/**
 * `backtest` / `replay` and `eval pastfix` count tool errors differently: replay counts every
 * failed step, pastfix only the signed errors the hook sees. The replay summary splits its
 * total by kind (eval/tool-error-kinds.ts) so the two reconcile: `signed` equals pastfix's
 * `errors`, and the kinds add up to `tool_errors`. Real CLI on a temp transcripts folder with
 * one error of every kind; the backtest page shows offer counts as figures, never a "pass".
 */
import { afterAll, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { offlineModelPath, repoRoot } from '../helpers/model.js';
import { TranscriptBuilder } from '../indexer/transcript-fixture.js';
import { toolErrorKind } from '../../eval/tool-error-kinds.js';

const BIN = join(repoRoot, 'bin', 'active-brain.js');
const tmp = mkdtempSync(join(tmpdir(), 'ab-error-kinds-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const SIGNED = 'Exit code 128\nfatal: not a git repository (or any of the parent directories): .git';
const REJECTION = '<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>';
const CASCADE = 'Sibling tool call errored';

describe('tool error kinds', () => {
  it('classifies by the rules eval pastfix counts with', () => {
    expect(toolErrorKind({ isError: true, toolUseError: false, resultText: SIGNED })).toBe('signed');
    expect(toolErrorKind({ isError: true, toolUseError: true, resultText: REJECTION })).toBe('rejection');
    expect(toolErrorKind({ isError: true, toolUseError: false, resultText: CASCADE })).toBe('cascade');
    expect(toolErrorKind({ isError: false, toolUseError: false, resultText: SIGNED })).toBeNull();
  });

  it('replay and eval pastfix reconcile on the same transcripts; the backtest page shows no pass for a count', () => {
    const root = join(tmp, 'projects');
    const proj = join(root, '-home-dev-api');
    mkdirSync(proj, { recursive: true });
    for (let i = 0; i < 2; i++) {
      const b = new TranscriptBuilder()
        .prompt('commit the release notes')
        .tool('Bash', { command: 'git status' }, SIGNED, true)
        .tool('Write', { file_path: 'NOTES.md' }, REJECTION, true)
        .tool('Bash', { command: 'ls' }, CASCADE, true)
        .reply('This folder is not a git repository; ran git init.')
        .endTurn();
      writeFileSync(join(proj, `${b.sessionId}.jsonl`), b.text());
    }
    // a worker session (`claude -p`: entrypoint sdk-cli): no offers there, so replay counts its
    // error apart; eval pastfix replays it like any session and counts it
    const w = new TranscriptBuilder().prompt('run git status').tool('Bash', { command: 'git status' }, SIGNED, true).reply('Not a repository.').endTurn();
    writeFileSync(join(proj, `${w.sessionId}.jsonl`), w.lines.map((l) => JSON.stringify({ ...JSON.parse(l), entrypoint: 'sdk-cli' })).join('\n') + '\n');
    const env = { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_MODEL_PATH: offlineModelPath(), ACTIVE_BRAIN_TRANSCRIPTS: root, CODEX_HOME: join(tmp, 'codex'), CI: 'true' };
    const run = (...args: string[]) => spawnSync(process.execPath, [BIN, ...args], { env, encoding: 'utf8', timeout: 120_000 });
    type Kinds = Record<string, number>;
    const replay = JSON.parse(run('replay', root, '--json').stdout) as { tool_errors: number; tool_errors_by_kind: Kinds; tool_errors_unoffered: { workers: Kinds; subagents: Kinds } };
    const pastfix = JSON.parse(run('eval', 'pastfix', root, '--json').stdout) as { errors: number };
    expect(replay.tool_errors).toBe(6);
    expect(replay.tool_errors_by_kind).toEqual({ signed: 2, rejection: 2, cascade: 2, 'no-signature': 0 });
    expect(replay.tool_errors_unoffered.workers).toEqual({ signed: 1, rejection: 0, cascade: 0, 'no-signature': 0 });
    // they reconcile: pastfix's errors are the signed ones, the workers' included
    expect(pastfix.errors).toBe(3);
    expect(replay.tool_errors_by_kind.signed + replay.tool_errors_unoffered.workers.signed).toBe(pastfix.errors);
    const text = run('replay', root).stdout;
    expect(text).toContain('6 error(s): 2 the hook sees with an error signature (what `eval pastfix` counts), 2 <tool_use_error> rejection(s) that fire no hook, 2 cascade(s)');
    expect(text).toContain('`eval pastfix` counts 3: these and 1 signed error(s) of worker sessions');

    const html = join(tmp, 'page.html');
    const bt = run('backtest', '--since', 'all', '--html', html);
    expect(bt.status, bt.stderr).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).toMatch(/<td class="nw info">figure<\/td><td class="nw">history\.prompt-offers<\/td>/);
    expect(page).not.toMatch(/>pass<\/td><td[^>]*>history\.(prompt|tool)-offers/);
    expect(page).toContain('6 error(s): 2 the hook sees');
    // control: a real gate on the same page still says pass
    expect(page).toMatch(/<td class="nw pass">pass<\/td><td class="nw">history\.sidechain-offers<\/td>/);
  }, 120_000);
});
