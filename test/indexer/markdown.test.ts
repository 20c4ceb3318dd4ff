/**
 * The Markdown / plain-text chunker: headings and trails, titles, front-matter aliases,
 * size limits (paragraphs, sentences, code fences), tiny-section merging, and two
 * properties over generated documents: nothing but whitespace is lost, no chunk is too long.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chunkMarkdown, chunkNote, chunkPlainText, frontMatterAliases, splitFrontMatter } from '../../indexer/markdown.js';
import { splitBlock, paragraphUnits, hardSplit } from '../../indexer/split.js';
import { repoRoot } from '../helpers/model.js';

const LIMITS = { maxChunkChars: 1500, minChunkChars: 40 };
const fixture = (p: string) => readFileSync(join(repoRoot, 'test', 'fixtures', 'notes', p), 'utf8');
const squash = (s: string) => s.replace(/\s+/g, '');

describe('chunkMarkdown', () => {
  it('chunks the fixture note by headings with trails, title from H1 and aliases from front matter', () => {
    const note = chunkMarkdown(fixture('pg/pool-timeouts.md'), 'pg/pool-timeouts.md', LIMITS);
    expect(note.title).toBe('Postgres pool timeouts');
    expect(note.aliases).toEqual(['pgbouncer timeouts', 'pool resets', 'postgres', 'incident']);
    expect(note.chunks.map((c) => c.heading)).toEqual([
      'Postgres pool timeouts',
      'Postgres pool timeouts > Symptoms',
      'Postgres pool timeouts > Fix',
      'Postgres pool timeouts > Fix > Verification',
    ]);
    // the heading line is part of its chunk; front matter is not chunked
    expect(note.chunks[1].text.startsWith('## Symptoms')).toBe(true);
    expect(note.chunks.some((c) => c.text.includes('aliases:'))).toBe(false);
    // the code fence (with a blank line inside) stays whole in the Fix chunk
    const fix = note.chunks[2].text;
    expect(fix).toContain('```js');
    expect(fix).toContain('keepAlive: true,\n});\n```');
  });

  it('uses the file name as title when there is no H1, and ignores headings inside code fences', () => {
    const text = '## Setup\n\nInstall the tools before anything else, then run the checks.\n\n```sh\n# not a heading\nmake\n```\n';
    const note = chunkMarkdown(text, '/notes/setup-guide.md', LIMITS);
    expect(note.title).toBe('setup-guide');
    expect(note.chunks).toHaveLength(1);
    expect(note.chunks[0].heading).toBe('Setup');
    expect(note.chunks[0].text).toContain('# not a heading');
  });

  it('pops the trail on a sibling or higher heading and strips inline markup from headings', () => {
    const body = (n: number) => `Body text number ${n} that is long enough to stand alone as a chunk.`;
    const text = `# A\n${body(1)}\n## B **bold**\n${body(2)}\n### C [link](http://x)\n${body(3)}\n## D ##\n${body(4)}\n# E\n${body(5)}\n`;
    const note = chunkMarkdown(text, 'x.md', LIMITS);
    expect(note.chunks.map((c) => c.heading)).toEqual(['A', 'A > B bold', 'A > B bold > C link', 'A > D', 'E']);
  });

  it('merges a tiny section into the next one, and a tiny last section into the previous one', () => {
    const long = 'This paragraph is comfortably longer than the minimum chunk size.';
    const note = chunkMarkdown(`# Title\n\n## One\n${long}\n\n## Two\nshort\n`, 'x.md', LIMITS);
    expect(note.chunks).toHaveLength(1);
    expect(note.chunks[0].heading).toBe('Title > One');
    expect(note.chunks[0].text).toContain('# Title');
    expect(note.chunks[0].text).toContain('short');
  });

  it('splits a long section on paragraphs, each piece within the limit and keeping the heading trail', () => {
    const para = (i: number) => `Paragraph ${i}. ` + 'word '.repeat(60).trim() + '.';
    const text = `# Big\n\n${Array.from({ length: 12 }, (_, i) => para(i)).join('\n\n')}\n`;
    const limits = { maxChunkChars: 800, minChunkChars: 40 };
    const note = chunkMarkdown(text, 'big.md', limits);
    expect(note.chunks.length).toBeGreaterThan(3);
    for (const c of note.chunks) {
      expect(c.text.length).toBeLessThanOrEqual(800);
      expect(c.heading).toBe('Big');
    }
    // paragraph boundaries are respected: every chunk starts at a paragraph (or the heading)
    for (const c of note.chunks) expect(c.text).toMatch(/^(# Big|Paragraph \d+\.)/);
  });

  it('splits a giant paragraph on sentences', () => {
    const sentences = Array.from({ length: 40 }, (_, i) => `Sentence number ${i} says something useful about the topic.`);
    const pieces = splitBlock(sentences.join(' '), 300);
    expect(pieces.length).toBeGreaterThan(5);
    for (const p of pieces) {
      expect(p.length).toBeLessThanOrEqual(300);
      expect(p).toMatch(/^Sentence number \d+/);
      expect(p).toMatch(/topic\.$/);
    }
  });

  it('keeps a code fence whole when it fits, and cuts an oversized one on lines', () => {
    const fence = '```py\n' + Array.from({ length: 8 }, (_, i) => `x${i} = ${i}`).join('\n\n') + '\n```';
    const text = 'Intro paragraph here.\n\n' + fence + '\n\nOutro paragraph here.';
    expect(paragraphUnits(text)).toEqual(['Intro paragraph here.', fence, 'Outro paragraph here.']);
    const pieces = splitBlock('a '.repeat(60) + '\n\n' + fence, fence.length + 5);
    expect(pieces).toContain(fence);
    const big = '```\n' + Array.from({ length: 100 }, (_, i) => `line ${i} of code`).join('\n') + '\n```';
    const cut = splitBlock(big, 200);
    expect(cut.length).toBeGreaterThan(5);
    for (const p of cut) expect(p.length).toBeLessThanOrEqual(200);
    expect(squash(cut.join(''))).toBe(squash(big));
  });

  it('hard-splits a token longer than the limit without breaking a surrogate pair', () => {
    const s = '😀'.repeat(300);
    const parts = hardSplit(s, 101);
    for (const p of parts) {
      expect(p.length).toBeLessThanOrEqual(101);
      expect(p).not.toMatch(/[\ud800-\udbff]$/);
    }
    expect(parts.join('')).toBe(s);
  });

  it('handles CRLF, a BOM, empty and whitespace-only input', () => {
    expect(chunkMarkdown('', 'e.md', LIMITS).chunks).toEqual([]);
    expect(chunkMarkdown(' \n\n\t\n', 'e.md', LIMITS).chunks).toEqual([]);
    const note = chunkMarkdown('\uFEFF# T\r\n\r\nSome text long enough to be one chunk on its own.\r\n', 'x.md', LIMITS);
    expect(note.title).toBe('T');
    expect(note.chunks[0].text).not.toContain('\r');
  });
});

describe('front matter', () => {
  it('reads inline, block and scalar aliases/tags and dedups case-insensitively', () => {
    expect(frontMatterAliases('aliases: [One, "Two"]\ntags: a b, #c\ntitle: x')).toEqual(['One', 'Two', 'a', 'b', 'c']);
    expect(frontMatterAliases('alias: Single Name')).toEqual(['Single Name']);
    expect(frontMatterAliases('aliases:\n  - x\n  - X\n\nother: 1')).toEqual(['x']);
    expect(splitFrontMatter('no front matter\n---\n').yaml).toBe('');
  });

  it('leaves an unclosed front-matter block in the body (nothing lost)', () => {
    const note = chunkMarkdown('---\naliases: [x]\nno closing line, so this is body text of some length.\n', 'x.md', LIMITS);
    expect(note.aliases).toEqual([]);
    expect(note.chunks[0].text).toContain('aliases: [x]');
  });
});

describe('plain text', () => {
  it('chunks .txt by paragraphs with no headings and the file name as title', () => {
    const note = chunkNote(fixture('reading-list.txt'), '/n/reading-list.txt', LIMITS);
    expect(note.title).toBe('reading-list');
    expect(note.chunks).toHaveLength(1);
    expect(note.chunks[0].heading).toBe('');
    const long = Array.from({ length: 30 }, (_, i) => `Paragraph ${i} with a few words in it.`).join('\n\n');
    const many = chunkPlainText(long, 'l.txt', { maxChunkChars: 200, minChunkChars: 10 });
    expect(many.chunks.length).toBeGreaterThan(4);
    for (const c of many.chunks) expect(c.text.length).toBeLessThanOrEqual(200);
  });
});

// ---- properties ---------------------------------------------------------------------------

const word = fc.oneof(
  fc.constantFrom('alpha', 'beta', 'gamma', 'ECONNRESET', 'pool', 'über', '日本語', '😀', 'x'),
  fc.string({ minLength: 1, maxLength: 12 }).filter((s) => !/\s/.test(s)),
  fc.constant('z'.repeat(150)),
);
const sentence = fc.array(word, { minLength: 1, maxLength: 20 }).map((ws) => ws.join(' ') + '.');
const line = fc.oneof(
  { weight: 6, arbitrary: fc.array(sentence, { minLength: 1, maxLength: 4 }).map((s) => s.join(' ')) },
  { weight: 2, arbitrary: fc.tuple(fc.integer({ min: 1, max: 6 }), fc.array(word, { maxLength: 4 })).map(([n, ws]) => `${'#'.repeat(n)} ${ws.join(' ')}`) },
  { weight: 2, arbitrary: fc.constant('') },
  { weight: 1, arbitrary: fc.constantFrom('```', '```ts', '~~~~', '    indented code', '- list item', '> quote', '---') },
  { weight: 1, arbitrary: fc.string({ maxLength: 40 }) },
);
const doc = fc.array(line, { maxLength: 60 }).map((ls) => ls.join('\n'));
const limits = fc
  .tuple(fc.integer({ min: 60, max: 600 }), fc.integer({ min: 1, max: 120 }))
  .map(([max, min]) => ({ maxChunkChars: max, minChunkChars: Math.min(min, max - 1) }));

describe('chunker properties', () => {
  it('markdown: chunks cover the body (whitespace aside) in order, and each is within the limit', () => {
    fc.assert(
      fc.property(doc, limits, (text, lim) => {
        const note = chunkMarkdown(text, 'p.md', lim);
        for (const c of note.chunks) expect(c.text.length).toBeLessThanOrEqual(lim.maxChunkChars);
        const body = splitFrontMatter(text.replace(/\r\n?/g, '\n')).body;
        expect(squash(note.chunks.map((c) => c.text).join(''))).toBe(squash(body));
      }),
      { numRuns: 300 },
    );
  });

  it('plain text: chunks cover the text and each is within the limit', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 3000 }), limits, (text, lim) => {
        const note = chunkPlainText(text, 'p.txt', lim);
        for (const c of note.chunks) expect(c.text.length).toBeLessThanOrEqual(lim.maxChunkChars);
        expect(squash(note.chunks.map((c) => c.text).join(''))).toBe(squash(text.replace(/^\uFEFF/, '')));
      }),
      { numRuns: 300 },
    );
  });
});

describe('pathological headings', () => {
  it('a huge heading line is kept in the text once but capped in the trail and title', async () => {
    const { chunkMarkdown, MAX_HEADING_CHARS } = await import('../../indexer/markdown.js');
    const huge = 'x'.repeat(300_000);
    const note = chunkMarkdown(`# ${huge}\n\n## Fix\n\nraise the idle timeout\n`, 'n.md', { maxChunkChars: 1500, minChunkChars: 40 });
    expect(note.title.length).toBeLessThanOrEqual(MAX_HEADING_CHARS);
    for (const c of note.chunks) expect(c.heading.length).toBeLessThanOrEqual(2 * MAX_HEADING_CHARS + 10);
    const total = note.chunks.reduce((n, c) => n + c.text.length + c.heading.length, 0);
    // Linear: the text once plus a capped heading per chunk (uncapped, every chunk repeated the line).
    expect(total).toBeLessThan(huge.length * 1.2);
  });
});
