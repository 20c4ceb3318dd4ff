/**
 * Small pure pieces of the indexer's edges: the progress line and its TTY-only drawing,
 * scope validation, the guess of a source's kind, and the source file listing (notes
 * extensions, hidden folders, transcripts at <root>/<project>/*.jsonl without subagents).
 */
import { afterAll, describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProgress, progressLine } from '../../indexer/progress.js';
import { guessKind, scopeProblem } from '../../cli/commands/index-cmd.js';
import { listSourceFiles } from '../../indexer/files.js';
import { decodeUtf8 } from '../../indexer/files.js';

const tmp = mkdtempSync(join(tmpdir(), 'ab-idx-small-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function sink() {
  let out = '';
  const stream = new Writable({ write(chunk, _enc, cb) { out += String(chunk); cb(); } }) as unknown as NodeJS.WriteStream;
  return { stream, text: () => out };
}

describe('progress', () => {
  it('formats files done / total and chunks per second', () => {
    expect(progressLine(5, 10, 300, 2)).toBe('[############------------] 5/10 files · 300 chunks · 150 chunks/s');
    expect(progressLine(0, 0, 0, 0)).toContain('0/0 files');
  });

  it('draws on a TTY and ends the line; draws nothing otherwise', () => {
    const tty = sink();
    const p = createProgress(tty.stream, true);
    p.start(2);
    p.update(2, 10);
    p.done();
    expect(tty.text()).toContain('\r[');
    expect(tty.text()).toContain('2/2 files · 10 chunks');
    expect(tty.text().endsWith('\n')).toBe(true);
    const pipe = sink();
    const q = createProgress(pipe.stream, false);
    q.start(2);
    q.update(2, 10);
    q.done();
    expect(pipe.text()).toBe('');
  });
});

describe('arguments', () => {
  it('accepts global and project:<glob> scopes only', () => {
    expect(scopeProblem('global')).toBeNull();
    expect(scopeProblem('project:~/work/**')).toBeNull();
    for (const bad of ['', 'Global', 'project:', 'project: ', 'proj:x', 'local']) expect(scopeProblem(bad)).toMatch(/is not valid/);
  });

  it('guesses transcripts for a projects root and notes otherwise', () => {
    const root = join(tmp, 'projects');
    mkdirSync(join(root, '-home-x', 'sess', 'subagents'), { recursive: true });
    writeFileSync(join(root, '-home-x', 'sess.jsonl'), '{}\n');
    writeFileSync(join(root, '-home-x', 'sess', 'subagents', 'agent-1.jsonl'), '{}\n');
    expect(guessKind(root)).toBe('transcripts');
    expect(guessKind(join(root, '-home-x', 'sess.jsonl'))).toBe('transcripts');
    const notes = join(tmp, 'mixed');
    mkdirSync(notes);
    writeFileSync(join(notes, 'a.md'), '# a');
    writeFileSync(join(notes, 'log.jsonl'), '{}');
    expect(guessKind(notes)).toBe('notes');
    expect(guessKind(join(tmp))).toBe('notes');
  });
});

describe('source listing', () => {
  it('notes: .md/.markdown/.txt below the folder, hidden folders and node_modules skipped', () => {
    const root = join(tmp, 'vault');
    for (const d of ['a/b', '.obsidian', 'node_modules/pkg', '.git']) mkdirSync(join(root, d), { recursive: true });
    for (const f of ['x.md', 'a/y.MARKDOWN', 'a/b/z.txt', 'a/b/img.png', '.obsidian/w.md', 'node_modules/pkg/readme.md', '.git/HEAD', '.hidden.md']) writeFileSync(join(root, f), 'text');
    expect(listSourceFiles(root, 'notes').files.map((f) => f.slice(root.length + 1))).toEqual(['a/b/z.txt', 'a/y.MARKDOWN', 'x.md']);
  });

  it('transcripts: <root>/<project>/*.jsonl and <root>/*.jsonl, never subagents', () => {
    const root = join(tmp, 'projects2');
    mkdirSync(join(root, 'p1', 's1', 'subagents'), { recursive: true });
    mkdirSync(join(root, 'subagents'), { recursive: true });
    for (const f of ['p1/s1.jsonl', 'p1/s1/subagents/agent-a.jsonl', 'subagents/x.jsonl', 'direct.jsonl', 'p1/notes.md']) writeFileSync(join(root, f), '{}');
    expect(listSourceFiles(root, 'transcripts').files.map((f) => f.slice(root.length + 1))).toEqual(['direct.jsonl', 'p1/s1.jsonl']);
  });

  it('a single file source, a wrong-type file, a missing path', () => {
    const f = join(tmp, 'one.md');
    writeFileSync(f, '# one');
    expect(listSourceFiles(f, 'notes')).toEqual({ files: [f], problems: [] });
    expect(listSourceFiles(f, 'transcripts').problems[0]).toMatchObject({ reason: 'unsupported' });
    expect(listSourceFiles(join(tmp, 'gone'), 'notes').problems[0]).toMatchObject({ reason: 'missing_source' });
  });
});

describe('UTF-8 decoding', () => {
  it('strict when valid, replacement for a few bad bytes, refusal for mostly invalid bytes', () => {
    expect(decodeUtf8(Buffer.from('héllo'), 0.05)).toEqual({ ok: true, text: 'héllo', replaced: 0 });
    const few = decodeUtf8(Buffer.concat([Buffer.from('a'.repeat(100)), Buffer.from([0xff])]), 0.05);
    expect(few).toEqual({ ok: true, text: 'a'.repeat(100) + '\uFFFD', replaced: 1 });
    expect(decodeUtf8(Buffer.from([0xff, 0xfe, 0x80, 0x41]), 0.05)).toEqual({ ok: false });
  });
});

describe('embedding text', () => {
  it('puts the title and heading trail before the text, without repeating the title', async () => {
    const { embeddingText } = await import('../../indexer/embed-batch.js');
    expect(embeddingText('Pool', 'Pool > Fix', 'raise it')).toBe('Pool > Fix\nraise it');
    expect(embeddingText('Session', '2026-03-01 exchange 1', 'x')).toBe('Session — 2026-03-01 exchange 1\nx');
    expect(embeddingText('T', '', 'x')).toBe('T\nx');
    expect(embeddingText('', '', 'x')).toBe('x');
  });
});
