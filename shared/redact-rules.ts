/**
 * The secret detector's built-in rules (used by shared/redact.ts): one entry per kind of
 * credential, each a regular expression whose named group `v` (or whole match) is the secret,
 * and an optional test that the captured value really looks like one (not a placeholder, a
 * type name or a variable). Pure data and pure predicates; no IO.
 *
 * Provider formats follow the providers' published token shapes (the same ones secretlint's
 * rules and GitHub secret scanning use); docs/REDACTION.md lists each kind with an example
 * and says why this set is hand-written rather than secretlint's (it measured 45 MB/s and
 * missed 4 of the 7 kinds present in the real transcripts).
 */

/** A detector rule: a kind name (the marker says it), a global regex and a value check. */
export interface RedactRule {
  kind: string;
  /** Global regex; the named group `v` is the secret when present, else the whole match. */
  re: RegExp;
  /** The captured value is a secret (not a placeholder or a word); default: always. */
  accept?: (value: string) => boolean;
  /** Keyword-anchored rules: every match starts where this (global) regex matches, so the
   *  engine finds the keywords once for all such rules and tries each rule only there. */
  anchor?: RegExp;
  /** A regex source every match contains (compared case-insensitively): the redactor scans a
   *  text once for all rules' hints and runs only the rules whose hint is there. Rules whose
   *  hints could match at one place must share the hint (one alternative wins a position). */
  hint?: string;
}

/** Shortest value assigned to a password/secret/token name that is redacted (shorter ones are
 *  flags, booleans and stubs: `token=1`, `pwd=x`). */
export const MIN_ASSIGNED_CHARS = 4;
/** Unquoted values (code, `.env`, command flags, prose) must be at least this long and hold a
 *  digit or a symbol: `password: string` and `token: accessToken` are code, `hunter22` is not. */
export const MIN_BARE_CHARS = 6;

/** Values that stand for a secret without being one: left alone wherever they appear. */
const PLACEHOLDER_RE = new RegExp(
  [
    '^\\$\\{[^}]*\\}$', // ${VAR}
    '^\\$\\(?[A-Za-z_][A-Za-z0-9_]*\\)?$', // $VAR, $(cmd-ish)
    '^%[A-Za-z_][A-Za-z0-9_]*%$', // %VAR%
    '^\\{\\{?[^}]*\\}\\}?$', // {password} {{ secret }}
    '^<[^>]*>$', // <your-password>
    '^(?:process\\.env|os\\.environ|import\\.meta\\.env|env|ENV|os\\.getenv|System\\.getenv|config|settings|secrets)\\b', // process.env.X, os.environ["X"]
    '^[*xX•.#_-]{3,}$', // ****, xxxx, ...
    '^(?:your|my|the|some|example|sample|dummy|fake|test|placeholder|insert|enter|replace|put|add)[-_ ]?(?:own[-_ ]?)?(?:api[-_ ]?)?(?:password|passwd|pass|pwd|secret|token|key|here|value|credentials?)(?:[-_ ]?here)?$',
    '^(?:changeme|change[-_]me|password|passwd|secret|token|apikey|api[-_]key|none|null|nil|undefined|true|false|string|str|bytes|any|number|redacted|hidden|masked|example|placeholder|admin|root|user|username|pass|test|testing|todo|tbd|xxx|abc123|123456|required|optional)$',
    '^‹secret:[^›]*›$', // already redacted
    '\\.\\.\\.|…', // an example cut short: "[0x...]", "sk-…" 
  ].join('|'),
  'i',
);

export function isPlaceholder(value: string): boolean {
  return PLACEHOLDER_RE.test(value.trim());
}

/** A value that names where the secret is instead of being one: a variable, a template, a
 *  mask or a marker (`-p$MYSQL_PWD`, `-p${PW}`, `-p%PW%`, `-p{{pw}}`, `-p****`). Narrower than
 *  isPlaceholder: in `mysql -proot` the word is the password. */
const VARIABLE_RE = /^(?:[${*•‹]|%\w+%$|[xX.#_-]{3,}$)/;

export function isVariable(value: string): boolean {
  return VARIABLE_RE.test(value);
}

/** A provider token: letters and digits mixed (so `sk-learn-compatible-estimator` is prose). */
function mixed(value: string): boolean {
  return /\d/.test(value) && /[A-Za-z]/.test(value) && !isPlaceholder(value);
}

/** A value in a password/secret/token slot: not a placeholder, long enough. */
function assigned(value: string): boolean {
  return value.length >= MIN_ASSIGNED_CHARS && !isPlaceholder(value) && !/^[A-Za-z_$][\w$]*\s*\(/.test(value);
}

/** An unquoted value in such a slot: also not an identifier, a type or a member access. */
function bare(raw: string): boolean {
  const value = raw.replace(/[.!?:]+$/, ''); // sentence punctuation: "your credentials: Perfect!"
  if (value.length < MIN_BARE_CHARS || !assigned(value)) return false;
  if (/^[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:\(\)?)?[,;)]?$/.test(value) && !/\d/.test(value)) return false; // an identifier
  return /[\d!@#%^&*+=?~]/.test(value);
}

/** Names whose value is a credential: DB_PASSWORD, api_key, clientSecret, GITHUB_TOKEN, … */
const SECRET_WORD = '(?:passw(?:or)?d|passphrase|passwd|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|credentials?)';
/** What may follow the keyword in such a name: `_KEY` after any of them (SECRET_KEY,
 *  TOKEN_KEY), and any name part after a password word (DB_PASSWORD_PROD, PASSWORD_HASH) —
 *  not after `token` / `secret` (`max_tokens: 4096`, `token_count: 120000` are counts). */
const SECRET_SUFFIX = '(?:[_.-]?key|(?<=passw(?:or)?d|passphrase)[_.-][A-Za-z0-9_]{1,24})?';

/** A value in a `*_KEY` slot (ENCRYPTION_KEY, signingKey) or an HTML token field is a secret
 *  only when it looks random: one run of at least this many letters and digits, both mixed in
 *  it. Key names are also table, cache and sort keys (`PRIMARY_KEY=id`, `SORT_KEY=created_at`,
 *  `CACHE_KEY=user:1234:profile`): words and numbers, never a long letter-and-digit run. */
export const MIN_RANDOM_RUN = 10;

/** Not a placeholder, and one run of MIN_RANDOM_RUN+ letters and digits holding both. */
export function randomLooking(value: string): boolean {
  if (isPlaceholder(value)) return false;
  for (const run of value.split(/[^A-Za-z0-9]+/)) if (run.length >= MIN_RANDOM_RUN && /\d/.test(run) && /[A-Za-z]/.test(run)) return true;
  return false;
}

/** MySQL's and MariaDB's client programs (mysql, mysqldump, mysqladmin, mariadb-dump, …): their
 *  `-p<password>` (no space) is a password. */
const MYSQL_FAMILY = '(?:mysql|mariadb)[a-z-]{0,9}';
/** Where any assignment rule can start: each of their keywords (prose spells `api key`). */
export const KEYWORD_ANCHOR = /passw(?:or)?d|passphrase|pwd|secret|token|api[ _-]?key|apikey|access[_-]?key|private[_-]?key|auth[_-]?key|client[_-]?secret|credential/gi;
/** An unquoted value: up to a blank, a quote, `,` or `;`; a closing bracket ends it unless more
 *  of the value follows (`foo(password=x)` ends at `)`; Django's `k3(-x)@…` does not). */
const BARE_VALUE = '[^\\s"\'`,;)}\\]]{1,400}(?:[)}\\]]+[^\\s"\'`,;)}\\]]{1,400})*';
/** Where the `*_KEY` rule can start: the word `key` (its name sits in a lookbehind). */
export const KEY_ANCHOR = /key/gi;

/** The name before the keyword (DB_, aws_secret_access_, client) in a lookbehind, so the regex
 *  starts at the keyword: scanning for a keyword is ~5× faster than trying a name at every
 *  position (measured on the real transcripts, docs/REDACTION.md). */
const NAME_PREFIX = (start: string) => `(?<=${start}[A-Za-z0-9_.-]{0,40}${SECRET_WORD})`;

/** The built-in rules, most specific first (an earlier rule wins an overlap at the same start). */
export const BUILTIN_RULES: readonly RedactRule[] = [
  {
    kind: 'private-key',
    hint: 'PRIVATE KEY',
    re: /-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]{0,16384}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:-]*)/g,
  },
  { kind: 'anthropic-key', hint: 'sk-', re: /(?<![A-Za-z0-9_-])sk-ant-[A-Za-z0-9_-]{20,}/g, accept: mixed },
  { kind: 'openai-key', hint: 'sk-', re: /(?<![A-Za-z0-9_-])sk-(?!ant-)(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}/g, accept: mixed },
  { kind: 'aws-access-key', hint: 'AKIA|ASIA|ABIA|ACCA', re: /(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z0-9]{16}(?![A-Za-z0-9])/g },
  { kind: 'github-token', hint: 'gh[pousr]_|github_pat_', re: /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,255}|github_pat_[A-Za-z0-9_]{22,255})(?![A-Za-z0-9_])/g },
  { kind: 'gitlab-token', hint: 'gl(?:pat|dt|ptt|rt|soat|cbt|imt|ft|agent)-', re: /gl(?<![A-Za-z0-9_-]gl)(?:pat|dt|ptt|rt|soat|cbt|imt|ft|agent)-[A-Za-z0-9_-]{20,}/g, accept: mixed },
  { kind: 'slack-token', hint: 'xox', re: /(?<![A-Za-z0-9_-])xox[abposre]-[A-Za-z0-9-]{10,}/g, accept: mixed },
  { kind: 'slack-webhook', hint: 'hooks\\.slack\\.com', re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9/_-]{20,}/g },
  { kind: 'google-api-key', hint: 'AIza', re: /(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])/g },
  { kind: 'google-oauth', hint: 'ya29\\.|GOCSPX-', re: /(?<![A-Za-z0-9_-])(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{20,})/g },
  { kind: 'stripe-key', hint: '_live_|_test_|whsec_', re: /(?<![A-Za-z0-9_])(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|(?<![A-Za-z0-9_])whsec_[0-9A-Za-z]{20,}/g, accept: mixed },
  { kind: 'npm-token', hint: 'npm_', re: /(?<![A-Za-z0-9_])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])/g },
  { kind: 'huggingface-token', hint: 'hf_', re: /(?<![A-Za-z0-9_])hf_[A-Za-z0-9]{30,}(?![A-Za-z0-9])/g, accept: mixed },
  { kind: 'jwt', hint: 'eyJ', re: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{10,}/g },
  {
    kind: 'authorization',
    hint: 'authorization|api-key|auth-token',
    re: /\b(?:Authorization|Proxy-Authorization|X-Api-Key|X-Auth-Token|Api-Key)\s*["']?\s*[:=]\s*["']?(?:(?:Bearer|Basic|Token|token|Bot|Digest)\s+)?(?<v>[A-Za-z0-9._~+/=:-]{8,})/gi,
    accept: assigned,
  },
  { kind: 'bearer-token', hint: 'Bearer', re: /\bBearer\s+(?<v>[A-Za-z0-9._~+/-]{8,}=*)/g, accept: assigned },
  {
    kind: 'url-password',
    hint: ':\\/\\/',
    re: /:\/\/(?<=[a-zA-Z][a-zA-Z0-9+.-]{0,20}:\/\/)[^\s:/@'"`<>]{0,100}:(?<v>[^\s/'"`<>]{1,200})@(?=[\w[-])/g,
    accept: (v) => !isPlaceholder(v) && !/^(.)\1{3,}$/.test(v) && v.length >= MIN_ASSIGNED_CHARS,
  },
  {
    // Quoted value: code, JSON, YAML, config ("password": "x", api_key = 'x', secret: "x").
    kind: 'assigned-secret',
    // Quotes may be escaped (`{\"password\":\"x\"}`: JSON inside a log line or a JSON string).
    re: new RegExp(`${SECRET_WORD}${NAME_PREFIX('(?:^|[^A-Za-z0-9_.-])')}${SECRET_SUFFIX}\\\\?["']?\\s*(?:=|:=|:|=>|\\?\\?=)\\s*\\\\?(?<q>["'\`])(?<v>[^"'\`\\n\\\\]{1,400})\\\\?\\k<q>`, 'gi'),
    accept: assigned,
    anchor: KEYWORD_ANCHOR,
  },
  {
    // Bare value: .env lines, shell, command flags, YAML without quotes (PASSWORD=x, --token x).
    kind: 'assigned-secret',
    re: new RegExp(`${SECRET_WORD}${NAME_PREFIX('(?:^|[\\s"\'(,;{[?&=]|(?:^|\\s)--?)')}${SECRET_SUFFIX}\\s*(?:=>|:=|=|:|\\s(?=\\S*\\d))\\s*(?<v>${BARE_VALUE})`, 'gim'),
    accept: bare,
    anchor: KEYWORD_ANCHOR,
  },
  {
    // Prose: "the password is hunter22", "token was 9f8e…".
    kind: 'assigned-secret',
    re: /\b(?:password|passphrase|passwd|secret|token|api key)\s+(?:is|was|=|:)\s+["'`]?(?<v>[^\s"'`,;]{6,200})/gi,
    accept: bare,
    anchor: KEYWORD_ANCHOR,
  },
  {
    // Any other `*_KEY` name (ENCRYPTION_KEY=…, signingKey: "…", "hmac-key": …) holding a
    // random-looking value; `PRIMARY_KEY=id`, `sortKey: "created_at"` are names, not secrets.
    kind: 'assigned-secret',
    re: new RegExp(`key(?<=[A-Za-z0-9][_.-]?key)\\\\?["']?\\s*(?:=>|:=|=|:)\\s*\\\\?["'\`]?(?<v>[^\\s"'\`,;)}\\]\\\\]{1,400})`, 'gi'),
    accept: randomLooking,
    anchor: KEY_ANCHOR,
  },
  {
    // `mysql -uroot -pS3cret db`, `mysqldump -p'x' …`: the value glued to `-p` (a lone `-p`
    // asks for it; `-P` is the port; `mkdir -p`, `ls -p` are other programs).
    kind: 'mysql-password',
    hint: 'mysql|mariadb',
    re: new RegExp(`(?<![A-Za-z0-9_.-])${MYSQL_FAMILY}(?![A-Za-z0-9_-])[^\\n|;&<>]{0,300}?\\s-p["']?(?<v>[^\\s"'\`|;&<>]{1,200})`, 'g'),
    accept: (v) => !isVariable(v),
  },
  {
    // A token field of an HTML form or page: <input type="hidden" name="csrf_token" value="…">,
    // <meta content="…" name="csrf-token"> (the name, anywhere in the tag, in a look-ahead).
    kind: 'html-token',
    hint: '<input|<meta',
    re: /<(?:input|meta)\b(?=[^<>]{0,600}?\b(?:name|id)\s*=\s*\\?["']?[\w.:-]*(?:token|secret|passw(?:or)?d|csrf|xsrf|api[_-]?key))[^<>]{0,600}?\b(?:value|content)\s*=\s*\\?["']?(?<v>[^"'\s<>\\]{8,400})/gi,
    accept: randomLooking,
  },
];
