/**
 * Text hygiene for anything printed into a model's context (the hook's offer line, and
 * retrieval's reasons before they are cached). Input: untrusted strings (chunk titles,
 * reasons, handles). Output: one plain line — no controls, no ANSI escapes, no zero-width,
 * bidi or tag characters, no markup that could close our frame or pose as a tag — cut on
 * a code-point boundary with `…`. Dependency-free and pure: the hook bundles it.
 */

/** Appended when text is cut. */
export const ELLIPSIS = '…';

/** ASCII characters per token for the estimate; every non-ASCII code point counts as a whole token. */
export const ASCII_CHARS_PER_TOKEN = 4;

// ESC-introduced sequences: CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \), DCS/SOS/PM/APC
// (ESC P|X|^|_ … ESC \), then any other two-byte ESC sequence; and the 8-bit CSI/OSC forms.
const ANSI_RE = new RegExp(
  [
    '\\u001b\\[[0-?]*[ -/]*[@-~]',
    '\\u001b\\][^\\u0007\\u001b]*(?:\\u0007|\\u001b\\\\)?',
    '\\u001b[PX^_][^\\u001b]*(?:\\u001b\\\\)?',
    '\\u001b[ -/]*[0-~]',
    '\\u009b[0-?]*[ -/]*[@-~]',
    '\\u009d[^\\u0007\\u009c]*(?:\\u0007|\\u009c)?',
  ].join('|'),
  'g',
);

/** Line and paragraph breaks of every kind become a space (words stay apart). */
const BREAK_RE = /[\t\n\v\f\r\u0085\u2028\u2029]/g;

/** C0 controls, DEL, C1 controls. */
const CONTROL_RE = /[\u0000-\u001f\u007f-\u009f]/g;

/**
 * Invisible and direction-changing characters: soft hyphen, combining grapheme joiner,
 * Arabic letter mark, Hangul fillers, Khmer/Mongolian invisibles, zero-width space/joiners,
 * LRM/RLM, bidi embeddings/overrides/isolates, word joiner and invisible operators,
 * variation selectors, BOM, interlinear annotation marks, musical formatting controls
 * and the Unicode tag block (used to smuggle hidden ASCII).
 */
const INVISIBLE_RE =
  /[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff9-\ufffb]|\udb40[\udc00-\udc7f]|\ud834[\udd73-\udd7a]|\udb40[\udd00-\uddef]/g;

/** Unpaired surrogates (invalid UTF-16) become U+FFFD. */
const LONE_SURROGATE_RE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;

/**
 * Characters that could close our `[…]` frame, open a fake one, pose as a tag (`<system>`,
 * `</…>`) or start code/markup, including their full-width and angle-bracket look-alikes.
 */
const NEUTRAL: Record<string, string> = {
  '<': '‹', '>': '›', '\uff1c': '‹', '\uff1e': '›', '\ufe64': '‹', '\ufe65': '›',
  '\u2329': '‹', '\u232a': '›', '\u3008': '‹', '\u3009': '›', '\u27e8': '‹', '\u27e9': '›',
  '\u300a': '‹', '\u300b': '›', '[': '(', ']': ')', '\uff3b': '(', '\uff3d': ')',
  '\u27e6': '(', '\u27e7': ')', '\u3010': '(', '\u3011': ')', '`': '\'', '\uff40': '\'',
};
const NEUTRAL_RE = /[<>\uff1c\uff1e\ufe64\ufe65\u2329\u232a\u3008\u3009\u27e8\u27e9\u300a\u300b\[\]\uff3b\uff3d\u27e6\u27e7\u3010\u3011`\uff40]/g;

/** Printable ASCII only: nothing to strip but runs of spaces (the common case, on the hook's path). */
const PRINTABLE_ASCII_RE = /^[\x20-\x7e]*$/;
const SPACES_RE = / {2,}/g;

/** Remove ANSI escapes, controls and invisibles; collapse all whitespace to single spaces.
 *  Printable-ASCII input takes a short path with the same result (a property test checks it):
 *  every regex below costs its compile on the hook's one-shot process. */
export function sanitizeLine(input: string): string {
  const s = String(input);
  if (PRINTABLE_ASCII_RE.test(s)) return s.replace(SPACES_RE, ' ').trim();
  return sanitizeLineGeneral(s);
}

/** The general path of sanitizeLine (any input). */
export function sanitizeLineGeneral(input: string): string {
  return String(input)
    .replace(LONE_SURROGATE_RE, '\ufffd')
    .replace(ANSI_RE, '')
    .replace(BREAK_RE, ' ')
    .replace(CONTROL_RE, '')
    .replace(INVISIBLE_RE, '')
    .replace(/\s+/gu, ' ')
    .trim();
}

/** Replace frame-closing and markup characters with harmless look-alikes. */
export function neutralizeMarkup(input: string): string {
  return input.replace(NEUTRAL_RE, (c) => NEUTRAL[c] ?? ' ');
}

/** sanitizeLine + neutralizeMarkup: the full treatment for one untrusted field. */
export function escapeField(input: string): string {
  return neutralizeMarkup(sanitizeLine(input));
}

export function utf8Bytes(s: string): number {
  return Buffer.byteLength(s, 'utf8');
}

/** Conservative token estimate: ⌈ASCII chars / 4⌉ + one token per non-ASCII code point. */
export function estimateTokens(s: string): number {
  let ascii = 0;
  let other = 0;
  for (const ch of s) {
    if (ch.charCodeAt(0) < 0x80) ascii++;
    else other++;
  }
  return Math.ceil(ascii / ASCII_CHARS_PER_TOKEN) + other;
}

/** The first `n` code points of `s`, plus `…` when anything was cut (trailing space dropped). */
export function cutCodePoints(s: string, n: number): string {
  const cps = Array.from(s);
  if (cps.length <= n) return s;
  return cps.slice(0, Math.max(0, n)).join('').trimEnd() + ELLIPSIS;
}

/** Cut `s` on a code-point boundary so it fits `maxBytes` UTF-8 bytes, `…` included. */
export function truncateBytes(s: string, maxBytes: number): string {
  if (utf8Bytes(s) <= maxBytes) return s;
  const room = maxBytes - utf8Bytes(ELLIPSIS);
  if (room < 0) return '';
  let used = 0;
  let out = '';
  for (const ch of s) {
    const b = utf8Bytes(ch);
    if (used + b > room) break;
    used += b;
    out += ch;
  }
  out = out.trimEnd();
  return out + ELLIPSIS;
}
