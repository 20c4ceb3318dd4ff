/**
 * Regular-expression helpers shared by the hook, the daemon and retrieval (pure).
 */

/** A regular expression built on its first use (then kept). For the Unicode property classes
 *  (`\p{L}`, `\p{Script=Han}`): V8 checks a regex literal's syntax when it compiles the code
 *  around it, and for such a class that check builds the class from ICU's tables — ~1–2 ms of
 *  every hook start that never needs the regex (docs/HOOK.md, speed choices). Built from a
 *  string only when asked for, it costs nothing until then. */
export function lazyRegExp(source: string, flags: string): () => RegExp {
  let re: RegExp | null = null;
  return () => (re ??= new RegExp(source, flags));
}

/** `s` as a literal inside a RegExp source. */
export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

const isAsciiLetter = (c: string | undefined) => !!c && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'));
const otherCase = (c: string) => (c >= 'a' ? c.toUpperCase() : c.toLowerCase());
/** Whether a class range's `-` stands at `at` (not a `-` that ends the class). */
const isRangeAt = (source: string, at: number) => source[at] === '-' && at + 1 < source.length && source[at + 1] !== ']';
/** Whether the class range from `a` to `b` holds an ASCII letter. */
const coversLetter = (a: string, b: string) => !(b < 'A' || a > 'Z') || !(b < 'a' || a > 'z');
/** Escapes followed by hex digits (`\x1b`, `\u2500`): copied whole, their digits are no letters. */
const HEX_ESCAPE_DIGITS: Readonly<Record<string, number>> = { x: 2, u: 4 };

/**
 * A regex source whose ASCII letters are written in both cases (`sk-` → `[sS][kK]-`, `[a-z]` →
 * `[a-zA-Z]`): without the `u` flag, `i` matches an ASCII letter in its two cases and nothing
 * else (test/shared/signature-hints.test.ts checks every code unit), so the result without the `i` flag
 * matches what the source with it does. Why: V8 compiles an `i` regex by asking ICU for every
 * letter's case variants, ~0.3 ms of the one-shot hook for the redaction hints alone
 * (docs/HOOK.md; the hook's redaction scan, shared/redact-scan.ts, uses this). For sources of literals, escapes (`\s`, `\.`, `\x1b`: copied as they are),
 * classes with letter ranges, groups, look-arounds and quantifiers; a named group, a
 * back-reference by name, `\p{…}` or `\u{…}` throws.
 */
export function asciiCaseless(source: string): string {
  let out = '';
  let inClass = false;
  for (let i = 0; i < source.length; i++) {
    const c = source[i];
    if (c === '\\') {
      const e = source[i + 1];
      if (e === 'k' || e === 'p' || e === 'P' || (e === 'u' && source[i + 2] === '{')) throw new Error(`asciiCaseless: unsupported escape \\${e}`);
      const len = 2 + (HEX_ESCAPE_DIGITS[e] ?? 0);
      if (inClass && isRangeAt(source, i + len)) throw new Error('asciiCaseless: a range from an escape is not supported');
      out += source.slice(i, i + len);
      i += len - 1;
    } else if (inClass) {
      if (c === ']') inClass = false;
      if (c !== ']' && isRangeAt(source, i + 1)) {
        // A range of letters of one case (a-z): its other case as a range too. Ranges of other
        // characters are copied; one with a letter at one end only is refused.
        const end = source[i + 2];
        const letters = isAsciiLetter(c) && isAsciiLetter(end) && (c <= 'Z') === (end <= 'Z');
        if (!letters && (end === '\\' || coversLetter(c, end))) throw new Error(`asciiCaseless: range ${c}-${end} is not supported`);
        out += letters ? `${c}-${end}${otherCase(c)}-${otherCase(end)}` : `${c}-${end}`;
        i += 2;
      } else out += isAsciiLetter(c) ? c + otherCase(c) : c;
    } else if (c === '[') {
      inClass = true;
      out += c;
      if (source[i + 1] === '^') out += source[++i];
    } else if (c === '(' && source.startsWith('?<', i + 1) && source[i + 3] !== '=' && source[i + 3] !== '!') {
      throw new Error('asciiCaseless: named groups are not supported');
    } else out += isAsciiLetter(c) ? `[${c}${otherCase(c)}]` : c;
  }
  return out;
}
