/**
 * Episodes through the real writer and the read-only reader: episode chunks (kind
 * `episode`) and notes quoting an error found by signature, with region, project-scope and
 * exclude filters (each with its control); resolvedEpisodes and episodeIndex; BM25 finds the
 * episode text; replacing a document keeps identical chunks' rows (ids, handles) and reuses
 * stored vectors for null entries; removal takes episode and signature rows along.
 */
import { describe, it, expect, beforeEach, afterEach } from 'vitest';
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { openStoreReader, StoreError } from '../../store/sqlite-store.js';
import type { ChunkInput, EpisodeInput, StoreReader } from '../../store/types.js';
import { makeStore, tempDir, prng, randomUnit, type Fixture } from './helpers.js';

const DIM = 8;
const AT = Date.UTC(2026, 2, 2, 9);
let t: ReturnType<typeof tempDir>;
let f: Fixture;
let reader: StoreReader;
const rnd = prng(7);
const vec = () => randomUnit(rnd, DIM);

function episode(sig: string, p: Partial<EpisodeInput> = {}): EpisodeInput {
  return { sig, head: [`fatal: head of ${sig}`], words: ['fatal', 'head', sig], sessionId: 'sess-1', tool: 'Bash', action: 'Bash: git push', fix: 'git push --set-upstream origin <branch>', resolved: true, at: AT, ...p };
}
function epChunk(sig: string, p: Partial<EpisodeInput> = {}): ChunkInput {
  return { heading: `error ${sig}`, text: `Error episode: Bash: git push\nError: no upstream branch ${sig}\nFix: ${p.fix ?? 'git push --set-upstream origin <branch>'}`, createdAt: AT, hasError: true, resolved: p.resolved ?? true, episode: episode(sig, p) };
}

beforeEach(() => {
  t = tempDir('ab-episodes-');
  f = makeStore(t.dir, DIM);
  const w = f.writer;
  w.ensureRegion('past', 'global');
  const past = w.addSource('past', join(t.dir, 'transcripts'), 'transcripts');
  w.replaceDocument(
    { sourceId: past.id, path: join(t.dir, 'transcripts', 'p', 's1.jsonl'), hash: 'h1', mtime: AT, size: 1, title: 'ship the cart' },
    [{ heading: 'exchange 1', text: 'Prompt: ship it', createdAt: AT }, epChunk('aaaa'), epChunk('bbbb', { resolved: false, fix: '', outcome: 'unresolved' })],
    [vec(), vec(), vec()],
  );
  // The api region is project:/work/api/** — its episode is for that project only.
  w.replaceDocument(
    { sourceId: f.sources.api.id, path: join(t.dir, 'api-notes', 'push.md'), hash: 'h2', mtime: AT - 1000, size: 1, title: 'Push' },
    [
      { heading: 'Push', text: '```\nfatal: no upstream\n```\nUse -u once.', createdAt: AT - 1000, signatures: [{ sig: 'aaaa', head: ['fatal: no upstream'], words: ['fatal', 'upstream'], fix: 'Use -u once.' }] },
    ],
    [vec()],
  );
  reader = openStoreReader(f.path);
});

afterEach(() => {
  reader?.close();
  f.writer.close();
  t.cleanup();
});

describe('episodes in the store', () => {
  it('finds episodes and quoting notes by signature, resolved and newest first, with their fields', () => {
    const got = reader.episodesBySignature(['aaaa', 'aaaa']);
    expect(got.map((e) => [e.source, e.region])).toEqual([['episode', 'past'], ['note', 'api']]);
    expect(got[0]).toMatchObject({ sig: 'aaaa', sessionId: 'sess-1', tool: 'Bash', action: 'Bash: git push', fix: 'git push --set-upstream origin <branch>', resolved: true, outcome: 'succeeded', attempts: 1, note: '', at: AT, head: ['fatal: head of aaaa'], words: ['fatal', 'head', 'aaaa'] });
    expect(got[0].handle).toMatch(/^past\/p\/s1\.jsonl#1$/);
    expect(got[1]).toMatchObject({ source: 'note', fix: 'Use -u once.', resolved: true, sessionId: '', regionScope: 'project:/work/api/**' });
    expect(reader.episodesBySignature(['bbbb'])[0]).toMatchObject({ resolved: false, outcome: 'unresolved', fix: '' });
    expect(reader.episodesBySignature(['zzzz'])).toEqual([]);
    expect(reader.episodesBySignature([])).toEqual([]);
  });

  it('honours region, project scope and exclude filters (controls: without them the same rows come back)', () => {
    expect(reader.episodesBySignature(['aaaa'], { cwd: '/work/web' }).map((e) => e.source)).toEqual(['episode']);
    expect(reader.episodesBySignature(['aaaa'], { cwd: '/work/api/src' }).map((e) => e.source)).toEqual(['episode', 'note']);
    expect(reader.episodesBySignature(['aaaa'], { regions: ['api'] }).map((e) => e.region)).toEqual(['api']);
    expect(reader.episodesBySignature(['aaaa'], { regions: ['nowhere'] })).toEqual([]);
    const ep = reader.episodesBySignature(['aaaa'])[0];
    expect(reader.episodesBySignature(['aaaa'], { excludeChunkIds: [ep.chunkId] }).map((e) => e.source)).toEqual(['note']);
  });

  it('resolvedEpisodes holds resolved episodes and notes; episodeIndex holds every signature with its words', () => {
    expect(reader.resolvedEpisodes().map((e) => [e.sig, e.source])).toEqual([['aaaa', 'episode'], ['aaaa', 'note']]);
    const idx = reader.episodeIndex();
    expect(idx.map((e) => [e.sig, e.resolved, e.source]).sort()).toEqual([['aaaa', true, 'episode'], ['aaaa', true, 'note'], ['bbbb', false, 'episode']]);
    expect(idx.find((e) => e.source === 'note')!.words).toEqual(['fatal', 'upstream']);
  });

  it('an episode chunk is kind `episode`, searchable by BM25 and fetchable by handle (what recall prints)', () => {
    const c = reader.chunkByHandle('past/p/s1.jsonl#1')!;
    expect(c.chunkKind).toBe('episode');
    expect(c.text).toContain('Fix: git push --set-upstream origin <branch>');
    expect(reader.chunkByHandle('past/p/s1.jsonl#0')!.chunkKind).toBe('text');
    const hits = reader.keywordSearch('upstream branch bbbb', 3);
    expect(reader.getChunks([hits[0].chunkId])[0].handle).toBe('past/p/s1.jsonl#2');
  });

  it('a replace keeps identical chunks (same id, handle, vector), reuses stored vectors for null, refuses null without one', () => {
    const path = join(t.dir, 'transcripts', 'p', 's1.jsonl');
    const source = f.writer.listSources().find((s) => s.region === 'past')!;
    const before = reader.chunkByHandle('past/p/s1.jsonl#1')!;
    const vBefore = reader.chunkVector(before.id)!;
    const chunks = [{ heading: 'exchange 1', text: 'Prompt: ship it', createdAt: AT }, epChunk('aaaa'), epChunk('bbbb', { resolved: true, fix: 'git fetch' }), { heading: 'exchange 2', text: 'Prompt: more', createdAt: AT }];
    expect(f.writer.reusableVectors(path, 'ship the cart', chunks)).toEqual([true, true, false, false]);
    expect(f.writer.reusableVectors(path, 'another title', chunks)).toEqual([false, false, false, false]);
    const fresh = vec();
    const { handles } = f.writer.replaceDocument({ sourceId: source.id, path, hash: 'h3', mtime: AT, size: 2, title: 'ship the cart' }, chunks, [null, null, vec(), fresh]);
    expect(handles).toEqual(['past/p/s1.jsonl#0', 'past/p/s1.jsonl#1', 'past/p/s1.jsonl#2', 'past/p/s1.jsonl#3']);
    const after = reader.chunkByHandle('past/p/s1.jsonl#1')!;
    expect(after.id).toBe(before.id);
    expect([...reader.chunkVector(after.id)!]).toEqual([...vBefore]);
    expect(reader.episodesBySignature(['bbbb'])[0]).toMatchObject({ resolved: true, fix: 'git fetch' });
    expect(() => f.writer.replaceDocument({ sourceId: source.id, path, hash: 'h4', mtime: AT, size: 3, title: 'ship the cart' }, [{ heading: 'new', text: 'never embedded', createdAt: AT }], [null])).toThrow(StoreError);
    expect(reader.chunkByHandle('past/p/s1.jsonl#3')!.text).toBe('Prompt: more'); // the failed replace changed nothing
  });

  it('removing a document or clearing takes its episode and signature rows along', () => {
    f.writer.removeDocument(join(t.dir, 'transcripts', 'p', 's1.jsonl'));
    expect(reader.episodesBySignature(['aaaa']).map((e) => e.source)).toEqual(['note']);
    f.writer.clearDocuments();
    const db = new Database(f.path, { readonly: true });
    expect(db.prepare('SELECT (SELECT count(*) FROM episodes) + (SELECT count(*) FROM signatures) AS n').get()).toEqual({ n: 0 });
    db.close();
    expect(reader.episodeIndex()).toEqual([]);
  });
});
