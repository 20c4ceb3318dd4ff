/**
 * A parsed JSON value seen through redaction: a read-only view whose strings come out redacted
 * as they are read (object keys of MIN_KEY_SECRET_CHARS or more too), each redacted whole, the
 * first time it is read. Used by the indexer (indexer/transcript-file.ts) to hand each transcript
 * record to its parser (transcript/records.ts, transcript/codex-records.ts): the parser can reach
 * the record only through the view, so it never sees an unredacted string, and what it reads
 * equals what it would read from `redactor.redactValue(record)` — but the strings it never
 * reads (tool-result copies in `toolUseResult`, progress records, file snapshots, tool inputs
 * it does not summarise, thinking signatures: most of a Claude Code transcript's text) are
 * never scanned.
 *
 * Pure apart from its memo (what a node gave is kept: a field read twice is redacted once): an
 * object with a long key is copied (keys redacted) when first reached; the value given is never
 * changed. Writes to the view throw in strict code (a parser does not write its input). Strings
 * are not remembered across records: with the one-pass pre-scan a short string is scanned faster
 * than a Map looks it up (measured on the real transcripts, docs/REDACTION.md).
 */
import { MIN_KEY_SECRET_CHARS, type Redactor } from './redact.js';

/** Views of values through one redactor (the indexer keeps one for a run). */
export class RedactedReader {
  private readonly handler: ProxyHandler<Node>;

  constructor(readonly redactor: Redactor) {
    // A string or an object read once is not redacted or wrapped again when read again (a
    // parser tests a field's type, then reads it); other values are returned as they are.
    const read = (t: Node, k: string): unknown => {
      const v = (t[SOURCE] as Record<string, unknown>)[k];
      if (typeof v !== 'string' && (v === null || typeof v !== 'object')) return v;
      let w = t[SEEN]?.get(k);
      if (w === undefined) {
        w = this.view(v);
        (t[SEEN] ??= new Map()).set(k, w);
      }
      return w;
    };
    this.handler = {
      get: (t, k, recv) => (typeof k === 'string' && Object.hasOwn(t[SOURCE], k) ? read(t, k) : Reflect.get(t[SOURCE], k, recv)),
      has: (t, k) => k in t[SOURCE],
      ownKeys: (t) => Reflect.ownKeys(t[SOURCE]),
      getOwnPropertyDescriptor: (t, k) => {
        const d = Reflect.getOwnPropertyDescriptor(t[SOURCE], k);
        if (d && 'value' in d && typeof k === 'string') d.value = read(t, k);
        return d;
      },
      getPrototypeOf: (t) => Reflect.getPrototypeOf(t[SOURCE]),
      set: () => false,
      defineProperty: () => false,
      deleteProperty: () => false,
      setPrototypeOf: () => false,
      preventExtensions: () => false,
    };
  }

  /** `value` as a view (a string: redacted now; another primitive: itself). A redactor without
   *  rules finds nothing: the value itself. */
  view<T>(value: T): T {
    if (typeof value === 'string') return this.redactor.redact(value) as T;
    if (value === null || typeof value !== 'object' || this.redactor.rules.length === 0) return value;
    return new Proxy(node(this.redactor, value), this.handler) as T;
  }
}

/** What a proxy stands on: its source (the value, or a copy with its long keys redacted, as
 *  redactValue writes them: two keys that redact alike, the later wins) and what was read, kept
 *  under symbols (configurable: the proxy reports the source's keys only). An array's view
 *  stands on an array (`Array.isArray` of the view is true). */
const SOURCE = Symbol('source');
const SEEN = Symbol('seen');
interface Node {
  [SOURCE]: object;
  [SEEN]?: Map<string, unknown>;
}

function node(r: Redactor, v: object): Node {
  let source = v;
  if (!Array.isArray(v) && hasLongKey(v)) {
    source = Object.fromEntries(Object.entries(v).map(([k, x]) => [k.length < MIN_KEY_SECRET_CHARS ? k : r.redact(k), x]));
  }
  const t = (Array.isArray(v) ? [] : {}) as unknown as Node;
  t[SOURCE] = source;
  return t;
}

function hasLongKey(v: object): boolean {
  for (const k in v) if (k.length >= MIN_KEY_SECRET_CHARS && Object.hasOwn(v, k)) return true;
  return false;
}

/** `value` as a view through `redactor` (no memo shared with other calls). */
export function redactedView<T>(redactor: Redactor, value: T): T {
  return new RedactedReader(redactor).view(value);
}
