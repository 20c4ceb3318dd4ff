/**
 * The knowledge store's interface. Everything outside store/ talks to these types, never
 * SQL, so a shared PostgreSQL + pgvector store can be added behind the same interface.
 */

export type SourceKind = 'notes' | 'transcripts';

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

export interface StoreReader {
  info(): StoreInfo;
  regions(): Region[];
  sources(): SourceRecord[];
  keywordSearch(query: string, k: number, filter?: SearchFilter): Hit[];
  /** One list per query vector (all scanned in one pass). */
  vectorSearch(queries: Float32Array[], k: number, filter?: SearchFilter): Hit[][];
  /** Titles, aliases and file names that match a term exactly (or by suffix). */
  nameSearch(term: string, k: number, filter?: SearchFilter): Array<Hit & { match: 'alias' | 'title' | 'suffix' }>;
  getChunks(ids: number[]): ChunkRecord[];
  chunkByHandle(handle: string): ChunkRecord | null;
  /** Vector of a stored chunk (normalized), or null. */
  chunkVector(id: number): Float32Array | null;
  /** Throws StoreModelMismatchError (message says to re-index) when the store was built with
   *  another model id or dimension. A store with no vectors yet accepts any model. */
  checkModel(modelId: string, dim: number): void;
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
  signatures?: string[];
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
  /** True when a later same-or-similar action succeeded. */
  resolved: boolean;
  /** Epoch ms of the failure. */
  at: number;
}

/** An episode (or a note quoting an error) as the reader returns it. */
export interface EpisodeRecord extends EpisodeInput {
  chunkId: number;
  handle: string;
  region: string;
  regionScope: string;
  /** `episode` (cut from a transcript) or `note` (a chunk quoting the error). */
  source: 'episode' | 'note';
}

/** The reader's episode lookups (store/reader.ts implements them with StoreReader). */
export interface EpisodeReader {
  /** Episodes and quoting notes with any of these signatures, scope- and region-filtered. */
  episodesBySignature(sigs: string[], filter?: SearchFilter): EpisodeRecord[];
  /** Every episode's signature and words (small), for near matches in memory. */
  episodeIndex(): Array<Pick<EpisodeRecord, 'chunkId' | 'sig' | 'words' | 'resolved' | 'sessionId' | 'source'>>;
  /** Every resolved episode (the daemon precomputes the hook's fixes files from them). */
  resolvedEpisodes(): EpisodeRecord[];
}

/**
 * The indexer's side of the store (the only writer). replaceDocument is one transaction;
 * transaction(fn) groups several calls so a crash leaves the previous state readable.
 */
export interface StoreWriter {
  readonly path: string;
  /** Create the region or update its scope; returns it. */
  ensureRegion(name: string, scope: string): Region;
  /** Register a folder/file under a region (idempotent; a path already in another region throws). */
  addSource(region: string, path: string, kind: SourceKind): SourceRecord;
  listSources(): SourceRecord[];
  /** Forget a source and everything indexed from it; returns documents removed. */
  removeSource(path: string): number;
  getDocument(path: string): DocumentStat | null;
  /** Documents indexed from one source (to find deleted files). */
  listDocuments(sourceId: number): DocumentStat[];
  /** Replace a document's chunks and vectors atomically (vectors[i] belongs to chunks[i]). */
  replaceDocument(doc: DocumentInput, chunks: ChunkInput[], vectors: Float32Array[]): { handles: string[] };
  /** Same content, new stat (e.g. touched file): no re-chunking. */
  touchDocument(path: string, mtime: number, size: number): void;
  removeDocument(path: string): boolean;
  /** Record the embedding model; a different one already recorded throws StoreModelMismatchError. */
  setModel(modelId: string, dim: number): void;
  model(): { model: string; dim: number } | null;
  /** Drop all documents, chunks, vectors and the recorded model (keeps regions and sources): for --rebuild. */
  clearDocuments(): void;
  transaction<T>(fn: () => T): T;
  info(): StoreInfo;
  close(): void;
}
