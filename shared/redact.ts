/**
 * Secret redaction: text → the same text with each credential replaced by a typed marker
 * (`‹secret:github-token›`), so what the indexer stores stays readable and an error's
 * signature stays stable (the same secret in two sessions gives the same text, hence the same
 * signature). Built-in rules live in shared/redact-rules.ts; the user adds `redact.patterns`
 * (their own token formats) and `redact.allow` (values never redacted) in config.
 *
 * Pure: a Redactor is compiled once from the rules and used by the indexer (notes and
 * transcript records before anything is chunked), the team-store writer and `store push`
 * (chunks on their way out), and `store scan` / doctor (findings, never values).
 *
 * Cost: a candidate scan finds every rule's hint and every place a keyword-anchored rule can
 * start (shared/redact-scan.ts); only the rules whose hint is there run, and an anchored rule
 * only where its keyword is. The indexer's and daemon's redactor scans in one pass
 * (shared/redact-prescan.ts), the hook's with plain regexes. docs/REDACTION.md has the figures.
 */
import { createHash } from 'node:crypto';
import { BUILTIN_RULES, type RedactRule } from './redact-rules.js';
import { prescanner } from './redact-prescan.js';
import { plainScanner, type CandidateScanner, type ScannerFactory } from './redact-scan.js';
import { VIEWS, type JoinedView, type Views } from './redact-views.js';

/** Marker delimiters: single guillemets never occur in keys, are kept by the FTS tokenizer as
 *  separators and survive error-signature normalization. */
export const MARKER_OPEN = '‹secret:';
export const MARKER_CLOSE = '›';
/** Bump when a built-in rule changes: stores redacted by an older set are re-scrubbed. */
export const RULES_VERSION = 2;
/** Kind of a base64 run whose decoding holds a secret. */
export const BASE64_KIND = 'base64-secret';
/** Decodings looked into: a base64 run inside a decoded run is decoded too, no deeper. */
export const MAX_DECODE_DEPTH = 2;
/** Redaction passes at most (one almost always; a second when a replacement joined a secret). */
export const MAX_REDACT_PASSES = 3;

/** No secret any rule detects fits in fewer characters (the shortest: `pwd="abcd"`, 10): shorter
 *  strings — ids, types, flags, most JSON values of a record — are returned untouched, untested. */
export const MIN_SECRET_CHARS = 8;
/** Object keys shorter than this are not tested: a key holding a secret is a pasted token or
 *  assignment (≥ 20 characters); short keys (`input_tokens`, `api_key`) are names. */
export const MIN_KEY_SECRET_CHARS = 20;

export interface UserPattern {
  /** Marker kind (letters, digits, dashes). */
  kind: string;
  /** Regular expression source; its named group `v` is the secret when present. */
  pattern: string;
}

export interface RedactConfig {
  patterns: UserPattern[];
  /** Regular expression sources: a detected value matching one (whole value) is left alone. */
  allow: string[];
}

export interface Finding {
  kind: string;
  start: number;
  end: number;
}

export function marker(kind: string): string {
  return `${MARKER_OPEN}${kind}${MARKER_CLOSE}`;
}

export class Redactor {
  /** The fingerprint, or how to compute it: hashed on first read (the indexer and `store push`
   *  read it; the hook, which only redacts, never does and so never loads node:crypto). */
  private fp: string | (() => string);
  private readonly allow: RegExp[];
  private readonly userRules: boolean;

  /** The rules' hints and anchors, each numbered once (rules sharing one share its number; by
   *  rule index, -1: none), and the scanner finding them; built at the first scan. */
  private plan: { scanner: CandidateScanner; hintOf: number[]; anchorOf: number[] } | null = null;

  /** `views`: the normalised views to scan too (shared/redact-views.ts); null for the hook's
   *  signing redactor (signingRedactor), which keeps them out of its bundle. `scanner`: how a
   *  text is scanned for the rules' hints and anchors (shared/redact-scan.ts). */
  constructor(
    readonly rules: readonly RedactRule[],
    allow: readonly RegExp[],
    fingerprint: string | (() => string),
    private readonly views: Views | null,
    private readonly scanner: ScannerFactory = plainScanner,
  ) {
    this.allow = [...allow];
    this.fp = fingerprint;
    this.userRules = rules.some((r) => !BUILTIN_RULES.includes(r));
  }

  /** Names the rules and allow list in force (stores record the one they were scrubbed by). */
  get fingerprint(): string {
    if (typeof this.fp !== 'string') this.fp = this.fp();
    return this.fp;
  }

  private planned(): NonNullable<Redactor['plan']> {
    if (this.plan) return this.plan;
    // Plain loops: the hook builds this at its first error, cold (no closures to compile).
    const hints: string[] = [];
    const anchors: RegExp[] = [];
    const hintOf: number[] = [];
    const anchorOf: number[] = [];
    for (const r of this.rules) {
      let h = r.hint ? hints.indexOf(r.hint) : -1;
      if (r.hint && h < 0) h = hints.push(r.hint) - 1;
      let a = r.anchor ? anchors.indexOf(r.anchor) : -1;
      if (r.anchor && a < 0) a = anchors.push(r.anchor) - 1;
      hintOf.push(h);
      anchorOf.push(a);
    }
    return (this.plan = { scanner: this.scanner(hints, anchors), hintOf, anchorOf });
  }

  /** Where secrets are in `text` (sorted, not overlapping): the rules over the text as it
   *  is, over its in-token line breaks joined, and over the decoding of its base64 runs
   *  (shared/redact-views.ts). `store scan`, doctor and redaction all ask here. */
  findings(text: string): Finding[] {
    return this.find(text, 0, null);
  }

  /** `within`: `text` is that joined view's text (only what spans its cuts is new there). */
  private find(text: string, depth: number, within: JoinedView | null): Finding[] {
    // No rules (a store written "without redaction", the benchmark's baseline): nothing to find
    // in any view either.
    if (!text || this.rules.length === 0 || (!this.userRules && text.length < MIN_SECRET_CHARS)) return [];
    const found = this.ruleFindings(text);
    const v = this.views;
    if (!v) return merged(found);
    if (depth < MAX_DECODE_DEPTH) {
      for (const run of v.base64Runs(text)) {
        if (within && !v.spansCut(within, run.start, run.end)) continue;
        const decoded = v.decodedText(text.slice(run.start, run.end));
        if (decoded !== null && this.find(decoded, depth + 1, null).length > 0) found.push({ kind: BASE64_KIND, ...run });
      }
    }
    const view = within ? null : v.joinedView(text);
    if (view) {
      // Only what spans a cut is new: the rules run over a window around each cut, not the
      // whole joined text again.
      for (const [ws, we] of windows(view)) {
        const sub = v.subView(view, ws, we);
        for (const w of this.find(sub.text, depth, sub)) {
          if (!v.spansCut(sub, w.start, w.end)) continue;
          const f = { kind: w.kind, start: w.start + ws, end: w.end + ws };
          const start = v.originalIndex(view, f.start);
          const end = v.originalIndex(view, f.end - 1) + 1;
          if (!completeBefore(text, found, view, f, end, v)) found.push({ kind: f.kind, start, end });
        }
      }
    }
    return merged(found);
  }

  /** The rules' matches in `text` as it is (overlaps not yet merged): a rule whose hint is not
   *  in it does not run, an anchored rule is tried (sticky) at each place its anchor matches,
   *  any other over the whole text. */
  private ruleFindings(text: string): Finding[] {
    const found: Finding[] = [];
    const { scanner, hintOf, anchorOf } = this.planned();
    const { hints, anchors } = scanner.scan(text);
    const rules = this.rules;
    for (let i = 0; i < rules.length; i++) {
      const h = hintOf[i];
      if (h >= 0 && !hints[h]) continue;
      const rule = rules[i];
      const a = anchorOf[i];
      if (a < 0) {
        for (const m of text.matchAll(rule.re)) this.take(rule, m, found);
        continue;
      }
      const at = anchors[a];
      if (at.length === 0) continue;
      const sticky = this.sticky(rule);
      let end = 0;
      for (const p of at) {
        if (p < end) continue; // inside the previous match of this rule
        sticky.lastIndex = p;
        const m = sticky.exec(text);
        if (m) {
          end = m.index + m[0].length;
          this.take(rule, m, found);
        }
      }
    }
    return found;
  }

  /** A match as a finding when its value is a secret (the rule accepts it, the allow list not). */
  private take(rule: RedactRule, m: RegExpExecArray | RegExpMatchArray, found: Finding[]): void {
    const v = m.groups?.v ?? m[0];
    if (!v) return;
    if (rule.accept && !rule.accept(v)) return;
    if (this.allow.some((a) => a.test(v))) return;
    const start = m.groups?.v !== undefined ? m.index! + m[0].lastIndexOf(v) : m.index!;
    found.push({ kind: rule.kind, start, end: start + v.length });
  }

  private readonly stickies = new Map<RedactRule, RegExp>();
  private sticky(rule: RedactRule): RegExp {
    let re = this.stickies.get(rule);
    if (!re) {
      re = new RegExp(rule.re.source, rule.re.flags.replace('g', '') + 'y');
      this.stickies.set(rule, re);
    }
    return re;
  }

  /** `text` with every secret replaced by its marker; the same string when none. Repeated
   *  until nothing is found (a replacement can join what was apart), so what it returns has
   *  no finding: a store written from it scans clean with the same detector. */
  redact(text: string): string {
    let out = text;
    for (let pass = 0; pass < MAX_REDACT_PASSES; pass++) {
      const f = this.findings(out);
      if (f.length === 0) return out;
      out = replaced(out, f);
    }
    // Still a finding after the last pass: a replacement that keeps joining what follows (a
    // value glued to a line-broken base64 blob, eaten one line per pass). Everything from the
    // first finding left on is dropped under one marker, so nothing of it can leak.
    const rest = this.findings(out);
    if (rest.length === 0) return out;
    const first = rest.reduce((a, b) => (b.start < a.start ? b : a));
    return replaced(out, [{ kind: first.kind, start: first.start, end: out.length }]);
  }

  /** Every string inside a parsed JSON value redacted (objects and arrays copied only where
   *  something changed). Keys are redacted too: a tool input may carry a secret as a key. */
  redactValue<T>(value: T): T {
    return this.walk(value) as T;
  }

  private walk(v: unknown): unknown {
    if (typeof v === 'string') return this.redact(v);
    if (Array.isArray(v)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < v.length; i++) {
        const w = this.walk(v[i]);
        if (w !== v[i]) (copy ??= v.slice())[i] = w;
      }
      return copy ?? v;
    }
    if (v !== null && typeof v === 'object') {
      let changed = false;
      const entries = Object.entries(v).map(([k, x]) => {
        const k2 = k.length < MIN_KEY_SECRET_CHARS ? k : this.redact(k);
        const w = this.walk(x);
        if (k2 !== k || w !== x) changed = true;
        return [k2, w] as const;
      });
      return changed ? Object.fromEntries(entries) : v;
    }
    return v;
  }
}

/** Config errors name the field; a bad user pattern must stop the run, not store a secret. */
export class RedactConfigError extends Error {}

function compile(source: string, what: string, flags: string): RegExp {
  try {
    return new RegExp(source, flags);
  } catch (e) {
    throw new RedactConfigError(`${what}: ${(e as Error).message}`);
  }
}

const KIND_RE = /^[a-z0-9][a-z0-9-]{0,40}$/;

/** The redactor for a config: built-in rules, then the user's patterns; the allow list. */
export function createRedactor(cfg: RedactConfig = { patterns: [], allow: [] }, rules: readonly RedactRule[] = BUILTIN_RULES): Redactor {
  const user: RedactRule[] = cfg.patterns.map((p, i) => {
    if (!KIND_RE.test(p.kind)) throw new RedactConfigError(`redact.patterns[${i}].kind "${p.kind}": use lower-case letters, digits and dashes`);
    const re = compile(p.pattern, `redact.patterns[${i}].pattern`, 'g');
    if (re.test('')) throw new RedactConfigError(`redact.patterns[${i}].pattern matches the empty string`);
    return { kind: p.kind, re };
  });
  const allow = cfg.allow.map((a, i) => compile(`^(?:${a})$`, `redact.allow[${i}]`, ''));
  // The config as it is now (a copy: the caller's object may change later); it is named and
  // hashed at the first read.
  const named = [...rules];
  const patterns = cfg.patterns.map((p) => ({ ...p }));
  const allowed = [...cfg.allow];
  const fingerprint = () =>
    createHash('sha256')
      .update(JSON.stringify({ v: RULES_VERSION, rules: named.map((r) => [r.kind, r.re.source, r.re.flags]), patterns, allow: allowed }))
      .digest('hex')
      .slice(0, 16);
  return new Redactor([...rules, ...user], allow, fingerprint, VIEWS, prescanner);
}

let builtin: Redactor | null = null;
let signing: Redactor | null = null;
/** The built-in rules without the normalised views: what the hook signs an error with (its
 *  bundle stays small and starts fast, docs/HOOK.md). It gives the indexer's text but for a
 *  secret only a view finds (a token cut by a line break, base64 of a key) in the error's first
 *  lines: that error then signs otherwise and finds no Past fix — recall lost, never a leak
 *  (the hook stores no text). */
export function signingRedactor(): Redactor {
  return (signing ??= new Redactor(BUILTIN_RULES, [], 'signing', null));
}
/** The built-in rules' redactor, made once per process (the hook's and the daemon's default
 *  when no configured one is given: an error is signed as the indexer stored it). */
export function builtinRedactor(): Redactor {
  return (builtin ??= createRedactor());
}

/** Whether a joined-view finding only ran a secret the text already shows whole on its line
 *  into the next line's word (`ghp_…` then `Exit code 1`): a finding of the text itself ends
 *  where the first joined break begins, and what the join adds is a word (`Exit`, `done`) or
 *  shorter than MIN_SECRET_CHARS — not the tail of a token. */
function completeBefore(text: string, direct: readonly Finding[], view: JoinedView, f: Finding, end: number, v: Views): boolean {
  const k = view.cuts.findIndex((c) => c > f.start && c < f.end);
  const breakAt = v.originalIndex(view, view.cuts[k] - 1) + 1;
  if (!direct.some((d) => d.end === breakAt)) return false;
  const added = text.slice(breakAt + view.removed[k], end);
  return added.length < MIN_SECRET_CHARS || /^[A-Za-z][a-z]*$/.test(added);
}

/** Characters of the joined view looked at on each side of a cut (a name, its separator and a
 *  token fit: values are cut at 400). */
const CUT_WINDOW = 512;

/** [start, end) windows of a joined view around its cuts, overlapping ones merged. */
function windows(view: JoinedView): Array<[number, number]> {
  const out: Array<[number, number]> = [];
  for (const c of view.cuts) {
    const a = Math.max(0, c - CUT_WINDOW);
    const b = Math.min(view.text.length, c + CUT_WINDOW);
    const last = out[out.length - 1];
    if (last && a <= last[1]) last[1] = b;
    else out.push([a, b]);
  }
  return out;
}

/** Overlapping detections become one finding over both (the earliest start wins; same start:
 *  the longer). */
function merged(found: Finding[]): Finding[] {
  if (found.length < 2) return found;
  found.sort((a, b) => a.start - b.start || b.end - a.end);
  const out: Finding[] = [];
  for (const f of found) {
    const last = out[out.length - 1];
    if (last && f.start < last.end) {
      if (f.end > last.end) last.end = f.end;
      continue;
    }
    out.push({ ...f });
  }
  return out;
}

function replaced(text: string, findings: readonly Finding[]): string {
  let out = '';
  let at = 0;
  for (const x of findings) {
    out += text.slice(at, x.start) + marker(x.kind);
    at = x.end;
  }
  return out + text.slice(at);
}

/** Findings per kind, for reports (`store scan`, doctor). */
export function countByKind(findings: readonly Finding[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const f of findings) out[f.kind] = (out[f.kind] ?? 0) + 1;
  return out;
}
