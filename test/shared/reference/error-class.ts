// Reference copy (test only): shared/error-class.ts as it was before the hook's tool-path pass
// (December 2026, the hook's third speed pass; its notes are in the git history of docs/HOOK.md), kept so that
// test/shared/signature-reference.test.ts can show the rewritten functions give the same
// results on random and real-shaped inputs. Not imported by product code.
/**
 * Errors no Past fix should answer (pure, dependency-free: the hook bundles it). Input: the
 * error's key lines (shared/error-signature.ts keyLines: normalized, from the lead on) or the
 * raw result text for the person's and the protocol's own notices. Output: the kind of
 * generic error, or null when a fix met in another session could apply.
 *
 * The rule (docs/PASTFIX.md "Silence on generic errors"): an error is generic when its fix is
 * specific to the person, to the code being written right now, or already stated in the
 * message itself — so an earlier session's fix cannot transfer:
 *   rejection    the person declined the call
 *   interrupt    the person stopped it
 *   cancelled    a parallel call failed first (the call itself never ran)
 *   protocol     a tool's own usage error whose message says what to do (read the file
 *                first, use offset/limit, the file does not exist, the input is invalid)
 *   edit-mismatch  an Edit whose old string does not match, matches many times, or changes nothing
 *   assertion    a test's assertion failed (the code under test is being written)
 *   code-at-hand a compile or type error that names nothing but the language's own words
 *                (`Object is possibly 'undefined'`, `Type 'string' is not assignable to type
 *                'number'`): about the line being written, not an API of the project
 *   guessed-path a shell utility says an absolute path does not exist (`ls: cannot access
 *                '/home/u/app/src/x': No such file or directory`): a guess about where a file is,
 *                fixed by finding it. A missing RELATIVE path is not generic: it is the wrong
 *                directory, which recurs and whose fix (where) transfers; nor is a path under an
 *                install folder (`node_modules/.bin/vite`, `.venv/bin/python`): a missing install
 *   uninformative  nothing to tell it apart (`Error`, `failed`: fewer than MIN_CONTENT_WORDS words)
 * Compile and type errors are NOT generic by kind: their signature keeps the quoted names
 * (error-signature.ts COMPILE_LEAD_RE), so only the very same complaint met again matches — an
 * API that changed under the project, not a typo in new code.
 * Used by the indexer's fixes (core/fixes.ts: a generic episode is never a Past fix), the
 * hook (hook/tool-gates.ts: gate generic-error) and the daemon's tool step (core/tool-step.ts).
 */
import { COMPILE_LEAD_RE, LEAD_RE, informativeLines } from './error-signature.js';
import { lazyRegExp } from '../../../shared/regexp.js';

/** Characters of the raw text the person's and the protocol's notices are looked for in (they
 *  are the first thing a tool result says). */
const RAW_HEAD_CHARS = 2000;
/** Lines from the top of the text looked at besides the key lines (a tool's own notice may
 *  come before the lead a signature starts at). */
const TOP_LINES = 3;

export const GENERIC_KINDS = ['rejection', 'interrupt', 'cancelled', 'protocol', 'edit-mismatch', 'assertion', 'code-at-hand', 'guessed-path', 'uninformative'] as const;
export type GenericKind = (typeof GENERIC_KINDS)[number];

/** Fewest content words (3+ letters, not a severity label) in the lead line of an error that
 *  can be told apart from others: `error`, `command failed`, `failed` have fewer. */
export const MIN_CONTENT_WORDS = 2;

/** The person's and the protocol's notices, on the raw text (before normalization). */
const RAW_KINDS: ReadonlyArray<[GenericKind, RegExp]> = [
  ['rejection', /the user doesn't want to (?:proceed|take)|user rejected|the user (?:has )?(?:rejected|denied)|permission to use \S+ (?:was|has been) denied|was blocked by (?:the user|a hook)/i],
  ['interrupt', /\[request interrupted by user|interrupted by user|operation (?:was )?aborted by (?:the )?user/i],
  ['cancelled', /sibling tool call errored|cancelled: parallel tool call|call was cancell?ed because/i],
];

/** Tool usage errors whose message says what to do, on normalized key lines. */
const LINE_KINDS: ReadonlyArray<[GenericKind, RegExp]> = [
  ['edit-mismatch', /string to replace not found|found <n> matches of the string to replace|old_string and new_string are exactly the same|no changes to make|old_string (?:is|was) not (?:found|unique)/],
  ['protocol', /file has not been read yet|read it first before writing|file has been (?:modified|changed) since (?:it was )?read|exceeds maximum allowed (?:tokens|size)|use (?:the )?offset and limit|file does not exist|inputvalidationerror|invalid tool parameters|is a directory, not a file|eisdir|unknown tool|tool .* not found in available tools|request failed with status code <n>/],
  ['assertion', /\bassertion ?error\b|\bassert(?:ion)? failed\b|\bexpected\b.*\b(?:to (?:be|equal|have|contain|match)|received|but (?:got|was|found))\b|^(?:fail|failed)\b.*\b(?:test|spec)\b|\btests?:\s*<n> failed|(?:^|[^a-z0-9_])<n> (?:tests? )?failed\b|^e\s+assert/],
];

const SEVERITY_RE = /^(?:fatal|error|err!?|warning|exception|panic|failed|failure)\b/;
/** Content words: Latin words of 3+ characters, runs of 2+ Han / kana / Hangul characters
 *  (a word there is shorter), other scripts' words of 3+ letters. */
const wordRe = lazyRegExp('[a-z][a-z0-9_-]{2,}|[\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}\\p{Script=Hangul}]{2,}|(?![a-z])\\p{L}{3,}', 'gu');
const LABELS = new Set(['error', 'errors', 'fatal', 'failed', 'failure', 'fail', 'exception', 'panic', 'err', 'exit', 'code', 'command', 'warning']);

/** Latin words only (the word regex's first branch). On text of lowercase ASCII alone its other
 *  branches cannot match, so this counts the same without building its script classes,
 *  which costs the one-shot hook about a millisecond. */
const LATIN_WORD_RE = /[a-z][a-z0-9_-]{2,}/g;
/** A character outside lowercase ASCII (an uppercase letter, any other script). */
const NOT_LOWER_ASCII_RE = /[^\x00-\x40\x5b-\x7f]/;

/** Content words of a line that are not severity labels or placeholders. */
export function contentWordCount(line: string): number {
  const text = line.replace(/<[a-z]+>/g, ' ').replace(SEVERITY_RE, '');
  return (text.match(NOT_LOWER_ASCII_RE.test(text) ? wordRe() : LATIN_WORD_RE) ?? []).filter((w) => !LABELS.has(w)).length;
}

/** The language's own words a compiler quotes (built-in types and values of TypeScript,
 *  Python, Rust, Go, Java, C#): a complaint quoting only these names nothing of the project. */
const LANGUAGE_WORDS = new Set([
  'undefined', 'null', 'any', 'never', 'unknown', 'void', 'object', 'string', 'number', 'boolean', 'bigint', 'symbol', 'true', 'false',
  'none', 'int', 'str', 'float', 'bool', 'bytes', 'list', 'dict', 'tuple', 'set', 'self', 'this', 'nil', 'error', 'char', 'double', 'long',
  'i32', 'i64', 'u8', 'u32', 'u64', 'usize', 'f64', '&str', '()', 'string[]', 'number[]', 'any[]', 'unknown[]', 'object[]',
]);
/** A compile line's quoted spans ('…', `…`, ‘…’). */
const QUOTED_SPAN_RE = /'([^']*)'|`([^`]*)`|‘([^’]*)’/g;
/** The bare "it did not compile" leads: they quote nothing and say nothing of the cause. */
const BARE_COMPILE_RE = /^(?:failed to compile|compilation failed)\b/;

/** A compile complaint that quotes names, every one of them the language's own word (the
 *  complaint lines of the key lines; the bare "failed to compile" lead aside). */
function quotesOnlyLanguage(lines: readonly string[]): boolean {
  const spans: string[] = [];
  for (const l of lines) {
    if (!COMPILE_LEAD_RE.test(l) || BARE_COMPILE_RE.test(l)) continue;
    for (const m of l.matchAll(QUOTED_SPAN_RE)) spans.push((m[1] ?? m[2] ?? m[3] ?? '').trim());
  }
  return spans.length > 0 && spans.every((q) => q.split(/\s*\|\s*|\s+/).every((w) => LANGUAGE_WORDS.has(w)));
}

/** A shell utility's "this path does not exist" line (coreutils, bash, Git Bash), with the
 *  path: `ls: cannot access 'P': No such file…`, `cp: cannot stat 'P': …`, `cat: P: No such
 *  file…`, `bash: line 1: cd: P: No such file…`. Not a program's own report of a file it
 *  expected (Python's `[Errno 2] No such file or directory: 'P'`): that file may be one to create. */
const MISSING_PATH_RE = /^(?:\S*\/)?(?:ba|z|da)?sh: (?:line \d+: )?(?:cd: )?(.+?): no such file or directory$|^[a-z][\w.-]*: cannot (?:access|stat|open) '([^']+)': no such file or directory$|^[a-z][\w.-]*: ([^':]+): no such file or directory$/i;
/** An absolute path of two segments or more (POSIX, Windows drive, MSYS drive, UNC). One
 *  segment at the root (`/b`) is an option Git Bash took for a path, not a guessed location. */
const ABSOLUTE_PATH_RE = /^(?:\/[^/\s]+\/[^/]|[a-z]:[\\/]|\\\\[^\\]+\\)/i;
/** Lines of the raw text looked at for missing paths: a shell's complaints come first, one per
 *  operand (`ls a b c`), under an `Exit code` line; eight holds a few operands and stays cheap. */
const MISSING_PATH_LINES = 8;
/** A missing program or package under an install folder (`…/node_modules/.bin/vite`,
 *  `.venv/bin/python`, `/usr/local/bin/x`) is no guess about the tree but a missing install,
 *  which recurs and whose fix transfers. */
const INSTALL_SEGMENT_RE = /(?:^|[\\/])(?:node_modules|\.bin|bin|sbin|\.?venv|site-packages|dist-packages)(?:[\\/]|$)/i;

/** Every missing-path line among the first lines names an absolute path (and there is one). */
function missingOnlyAbsolute(head: string): boolean {
  let any = false;
  for (const line of head.split('\n', MISSING_PATH_LINES)) {
    if (!/no such file or directory/i.test(line)) continue;
    const m = MISSING_PATH_RE.exec(line.trim());
    const path = m ? (m[1] ?? m[2] ?? m[3] ?? '').replace(/^["']|["']$/g, '') : '';
    if (!path || !ABSOLUTE_PATH_RE.test(path) || INSTALL_SEGMENT_RE.test(path)) return false;
    any = true;
  }
  return any;
}

/** The kind of generic error, or null. `raw`: the result text; `lines`: its key lines. */
export function genericKind(raw: string, lines: readonly string[]): GenericKind | null {
  const head = raw.length > RAW_HEAD_CHARS ? raw.slice(0, RAW_HEAD_CHARS) : raw;
  for (const [kind, re] of RAW_KINDS) if (re.test(head)) return kind;
  if (!lines.length) return 'uninformative';
  const look = [...lines.slice(0, TOP_LINES), ...informativeLines(head, TOP_LINES)];
  for (const [kind, re] of LINE_KINDS) if (look.some((l) => re.test(l))) return kind;
  if (quotesOnlyLanguage(lines)) return 'code-at-hand';
  if (missingOnlyAbsolute(head)) return 'guessed-path';
  // The lead says nothing to tell it apart, and no line under it does either.
  const lead = lines[0];
  if (contentWordCount(lead) < MIN_CONTENT_WORDS && !lines.slice(1, 3).some((l) => LEAD_RE.test(l) && contentWordCount(l) >= MIN_CONTENT_WORDS)) return 'uninformative';
  return null;
}
