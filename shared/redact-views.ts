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

/** Characters a token is made of (provider tokens, base64 and base64url, hex, JWT parts). */
const TOKEN_CHAR = /[A-Za-z0-9_+/=.-]/;
/** A break is inside a token when the runs on its two sides hold at least this many characters
 *  together (the shortest provider token cut anywhere: `npm_` + 36 is 40; a 20-character
 *  half-line of a base64 block still joins). */
export const MIN_JOINED_RUN = 20;
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

const isToken = (c: string | undefined) => c !== undefined && TOKEN_CHAR.test(c);

function mixed(s: string): boolean {
  return /\d/.test(s) && /[A-Za-z]/.test(s);
}

/** A line break with the blanks around it: a real one, or one written as `\n` / `\r\n` inside
 *  a JSON string or a log line. */
const BREAK_RE = /[ \t]*(?:\r?\n|(?:\\r)?\\n)[ \t]*/g;

/** The text with each in-token line break removed; null when it has none (the common case). */
export function joinedView(text: string): JoinedView | null {
  if (text.indexOf('\n') < 0 && text.indexOf('\\n') < 0) return null;
  let out = '';
  let from = 0;
  const cuts: number[] = [];
  const removed: number[] = [];
  BREAK_RE.lastIndex = 0;
  for (let m = BREAK_RE.exec(text); m; m = BREAK_RE.exec(text)) {
    const a = m.index; // the break with the blanks around it: [a, b)
    const b = a + m[0].length;
    if (!isToken(text[a - 1]) || !isToken(text[b])) continue;
    let l = a;
    while (l > 0 && isToken(text[l - 1])) l--;
    let r = b;
    while (r < text.length && isToken(text[r])) r++;
    if (a - l + (r - b) < MIN_JOINED_RUN || !mixed(text.slice(l, a) + text.slice(b, r))) continue;
    out += text.slice(from, a);
    cuts.push(out.length);
    removed.push(b - a);
    from = b;
  }
  if (cuts.length === 0) return null;
  return { text: out + text.slice(from), cuts, removed };
}

/** The original position of a view position `i` (a character of the view). */
export function originalIndex(view: JoinedView, i: number): number {
  let shift = 0;
  for (let k = 0; k < view.cuts.length && view.cuts[k] <= i; k++) shift += view.removed[k];
  return i + shift;
}

/** Whether [start, end) of the view spans a removed break (so the original pass did not see it). */
export function spansCut(view: JoinedView, start: number, end: number): boolean {
  return view.cuts.some((c) => c > start && c < end);
}

const BASE64_RUN = /(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{20,}={0,2}/g;

export interface Run {
  start: number;
  end: number;
}

/** Runs of base64 (or base64url) characters long enough to decode, both letter cases in them
 *  (base64 of text always mixes them; paths, hex digests and words do not). */
export function base64Runs(text: string): Run[] {
  if (text.length < MIN_BASE64_CHARS) return [];
  const out: Run[] = [];
  BASE64_RUN.lastIndex = 0;
  for (let m = BASE64_RUN.exec(text); m; m = BASE64_RUN.exec(text)) {
    const s = m[0];
    if (/[a-z]/.test(s) && /[A-Z]/.test(s)) out.push({ start: m.index, end: m.index + s.length });
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
