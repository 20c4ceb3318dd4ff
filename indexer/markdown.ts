/**
 * Markdown and plain-text chunker (pure: text in, chunks out; the indexer reads the file
 * and writes the chunks to the store).
 *
 * Markdown: split by ATX headings (`#`…`######`, outside code fences); each chunk keeps
 * its heading trail (`A > B`) and includes its own heading line in its text. Sections
 * longer than `maxChunkChars` are cut on paragraphs, then sentences (code fences whole
 * when they fit); pieces shorter than `minChunkChars` are merged into the next piece
 * (or the previous one at the end) when the result still fits. The title is the first H1,
 * else the file name. YAML front matter is not chunked; its `aliases:` and `tags:` values
 * (inline list, block list or scalar) become the document's aliases.
 *
 * Plain text: the same size rules over paragraphs, no headings, title = file name.
 *
 * Invariant (property-tested): apart from whitespace and front matter, every character of
 * the input is in exactly one chunk, in order, and no chunk is longer than maxChunkChars.
 */
import { basename, extname } from 'node:path';
import { closesFence, fenceMarker, splitBlock } from './split.js';

export interface ChunkLimits {
  maxChunkChars: number;
  minChunkChars: number;
}

/** One chunk before it has an id or a vector. */
export interface DraftChunk {
  /** Heading trail within the document (`A > B`); '' for text before any heading. */
  heading: string;
  text: string;
}

export interface ChunkedNote {
  title: string;
  aliases: string[];
  chunks: DraftChunk[];
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)(?:[ \t]+#+)?[ \t]*$/;
const EMPTY_HEADING = /^ {0,3}(#{1,6})[ \t]*$/;
const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
/** Longest heading kept in a trail or title (characters); longer ones end in "…". */
export const MAX_HEADING_CHARS = 200;

function capHeading(text: string): string {
  return text.length > MAX_HEADING_CHARS ? text.slice(0, MAX_HEADING_CHARS - 1) + '…' : text;
}

/** Separator of a heading trail. */
export const TRAIL_SEP = ' > ';

/** Title from a file name: base name without extension. */
export function titleFromFileName(fileName: string): string {
  const b = basename(fileName);
  const ext = extname(b);
  return (ext ? b.slice(0, -ext.length) : b) || b;
}

/** Strip inline Markdown that adds nothing to a heading (links, emphasis, code ticks). */
function cleanHeading(s: string): string {
  return s
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`]+/g, '')
    .trim();
}

function unquote(s: string): string {
  const t = s.trim();
  if ((t.startsWith('"') && t.endsWith('"')) || (t.startsWith("'") && t.endsWith("'"))) return t.slice(1, -1).trim();
  return t;
}

/** `aliases:` and `tags:` from YAML front matter (the small subset notes use). */
export function frontMatterAliases(yaml: string): string[] {
  const out: string[] = [];
  const lines = yaml.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    const m = /^(aliases|alias|tags|tag)\s*:\s*(.*)$/i.exec(lines[i]);
    if (!m) continue;
    const rest = m[2].trim();
    if (rest.startsWith('[')) {
      const inner = rest.replace(/^\[/, '').replace(/\]\s*$/, '');
      out.push(...inner.split(',').map(unquote));
    } else if (rest) {
      // Scalar; tags are often space- or comma-separated.
      const isTags = /^tags?$/i.test(m[1]);
      out.push(...(isTags ? rest.split(/[,\s]+/) : rest.split(',')).map(unquote));
    } else {
      for (let j = i + 1; j < lines.length; j++) {
        const item = /^\s*-\s+(.*)$/.exec(lines[j]);
        if (item) out.push(unquote(item[1]));
        else if (lines[j].trim() !== '') break;
        i = j;
      }
    }
  }
  const seen = new Set<string>();
  return out
    .map((a) => a.replace(/^#/, '').trim())
    .filter((a) => a && !seen.has(a.toLowerCase()) && seen.add(a.toLowerCase()));
}

/** Split off YAML front matter: returns its text (or '') and the body after it. */
export function splitFrontMatter(text: string): { yaml: string; body: string } {
  const m = FRONT_MATTER.exec(text);
  if (!m) return { yaml: '', body: text };
  return { yaml: m[1], body: text.slice(m[0].length) };
}

interface Section {
  trail: string;
  text: string;
}

/** Sections of a Markdown body: one per heading (its line included), plus any preamble. */
export function markdownSections(body: string): { sections: Section[]; h1: string | null } {
  const lines = body.split('\n');
  const sections: Section[] = [];
  const stack: Array<{ level: number; text: string }> = [];
  let cur: string[] = [];
  let trail = '';
  let fence: string | null = null;
  let h1: string | null = null;
  const flush = () => {
    const text = cur.join('\n');
    if (text.trim()) sections.push({ trail, text });
    cur = [];
  };
  for (const line of lines) {
    if (fence) {
      if (closesFence(line, fence)) fence = null;
      cur.push(line);
      continue;
    }
    const open = fenceMarker(line);
    if (open) {
      fence = open;
      cur.push(line);
      continue;
    }
    const h = HEADING.exec(line) ?? EMPTY_HEADING.exec(line);
    if (h) {
      flush();
      const level = h[1].length;
      // A heading is a label: a pathological one (a 1 MB line) must not be repeated in every
      // chunk's heading trail and title. The full line stays in the section's text.
      const text = capHeading(cleanHeading(h[2] ?? ''));
      while (stack.length && stack[stack.length - 1].level >= level) stack.pop();
      if (text) stack.push({ level, text });
      if (level === 1 && h1 === null && text) h1 = text;
      trail = stack.map((s) => s.text).join(TRAIL_SEP);
    }
    cur.push(line);
  }
  flush();
  return { sections, h1 };
}

/**
 * Merge pieces shorter than `min` into their neighbour (the next one, else the previous
 * one) when the result still fits in `max`. The merged piece keeps the trail of the
 * longer part (a lone heading merged into its first subsection takes the subsection's).
 */
export function mergeSmall(chunks: DraftChunk[], limits: ChunkLimits): DraftChunk[] {
  const { minChunkChars: min, maxChunkChars: max } = limits;
  const out: DraftChunk[] = [];
  let carry: DraftChunk | null = null;
  for (const c of chunks) {
    let next = c;
    if (carry) {
      const joined = `${carry.text}\n\n${c.text}`;
      if (joined.length <= max) next = { heading: c.heading || carry.heading, text: joined };
      else out.push(carry);
      carry = null;
    }
    if (next.text.length < min) carry = next;
    else out.push(next);
  }
  if (carry) {
    const prev = out[out.length - 1];
    if (prev && prev.text.length + 2 + carry.text.length <= max) {
      out[out.length - 1] = { heading: prev.heading, text: `${prev.text}\n\n${carry.text}` };
    } else out.push(carry);
  }
  return out;
}

/** Chunk a Markdown note. `fileName` gives the fallback title. */
export function chunkMarkdown(text: string, fileName: string, limits: ChunkLimits): ChunkedNote {
  const normalized = text.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  const { yaml, body } = splitFrontMatter(normalized);
  const aliases = yaml ? frontMatterAliases(yaml) : [];
  const { sections, h1 } = markdownSections(body);
  const pieces: DraftChunk[] = [];
  for (const s of sections) {
    for (const t of splitBlock(s.text, limits.maxChunkChars)) pieces.push({ heading: s.trail, text: t });
  }
  return { title: capHeading(h1 ?? titleFromFileName(fileName)), aliases, chunks: mergeSmall(pieces, limits) };
}

/** Chunk a plain-text file: paragraphs packed up to the size limit, no headings. */
export function chunkPlainText(text: string, fileName: string, limits: ChunkLimits): ChunkedNote {
  const normalized = text.replace(/\r\n?/g, '\n').replace(/^\uFEFF/, '');
  const pieces = splitBlock(normalized, limits.maxChunkChars).map((t) => ({ heading: '', text: t }));
  return { title: titleFromFileName(fileName), aliases: [], chunks: mergeSmall(pieces, limits) };
}

/** Markdown extensions the indexer treats as notes with headings. */
export const MARKDOWN_EXTENSIONS = ['.md', '.markdown'];
/** Plain-text extensions. */
export const TEXT_EXTENSIONS = ['.txt'];

/** Chunk a note by its extension (Markdown or plain text). */
export function chunkNote(text: string, fileName: string, limits: ChunkLimits): ChunkedNote {
  return MARKDOWN_EXTENSIONS.includes(extname(fileName).toLowerCase())
    ? chunkMarkdown(text, fileName, limits)
    : chunkPlainText(text, fileName, limits);
}
