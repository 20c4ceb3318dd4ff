/**
 * Strings pulled from one turn for the small "exact" queries of a candidate build: error
 * codes and messages (ECONNRESET, `TypeError: …`, HTTP 5xx, exit codes), stack-frame
 * function names, file paths, @handles and capitalised names.
 *
 * Input: the exchange text (prompt, reply, tool calls, tool errors) from the daemon's
 * OfferRequest. Output: a bounded, deduplicated list ordered by how telling each kind is
 * (error strings first), consumed by retrieval/queries.ts and retrieval/offer-type.ts.
 * Pure; never throws; output size and string length are bounded whatever the input.
 */

export type ExtractKind = 'error-code' | 'error-message' | 'http-status' | 'exit-code' | 'frame' | 'path' | 'handle' | 'name';

export interface Extracted {
  kind: ExtractKind;
  text: string;
}

/** Characters of input scanned (longer turns are truncated first). */
export const EXTRACT_MAX_INPUT_CHARS = 20_000;
/** Strings returned at most. */
export const EXTRACT_MAX_STRINGS = 8;
/** Longest string returned (characters). */
export const EXTRACT_MAX_LEN = 120;
/** Shortest string worth a query. */
const MIN_LEN = 3;
/** At most this many of one kind, so names never crowd out error strings. */
const MAX_PER_KIND: Record<ExtractKind, number> = {
  'error-code': 3,
  'error-message': 3,
  'http-status': 2,
  'exit-code': 1,
  frame: 3,
  path: 3,
  handle: 2,
  name: 3,
};

/** Kinds that mean "the turn shows a failure". */
export const ERROR_KINDS: ReadonlySet<ExtractKind> = new Set(['error-code', 'error-message', 'http-status', 'exit-code']);

/** errno-style codes (Node/libc), Node `ERR_*` codes, TypeScript `TS1234`, Rust `E0382`, Oracle `ORA-00942`, SQLSTATE-like `SQLSTATE 23505`. */
const ERRNO = 'ECONNRESET|ECONNREFUSED|ECONNABORTED|ETIMEDOUT|ENOENT|EACCES|EPERM|EADDRINUSE|EADDRNOTAVAIL|EPIPE|EEXIST|EISDIR|ENOTDIR|EMFILE|ENFILE|ENOSPC|ENOTEMPTY|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|EBADF|EINVAL|EBUSY|EROFS|ENOMEM|ENOTFOUND|ESRCH|EXDEV|ELOOP|ENAMETOOLONG|EPROTO|ECANCELED|ENOTCONN|ENOTSUP|EOF';
const ERROR_CODE = new RegExp(`\\b(?:${ERRNO}|ERR_[A-Z0-9_]{3,}|TS\\d{4}|E\\d{4}|ORA-\\d{5}|SQLSTATE[ =:]?\\d{5}|OOMKilled|SIGSEGV|SIGKILL|SIGABRT)\\b`, 'g');
const ERROR_MESSAGE = /\b([A-Z][A-Za-z0-9]*(?:Error|Exception|Panic|Fault))\b(?::[ \t]*([^\n\r]{0,100}))?/g;
const HTTP_STATUS = /\b(?:HTTP(?:\/\d(?:\.\d)?)?|status(?:[ _]code)?|returned|responded with)[ \t:=]*([45]\d\d)\b/gi;
const EXIT_CODE = /\bexit(?:ed)?(?:[ \t]+with)?[ \t]+(?:code|status)[ \t:=]*(\d{1,3})\b/gi;
const JS_FRAME = /^[ \t]*at[ \t]+(?:async[ \t]+)?([A-Za-z_$][\w$.<>]*)[ \t]*\(/gm;
const PY_FRAME = /File "[^"\n]{1,300}", line \d+, in ([A-Za-z_][\w.]*)/g;
const PATH = /(?:^|[\s'"`(\[=:])((?:~|\.{1,2})?\/?(?:[\w@.+-]+\/)+[\w@.+-]+\.[A-Za-z0-9]{1,8}|[\w-]+\.(?:ts|tsx|js|jsx|mjs|cjs|py|go|rs|rb|java|kt|c|h|cpp|hpp|cs|md|json|ya?ml|toml|sql|sh|lock|ini|conf|env))\b/g;
const HANDLE = /(?<![\w.@])@[A-Za-z0-9_][\w-]{1,38}(?:\/[\w.-]{1,60})?/g;
const NAME = /\b[A-Z][a-z0-9]+(?:[A-Z][a-z0-9]*)+\b|\b[A-Z][a-z]{2,}(?:[ \t]+[A-Z][a-z]{2,}){0,2}\b/g;

/** Capitalised words that are not names (sentence starters, common words). */
const NOT_NAMES = new Set(
  ('the this that these those there then than when what where which while who why how ' +
    'yes no not and but for with from into onto after before about also just please thanks ' +
    'thank okay sure let lets now here its it\'s our your their my his her we you they i ' +
    'error exception warning note todo fixme done fix fixed add added update updated run ' +
    'running use using make made can could would should will did does do is are was were ' +
    'all any some every each other maybe still again first next last new old true false null ' +
    'none ok monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday').split(' '),
);

function safeSlice(text: unknown): string {
  if (typeof text !== 'string') return '';
  return text.length > EXTRACT_MAX_INPUT_CHARS ? text.slice(0, EXTRACT_MAX_INPUT_CHARS) : text;
}

function clean(s: string): string {
  // Keep printable text only; collapse whitespace; bound the length.
  const out = s.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]/g, ' ').replace(/\s+/g, ' ').trim();
  return out.length > EXTRACT_MAX_LEN ? out.slice(0, EXTRACT_MAX_LEN).trim() : out;
}

function isSentenceStart(text: string, index: number): boolean {
  let i = index - 1;
  while (i >= 0 && (text[i] === ' ' || text[i] === '\t')) i--;
  if (i < 0) return true;
  const c = text[i];
  return c === '.' || c === '!' || c === '?' || c === '\n' || c === '\r' || c === ':' || c === '"' || c === '>' || c === '-' || c === '*' || c === '#';
}

function* matches(re: RegExp, text: string): Generator<RegExpExecArray> {
  re.lastIndex = 0;
  let m: RegExpExecArray | null;
  let guard = 0;
  while ((m = re.exec(text)) !== null && guard++ < 10_000) {
    if (m[0].length === 0) re.lastIndex++;
    yield m;
  }
}

/** Pull the telling strings out of a turn. Pure, bounded, never throws. */
export function extractStrings(text: unknown, maxStrings: number = EXTRACT_MAX_STRINGS): Extracted[] {
  try {
    return extractUnsafe(safeSlice(text), Math.max(0, Math.min(EXTRACT_MAX_STRINGS * 4, Math.floor(maxStrings) || 0)));
  } catch {
    return [];
  }
}

function extractUnsafe(text: string, limit: number): Extracted[] {
  if (!text || limit === 0) return [];
  const found: Extracted[] = [];
  const seen = new Set<string>();
  const perKind = new Map<ExtractKind, number>();
  const add = (kind: ExtractKind, raw: string): void => {
    const s = clean(raw);
    if (s.length < MIN_LEN) return;
    const key = s.toLowerCase();
    if (seen.has(key)) return;
    const n = perKind.get(kind) ?? 0;
    if (n >= MAX_PER_KIND[kind]) return;
    seen.add(key);
    perKind.set(kind, n + 1);
    found.push({ kind, text: s });
  };

  for (const m of matches(ERROR_CODE, text)) add('error-code', m[0]);
  for (const m of matches(ERROR_MESSAGE, text)) {
    const msg = m[2]?.trim();
    add('error-message', msg ? `${m[1]}: ${msg}` : m[1]);
  }
  for (const m of matches(HTTP_STATUS, text)) add('http-status', `HTTP ${m[1]}`);
  for (const m of matches(EXIT_CODE, text)) if (m[1] !== '0') add('exit-code', `exit code ${m[1]}`);
  for (const m of matches(JS_FRAME, text)) if (!/^(?:new|Object|Module|process|node:)/.test(m[1])) add('frame', m[1]);
  for (const m of matches(PY_FRAME, text)) if (m[1] !== '<module>') add('frame', m[1]);
  for (const m of matches(PATH, text)) {
    const p = m[1];
    if (/^\d+(?:\.\d+)+$/.test(p) || /^https?:/.test(p)) continue;
    // `src/pool.ts` after `/app/src/pool.ts` (or before it) is the same file: keep one.
    const same = found.findIndex((f) => f.kind === 'path' && (f.text.endsWith('/' + p) || p.endsWith('/' + f.text)));
    if (same >= 0) continue;
    add('path', p);
  }
  for (const m of matches(HANDLE, text)) add('handle', m[0]);
  for (const m of matches(NAME, text)) {
    const word = m[0];
    const first = word.split(/[ \t]/)[0].toLowerCase();
    if (NOT_NAMES.has(first)) continue;
    const camel = /[a-z0-9][A-Z]/.test(word);
    if (!camel && isSentenceStart(text, m.index) && !word.includes(' ')) continue;
    const lower = word.toLowerCase();
    if (found.some((f) => f.text.toLowerCase().includes(lower))) continue;
    add('name', word);
  }

  const order: ExtractKind[] = ['error-code', 'error-message', 'http-status', 'exit-code', 'frame', 'path', 'handle', 'name'];
  found.sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind));
  return found.slice(0, limit);
}

/** True when the extracted strings show a failure in the turn. */
export function showsFailure(strings: readonly Extracted[]): boolean {
  return strings.some((s) => ERROR_KINDS.has(s.kind));
}
