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

/** Where the blanks and the line break starting at `at` (a real `\n`, or `\n` written inside a
 *  JSON string or a log line, `\r\n` either way) begin and end: [a, b). */
function breakSpan(text: string, at: number, written: boolean): [number, number] {
  let a = at;
  let b = at + (written ? 2 : 1);
  if (written && text.startsWith('\\r', a - 2)) a -= 2;
  while (a > 0 && (text.charCodeAt(a - 1) === 32 || text.charCodeAt(a - 1) === 9 || text.charCodeAt(a - 1) === 13)) a--;
  while (b < text.length && (text.charCodeAt(b) === 32 || text.charCodeAt(b) === 9)) b++;
  return [a, b];
}

/** Letter cases and digits seen in a run (bits), for the join test. */
const UPPER = 1;
const LOWER_CASE = 2;
const DIGIT = 4;
const ALL_KINDS = UPPER | LOWER_CASE | DIGIT;
function kindOf(c: number): number {
  return c >= 65 && c <= 90 ? UPPER : c >= 97 && c <= 122 ? LOWER_CASE : c >= 48 && c <= 57 ? DIGIT : 0;
}

/** Whether the break [a, b) is inside a token: token runs on both sides, each MIN_SIDE_RUN or
 *  more, MIN_JOINED_RUN together, upper case, lower case and digits among them (each side
 *  looked at up to MAX_RUN characters). No slice, no regex: a text has one test per line. */
function inToken(text: string, a: number, b: number, CLASS: Uint8Array): boolean {
  if (a === 0 || b >= text.length) return false;
  let kinds = 0;
  let l = a;
  for (; l > 0 && a - l < MAX_RUN; l--) {
    const c = text.charCodeAt(l - 1);
    if (c >= 128 || (CLASS[c] & TOKEN) === 0) break;
    kinds |= kindOf(c);
  }
  if (a - l < MIN_SIDE_RUN) return false;
  let r = b;
  for (; r < text.length && r - b < MAX_RUN; r++) {
    const c = text.charCodeAt(r);
    if (c >= 128 || (CLASS[c] & TOKEN) === 0) break;
    kinds |= kindOf(c);
  }
  return r - b >= MIN_SIDE_RUN && a - l + (r - b) >= MIN_JOINED_RUN && kinds === ALL_KINDS;
}

/** The text with each in-token line break removed; null when it has none (the common case).
 *  Breaks are visited in order: real ones and written ones (`\n` in a JSON string or a log
 *  line), each kind searched for once from where the last one was found. */
export function joinedView(text: string): JoinedView | null {
  let real = text.indexOf('\n');
  let written = text.indexOf('\\n');
  if (real < 0 && written < 0) return null;
  const CLASS = classes();
  let out = '';
  let from = 0;
  let cuts: number[] | null = null;
  let removed: number[] | null = null;
  while (real >= 0 || written >= 0) {
    const w = written >= 0 && (real < 0 || written < real);
    const [a, b] = breakSpan(text, w ? written : real, w);
    if (w) written = text.indexOf('\\n', written + 2);
    else real = text.indexOf('\n', real + 1);
    if (a < from || !inToken(text, a, b, CLASS)) continue;
    out += text.slice(from, a);
    (cuts ??= []).push(out.length);
    (removed ??= []).push(b - a);
    from = b;
  }
  if (!cuts || !removed) return null;
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

/** No run: what base64Runs returns for most texts (never written to). */
const NO_RUNS: readonly Run[] = Object.freeze([]);

/** Runs of base64 (or base64url) characters long enough to decode, both letter cases in them
 *  (base64 of text always mixes them; paths, hex digests and words do not), with their `=`
 *  padding. Every MIN_BASE64_CHARS-th character is probed: a run that long holds exactly one
 *  probe, so a probe on another character skips MIN_BASE64_CHARS at once, and a probe in a word
 *  looks at that word only. */
export function base64Runs(text: string): readonly Run[] {
  const n = text.length;
  if (n < MIN_BASE64_CHARS) return NO_RUNS;
  const CLASS = classes();
  let out: Run[] | null = null;
  for (let p = MIN_BASE64_CHARS - 1; p < n; p += MIN_BASE64_CHARS) {
    if (!isB64(text, p, CLASS)) continue;
    let start = p;
    while (start > 0 && isB64(text, start - 1, CLASS)) start--;
    let end = p + 1;
    while (end < n && isB64(text, end, CLASS)) end++;
    if (end - start >= MIN_BASE64_CHARS && mixesCases(text, start, end)) {
      let padded = end;
      while (padded < n && padded - end < 2 && text.charCodeAt(padded) === 61) padded++; // '='
      (out ??= []).push({ start, end: padded });
    }
    // The next probe: the first one past this run (probes stay MIN_BASE64_CHARS apart).
    while (p + MIN_BASE64_CHARS < end) p += MIN_BASE64_CHARS;
  }
  return out ?? NO_RUNS;
}

function isB64(text: string, i: number, CLASS: Uint8Array): boolean {
  const c = text.charCodeAt(i);
  return c < 128 && (CLASS[c] & B64) !== 0;
}

/** [start, end) of `text` holds an upper-case and a lower-case ASCII letter. */
function mixesCases(text: string, start: number, end: number): boolean {
  let upper = false;
  let lower = false;
  for (let i = start; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c >= 65 && c <= 90) upper = true;
    else if (c >= 97 && c <= 122) lower = true;
    if (upper && lower) return true;
  }
  return false;
}

function printableShare(b: Uint8Array): number {
  let ok = 0;
  for (const x of b) if ((x >= 0x20 && x < 0x7f) || x === 9 || x === 10 || x === 13) ok++;
  return b.length ? ok / b.length : 0;
}

/** Characters of a run whose decoding is tested first (36 bytes). */
const HEAD_CHARS = 48;
/** Base64 digit values by character code (both alphabets, as Buffer decodes them); -1: none. */
let digits: Int8Array | null = null;
function digitTable(): Int8Array {
  if (digits) return digits;
  digits = new Int8Array(128).fill(-1);
  const abc = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  for (let i = 0; i < abc.length; i++) digits[abc.charCodeAt(i)] = i;
  digits[43] = digits[45] = 62; // + -
  digits[47] = digits[95] = 63; // / _
  return digits;
}

/** Whether the decoding of a run's first HEAD_CHARS characters (its `=` padding left out) is
 *  text by MIN_TEXT_SHARE — what decodedText tests first, decoded here without a buffer, a
 *  slice or a regex: most runs (paths, ids, hashes, binary) stop here. */
function printableHead(run: string): boolean {
  const D = digitTable();
  let n = run.length;
  while (n > 0 && run.charCodeAt(n - 1) === 61) n--;
  if (n > HEAD_CHARS) n = HEAD_CHARS;
  let acc = 0;
  let bits = 0;
  let bytes = 0;
  let ok = 0;
  for (let i = 0; i < n; i++) {
    const c = run.charCodeAt(i);
    const d = c < 128 ? D[c] : -1;
    if (d < 0) return printableShare(Buffer.from(run.replace(/=+$/, '').slice(0, HEAD_CHARS), 'base64')) >= MIN_TEXT_SHARE; // not a run of base64runs: Buffer's way
    acc = ((acc << 6) | d) & 0xffffff;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      const x = (acc >> bits) & 0xff;
      bytes++;
      if ((x >= 0x20 && x < 0x7f) || x === 9 || x === 10 || x === 13) ok++;
    }
  }
  return bytes > 0 && ok / bytes >= MIN_TEXT_SHARE;
}

/** A run's decoding when it is text; null when it decodes to bytes (an image, a hash, a key's
 *  binary body) or is not base64 at all. Its first HEAD_CHARS characters are tried first: most runs are
 *  rejected there without decoding the rest. */
export function decodedText(run: string): string | null {
  if (!printableHead(run)) return null;
  const body = run.replace(/=+$/, '');
  if (printableShare(Buffer.from(body.slice(0, HEAD_CHARS), 'base64')) < MIN_TEXT_SHARE) return null;
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
