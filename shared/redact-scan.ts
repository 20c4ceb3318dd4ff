/**
 * Candidate scans for the secret detector (shared/redact.ts): what in a text lets a rule match
 * there — which rules' hints occur (redact-rules.ts `hint`) and every place a keyword anchor
 * (`anchor`) matches — so only those rules run, an anchored rule only at its anchors.
 *
 * Two scanners answer alike (neither rules out a rule that matches): the plain one here, one
 * regex for all hints and one per anchor, with nothing to build (the hook's: it signs a few KB
 * once per process, and a trie built for that would cost it more than it saves), and the
 * one-pass trie of shared/redact-prescan.ts (the indexer's and the daemon's, which scan every
 * string of every transcript). Pure; no IO.
 */
import { asciiCaseless } from './regexp.js';

/** What a scan found. Valid until the scanner's next scan (a scanner may reuse it). */
export interface Candidates {
  /** hints[g]: hint g occurs. */
  hints: readonly boolean[];
  /** anchors[a]: every position where anchor a matches, ascending (overlapping ones too). */
  anchors: ReadonlyArray<readonly number[]>;
}

export interface CandidateScanner {
  scan(text: string): Candidates;
}

/** A scanner for fixed hints (regex sources, matched with the `i` flag as the rules mean them)
 *  and anchors (regexes). */
export type ScannerFactory = (hints: readonly string[], anchors: readonly RegExp[]) => CandidateScanner;

/** `source` as a source that matches without the `i` flag what it matches with it (without
 *  `u`): its ASCII letters in both cases (shared/regexp.ts asciiCaseless), so V8 compiles it
 *  without asking ICU for case variants (~0.3 ms of the hook's start per regex); null when it
 *  cannot be so written. */
function caseless(source: string): string | null {
  try {
    return asciiCaseless(source);
  } catch {
    return null;
  }
}

/** A regex for `source` with `flags`, its `i` written into the source when it can be. */
function compiled(source: string, flags: string): RegExp {
  const c = flags.includes('i') ? caseless(source) : null;
  return c === null ? new RegExp(source, flags) : new RegExp(c, flags.replace('i', ''));
}

/** The plain scanner: one regex testing for any hint or anchor first (most texts have none:
 *  nothing more is scanned), then one regex with a group per hint (a hint found once is not
 *  looked for again; rules whose hints could match at one place share one, redact-rules.ts),
 *  and each anchor's regex stepped one past each match. Its regexes are compiled at first use,
 *  their letters written in both cases instead of the `i` flag. */
export const plainScanner: ScannerFactory = (hints, anchors) => {
  const global = (a: RegExp) => (a.flags.includes('g') ? a.flags : a.flags + 'g');
  let any: RegExp | null | undefined;
  let hintRe: RegExp | null = null;
  let anchorRes: RegExp[] | null = null;
  const none: Candidates = { hints: hints.map(() => false), anchors: anchors.map(() => []) };
  return {
    scan(text) {
      if (any === undefined) {
        // Hints and `i` anchors caseless, other anchors as written: no ICU at a cold start (the
        // hook's errors mostly stop here); with the `i` flag when one cannot be so written.
        const parts = [...hints.map((h) => [h, true] as const), ...anchors.map((a) => [a.source, a.flags.includes('i')] as const)];
        const written = parts.map(([p, i]) => (i ? caseless(p) : p));
        if (parts.length === 0) any = null;
        else if (!written.includes(null)) any = new RegExp(written.map((p) => `(?:${p})`).join('|'));
        else any = parts.every(([, i]) => i) ? new RegExp(parts.map(([p]) => `(?:${p})`).join('|'), 'i') : null;
      }
      if (any && !any.test(text)) return none;
      const found = hints.map(() => false);
      hintRe ??= hints.length ? compiled(hints.map((h) => `(${h})`).join('|'), 'gi') : null;
      if (hintRe) {
        let seen = 0;
        for (const m of text.matchAll(hintRe)) {
          const g = m.findIndex((x, i) => i > 0 && x !== undefined) - 1;
          if (g < 0 || found[g]) continue;
          found[g] = true;
          if (++seen === hints.length) break;
        }
      }
      anchorRes ??= anchors.map((a) => compiled(a.source, global(a)));
      const at = anchorRes.map((re) => {
        const out: number[] = [];
        re.lastIndex = 0;
        for (let m = re.exec(text); m; m = re.exec(text)) {
          out.push(m.index);
          re.lastIndex = m.index + 1; // overlapping keywords ("secretoken") each get their try
        }
        return out;
      });
      return { hints: found, anchors: at };
    },
  };
};
