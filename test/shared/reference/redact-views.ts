// Reference copy (test only): shared/redact-views.ts as it was before issue 38's speed pass (the
// straightforward scans: a character loop over every base64 run, a line-break generator with
// sliced runs), kept so that test/shared/redact-fast-path.test.ts can show the rewritten scans
// find the same runs, views and findings on random text with planted secrets. Not imported by
// product code.
/**
 * Normalised views of a text for the secret detector (shared/redact.ts): the shapes a secret
 * takes when it is not written out plainly.
 *
 *  - joined: a token cut by a line break (a terminal's wrap, a paste, `base64`'s 76-column
 *    lines) joined again. Only breaks between two runs of token characters that together are
 *    long and mix letters and digits are removed ("ghp_0aB…\n9xY…" joins; "foo\nbar" and
 *    prose stay apart). The view maps each of its characters back to the text, so a finding
 *    in it covers the original's characters, the line break included.
 *  - base64 runs: a run of base64 characters that decodes to text (a base64'd `.env`, key or
 *    config) — the detector scans the decoded text, and a secret in it makes the whole run one.
 *
 * Pure; no IO. Bounded: a view is built only around qualifying breaks, a run is decoded only
 * when it is long and mixes cases, and only MAX_DECODED_BYTES of it are looked at.
 */

/** Character classes by code (ASCII): TOKEN = a token's characters (provider tokens, base64
 *  and base64url, hex, JWT parts: letters, digits, `_ + / = . -`); B64 = base64 / base64url
 *  characters without the padding. Looked up by charCodeAt: a table is several times faster
 *  than a regex over the hundreds of thousands of strings a transcript holds. */
const TOKEN = 1;
const B64 = 2;
let table: Uint8Array | null = null;
/** Built on first use (no work at import: the hook's bundle never calls these). */
function classes(): Uint8Array {
  if (table) return table;
  table = new Uint8Array(128);
  for (let c = 0; c < 128; c++) {
    const ch = String.fromCharCode(c);
    if (/[A-Za-z0-9_+/-]/.test(ch)) table[c] |= TOKEN | B64;
    if (ch === '=' || ch === '.') table[c] |= TOKEN;
  }
  return table;
}
const is = (text: string, i: number, k: number) => {
  const c = text.charCodeAt(i);
  return c < 128 && (classes()[c] & k) !== 0;
};
/** A break is inside a token when the runs on its two sides hold at least this many characters
 *  together (the shortest provider token cut anywhere: `npm_` + 36 is 40; a 20-character
 *  half-line of a base64 block still joins), each side at least MIN_SIDE_RUN, and together they
 *  mix upper case, lower case and digits (as tokens and base64 do; hashes, numbers, words and
 *  most identifiers do not). */
export const MIN_JOINED_RUN = 20;
export const MIN_SIDE_RUN = 4;
/** Base64 runs shorter than this are not decoded (15 bytes: no secret fits in fewer). */
export const MIN_BASE64_CHARS = 20;
/** Bytes of a run's decoding looked at (a base64'd file past this is cut, its head scanned). */
export const MAX_DECODED_BYTES = 64 * 1024;
/** Share of a decoding that must be printable ASCII (or tab / newline) for it to be text. */
export const MIN_TEXT_SHARE = 0.9;

export interface JoinedView {
  /** The text with its in-token line breaks removed. */
  text: string;
  /** Positions in `text` where a break was removed (the character after it), ascending. */
  cuts: number[];
  /** For each cut, how many characters of the original were removed there. */
  removed: number[];
}

function mixedCase(s: string): boolean {
  return /\d/.test(s) && /[a-z]/.test(s) && /[A-Z]/.test(s);
}

/** The line breaks of a text in order: real ones, and ones written `\n` inside a JSON string or
 *  a log line; each [start, end) with the blanks around it. Each kind is searched for once
 *  from where the last one was found (a text with no written `\n` is not searched again). */
function* breaks(text: string): Generator<[number, number]> {
  let real = text.indexOf('\n');
  let written = text.indexOf('\\n');
  while (real >= 0 || written >= 0) {
    const w = written >= 0 && (real < 0 || written < real);
    let a = w ? written : real;
    let b = a + (w ? 2 : 1);
    if (w && text.startsWith('\\r', a - 2)) a -= 2;
    while (a > 0 && (text[a - 1] === ' ' || text[a - 1] === '\t' || text[a - 1] === '\r')) a--;
    while (b < text.length && (text[b] === ' ' || text[b] === '\t')) b++;
    yield [a, b];
    if (w) written = text.indexOf('\\n', written + 2);
    else real = text.indexOf('\n', real + 1);
  }
}

/** The text with each in-token line break removed; null when it has none (the common case). */
export function joinedView(text: string): JoinedView | null {
  let out = '';
  let from = 0;
  const cuts: number[] = [];
  const removed: number[] = [];
  for (const [a, b] of breaks(text)) {
    if (a < from || a === 0 || !is(text, a - 1, TOKEN) || !is(text, b, TOKEN)) continue;
    let l = a;
    while (l > 0 && a - l < MAX_RUN && is(text, l - 1, TOKEN)) l--;
    let r = b;
    while (r < text.length && r - b < MAX_RUN && is(text, r, TOKEN)) r++;
    if (a - l < MIN_SIDE_RUN || r - b < MIN_SIDE_RUN || a - l + (r - b) < MIN_JOINED_RUN || !mixedCase(text.slice(l, a) + text.slice(b, r))) continue;
    out += text.slice(from, a);
    cuts.push(out.length);
    removed.push(b - a);
    from = b;
  }
  if (cuts.length === 0) return null;
  return { text: out + text.slice(from), cuts, removed };
}

/** Characters of a run looked at on each side of a break (a line of base64 is 76). */
const MAX_RUN = 256;

/** How many cuts stand at or before view position `i` (binary search). */
function cutsUpTo(view: JoinedView, i: number): number {
  let lo = 0;
  let hi = view.cuts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (view.cuts[mid] <= i) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The original position of a view position `i` (a character of the view). */
export function originalIndex(view: JoinedView, i: number): number {
  const n = cutsUpTo(view, i);
  let shift = 0;
  for (let k = 0; k < n; k++) shift += view.removed[k];
  return i + shift;
}

/** Whether [start, end) of the view spans a removed break (so the original pass did not see it). */
export function spansCut(view: JoinedView, start: number, end: number): boolean {
  const k = cutsUpTo(view, start);
  return k < view.cuts.length && view.cuts[k] < end;
}

export interface Run {
  start: number;
  end: number;
}

/** Runs of base64 (or base64url) characters long enough to decode, both letter cases in them
 *  (base64 of text always mixes them; paths, hex digests and words do not), with their `=`
 *  padding. */
export function base64Runs(text: string): Run[] {
  const out: Run[] = [];
  if (text.length < MIN_BASE64_CHARS) return out;
  const CLASS = classes();
  let start = -1;
  let upper = false;
  let lower = false;
  for (let i = 0; i <= text.length; i++) {
    const c = i < text.length ? text.charCodeAt(i) : 0;
    if (c < 128 && (CLASS[c] & B64) !== 0) {
      if (start < 0) {
        start = i;
        upper = lower = false;
      }
      if (c >= 65 && c <= 90) upper = true;
      else if (c >= 97 && c <= 122) lower = true;
      continue;
    }
    if (start >= 0 && i - start >= MIN_BASE64_CHARS && upper && lower) {
      let end = i;
      while (end < text.length && end - i < 2 && text[end] === '=') end++;
      out.push({ start, end });
    }
    start = -1;
  }
  return out;
}

function printableShare(b: Uint8Array): number {
  let ok = 0;
  for (const x of b) if ((x >= 0x20 && x < 0x7f) || x === 9 || x === 10 || x === 13) ok++;
  return b.length ? ok / b.length : 0;
}

/** A run's decoding when it is text; null when it decodes to bytes (an image, a hash, a key's
 *  binary body) or is not base64 at all. Its first 48 characters are tried first: most runs are
 *  rejected there without decoding the rest. */
export function decodedText(run: string): string | null {
  const body = run.replace(/=+$/, '');
  if (printableShare(Buffer.from(body.slice(0, 48), 'base64')) < MIN_TEXT_SHARE) return null;
  const bytes = Buffer.from(body.slice(0, Math.ceil((MAX_DECODED_BYTES * 4) / 3)), 'base64');
  if (printableShare(bytes) < MIN_TEXT_SHARE) return null;
  return bytes.toString('latin1');
}

/** The part [start, end) of a view as a view of its own (its cuts shifted). */
export function subView(view: JoinedView, start: number, end: number): JoinedView {
  const cuts: number[] = [];
  const removed: number[] = [];
  for (let k = cutsUpTo(view, start); k < view.cuts.length && view.cuts[k] < end; k++) {
    cuts.push(view.cuts[k] - start);
    removed.push(view.removed[k]);
  }
  return { text: view.text.slice(start, end), cuts, removed };
}

/** The views as the redactor takes them (shared/redact.ts: given, so a redactor without them —
 *  the hook's — does not carry their code). */
export const VIEWS = { joinedView, subView, originalIndex, spansCut, base64Runs, decodedText };
export type Views = typeof VIEWS;
