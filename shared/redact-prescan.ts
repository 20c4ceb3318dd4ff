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

/** What a pre-scan found: the hint groups present, and each anchor's positions (ascending). */
export interface Prescan {
  hints: boolean[];
  anchors: number[][];
}

/** Hints and anchors the trie tells apart (one bit each in a node's outputs); more are scanned
 *  with their regexes. */
const MAX_TRIE_IDS = 30;

/** A pre-scanner for fixed hints (regex sources matched with the `i` flag, as redact.ts's rules
 *  mean them) and anchors (global regexes; one without `i` is scanned with itself: the trie
 *  folds case). */
export class Prescanner {
  /** Trie rows of 128 (ASCII); 0 = no way on (the root is never entered again). */
  private readonly next: Int32Array;
  /** Per node: the ids ending there, one bit each (hint g → bit g, anchor a → bit hints + a). */
  private readonly out: Int32Array;
  /** The node after a text's first two characters (by their codes' pair): most pairs start no
   *  literal, so the scan looks at one table entry per character. Literals are 2+ characters. */
  private readonly two: Int32Array;
  private readonly hintRes: Array<RegExp | null>;
  private readonly anchorRes: Array<RegExp | null>;

  constructor(hints: readonly string[], anchors: readonly RegExp[]) {
    const lits = [...hints.map(literalsOf), ...anchors.map((a) => (a.flags.includes('i') ? literalsOf(a.source) : null))].map((l, id) =>
      id < MAX_TRIE_IDS && l && l.every((x) => x.length >= 2) ? l : null,
    );
    this.hintRes = hints.map((h, i) => (lits[i] ? null : new RegExp(h, 'i')));
    this.anchorRes = anchors.map((a, i) => (lits[hints.length + i] ? null : new RegExp(a.source, a.flags.includes('g') ? a.flags : a.flags + 'g')));
    // At most one node per literal character: the rows are allocated once (the hook builds this
    // at its first error; growing a JS array cost it ~10 ms cold).
    let size = 1;
    for (const list of lits) for (const lit of list ?? []) size += lit.length;
    const next = new Int32Array(size * 128);
    const out = new Int32Array(size);
    let rows = 1;
    lits.forEach((list, id) => {
      for (const lit of list ?? []) {
        let node = 0;
        for (let i = 0; i < lit.length; i++) {
          const c = lit.charCodeAt(i); // lower case (literalsOf)
          let to = next[node * 128 + c];
          if (!to) {
            to = rows++;
            next[node * 128 + c] = to;
            if (c >= 97 && c <= 122) next[node * 128 + c - 32] = to;
          }
          node = to;
        }
        out[node] |= 1 << id;
      }
    });
    this.next = next;
    this.out = out;
    this.two = new Int32Array(128 * 128);
    for (let a = 0; a < 128; a++) if (next[a]) this.two.set(next.subarray(next[a] * 128, next[a] * 128 + 128), a << 7);
  }

  scan(text: string): Prescan {
    const nh = this.hintRes.length;
    const hintBits = (1 << nh) - 1;
    const anchors: number[][] = this.anchorRes.map(() => []);
    const { next, out, two } = this;
    const n = text.length;
    let seen = 0;
    let c1 = n > 0 ? text.charCodeAt(0) : 0;
    for (let p = 0; p + 1 < n; p++) {
      const c0 = c1;
      c1 = text.charCodeAt(p + 1);
      if ((c0 | c1) >= 128) continue;
      let node = two[(c0 << 7) | c1];
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
        node = d < 128 ? next[node * 128 + d] : 0;
      }
    }
    const hints = this.hintRes.map((re, g) => (re ? re.test(text) : (seen & (1 << g)) !== 0));
    this.anchorRes.forEach((re, a) => {
      if (!re) return;
      re.lastIndex = 0;
      for (let m = re.exec(text); m; m = re.exec(text)) {
        anchors[a].push(m.index);
        re.lastIndex = m.index + 1;
      }
    });
    return { hints, anchors };
  }
}
