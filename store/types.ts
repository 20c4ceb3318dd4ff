/**
 * The knowledge store's interface. Everything outside store/ talks to these types, never
 * SQL, so a shared PostgreSQL + pgvector store can be added behind the same interface.
 */

export type SourceKind = 'notes' | 'transcripts';

/** What a chunk is: text of a document (a note section, a transcript exchange) or an error
 *  episode cut from a past transcript (indexer/episodes.ts). */
export const CHUNK_KINDS = ['text', 'episode'] as const;
export type ChunkKind = (typeof CHUNK_KINDS)[number];

/** How an episode ended (indexer/episodes.ts says how each is decided). */
export const EPISODE_OUTCOMES = ['succeeded', 'error-changed', 'unresolved'] as const;
export type EpisodeOutcome = (typeof EPISODE_OUTCOMES)[number];

/** A stored document hash starting with this is stale: the indexer re-reads and re-chunks the
 *  file even when its size and mtime are unchanged (set by the v3 migration, and on a
 *  transcript whose last turn was still open when it was indexed). */
export const STALE_HASH_PREFIX = '!';

export interface Region {
  id: number;
  name: string;
  /** `global`, or `project:<glob>` (matched against a session's cwd). */
  scope: string;
  /** Chunks it holds (readers fill it; a region whose sources were removed holds none). */
  chunks?: number;
}

export interface SourceRecord {
  id: number;
  regionId: number;
  region: string;
  path: string;
  kind: SourceKind;
}

export interface ChunkRecord {
  id: number;
  handle: string;
  region: string;
  regionScope: string;
  kind: SourceKind;
  /** Absolute path of the source file. */
  path: string;
  /** Document title (first heading / file name / session summary). */
  title: string;
  /** Heading trail within the document (`A > B`), or exchange label for transcripts. */
  heading: string;
  text: string;
  ordinal: number;
  /** Epoch ms: file mtime for notes, exchange timestamp for transcripts. */
  createdAt: number;
  /** Transcript chunks: the exchange showed a failure … */
  hasError: boolean;
  /** … and later text in the chunk shows it resolved. */
  resolved: boolean;
  /** Extra names this chunk answers to (front-matter aliases, symbols); exact-match via nameSearch. */
  aliases: string[];
  /** `episode` for an error episode (its fields via EpisodeReader), else `text`. The reader
   *  always sets it; optional so records built elsewhere (tests, other stores) need not. */
  chunkKind?: ChunkKind;
}

export interface Hit {
  chunkId: number;
  /** Arm-specific score (BM25 is negated so higher is better; cosine for vectors). */
  score: number;
  /** 1-based rank within its list. */
  rank: number;
}

export interface SearchFilter {
  /** Only these region names. */
  regions?: string[];
  /** Never these chunk ids (session dedup). */
  excludeChunkIds?: number[];
  /** Session cwd: `project:<glob>` regions that do not match it are excluded. */
  cwd?: string | null;
}

export interface StoreInfo {
  path: string;
  schemaVersion: number;
  model: string | null;
  dim: number | null;
  regions: number;
  sources: number;
  documents: number;
  chunks: number;
  bytes: number;
}

/** How nameSearch matched a chunk: an alias, the document's title, or its file name / path suffix. */
export type NameMatch = 'alias' | 'title' | 'suffix';

export interface StoreReader extends EpisodeReader {
  /** Lineage lookups; absent on a store that does not record messages (the team store). */
  lineage?: LineageReader;
  info(): StoreInfo;
  regions(): Region[];
  sources(): SourceRecord[];
  keywordSearch(query: string, k: number, filter?: SearchFilter): Hit[];
  /** One list per query vector (all scanned in one pass). */
  vectorSearch(queries: Float32Array[], k: number, filter?: SearchFilter): Hit[][];
  /** Titles, aliases and file names that match a term exactly (or by suffix). */
  nameSearch(term: string, k: number, filter?: SearchFilter): Array<Hit & { match: NameMatch }>;
  getChunks(ids: number[]): ChunkRecord[];
  chunkByHandle(handle: string): ChunkRecord | null;
  /** Vector of a stored chunk (normalized), or null. */
  chunkVector(id: number): Float32Array | null;
  /** Throws StoreModelMismatchError (message says to re-index) when the store was built with
   *  another model id or dimension. A store with no vectors yet accepts any model. */
  checkModel(modelId: string, dim: number): void;
  /** A short string that changes whenever the indexer committed (SQLite: the file's and its
   *  WAL's mtime+size; PostgreSQL: meta.generation, bumped by the writer on every commit).
   *  The daemon compares it each cycle to rebuild the hook's fixes files. Throws like any
   *  other read (a lost connection is a PgError). */
  changeStamp(): string;
  /** What to tell a person whose search finds the store empty (no chunk this reader may see):
   *  the next step, which differs between a fresh local file and a team store whose reader
   *  role was granted no audience. */
  emptyAdvice(): string;
  /** Build the in-memory search indexes in the background, yielding to the event loop (a
   *  long-lived reader calls it after open; searches answer meanwhile). Optional: a reader
   *  whose indexes fill at the first search has none. */
  warm?(): Promise<void>;
  close(): void;
}

/** What the indexer knows about a file it indexed: enough to skip unchanged files. */
export interface DocumentStat {
  path: string;
  /** Content hash (the indexer's choice, e.g. sha256 hex). */
  hash: string;
  /** Epoch ms. */
  mtime: number;
  size: number;
}

export interface DocumentInput {
  /** The source (from addSource / listSources) this file belongs to. */
  sourceId: number;
  /** Absolute path of the file. */
  path: string;
  hash: string;
  mtime: number;
  size: number;
  title: string;
  /** A transcript's messages (lineage): replaced with the document. Absent: none recorded. */
  messages?: DocumentMessages;
}

/**
 * The message uuids one transcript document holds (indexer/lineage.ts). Claude Code copies a
 * session's records, uuids kept, into a new session file on resume / fork / continue /
 * compaction; sessions that share a uuid are one lineage. `copied`: uuids whose text another
 * document's chunks already hold (left out of this document's chunks: stored once).
 */
export interface DocumentMessages {
  sessionId: string;
  uuids: string[];
  copied: string[];
}

/** Lineage lookups (store/lineage-sql.ts): which sessions share messages. */
export interface LineageReader {
  /** Every session id sharing a message, directly or through others, with these sessions or
   *  with the sessions holding these message uuids (the given session ids included). */
  lineageOf(q: { sessions?: string[]; uuids?: string[] }): string[];
}

export interface ChunkInput {
  heading: string;
  text: string;
  /** Epoch ms. */
  createdAt: number;
  hasError?: boolean;
  resolved?: boolean;
  aliases?: string[];
  /** Set on an error episode cut from a past transcript (indexer/episodes.ts): the chunk is
   *  of kind `episode` and is found by its signature. */
  episode?: EpisodeInput;
  /** Error signatures the chunk quotes (a note that quotes an error string): found by
   *  signature like an episode. */
  signatures?: QuotedSignature[];
}

/** An error a note quotes (indexer/note-signatures.ts): its signature (shared/error-signature.ts)
 *  and the note's line about it. */
export interface QuotedSignature {
  sig: string;
  head: string[];
  words: string[];
  /** The note's first prose line after the quote (what it says about the error), or ''. */
  fix: string;
}

/** What the indexer records of an error episode (shared/error-signature.ts for sig/head/words). */
export interface EpisodeInput {
  sig: string;
  head: string[];
  words: string[];
  /** Transcript session the failure happened in. */
  sessionId: string;
  /** The failing call's tool name and summary (`Bash: git push`). */
  tool: string;
  action: string;
  /** One line: what the agent did that made the same or a similar action succeed, e.g.
   *  `git push --set-upstream origin <branch>`; '' when nothing did. */
  fix: string;
  /** True when a later same-or-similar action succeeded, or failed with another error after
   *  a change (outcome `error-changed`: this error was fixed). */
  resolved: boolean;
  /** Epoch ms of the failure. */
  at: number;
  /** How it ended (default: `succeeded` when resolved, else `unresolved`). */
  outcome?: EpisodeOutcome;
  /** Failures with this signature before it ended (default 1). */
  attempts?: number;
  /** The assistant's one-line explanation of the fix ('' when none). */
  note?: string;
}

/** An episode (or a note quoting an error) as the reader returns it. */
export interface EpisodeRecord extends EpisodeInput {
  outcome: EpisodeOutcome;
  attempts: number;
  note: string;
  chunkId: number;
  handle: string;
  region: string;
  regionScope: string;
  /** The episode session's lineage (sessions sharing messages with it, itself included) when
   *  the store records messages and it has other members; absent otherwise. */
  lineage?: string[];
  /** `episode` (cut from a transcript) or `note` (a chunk quoting the error; its sessionId,
   *  tool and action are '', resolved is true — written knowledge —, fix is the note's line
   *  after the quote, at is the chunk's date). */
  source: 'episode' | 'note';
}

/** The reader's episode lookups (store/reader.ts implements them with StoreReader). */
export interface EpisodeReader {
  /** Episodes and quoting notes with any of these signatures, scope- and region-filtered. */
  episodesBySignature(sigs: string[], filter?: SearchFilter): EpisodeRecord[];
  /** Every episode's signature and words (small), for near matches in memory. */
  episodeIndex(): Array<Pick<EpisodeRecord, 'chunkId' | 'sig' | 'words' | 'resolved' | 'sessionId' | 'source' | 'lineage'>>;
  /** Every resolved episode (the daemon precomputes the hook's fixes files from them). */
  resolvedEpisodes(): EpisodeRecord[];
  /** Every episode and quoting note, resolved or not: the hook's fixes files are built from
   *  them (core/fixes.ts: the unresolved ones are the outcomes that contradict a fix). */
  fixEpisodes(): EpisodeRecord[];
}

/**
 * The indexer's side of the store (the only writer). replaceDocument is one transaction;
 * transaction(fn) groups several calls so a crash leaves the previous state readable.
 */
import type { StoredText } from './stored-texts.js';

export interface StoreWriter {
  readonly path: string;
  /** Create the region or update its scope; returns it. */
  ensureRegion(name: string, scope: string): Region;
  /** Register a folder/file under a region (idempotent; a path already in another region throws).
   *  `audience` (team store only: `team` default, `user:<name>`, `project:<glob>`) decides which
   *  readers see it; the embedded SQLite store is one user's and accepts only `team`. */
  /** `audienceChanged`: the source was registered with another audience and its rows moved to
   *  this one (team store only; the SQLite store has no audiences). */
  addSource(region: string, path: string, kind: SourceKind, audience?: string): SourceRecord & { audienceChanged?: boolean };
  listSources(): SourceRecord[];
  /** The regions (with chunk counts), as a reader lists them. */
  regions(): Region[];
  /** Forget a source and everything indexed from it; returns documents removed. */
  removeSource(path: string): number;
  getDocument(path: string): DocumentStat | null;
  /** Documents indexed from one source (to find deleted files). */
  listDocuments(sourceId: number): DocumentStat[];
  /** Replace a document's chunks and vectors atomically (vectors[i] belongs to chunks[i]).
   *  vectors[i] = null reuses the vector this document already stores for the same title,
   *  heading and text (reusableVectors said so; none stored → BAD_INPUT). A chunk equal to
   *  the stored one at the same ordinal keeps its row (id, handle, vector) untouched. */
  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], vectors: Array<Float32Array | null>): { handles: string[] };
  /** Per chunk: does this document already store a vector for this title, heading and text? */
  reusableVectors(path: string, title: string, chunks: Array<Pick<ChunkInput, 'heading' | 'text'>>): boolean[];
  /** Of these message uuids, those whose text another document's chunks hold (lineage: the
   *  indexer leaves them out of this document's chunks). Absent: the store records no messages. */
  messagesHeldElsewhere?(path: string, uuids: string[]): Set<string>;
  /** Same content, new stat (e.g. touched file): no re-chunking. */
  touchDocument(path: string, mtime: number, size: number): void;
  removeDocument(path: string): boolean;
  /** Record the embedding model; a different one already recorded throws StoreModelMismatchError. */
  setModel(modelId: string, dim: number): void;
  model(): { model: string; dim: number } | null;
  /** Drop all documents, chunks, vectors and the recorded model (keeps regions and sources): for --rebuild. */
  clearDocuments(): void;
  /** The fingerprint of the redaction rules the stored text was redacted with (shared/redact.ts);
   *  null or '' when it holds text from before redaction (unscrubbed). */
  redaction(): string | null;
  setRedaction(fingerprint: string): void;
  /** The version of the rules episodes were cut and signed with (indexer/episodes.ts
   *  EPISODE_RULES_VERSION); null when never recorded. */
  episodeRules(): string | null;
  setEpisodeRules(version: string): void;
  /** Mark every document stale (the next index run re-reads each); returns how many. */
  markAllStale(): number;
  /** Every stored text field (for the secret scan, store/secret-scan.ts). */
  storedTexts(): Iterable<StoredText>;
  /** After a re-scrub: drop what deleted rows left behind (SQLite: the full-text index's
   *  deleted entries, free pages, the WAL), so no old text survives in the file. */
  purgeDeleted(): void;
  transaction<T>(fn: () => T): T;
  info(): StoreInfo;
  close(): void;
}
