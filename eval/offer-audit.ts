/**
 * An audit of replayed offers that does not trust the gates it audits (issue 25: "measure
 * without grading yourself"). For each offer of either channel:
 *
 *   self lineage       the offered chunk comes from the replayed session or from a session
 *                      that shares a record uuid with it, directly or through others. The
 *                      groups are read here from the transcript files themselves (every
 *                      main-lane record's uuid), not from the store's `messages` table that
 *                      the pipeline's own exclusion uses;
 *   already in session the chunk's text is largely present in what the session had seen up
 *                      to the offer (every exchange of the file up to the offer, whole — not
 *                      the pipeline's bounded memory; at a tool step only the exchanges that
 *                      ended before it): at least ALREADY_SHARE of its distinct word 5-grams
 *                      (the gate uses 4-gram hashes at 0.5). An error episode is judged on what
 *                      it offers — what was tried and the fix —, not on the error it shares
 *                      with the failure by construction.
 *
 * Input: the replayed files, a read-only store (chunk paths and texts). Output: per-offer flags.
 * Reads files; writes nothing.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { basename } from 'node:path';
import type { StoreReader } from '../store/types.js';
import { lineageGroups } from '../store/lineage-sql.js';

/** Words per n-gram of the audit (one more than the gate's shingles: a stricter reading). */
export const AUDIT_NGRAM = 5;
/** Share of a chunk's n-grams present in the session from which the offer repeats it. */
export const ALREADY_SHARE = 0.5;
/** Chunks with fewer n-grams are not judged. */
const MIN_NGRAMS = 8;
/** Longest line parsed for its uuid (longer lines are tool output: their uuid is read by regex). */
const MAX_PARSE_CHARS = 2_000_000;

/** Session id of a transcript file (its name without `.jsonl`). */
export function sessionOfPath(path: string): string {
  return basename(path).replace(/\.jsonl$/, '');
}

/** Main-lane records of one transcript file: uuid, the record's own sessionId field and its
 *  time (epoch ms, NaN when absent). */
export async function fileRecords(path: string): Promise<Array<{ uuid: string; sessionId: string | null; at: number }>> {
  const out: Array<{ uuid: string; sessionId: string | null; at: number }> = [];
  try {
    const rl = createInterface({ input: createReadStream(path, { encoding: 'utf8' }), crlfDelay: Infinity });
    for await (const line of rl) {
      if (!line || line.length > MAX_PARSE_CHARS) continue;
      try {
        const r = JSON.parse(line) as { uuid?: unknown; isSidechain?: unknown; sessionId?: unknown; timestamp?: unknown; message?: { content?: unknown } };
        if (typeof r.uuid === 'string' && r.uuid && r.isSidechain !== true) {
          const rec = { sessionId: typeof r.sessionId === 'string' ? r.sessionId : null, at: typeof r.timestamp === 'string' ? Date.parse(r.timestamp) : NaN };
          out.push({ uuid: r.uuid, ...rec });
          // Its tool calls by id: a resumed copy of Claude Code 1.0 rewrites the records' uuids
          // but keeps the calls' ids, which name the same call of the parent (no hook ran for it).
          const content = r.message?.content;
          if (Array.isArray(content)) {
            for (const b of content.slice(0, MAX_BLOCKS)) {
              const id = b && typeof b === 'object' && (b as { type?: unknown }).type === 'tool_use' ? (b as { id?: unknown }).id : undefined;
              if (typeof id === 'string' && id && id.length <= MAX_CALL_ID_CHARS) out.push({ uuid: `${CALL_PREFIX}${id}`, ...rec });
            }
          }
        }
      } catch {
        // A torn line has no record.
      }
    }
  } catch {
    // An unreadable file links no sessions (the replay lists it as unreadable).
  }
  return out;
}

/** Main-lane record uuids of one transcript file. */
export async function fileUuids(path: string): Promise<string[]> {
  return (await fileRecords(path)).filter((r) => !r.uuid.startsWith(CALL_PREFIX)).map((r) => r.uuid);
}

/** The key of a tool call among a file's records (fileRecords): `call:<tool_use id>`. */
export const CALL_PREFIX = 'call:';
/** Content blocks looked at per record, and the longest call id kept. */
const MAX_BLOCKS = 64;
const MAX_CALL_ID_CHARS = 128;

/** Whether a tool step is a copy of its parent's call (FileLineage.copies): by its record's
 *  uuid, or by its call's id. */
export function isCopiedStep(copies: ReadonlySet<string>, uuid: string | null | undefined, toolUseId: string | null | undefined): boolean {
  return (!!uuid && copies.has(uuid)) || (!!toolUseId && copies.has(`${CALL_PREFIX}${toolUseId}`));
}

export interface FileLineage {
  /** Session id → every session sharing a uuid with it (transitively). */
  groups: Map<string, string[]>;
  /** Session id → the uuids it holds as a copy of its parent (no hook ran for them). */
  copies: Map<string, Set<string>>;
}

/**
 * Lineage of transcript files, and which records are copies. A record another file also holds
 * is a copy when that other file is its parent — a session this one continued, resumed or
 * forked, whose records Claude Code repeated here (it ran no hook for them in this session):
 *  - a file this one names: a resumed or forked copy keeps the parent's `sessionId` in some of
 *    its copied records;
 *  - else a file that started earlier (a chain of resumes: the parent's own copies come from
 *    its parent, which this file may not name);
 *  - else, started at the same time (Claude Code 1.0's continue repeats the whole history, its
 *    first record's time included, and writes the new session id into the copies), one that
 *    ended earlier: the session it continued stopped when the continuation began.
 * Never a file that names this one: that is its child (a fork of an original that then went
 * on names the original). Records without times tell no order: no copy by time.
 */
export async function readFileLineage(paths: readonly string[]): Promise<FileLineage> {
  const pairs: Array<{ uuid: string; session: string }> = [];
  const records = new Map<string, Array<{ uuid: string; sessionId: string | null; at: number }>>();
  for (const p of paths) {
    const session = sessionOfPath(p);
    const recs = await fileRecords(p);
    records.set(session, recs);
    for (const r of recs) pairs.push({ uuid: r.uuid, session });
  }
  const holders = new Map<string, Set<string>>();
  for (const { uuid, session } of pairs) {
    const h = holders.get(uuid);
    if (h) h.add(session);
    else holders.set(uuid, new Set([session]));
  }
  const copies = new Map<string, Set<string>>();
  // Each file's first and last record time (NaN: none has one) and the sessions it names.
  const span = new Map<string, { first: number; end: number }>();
  const names = new Map<string, Set<string>>();
  for (const [session, recs] of records) {
    let first = NaN;
    let end = NaN;
    for (const r of recs) {
      if (!Number.isFinite(r.at)) continue;
      if (!(r.at >= first)) first = r.at;
      end = r.at;
    }
    span.set(session, { first, end });
    names.set(session, new Set(recs.map((r) => r.sessionId).filter((x): x is string => x !== null && x !== session)));
  }
  const isParent = (h: string, s: string): boolean => {
    if (names.get(h)?.has(s)) return false;
    if (names.get(s)?.has(h)) return true;
    const a = span.get(h)!;
    const b = span.get(s)!;
    return a.first < b.first || (a.first === b.first && a.end < b.end);
  };
  for (const [session, recs] of records) {
    const copied = new Set(recs.filter((r) => [...(holders.get(r.uuid) ?? [])].some((h) => h !== session && isParent(h, session))).map((r) => r.uuid));
    if (copied.size) copies.set(session, copied);
  }
  return { groups: lineageGroups(pairs), copies };
}

/** Lineage groups of transcript files: session id → every session sharing a uuid with it. */
export async function fileLineage(paths: readonly string[]): Promise<Map<string, string[]>> {
  return (await readFileLineage(paths)).groups;
}

/** Distinct word n-grams of a text (plain strings: independent of the gate's hashing). */
export function ngrams(text: string, n: number = AUDIT_NGRAM): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const out = new Set<string>();
  for (let i = 0; i + n <= words.length; i++) out.add(words.slice(i, i + n).join(' '));
  return out;
}

/** Is the chunk largely present in the session's text? null when too short to judge. */
export function largelyPresent(chunkText: string, sessionGrams: ReadonlySet<string>): boolean | null {
  const g = ngrams(chunkText);
  if (g.size < MIN_NGRAMS) return null;
  let n = 0;
  for (const x of g) if (sessionGrams.has(x)) n++;
  return n / g.size >= ALREADY_SHARE;
}

/** What an offer brings: an error episode's lines after its error (indexer/transcript-chunks.ts
 *  episodeText), any other chunk whole. */
export function offeredPart(text: string): string {
  if (!text.startsWith('Error episode')) return text;
  return text.split('\n').filter((l) => /^(Tried|Fix|Why): /.test(l)).join('\n');
}

export class OfferAudit {
  private readonly chunkCache = new Map<number, { session: string | null; text: string }>();

  constructor(
    private readonly store: StoreReader | null,
    /** Session id → its lineage group (fileLineage). */
    private readonly groups: ReadonlyMap<string, readonly string[]>,
  ) {}

  private chunk(id: number): { session: string | null; text: string } {
    let c = this.chunkCache.get(id);
    if (!c) {
      const rec = id >= 0 && this.store ? this.store.getChunks([id])[0] : undefined;
      c = rec ? { session: rec.kind === 'transcripts' ? sessionOfPath(rec.path) : null, text: rec.text } : { session: null, text: '' };
      this.chunkCache.set(id, c);
    }
    return c;
  }

  /** The chunk comes from `session` or a session of its lineage. */
  selfLineage(session: string, chunkId: number): boolean {
    const from = this.chunk(chunkId).session;
    if (from === null) return false;
    return from === session || (this.groups.get(session) ?? []).includes(from);
  }

  /** The chunk's text (an episode: its Tried / Fix / Why lines) is largely present in the session's text so far. */
  alreadyInSession(chunkId: number, sessionGrams: ReadonlySet<string>): boolean {
    return largelyPresent(offeredPart(this.chunk(chunkId).text), sessionGrams) === true;
  }
}
