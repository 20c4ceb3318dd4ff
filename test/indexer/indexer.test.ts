/**
 * The incremental indexer on real temp folders, a real SQLite store and the real offline
 * model: unchanged files skipped, changed re-indexed, deleted removed; every bad-input
 * case (missing source, unreadable, binary, 50 MB, invalid UTF-8, malformed transcript
 * lines, empty folder) skipped and counted with nothing already indexed lost; an embedding
 * failure mid-run keeps the previous version; model mismatch and --rebuild.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, truncateSync, unlinkSync, utimesSync, writeFileSync, chmodSync, readFileSync, appendFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreReader, openStoreWriter, StoreModelMismatchError } from '../../store/sqlite-store.js';
import type { StoreReader, StoreWriter, SourceRecord } from '../../store/types.js';
import type { Embedder } from '../../embed/types.js';
import { runIndex, type IndexSummary } from '../../indexer/indexer.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { repoRoot } from '../helpers/model.js';
import { pastFixSession } from './transcript-fixture.js';

const config = ConfigSchema.parse({});
const FIXTURES = join(repoRoot, 'test', 'fixtures', 'notes');
let embedder: Embedder;
let tmp: string;
let store: StoreWriter;
let notes: string;

beforeAll(async () => {
  embedder = await offlineEmbedder();
});

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ab-indexer-'));
  notes = join(tmp, 'notes');
  cpSync(FIXTURES, notes, { recursive: true });
  store = openStoreWriter(join(tmp, 'store.sqlite'));
  store.ensureRegion('notes', 'global');
});

afterEach(() => {
  store?.close();
  rmSync(tmp, { recursive: true, force: true });
});

afterAll(() => {
  store?.close();
});

function addNotes(path = notes): SourceRecord {
  return store.addSource('notes', path, 'notes');
}

function index(extra: Partial<Parameters<typeof runIndex>[0]> = {}): Promise<IndexSummary> {
  return runIndex({ store, embedder, config, ...extra });
}

function withReader<T>(fn: (r: StoreReader) => T): T {
  const r = openStoreReader(join(tmp, 'store.sqlite'));
  try {
    return fn(r);
  } finally {
    r.close();
  }
}

/** Every chunk text of one file, in order (through the read-only reader). */
function chunksOf(path: string): string[] {
  return withReader((r) => {
    const out: string[] = [];
    for (let i = 0; ; i++) {
      const handle = `notes/${path}#${i}`;
      const c = r.chunkByHandle(handle);
      if (!c) return out;
      out.push(c.text);
    }
  });
}

const bump = (path: string, secondsAhead: number) => {
  const t = new Date(Date.now() + secondsAhead * 1000);
  utimesSync(path, t, t);
};

describe('incremental indexing', () => {
  it('indexes a folder, then skips unchanged, re-indexes changed and removes deleted files', async () => {
    addNotes();
    const first = await index();
    expect(first).toMatchObject({ sources: 1, files_seen: 3, indexed: 3, unchanged: 0, removed: 0, skipped: {} });
    expect(first.chunks_added).toBeGreaterThan(4);
    expect(first.chunks_total).toBe(first.chunks_added);
    expect(chunksOf('pg/pool-timeouts.md').join('\n')).toContain('ECONNRESET');

    const second = await index();
    expect(second).toMatchObject({ files_seen: 3, indexed: 0, unchanged: 3, removed: 0, chunks_added: 0, chunks_total: first.chunks_total });

    // touched but same content: unchanged (content hash), and the new stat is recorded
    const ingress = join(notes, 'k8s', 'ingress.md');
    bump(ingress, 60);
    expect(await index()).toMatchObject({ indexed: 0, unchanged: 3 });
    expect(store.getDocument(ingress)!.mtime).toBe(Math.trunc((await import('node:fs')).statSync(ingress).mtimeMs));

    // changed content: re-indexed, new text searchable, old text gone
    writeFileSync(ingress, readFileSync(ingress, 'utf8').replace('3600', '7200') + '\n## Rate limits\n\nlimit-rps annotation caps requests per second per client IP.\n');
    bump(ingress, 120);
    const changed = await index();
    expect(changed).toMatchObject({ indexed: 1, unchanged: 2, removed: 0 });
    const texts = chunksOf('k8s/ingress.md').join('\n');
    expect(texts).toContain('7200');
    expect(texts).not.toContain('3600');
    expect(texts).toContain('limit-rps');
    withReader((r) => {
      const hits = r.keywordSearch('limit-rps annotation', 5);
      expect(r.getChunks(hits.map((h) => h.chunkId))[0].path).toBe(ingress);
    });

    // deleted: removed from the store
    unlinkSync(join(notes, 'reading-list.txt'));
    const removed = await index();
    expect(removed).toMatchObject({ files_seen: 2, removed: 1, unchanged: 2, indexed: 0 });
    expect(store.getDocument(join(notes, 'reading-list.txt'))).toBeNull();
    expect(chunksOf('reading-list.txt')).toEqual([]);
    expect(removed.chunks_total).toBe(withReader((r) => r.info().chunks));
  });

  it('records titles, aliases, headings and vectors that the reader can search', async () => {
    addNotes();
    await index();
    withReader((r) => {
      const alias = r.nameSearch('pgbouncer timeouts', 3);
      expect(alias[0]?.match).toBe('alias');
      const c = r.getChunks([alias[0].chunkId])[0];
      expect(c).toMatchObject({ title: 'Postgres pool timeouts', heading: 'Postgres pool timeouts', kind: 'notes', region: 'notes', hasError: false });
      expect(r.chunkVector(c.id)!.length).toBe(embedder.dim);
      expect(r.info()).toMatchObject({ model: embedder.modelId, dim: embedder.dim });
    });
    const [q] = await embedder.embed(['postgres connection pool idle timeout keepalive']);
    const top = withReader((r) => r.getChunks(r.vectorSearch([q], 3)[0].map((h) => h.chunkId)));
    expect(top.some((c) => c.path.endsWith('pool-timeouts.md'))).toBe(true);
  });

  it('indexes a transcripts root: sessions chunked with Past-fix flags, subagent files skipped', async () => {
    const root = join(tmp, 'projects');
    const session = pastFixSession();
    mkdirSync(join(root, '-home-dev-api', session.sessionId, 'subagents'), { recursive: true });
    writeFileSync(join(root, '-home-dev-api', `${session.sessionId}.jsonl`), session.text());
    writeFileSync(join(root, '-home-dev-api', session.sessionId, 'subagents', 'agent-a1.jsonl'), pastFixSession().text());
    store.ensureRegion('sessions', 'project:/home/dev/**');
    store.addSource('sessions', root, 'transcripts');
    const s = await index();
    expect(s).toMatchObject({ files_seen: 1, indexed: 1 });
    withReader((r) => {
      const hits = r.keywordSearch('ECONNREFUSED 5432', 3);
      const c = r.getChunks([hits[0].chunkId])[0];
      expect(c).toMatchObject({ kind: 'transcripts', region: 'sessions', hasError: true, resolved: true, title: 'run the integration tests for the orders service' });
      expect(c.text).toContain('docker compose');
      expect(c.handle).toBe(`sessions/-home-dev-api/${session.sessionId}.jsonl#0`);
      expect(c.createdAt).toBe(Date.parse('2026-03-01T10:00:05Z'));
    });
  });
});

describe('bad input: skipped, counted, indexing goes on, nothing indexed is lost', () => {
  it('a source that disappears keeps its documents; an empty folder says so', async () => {
    const src = addNotes();
    const first = await index();
    rmSync(notes, { recursive: true, force: true });
    const problems: string[] = [];
    const s = await index({ onProblem: (p) => problems.push(p.message) });
    expect(s).toMatchObject({ files_seen: 0, removed: 0, skipped: { missing_source: 1 }, chunks_total: first.chunks_total });
    expect(problems[0]).toMatch(/does not exist .*its indexed documents are kept/);
    expect(store.listDocuments(src.id)).toHaveLength(3);

    mkdirSync(notes);
    const empty = await index();
    expect(empty.skipped).toEqual({ empty_source: 1 });
    expect(empty.problems[0].message).toMatch(/no \.md, \.markdown or \.txt files found under/);
  });

  it('unreadable, binary, 50 MB and non-UTF-8 files are skipped while the rest is indexed', async () => {
    const bad = join(notes, 'bad');
    mkdirSync(bad);
    writeFileSync(join(bad, 'binary.md'), Buffer.from([0x23, 0x20, 0x41, 0x00, 0x01, 0x02, 0x0a]));
    writeFileSync(join(bad, 'huge.md'), '');
    truncateSync(join(bad, 'huge.md'), 50 * 1024 * 1024); // 50 MB (sparse): over the 20 MB default
    writeFileSync(join(bad, 'latin1-blob.txt'), Buffer.from(Array.from({ length: 400 }, (_, i) => 0x80 + (i % 120))));
    // a few invalid bytes in otherwise good text: indexed with U+FFFD, counted as a warning
    writeFileSync(join(bad, 'mostly-ok.md'), Buffer.concat([Buffer.from('# Caf'), Buffer.from([0xe9]), Buffer.from(' notes\n\nThe espresso machine needs descaling every month.\n')]));
    const unreadable = join(bad, 'secret.md');
    if (process.getuid?.() === 0) symlinkSync('/proc/self/mem', unreadable); // root reads everything else
    else {
      writeFileSync(unreadable, '# secret\n\nnot for you');
      chmodSync(unreadable, 0o000);
    }
    symlinkSync(join(bad, 'nowhere.md'), join(bad, 'dangling.md'));
    addNotes();
    const s = await index();
    expect(s.skipped).toEqual({ binary: 2, too_large: 1, unreadable: 2 });
    expect(s.warnings).toEqual({ invalid_utf8: 1 });
    expect(s.indexed).toBe(4); // 3 fixtures + mostly-ok.md
    const messages = s.problems.map((p) => p.message).join('\n');
    expect(messages).toMatch(/huge\.md is 50\.0 MB, over the 20\.0 MB limit \(indexer\.maxFileBytes\)/);
    expect(messages).toMatch(/binary\.md looks binary \(NUL bytes\)/);
    expect(messages).toMatch(/latin1-blob\.txt is not UTF-8 text/);
    expect(messages).toMatch(/cannot read .*secret\.md/);
    expect(messages).toMatch(/dangling\.md is a broken symlink/);
    expect(chunksOf('bad/mostly-ok.md')[0]).toContain('Caf\uFFFD notes');
  });

  it('a file that turns bad keeps its previous chunks', async () => {
    addNotes();
    await index();
    const pg = join(notes, 'pg', 'pool-timeouts.md');
    const before = chunksOf('pg/pool-timeouts.md');
    writeFileSync(pg, Buffer.concat([Buffer.from('# Postgres pool timeouts\n'), Buffer.alloc(16)]));
    bump(pg, 60);
    const s = await index();
    expect(s).toMatchObject({ skipped: { binary: 1 }, removed: 0, indexed: 0 });
    expect(chunksOf('pg/pool-timeouts.md')).toEqual(before);
  });

  it('malformed transcript lines are skipped and counted; the session is still indexed', async () => {
    const root = join(tmp, 'projects', '-p');
    mkdirSync(root, { recursive: true });
    const b = pastFixSession().raw('{"type":"assistant","message":{"content":[').raw('\u0000garbage');
    writeFileSync(join(root, 's1.jsonl'), b.text());
    store.ensureRegion('sessions', 'global');
    store.addSource('sessions', join(tmp, 'projects'), 'transcripts');
    const s = await index();
    expect(s).toMatchObject({ indexed: 1, warnings: { malformed_lines: 2 }, skipped: {} });
    expect(s.chunks_added).toBeGreaterThan(0);
  });

  it('an embedding failure mid-run skips that document and keeps its previous version', async () => {
    addNotes();
    await index();
    const before = chunksOf('k8s/ingress.md');
    const pg = join(notes, 'pg', 'pool-timeouts.md');
    const ingress = join(notes, 'k8s', 'ingress.md');
    appendFileSync(ingress, '\n## Canary\n\nBOOM: this text makes the embedder throw.\n');
    appendFileSync(pg, '\n## Later\n\nPool size raised to 40 after the March incident.\n');
    bump(ingress, 60);
    bump(pg, 60);
    const failing: Embedder = {
      modelId: embedder.modelId,
      dim: embedder.dim,
      embed: async (texts) => {
        if (texts.some((t) => t.includes('BOOM'))) throw new Error('simulated ONNX failure');
        return embedder.embed(texts);
      },
      dispose: async () => {},
    };
    const s = await runIndex({ store, embedder: failing, config, sources: store.listSources() });
    expect(s).toMatchObject({ indexed: 1, skipped: { embed_failed: 1 } });
    expect(s.problems[0].message).toMatch(/embedding failed for .*ingress\.md .*previous version is kept/);
    expect(chunksOf('k8s/ingress.md')).toEqual(before);
    expect(chunksOf('pg/pool-timeouts.md').join('\n')).toContain('March incident');
    // the failed file is retried next time (its stored stat is the old one)
    expect(await index()).toMatchObject({ indexed: 1, unchanged: 2 });
    expect(chunksOf('k8s/ingress.md').join('\n')).toContain('BOOM');
  });
});

describe('model', () => {
  it('a store built with another model refuses with a --rebuild hint; --rebuild re-embeds everything', async () => {
    addNotes();
    await index();
    const n = withReader((r) => r.info().chunks);
    store.clearDocuments();
    store.setModel('some-other-model', 384);
    await expect(index()).rejects.toBeInstanceOf(StoreModelMismatchError);
    await expect(index()).rejects.toThrow(/active-brain index --rebuild/);
    const s = await index({ rebuild: true });
    expect(s).toMatchObject({ indexed: 3, unchanged: 0, chunks_total: n });
    expect(withReader((r) => r.info())).toMatchObject({ model: embedder.modelId, dim: embedder.dim });
  });
});
