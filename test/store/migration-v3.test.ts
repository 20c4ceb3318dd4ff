/**
 * Schema v2 → v3 on a real file: a store indexed, then taken back to exactly the v2 layout
 * (no episode chunks, tables or v3 columns, schema_version 2). The read-only reader refuses it
 * with "run `active-brain index` once to migrate"; the writer migrates it (embed keys
 * back-filled, documents marked stale); the next index run adds the episodes and quoted
 * signatures while embedding only the new episode chunks — every old vector is reused.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import Database from 'better-sqlite3';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreReader, openStoreWriter, SCHEMA_VERSION, StoreError } from '../../store/sqlite-store.js';
import { runIndex } from '../../indexer/indexer.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { CountingEmbedder } from '../indexer/counting-embedder.js';
import { TranscriptBuilder } from '../indexer/transcript-fixture.js';
import { tempDir } from './helpers.js';

const config = ConfigSchema.parse({});
let embedder: CountingEmbedder;
let t: ReturnType<typeof tempDir>;

beforeAll(async () => {
  embedder = new CountingEmbedder(await offlineEmbedder());
});
afterEach(() => t?.cleanup());

/** Take a v3 file back to the v2 layout (what a store written by the previous release holds). */
function downgradeToV2(path: string): void {
  const db = new Database(path);
  db.exec(`
    DELETE FROM chunks_fts WHERE rowid IN (SELECT id FROM chunks WHERE chunk_kind = 'episode');
    DELETE FROM vectors WHERE chunk_id IN (SELECT id FROM chunks WHERE chunk_kind = 'episode');
    DELETE FROM episodes; DELETE FROM signatures;
    DELETE FROM chunks WHERE chunk_kind = 'episode';
    DROP TABLE messages; DROP TABLE episodes; DROP TABLE signatures; DROP INDEX chunks_doc_key;
    ALTER TABLE chunks DROP COLUMN chunk_kind; ALTER TABLE chunks DROP COLUMN embed_key; ALTER TABLE chunks DROP COLUMN row_key;
    UPDATE meta SET value = '2' WHERE key = 'schema_version';
  `);
  db.close();
}

describe('schema v2 → v3', () => {
  it('the reader asks for one index run; the writer migrates; the next run adds episodes and reuses every stored vector', async () => {
    expect(SCHEMA_VERSION).toBeGreaterThanOrEqual(3); // v2 → the current version (v5 adds redaction: it also marks every document stale)
    t = tempDir('ab-migrate-');
    const storePath = join(t.dir, 'store.sqlite');
    const transcripts = join(t.dir, 'projects', 'p');
    const notes = join(t.dir, 'notes');
    mkdirSync(transcripts, { recursive: true });
    mkdirSync(notes);
    writeFileSync(join(notes, 'db.md'), '# DB\n\n## Refused\n\n```\nError: connect ECONNREFUSED 127.0.0.1:5432\n```\n\nStart postgres with docker compose.\n');
    writeFileSync(
      join(transcripts, 's1.jsonl'),
      new TranscriptBuilder('s1')
        .prompt('run the integration tests')
        .tool('Bash', { command: 'npm run test:integration' }, 'Error: connect ECONNREFUSED 127.0.0.1:5432', true)
        .tool('Bash', { command: 'docker compose up -d postgres' }, 'Started')
        .tool('Bash', { command: 'npm run test:integration' }, 'Tests: 42 passed')
        .reply('Started Postgres; the tests pass.')
        .endTurn()
        .text(),
    );
    let w = openStoreWriter(storePath);
    w.ensureRegion('past', 'global');
    w.ensureRegion('notes', 'global');
    w.addSource('past', join(t.dir, 'projects'), 'transcripts');
    w.addSource('notes', notes, 'notes');
    const first = await runIndex({ store: w, embedder, config });
    expect(first.episodes_added).toBe(1);
    w.close();
    downgradeToV2(storePath);
    const v2 = new Database(storePath, { readonly: true });
    const v2Vectors = new Map((v2.prepare('SELECT c.handle, v.vec FROM chunks c JOIN vectors v ON v.chunk_id = c.id').all() as Array<{ handle: string; vec: Buffer }>).map((r) => [r.handle, Buffer.from(r.vec)]));
    const v2Chunks = (v2.prepare('SELECT count(*) AS n FROM chunks').get() as { n: number }).n;
    v2.close();
    expect(v2Chunks).toBe(first.chunks_added - 1);

    // The read-only reader cannot migrate: it says what to run.
    let err: unknown;
    try {
      openStoreReader(storePath);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(StoreError);
    expect((err as StoreError).code).toBe('SCHEMA_OLD');
    expect((err as Error).message).toContain('run `active-brain index` once to migrate');

    // The writer migrates: keys back-filled, every document stale.
    w = openStoreWriter(storePath);
    expect(w.info().schemaVersion).toBe(SCHEMA_VERSION);
    const raw = new Database(storePath, { readonly: true });
    expect(raw.prepare(`SELECT count(*) AS n FROM chunks WHERE embed_key = '' OR chunk_kind <> 'text'`).get()).toEqual({ n: 0 });
    expect(raw.prepare(`SELECT count(*) AS n FROM documents WHERE substr(hash, 1, 1) <> '!'`).get()).toEqual({ n: 0 });
    raw.close();

    // The next run: same files, re-chunked; only the episode chunk is embedded.
    embedder.reset();
    const second = await runIndex({ store: w, embedder, config });
    expect(second).toMatchObject({ indexed: 2, episodes_added: 1, chunks_embedded: 1 });
    expect(embedder.texts).toHaveLength(1);
    expect(embedder.texts[0]).toContain('Error episode');
    w.close();
    const r = openStoreReader(storePath);
    try {
      const idx = r.episodeIndex();
      expect(idx.map((e) => e.source).sort()).toEqual(['episode', 'note']);
      expect(new Set(idx.map((e) => e.sig)).size).toBe(1); // the note quotes the same error
      for (const [handle, vec] of v2Vectors) {
        const c = r.chunkByHandle(handle)!;
        expect(Buffer.from(r.chunkVector(c.id)!.buffer).equals(vec)).toBe(true);
      }
    } finally {
      r.close();
    }
    // And a third run has nothing to do.
    w = openStoreWriter(storePath);
    expect(await runIndex({ store: w, embedder, config })).toMatchObject({ indexed: 0, unchanged: 2 });
    w.close();
  });
});
