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
  close(): void;
}
