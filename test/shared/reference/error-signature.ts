// Reference copy (test only): shared/error-signature.ts as it was before the hook's tool-path pass
// (December 2026, the hook's third speed pass; its notes are in the git history of docs/HOOK.md), kept so that
// test/shared/signature-reference.test.ts can show the rewritten functions give the same
// results on random and real-shaped inputs. Not imported by product code. One later change is
// applied to both: HASH_RE takes only a standalone hex run. And one more: keptQuote keeps a
// module specifier whole (MODULE_NAME_RE, rule code-being-written).
/**
 * Error signatures: a tool error's text → a stable key that is the same when the same error
 * comes back with other paths, branches, numbers, hashes or quoted names, and differs between
 * different errors. Pure, dependency-free (shared/regexp.ts aside); used by the indexer (episodes and notes that
 * quote an error), the daemon (tool steps) and the hook (the payload's `error`, to pick the
 * one precomputed fixes file to read). Bounded work: at most MAX_SCAN_CHARS of input.
 *
 *   text ─▶ literal "\n" made real, ANSI and carriage-return progress removed
 *        ─▶ per line: lower case; URLs, UUIDs, hashes, quoted strings, paths, file names,
 *           branch names, numbers → placeholders; box-drawing and bullets stripped
 *        ─▶ boilerplate lines dropped (exit codes, "Compiling N files", "Running setup for …",
 *           "Checking N source files", progress bars, npm/cargo/mix chatter, placeholder-only)
 *        ─▶ the head: from the first line that names a failure (LEAD_RE), HEAD_LINES lines
 *        ─▶ sig = hash of the head; words = its content words (and a few lines after) for
 *           near matches.
 *
 * Why the head: an error message says *what* failed in its first line or two (the lead and
 * the section or qualifier under it); what follows is specifics (stack frames, findings,
 * locations) that change from run to run. HEAD_LINES = 2 was chosen by reading the shape of
 * compiler, test-runner, git and pre-commit output, not by fitting a dataset; `eval pastfix`
 * reports what other values would give (docs/PASTFIX.md).
 */

import { lazyRegExp } from '../../../shared/regexp.js';

/** Characters of an error looked at (the head is what matters; 1 MB errors stay fast). */
export const MAX_SCAN_CHARS = 16_384;
/** Characters of one line normalized (a minified bundle's line is cut here). */
const MAX_LINE_CHARS = 1000;
/** Lines of the head that make the signature. */
export const HEAD_LINES = 2;
/** Lines after the head whose words also count for near matches. */
export const WORD_CONTEXT_LINES = 4;
/** Most content words kept for near matches. */
export const MAX_WORDS = 32;
/** Longest head kept for display (a reason line quotes its first line). */
export const MAX_HEAD_CHARS = 200;
/** Informative lines kept from the lead on: the head, then the lines near matches look at
 *  (a shared key line is a near match: shared/error-keys.ts). Six covers a lead, its
 *  qualifier and the few lines of cause a compiler, git or a package manager prints under it. */
export const KEY_LINES = 6;

export interface ErrorSignature {
  /** Stable key: 14 hex digits (hash of the first HEAD_LINES of `lines`). */
  sig: string;
  /** The normalized head lines (placeholders in), for display and debugging. */
  head: string[];
  /** The informative lines from the lead on (the head first), at most KEY_LINES: what a store
   *  keeps as the episode's head, and where near matches find key lines. */
  lines: string[];
  /** Content words of the head and its context, deduplicated, for near matches. */
  words: string[];
}

/** A line that names a failure: the signature's head starts at the first such line. */
export const LEAD_RE =
  /\b(error|errors|err!|fatal|fail|fails|failed|failure|failures|exception|panic|panicked|traceback|denied|refused|not found|no such|cannot|can't|could not|couldn't|unable|invalid|undefined|unknown|missing|timed out|timeout|abort|aborted|rejected|conflict|not allowed|forbidden|unexpected|segmentation fault|ignored|does not exist|doesn't exist|not permitted|not a|no upstream|deprecated|violat\w*)\b/;

/** Lines that many different errors share (build and tool chatter): never part of the head. */
const BOILERPLATE_RE = new RegExp(
  [
    '^exit code <n>$',
    '^(process )?exited with (exit )?code <n>',
    '^command failed with exit code <n>',
    '^compiling <n> files?\\b',
    '^compiling <path>',
    '^compiling [\\w.-]+ v<n>',
    '^generated [\\w.-]+ app$',
    '^==> [\\w.-]+$',
    '^running setup for\\b',
    '^getting extensions in current project',
    '^checking <n> source files?\\b',
    '^running exunit with seed\\b',
    '^finding suitable plts?$',
    '^checking plt',
    '^plt is up to date',
    '^(analysis took|finished in|done in|ran in|took) <n>',
    '^(real|user|sys)\\s+<n>',
    '^npm (warn|notice|info|verb|http)\\b',
    '^> [\\w@./-]+ [\\w:.-]+$',
    '^> <path>',
    '^(downloading|downloaded|updating|fetching|resolving|installing|locking|blocking|waiting)\\b',
    '^(running|starting) <n> tests?\\b',
    '^collected <n> items?',
    '^=+ (test session starts|warnings summary)',
    '^platform [\\w-]+ -- python',
    '^rootdir: ',
    '^\\[?<n>%\\]?',
    '^[#=>. -]*<n>%',
    '^[\\w\\s.:=#>-]{0,40}<n>%',
    '^(please report incorrect results|use `?mix credo)',
  ].join('|'),
);

const ANSI_RE = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
const CONTROL_RE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g;
const URL_RE = /\b[a-z][a-z0-9+.-]*:\/\/[^\s'"`<>]+/g;
const UUID_RE = /\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b/g;
/** Hex runs of 7+ that contain a digit (commit hashes, object ids, addresses). */
const HASH_RE = /(?<![\w./-])(?:0x)?(?=[0-9a-f]*\d)[0-9a-f]{7,}(?![\w/-])/g;
/** Quoted spans on one line: '…', "…", `…`, ‘…’, “…” (bounded, so a stray quote cannot eat a line). */
const QUOTED_RE = /'[^'\n]{1,200}'|"[^"\n]{1,200}"|`[^`\n]{1,200}`|‘[^’\n]{1,200}’|“[^”\n]{1,200}”/g;
/** Paths with a separator (optionally ~, ., drive letter; :line:col kept out by the number rule). */
const PATH_RE = /(?:[a-z]:)?(?:~|\.{1,2})?(?:[\\/][\w.@+!-]+)+[\\/]?|\b[\w.@+-]+(?:[\\/][\w.@+!-]+)+[\\/]?/g;
/** Windows and MSYS paths, whose segments may hold spaces when a separator follows them
 *  (`c:\users\me\my app\src`, `c:/users/me/my app/src`, `/c/users/me/my app/src`) and UNC
 *  paths (`\\server\share\x`): one placeholder, as a Unix path is (the same error met on another
 *  machine or shell then signs the same). */
const WIN_PATH_RE = /(?:\b[a-z]:|(?<![^\s'"`(=,:])\/[a-z](?=\/)|\\\\[\w.$-]+)(?:[\\/](?:[^\\/\s'"`<>|:*?]+(?: [^\\/\s'"`<>|:*?]+)*(?=[\\/]))?)+[\\/]?[^\\/\s'"`<>|:*?]*/g;
/** A Windows path (kept as it is) or an escaped line break (`\\n`, `\\r\\n`). */
const WIN_ESCAPE_SAFE_RE = /(?:\b[A-Za-z]:\\|\\\\[\w.$-]+\\)(?:[^\\\s'"`<>|]+(?: [^\\\s'"`<>|]+)*\\)*[^\\\s'"`<>|]*|\\r\\n|\\n/g;
/** Bare file names with a common extension. */
const FILE_RE = /\b[\w@+-]+(?:\.[\w-]+)*\.(?:[jt]sx?|mjs|cjs|json|ya?ml|toml|lock|md|txt|py|rb|go|rs|java|kt|swift|c|cc|cpp|h|hpp|cs|ex|exs|erl|hs|php|sh|sql|html|css|scss|vue|svelte|beam|so|dll|o|log|cfg|ini|xml|gradle)\b/g;
/** The name after `branch`, `origin`, `tag`, `checkout`, `worktree` is a placeholder too
 *  (not a function word: "the branch and the remote" keeps its words). */
const BRANCH_RE = /\b(branch|origin|tag|checkout|worktree)\s+(?!<)(?!(?:and|or|has|is|was|to|of|for|with|from|not|the|a|an|in|on|at|as|by|that|which|name|named|called|exists|already)\b)[\w./@+-]+/g;
const NUMBER_RE = /(?<![a-z_])[-+]?\d+(?:[.,:]\d+)*(?![a-z_])/g;
const DECOR_RE = /[\u2500-\u257f\u2580-\u259f\u2190-\u21ff\u25a0-\u25ff\u2022\u00b7*•►▶✗✘✖×|^~]+/g;
const PLACEHOLDER_ONLY_RE = /^(?:<(?:n|q|path|url|id|hash|name)>[\s,.:;()[\]{}-]*)+$/;
const WORD_RE = /[a-z][a-z0-9_-]{2,}/g;

/** Words that say nothing about which error it is. */
const STOPWORDS = new Set(
  ('the and for are but not you your with this that from have has had was were will would can could should ' +
    'into onto than then there their them they its it\'s use used using run running see also here when what which ' +
    'one all any some such been being does did done may might must shall let get got set out off per via').split(' '),
);

/** Two letters of any script (a line of Chinese or Russian carries something): built on first
 *  use, as the script-wide class costs every process that parses it (shared/regexp.ts). */
const letterPairRe = lazyRegExp('\\p{L}{2}', 'u');

/** A module specifier: a bare package name (`ethers`), or a scoped one or a bundler alias path
 *  (`@scope/pkg`, `@/components/ui/form`); a name that starts with a letter, no drive, no
 *  leading slash or dot, no blank; at most 100 characters. A path without `@` (`src/a.ts`) is a
 *  path, and is masked. */
const MODULE_NAME_RE = /^(?:@[\w.-]*\/[\w.@-]+(?:\/[\w.@-]+)*|[A-Za-z][\w.-]*)$/;

/** A quoted span kept as it is (a compile error's names): its paths and numbers still become
 *  placeholders, and a span that is mostly a path is one. */
function keptQuote(q: string): string {
  // A module or package name (`'@scope/pkg'`, `'@/components/ui/form'`, `'lodash/fp'`) is a name,
  // not a place: kept whole, so only the very same complaint matches (rule code-being-written).
  if (q.length <= 102 && MODULE_NAME_RE.test(q.slice(1, -1))) return q;
  const inner = q.slice(1, -1).replace(PATH_RE, '<path>').replace(NUMBER_RE, '<n>');
  return /^<path>$/.test(inner.trim()) ? '<q>' : `${q[0]}${inner}${q[q.length - 1]}`;
}

/** A line with placeholders in for its variable parts, or '' when it carries nothing.
 *  `keepQuoted`: quoted names stay (the signature of a compile error: shared/error-class.ts). */
export function normalizeErrorLine(raw: string, keepQuoted = false): string {
  let s = raw.toLowerCase().replace(/<\/?tool_use_error>/g, ' ');
  s = s.replace(URL_RE, '<url>').replace(WIN_PATH_RE, '<path>').replace(UUID_RE, '<id>').replace(HASH_RE, '<hash>');
  if (keepQuoted) {
    // Quoted names are kept, but what is around them is normalized as usual: protect them.
    const kept: string[] = [];
    // Marks made of letters only (a number would become <n>); at most 26 spans are kept.
    s = s.replace(QUOTED_RE, (q) => (kept.length < 26 ? `\u0000${String.fromCharCode(97 + kept.push(keptQuote(q)) - 1)}\u0000` : '<q>'));
    s = normalizeRest(s).replace(/\u0000([a-z])\u0000/g, (_m, c: string) => kept[c.charCodeAt(0) - 97]);
    return finishLine(s);
  }
  s = s.replace(QUOTED_RE, '<q>');
  return finishLine(normalizeRest(s));
}

function normalizeRest(s: string): string {
  return s.replace(PATH_RE, '<path>').replace(FILE_RE, '<path>').replace(BRANCH_RE, '$1 <name>').replace(NUMBER_RE, '<n>');
}

function finishLine(line: string): string {
  let s = line;
  s = s.replace(DECOR_RE, ' ').replace(/\s+/g, ' ').trim();
  // Leading list markers and stray punctuation are not part of the message.
  s = s.replace(/^[-–—>:;,.\s]+/, '').replace(/(?:<path>|<n>)(?:\s*[:,]\s*(?:<path>|<n>))+/g, (m) => (m.startsWith('<path>') ? '<path>' : '<n>'));
  // Letters of any script count (a Chinese or Russian error is an error too); two ASCII ones
  // first, so a line in Latin letters never compiles the script-wide class.
  const bare = s.replace(/<[a-z]+>/g, '');
  if (!/[a-z]{2}/.test(bare) && !letterPairRe().test(bare)) return '';
  if (PLACEHOLDER_ONLY_RE.test(s)) return '';
  return s;
}

/** Informative lines read at most (errorSignature looks for the lead among these). Large
 *  enough that a failure line after pages of passing-test output is still found (the scan is
 *  bounded by MAX_SCAN_CHARS anyway; errorSig stops as soon as the head is complete). */
export const MAX_INFORMATIVE_LINES = 2000;

/** LEAD_RE's words anywhere, word boundaries or not: a placeholder put in for a path that
 *  starts inside a word (`deniedC:\\x`) makes a boundary the raw line did not have. */
const LEAD_ANYWHERE_RE = new RegExp(LEAD_RE.source.replace(/\\b/g, ''));

/** Whether a raw line may normalize to a lead line: LEAD_RE's words on the line with what
 *  normalizeErrorLine could join words by (case, tool_use_error tags, decoration, runs of
 *  white space) already applied. Its placeholders never make letters, so a line this says no
 *  to is no lead (property-tested: test/shared/error-signature.test.ts). */
function mayLead(line: string): boolean {
  return LEAD_ANYWHERE_RE.test(line.toLowerCase().replace(/<\/?tool_use_error>/g, ' ').replace(DECOR_RE, ' ').replace(/\s+/g, ' '));
}

/** The informative lines of an error, in order: normalized, boilerplate removed. `done`, when
 *  given, is asked after each line kept and ends the reading early when it says so.
 *  `fromLead`: lines before the first that may be a lead (mayLead) are not normalized — the
 *  lines from the lead on come out the same, for less work (a test run's passing lines before
 *  its failure); the caller reads again without it when no lead comes. */
export function informativeLines(text: string, maxLines = MAX_INFORMATIVE_LINES, done?: (lines: readonly string[]) => boolean, keepQuoted = false, fromLead = false): string[] {
  let t = text.length > MAX_SCAN_CHARS ? text.slice(0, MAX_SCAN_CHARS) : text;
  // Tools that print their output JSON-escaped ("…failed:\n\n[FORMAT]…") mean real newlines.
  // A Windows path's `\n…` folder is not a newline: such paths (spaces allowed inside a
  // folder name that a separator follows) are matched first and kept.
  if (t.includes('\\n')) t = t.replace(WIN_ESCAPE_SAFE_RE, (m) => (/^(?:[A-Za-z]:|\\\\)/.test(m) ? m : '\n'));
  t = t.replace(ANSI_RE, '');
  const out: string[] = [];
  const raw = t.split('\n');
  // Skipping could only differ when the line cap binds: never with fewer lines than the cap.
  let skipping = fromLead && raw.length <= maxLines;
  for (let line of raw) {
    // Carriage-return progress: only what was printed last on the line remains on screen.
    const cr = line.lastIndexOf('\r');
    if (cr >= 0) line = cr === line.length - 1 ? line.slice(0, cr).slice(line.slice(0, cr).lastIndexOf('\r') + 1) : line.slice(cr + 1);
    line = line.replace(CONTROL_RE, '').replace(/\uFFFD/g, '');
    if (!line.trim()) continue;
    const input = line.length > MAX_LINE_CHARS ? line.slice(0, MAX_LINE_CHARS) : line;
    if (skipping) {
      if (!mayLead(input)) continue;
      skipping = false;
    }
    const n = normalizeErrorLine(input, keepQuoted);
    if (!n || BOILERPLATE_RE.test(n)) continue;
    if (out.length && out[out.length - 1] === n) continue; // repeated lines say it once
    out.push(n);
    if (out.length >= maxLines || done?.(out)) break;
  }
  return out;
}

/** cyrb53: a fast 53-bit string hash (public domain), as 14 hex digits. */
export function hash53(s: string): string {
  let h1 = 0xdeadbeef;
  let h2 = 0x41c6ce57;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16).padStart(14, '0');
}

function contentWords(lines: string[]): string[] {
  const seen = new Set<string>();
  for (const l of lines) {
    for (const w of l.replace(/<[a-z]+>/g, ' ').match(WORD_RE) ?? []) {
      if (STOPWORDS.has(w) || seen.has(w)) continue;
      seen.add(w);
      if (seen.size >= MAX_WORDS) return [...seen];
    }
  }
  return [...seen];
}

/**
 * A lead line of a compiler's or type checker's complaint about code: its quoted names are
 * what tells one such error from another (`property 'utils' does not exist on type …` is an
 * API that changed; `property <q> does not exist` is any typo). Such errors keep their quoted
 * names in the signature, so only the same names met again match (docs/PASTFIX.md).
 */
export const COMPILE_LEAD_RE =
  /\b(type ?error|error ts\d*|error\[e[0-9<>n]+\]|syntax ?error|failed to compile|compilation failed|cannot find (name|module|symbol)|is not assignable to|has no exported member|does not exist on type|no overload matches|is not a function|undefined reference|unresolved (import|reference)|indentation ?error|parse error|expected .* but found|cannot resolve symbol|is not defined)(?![a-z])/;

/** The lead line's index among `lines` (0 when none names a failure). */
function leadIndex(lines: readonly string[]): number {
  const i = lines.findIndex((l) => LEAD_RE.test(l));
  return i < 0 ? 0 : i;
}

const clipHead = (l: string) => (l.length > MAX_HEAD_CHARS ? l.slice(0, MAX_HEAD_CHARS) : l);

/** The informative lines from the lead on (at most KEY_LINES), compile errors with their
 *  quoted names kept; [] when the text holds nothing informative. */
export function keyLines(text: unknown): string[] {
  if (typeof text !== 'string' || !text) return [];
  // Read only until the lead and the KEY_LINES from it are in (a long stack under it costs
  // nothing); with no lead at all, every informative line is read and the first ones kept.
  const enough = () => {
    let lead = -1;
    return (ls: readonly string[]) => {
      if (lead < 0 && LEAD_RE.test(ls[ls.length - 1])) lead = ls.length - 1;
      return lead >= 0 && ls.length >= lead + KEY_LINES;
    };
  };
  // From the lead on (mayLead); with no lead in them, every line, as the first ones are kept then.
  const read = (keepQuoted: boolean) => {
    const fromLead = informativeLines(text, MAX_INFORMATIVE_LINES, enough(), keepQuoted, true);
    return fromLead.some((l) => LEAD_RE.test(l)) ? fromLead : informativeLines(text, MAX_INFORMATIVE_LINES, enough(), keepQuoted);
  };
  let lines = read(false);
  if (!lines.length) return [];
  let lead = leadIndex(lines);
  // A compile error's lead (or the line under a generic "failed to compile"): names kept.
  if (lines.slice(lead, lead + HEAD_LINES).some((l) => COMPILE_LEAD_RE.test(l))) {
    lines = read(true);
    lead = leadIndex(lines);
  }
  return lines.slice(lead, lead + KEY_LINES).map(clipHead);
}

/** The signature of an error text, or null when it holds nothing informative. */
export function errorSignature(text: unknown, headLines: number = HEAD_LINES): ErrorSignature | null {
  const lines = keyLines(text);
  if (!lines.length) return null;
  const head = lines.slice(0, headLines);
  const words = contentWords(lines.slice(0, headLines + WORD_CONTEXT_LINES));
  return { sig: hash53(head.join('\n')), head, lines, words };
}

/** Only the signature — the same as errorSignature(text)?.sig. */
export function errorSig(text: unknown, headLines: number = HEAD_LINES): string | null {
  const lines = keyLines(text);
  return lines.length ? hash53(lines.slice(0, headLines).join('\n')) : null;
}

/** Jaccard overlap of two word lists (near matches between signatures). */
export function wordOverlap(a: readonly string[], b: readonly string[]): number {
  if (!a.length || !b.length) return 0;
  const sa = new Set(a);
  let inter = 0;
  for (const w of new Set(b)) if (sa.has(w)) inter++;
  return inter / (sa.size + new Set(b).size - inter);
}

/** Severity labels in front of a message say nothing a reason line needs. */
const SEVERITY_PREFIX_RE = /^(?:fatal|error(?:\[[\w-]+\])?|err!?|npm err!|warning|exception|panic)\s*:?\s+/;

/** A short phrase naming the error for a reason line: its lead line without a severity label,
 *  placeholders shown as … */
export function errorPhrase(sig: Pick<ErrorSignature, 'head'>, maxChars = 60): string {
  const first = (sig.head[0] ?? '')
    .replace(SEVERITY_PREFIX_RE, '')
    .replace(/<q>|<path>|<name>|<n>|<hash>|<id>|<url>|<here>/g, '…')
    .replace(/(…\s*)+/g, '… ')
    .trim();
  return first.length > maxChars ? `${first.slice(0, maxChars - 1).trimEnd()}…` : first;
}
