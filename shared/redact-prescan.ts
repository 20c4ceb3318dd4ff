/**
 * One pass over a text that tells the secret detector (shared/redact.ts) which rules can match
 * in it: which rules' hints occur (redact-rules.ts `hint`) and every place a keyword anchor
 * (`anchor`) matches — instead of a trigger test, a hint scan and one scan per anchor over the
 * same string. The hints and anchors are regex sources standing for a few dozen literals
 * (`gh[pousr]_|github_pat_`, `api[ _-]?key`): they are expanded once to their literals, put in a
 * trie over ASCII with both letter cases (as `i` without `u` matches: ASCII letters fold, nothing
 * else), and the text is walked once with charCodeAt. A source this expander does not read
 * (`.`, `*`, `\s`, lookarounds, ranges) is scanned with its regex instead, so any rule set works.
 *
 * Exact for anchors (every position where the anchor regex matches, as a scan stepping one
 * past each match gives); for hints, every occurrence counts (a regex scan skips one that
 * overlaps an earlier hint's match): a rule may run where it did not, never the reverse.
 * Pure; no IO; built on first use.
 */
import type { CandidateScanner, Candidates, ScannerFactory } from './redact-scan.js';

/** Literals at most per source (beyond: the regex is used). */
export const MAX_LITERALS = 256;

/** The lower-cased ASCII literals a regex source matches, or null when it is not a finite
 *  set of literals of the forms read here: alternation, `(?:…)`, `[…]` of single characters,
 *  `?` after one of those or a character, `\` before punctuation. */
export function literalsOf(source: string): string[] | null {
  let at = 0;
  const fail: () => never = () => {
    throw new SyntaxError('not literals');
  };
  const char = (c: string): string => (c.charCodeAt(0) < 128 ? c.toLowerCase() : fail());
  const escaped = (): string => {
    const c = source[at++] ?? fail();
    const k = c.toLowerCase().charCodeAt(0);
    return (k >= 97 && k <= 122) || (k >= 48 && k <= 57) ? fail() : char(c);
  };
  const alternation = (): string[] => {
    const out = [...sequence()];
    while (source[at] === '|') {
      at++;
      out.push(...sequence());
    }
    return [...new Set(out)];
  };
  const sequence = (): string[] => {
    let out = [''];
    while (at < source.length && source[at] !== '|' && source[at] !== ')') {
      let item: string[];
      const c = source[at++];
      if (c === '(') {
        if (!source.startsWith('?:', at)) fail();
        at += 2;
        item = alternation();
        if (source[at++] !== ')') fail();
      } else if (c === '[') {
        item = [];
        while (source[at] !== ']') {
          const d = source[at++] ?? fail();
          // `-` is itself only first or last (`[_-]`); elsewhere a range, not read here.
          if ((d === '^' && item.length === 0) || (d === '-' && item.length > 0 && source[at] !== ']') || d === '[') fail();
          item.push(d === '\\' ? escaped() : char(d));
        }
        at++;
        if (item.length === 0) fail();
      } else if (c === '\\') item = [escaped()];
      else if ('.*+{}^$]'.includes(c)) fail();
      else item = [char(c)];
      if (source[at] === '?') {
        at++;
        item = ['', ...item];
      }
      out = out.flatMap((a) => item.map((b) => a + b));
      if (out.length > MAX_LITERALS) fail();
    }
    return out;
  };
  try {
    const out = alternation();
    return at === source.length && !out.includes('') ? out : null;
  } catch {
    return null;
  }
}

/** Hints and anchors the trie tells apart (one bit each in a node's outputs); more are scanned
 *  with their regexes. */
const MAX_TRIE_IDS = 30;

/** A pre-scanner for fixed hints (regex sources matched with the `i` flag, as redact.ts's rules
 *  mean them) and anchors (global regexes; one without `i` is scanned with itself: the trie
 *  folds case). What it returns is its own, overwritten by the next scan.
 *
 *  The trie is over the literals' own characters (a few dozen; each letter in both cases is one
 *  symbol), every other character symbol 0, so its tables stay small: the scan looks up two per
 *  character (its symbol, then the pair of it and the one before: no literal starts at most
 *  pairs), in tables of a few KB rather than 64 KB indexed by character codes. */
export class Prescanner implements CandidateScanner {
  /** Symbol of each ASCII code: 0 = in no literal. */
  private readonly sym: Uint8Array;
  /** Symbols + 1 (0 included): the row width of `next` and `two`. */
  private readonly width: number;
  /** Trie rows, one entry per symbol; 0 = no way on (the root is never entered again). */
  private readonly next: Int32Array;
  /** Per node: the ids ending there, one bit each (hint g → bit g, anchor a → bit hints + a). */
  private readonly out: Int32Array;
  /** The node after two symbols (literals are 2+ characters; symbol 0 leads nowhere). */
  private readonly two: Int32Array;
  private readonly hintRes: Array<RegExp | null>;
  private readonly anchorRes: Array<RegExp | null>;
  /** The answer, reused: the indexer's 100,000 scans per run allocate nothing here. */
  private readonly found: { hints: boolean[]; anchors: number[][] };

  constructor(hints: readonly string[], anchors: readonly RegExp[]) {
    const lits = [...hints.map(literalsOf), ...anchors.map((a) => (a.flags.includes('i') ? literalsOf(a.source) : null))].map((l, id) =>
      id < MAX_TRIE_IDS && l && l.every((x) => x.length >= 2) ? l : null,
    );
    this.hintRes = hints.map((h, i) => (lits[i] ? null : new RegExp(h, 'i')));
    this.anchorRes = anchors.map((a, i) => (lits[hints.length + i] ? null : new RegExp(a.source, a.flags.includes('g') ? a.flags : a.flags + 'g')));
    const sym = new Uint8Array(128);
    let width = 1;
    let size = 1; // nodes: at most one per literal character
    for (const list of lits) {
      for (const lit of list ?? []) {
        size += lit.length;
        for (let i = 0; i < lit.length; i++) {
          const c = lit.charCodeAt(i); // lower case (literalsOf)
          if (sym[c]) continue;
          sym[c] = width++;
          if (c >= 97 && c <= 122) sym[c - 32] = sym[c];
        }
      }
    }
    // Allocated once (the daemon builds this at its first scan; growing a JS array was slow).
    const next = new Int32Array(size * width);
    const out = new Int32Array(size);
    let rows = 1;
    lits.forEach((list, id) => {
      for (const lit of list ?? []) {
        let node = 0;
        for (let i = 0; i < lit.length; i++) {
          const at = node * width + sym[lit.charCodeAt(i)];
          if (!next[at]) next[at] = rows++;
          node = next[at];
        }
        out[node] |= 1 << id;
      }
    });
    const two = new Int32Array(width * width);
    for (let a = 1; a < width; a++) if (next[a]) two.set(next.subarray(next[a] * width, next[a] * width + width), a * width);
    this.sym = sym;
    this.width = width;
    this.next = next;
    this.out = out;
    this.two = two;
    this.found = { hints: hints.map(() => false), anchors: anchors.map(() => []) };
  }

  scan(text: string): Candidates {
    const { sym, width, next, out, two, found } = this;
    const nh = this.hintRes.length;
    const hintBits = (1 << nh) - 1;
    const anchors = found.anchors;
    for (const a of anchors) a.length = 0;
    const n = text.length;
    let seen = 0;
    let c = n > 0 ? text.charCodeAt(0) : 128;
    let s1 = c < 128 ? sym[c] : 0;
    for (let p = 0; p + 1 < n; p++) {
      const s0 = s1;
      c = text.charCodeAt(p + 1);
      s1 = c < 128 ? sym[c] : 0;
      let node = two[s0 * width + s1];
      for (let q = p + 2; node !== 0; q++) {
        const o = out[node];
        if (o !== 0) {
          seen |= o & hintBits;
          for (let a = 0, bits = o >>> nh; bits !== 0; a++, bits >>>= 1) {
            if (bits & 1 && anchors[a][anchors[a].length - 1] !== p) anchors[a].push(p);
          }
        }
        if (q >= n) break;
        const d = text.charCodeAt(q);
        node = d < 128 ? next[node * width + sym[d]] : 0;
      }
    }
    for (let g = 0; g < nh; g++) {
      const re = this.hintRes[g];
      found.hints[g] = re ? re.test(text) : (seen & (1 << g)) !== 0;
    }
    for (let a = 0; a < anchors.length; a++) {
      const re = this.anchorRes[a];
      if (!re) continue;
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        anchors[a].push(m.index);
        re.lastIndex = m.index + 1;
      }
    }
    return found;
  }
}

/** The pre-scanner as redact.ts builds its scanner (createRedactor gives it; the hook's signing
 *  redactor keeps the plain scanner, shared/redact-scan.ts). */
export const prescanner: ScannerFactory = (hints, anchors) => new Prescanner(hints, anchors);
