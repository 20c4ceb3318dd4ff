/**
 * Size-bounded splitting of one block of text (pure). Used by the Markdown and plain-text
 * chunkers: a block longer than the limit is cut on paragraphs, then sentences, then
 * whitespace, then (a single giant token) characters. Code fences are kept whole when
 * they fit; a fence larger than the limit is cut on its lines. Only whitespace between
 * pieces is lost; every other character ends up in exactly one piece, in order.
 */

/** A fenced code block opens with ``` or ~~~ (3+), up to 3 spaces of indent. */
const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/** Sentence boundary: end punctuation (optionally closed by a quote/bracket) then space. */
const SENTENCE_END = /(?<=[.!?。！？]["')\]]?)\s+/u;

/** Join used between packed pieces (paragraph break). */
const PARAGRAPH_JOIN = '\n\n';

/** True when the line opens or closes a code fence; returns the fence marker. */
export function fenceMarker(line: string): string | null {
  const m = FENCE_OPEN.exec(line);
  return m ? m[1] : null;
}

/** Does `line` close a fence opened with `open`? (same character, at least as long, nothing after). */
export function closesFence(line: string, open: string): boolean {
  const m = /^ {0,3}(`{3,}|~{3,})\s*$/.exec(line);
  return !!m && m[1][0] === open[0] && m[1].length >= open.length;
}

/**
 * Paragraph units of a block: runs of lines separated by blank lines, where a fenced code
 * block (open to close, or to the end) is one unit however many blank lines it holds.
 */
export function paragraphUnits(text: string): string[] {
  const lines = text.split('\n');
  const units: string[] = [];
  let cur: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    if (cur.some((l) => l.trim() !== '')) units.push(cur.join('\n'));
    cur = [];
  };
  for (const line of lines) {
    if (fence) {
      cur.push(line);
      if (closesFence(line, fence)) {
        fence = null;
        flush();
      }
      continue;
    }
    const open = fenceMarker(line);
    if (open) {
      flush();
      fence = open;
      cur.push(line);
      continue;
    }
    if (line.trim() === '') flush();
    else cur.push(line);
  }
  flush();
  return units;
}

/** Cut a string at most `max` long pieces, preferring whitespace, never splitting a surrogate pair. */
export function hardSplit(text: string, max: number): string[] {
  const out: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    let cut = -1;
    for (let i = max; i > max / 2; i--) {
      if (/\s/.test(rest[i])) { cut = i; break; }
    }
    if (cut < 0) {
      cut = max;
      const code = rest.charCodeAt(cut - 1);
      if (code >= 0xd800 && code <= 0xdbff) cut -= 1; // keep a surrogate pair together
    }
    const piece = rest.slice(0, cut).trim();
    if (piece) out.push(piece);
    rest = rest.slice(cut).trim();
  }
  if (rest) out.push(rest);
  return out;
}

/** Split one unit that is too long: code fences on lines, prose on sentences, then hard. */
function splitUnit(unit: string, max: number): string[] {
  if (unit.length <= max) return [unit];
  const isFence = fenceMarker(unit.split('\n', 1)[0]) !== null;
  const parts = isFence ? unit.split('\n') : unit.split(SENTENCE_END);
  const sep = isFence ? '\n' : ' ';
  const pieces: string[] = [];
  for (const p of parts) {
    if (p.length > max) pieces.push(...hardSplit(p, max));
    else if (p.trim()) pieces.push(p);
  }
  return pack(pieces, max, sep);
}

/** Greedily pack pieces (each ≤ max) into strings ≤ max, joined by `sep`. */
export function pack(pieces: string[], max: number, sep: string): string[] {
  const out: string[] = [];
  let cur = '';
  for (const p of pieces) {
    if (!cur) cur = p;
    else if (cur.length + sep.length + p.length <= max) cur += sep + p;
    else {
      out.push(cur);
      cur = p;
    }
  }
  if (cur) out.push(cur);
  return out;
}

/** Split a block of text into pieces of at most `max` characters (see module comment). */
export function splitBlock(text: string, max: number): string[] {
  const trimmed = text.trim();
  if (!trimmed) return [];
  if (trimmed.length <= max) return [trimmed];
  const pieces = paragraphUnits(trimmed).flatMap((u) => splitUnit(u, max));
  return pack(pieces, max, PARAGRAPH_JOIN);
}
