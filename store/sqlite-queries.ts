/**
 * The SQLite reader's queries: the chunk and episode rows as SQLite returns them and their
 * mapping to ChunkRecord / EpisodeRecord, and every statement store/reader.ts runs (prepared
 * once per reader). Read-only SQL; the bulk row loading for the in-memory indexes is
 * store/sqlite-rows.ts.
 */
import type Database from 'better-sqlite3';
import type { ChunkKind, ChunkRecord, EpisodeOutcome, EpisodeRecord, SourceKind } from './types.js';
import { BM25_WEIGHTS } from './keyword-index.js';

export interface ChunkRow {
  id: number;
  handle: string;
  region: string;
  scope: string;
  kind: SourceKind;
  path: string;
  title: string;
  heading: string;
  text: string;
  ordinal: number;
  created_at: number;
  has_error: number;
  resolved: number;
  aliases: string;
  chunk_kind: ChunkKind;
}

const CHUNK_SELECT = `
  SELECT c.id, c.handle, r.name AS region, r.scope, s.kind, d.path, d.title, c.heading, c.text,
         c.ordinal, c.created_at, c.has_error, c.resolved, c.aliases, c.chunk_kind
  FROM chunks c
  JOIN documents d ON d.id = c.document_id
  JOIN sources s ON s.id = d.source_id
  JOIN regions r ON r.id = c.region_id`;

export function toRecord(r: ChunkRow): ChunkRecord {
  return {
    id: r.id,
    handle: r.handle,
    region: r.region,
    regionScope: r.scope,
    kind: r.kind,
    path: r.path,
    title: r.title,
    heading: r.heading,
    text: r.text,
    ordinal: r.ordinal,
    createdAt: r.created_at,
    hasError: r.has_error !== 0,
    resolved: r.resolved !== 0,
    aliases: r.aliases ? r.aliases.split('\n') : [],
    chunkKind: r.chunk_kind,
  };
}

export interface EpisodeRow {
  chunkId: number;
  handle: string;
  region: string;
  scope: string;
  regionId: number;
  sig: string;
  head: string;
  words: string;
  sessionId: string;
  tool: string;
  action: string;
  fix: string;
  resolved: number;
  outcome: EpisodeOutcome;
  attempts: number;
  note: string;
  at: number;
  source: 'episode' | 'note';
}

/** Episode rows and note-signature rows in one shape (notes: resolved written knowledge). */
const EPISODE_SELECT = `
  SELECT e.chunk_id AS chunkId, c.handle, r.name AS region, r.scope, c.region_id AS regionId, e.sig, e.head, e.words,
         e.session_id AS sessionId, e.tool, e.action, e.fix, e.resolved, e.outcome, e.attempts, e.note, e.at, 'episode' AS source
  FROM episodes e JOIN chunks c ON c.id = e.chunk_id JOIN regions r ON r.id = c.region_id`;
const NOTE_SIGNATURE_SELECT = `
  SELECT s.chunk_id AS chunkId, c.handle, r.name AS region, r.scope, c.region_id AS regionId, s.sig, s.head, s.words,
         '' AS sessionId, '' AS tool, '' AS action, s.fix, 1 AS resolved, 'succeeded' AS outcome, 1 AS attempts, '' AS note,
         c.created_at AS at, 'note' AS source
  FROM signatures s JOIN chunks c ON c.id = s.chunk_id JOIN regions r ON r.id = c.region_id`;

export function toEpisode(r: EpisodeRow): EpisodeRecord {
  return {
    chunkId: r.chunkId,
    handle: r.handle,
    region: r.region,
    regionScope: r.scope,
    sig: r.sig,
    head: r.head ? r.head.split('\n') : [],
    words: r.words ? r.words.split(' ') : [],
    sessionId: r.sessionId,
    tool: r.tool,
    action: r.action,
    fix: r.fix,
    resolved: r.resolved !== 0,
    outcome: r.outcome,
    attempts: r.attempts,
    note: r.note,
    at: r.at,
    source: r.source,
  };
}

/** Every statement the reader runs, prepared once. */
export function readerStatements(db: Database.Database) {
  return {
    regions: db.prepare(`SELECT r.id, r.name, r.scope, (SELECT count(*) FROM chunks c WHERE c.region_id = r.id) AS chunks FROM regions r ORDER BY r.name`),
    sources: db.prepare(`SELECT s.id, s.region_id AS regionId, r.name AS region, s.path, s.kind
                         FROM sources s JOIN regions r ON r.id = s.region_id ORDER BY r.name, s.path`),
    count: db.prepare(`SELECT (SELECT count(*) FROM regions) AS regions, (SELECT count(*) FROM sources) AS sources,
                              (SELECT count(*) FROM documents) AS documents, (SELECT count(*) FROM chunks) AS chunks`),
    ftsAll: db.prepare(`SELECT rowid AS id, bm25(chunks_fts, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.text}) AS s
                        FROM chunks_fts WHERE chunks_fts MATCH ? ORDER BY s LIMIT ?`),
    ftsRegions: db.prepare(`SELECT f.rowid AS id, bm25(chunks_fts, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.text}) AS s
                            FROM chunks_fts f JOIN chunks c ON c.id = f.rowid
                            WHERE chunks_fts MATCH ? AND c.region_id IN (SELECT value FROM json_each(?))
                            ORDER BY s LIMIT ?`),
    chunksByIds: db.prepare(`${CHUNK_SELECT} WHERE c.id IN (SELECT value FROM json_each(?))`),
    episodesBySig: db.prepare(`${EPISODE_SELECT} WHERE e.sig IN (SELECT value FROM json_each(@sigs))
                               UNION ALL ${NOTE_SIGNATURE_SELECT} WHERE s.sig IN (SELECT value FROM json_each(@sigs))`),
    resolvedEpisodes: db.prepare(`${EPISODE_SELECT} WHERE e.resolved = 1 UNION ALL ${NOTE_SIGNATURE_SELECT}`),
    fixEpisodes: db.prepare(`${EPISODE_SELECT} UNION ALL ${NOTE_SIGNATURE_SELECT}`),
    episodeIndex: db.prepare(`SELECT chunk_id AS chunkId, sig, words, resolved, session_id AS sessionId, 'episode' AS source FROM episodes
                              UNION ALL SELECT chunk_id, sig, words, 1, '', 'note' FROM signatures`),
    chunkByHandle: db.prepare(`${CHUNK_SELECT} WHERE c.handle = ?`),
    textPage: db.prepare(`SELECT c.id, c.region_id, d.title, c.heading, c.text, c.row_key FROM chunks c JOIN documents d ON d.id = c.document_id
                          WHERE c.id > ? ORDER BY c.id LIMIT ?`).raw(),
    textsByIds: db.prepare(`SELECT c.id, c.region_id, d.title, c.heading, c.text, c.row_key FROM json_each(?) j JOIN chunks c ON c.id = j.value
                            JOIN documents d ON d.id = c.document_id`).raw(),
    rowKeys: db.prepare(`SELECT id, row_key FROM chunks`).raw(),
    dataVersion: db.prepare(`PRAGMA data_version`).pluck(),
    vector: db.prepare(`SELECT vec FROM vectors WHERE chunk_id = ?`),
    vectorCount: db.prepare(`SELECT count(*) AS n FROM vectors`),
    // Two plain scans instead of a join: chunk rows carry their text, so joining would read it all.
    chunkRegions: db.prepare(`SELECT id, region_id FROM chunks`),
    vectorRows: db.prepare(`SELECT chunk_id, vec FROM vectors`),
    aliasHits: db.prepare(`SELECT a.chunk_id AS id, c.region_id AS regionId, c.created_at AS t
                           FROM aliases a JOIN chunks c ON c.id = a.chunk_id WHERE a.alias = ?`),
    titleHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                           JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.title = ?`),
    nameHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                          JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0 WHERE d.name = @t OR d.stem = @t`),
    // A path suffix ends in the file name: the indexed name column narrows the candidates to
    // documents with that name before the LIKE (no scan over every document's path).
    suffixHits: db.prepare(`SELECT c.id, c.region_id AS regionId, c.created_at AS t FROM documents d
                            JOIN chunks c ON c.document_id = d.id AND c.ordinal = 0
                            WHERE d.name = @base AND (d.path = @t OR d.path LIKE @like ESCAPE '\\')`),
  };
}

export type ReaderStatements = ReturnType<typeof readerStatements>;
