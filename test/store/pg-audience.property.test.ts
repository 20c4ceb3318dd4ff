import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { join } from 'node:path';
import { startPostgres, type TestPostgres } from '../helpers/postgres.js';
import { PgSyncConnection } from '../../store/pg-sync.js';
import { initPgStore, urlWithRole } from '../../store/pg-schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { ChunkInput, StoreReader } from '../../store/types.js';

// Property: over random sources, audiences, chunks and queries, every chunk a reader gets
// back — search (keyword, vector, name), recall (by id, by handle) or the episode lookups
// offers are built from — belongs to an audience that reader may see; and getChunks over
// every id written returns exactly the visible ones (so the filter is not vacuous). A
// project:<glob> audience is granted to no reader here: nobody sees it (fail-closed).
const USERS = ['alice', 'bob', 'carol'] as const;
const AUDIENCES = ['team', 'user:alice', 'user:bob', 'user:carol', 'project:/work/x/**'] as const;
const WORDS = ['pool', 'timeout', 'deploy', 'cache', 'retry', 'socket', 'index', 'vacuum'] as const;
const SIGS = ['s1', 's2', 's3'] as const;
const DIM = 4;

const sees = (reader: string | null, audience: string) => audience === 'team' || (reader !== null && audience === `user:${reader}`);

const chunkArb = fc.record({
  words: fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 4 }),
  vec: fc.array(fc.float({ min: -1, max: 1, noNaN: true }), { minLength: DIM, maxLength: DIM }),
  sig: fc.option(fc.constantFrom(...SIGS), { nil: null }),
  episode: fc.boolean(),
});
const sourceArb = fc.record({
  audience: fc.constantFrom(...AUDIENCES),
  docs: fc.array(fc.record({ title: fc.constantFrom(...WORDS), chunks: fc.array(chunkArb, { minLength: 1, maxLength: 3 }) }), { minLength: 1, maxLength: 2 }),
});

describe('team store audience (row-level security), property', () => {
  let server: TestPostgres;
  let writerUrl: string;
  let readerUrls: Array<{ user: string | null; url: string }>;
  let admin: PgSyncConnection;

  beforeAll(async () => {
    server = await startPostgres();
    server.psql('CREATE DATABASE team');
    admin = PgSyncConnection.connect(server.urlFor('team'));
    const init = initPgStore(admin, 'active_brain', [...USERS]);
    writerUrl = urlWithRole(server.urlFor('team'), init.roles.writer.name, init.roles.writer.password);
    readerUrls = init.roles.readers.map((r) => ({ user: r.user, url: urlWithRole(server.urlFor('team'), r.name, r.password) }));
  });
  afterAll(() => {
    admin?.close();
    server?.stop();
  });

  it('no chunk outside the reader’s audience reaches a search result, a recall or an episode lookup', () => {
    let run = 0;
    fc.assert(
      fc.property(fc.array(sourceArb, { minLength: 1, maxLength: 5 }), fc.array(fc.constantFrom(...WORDS), { minLength: 1, maxLength: 3 }), (sources, query) => {
        run++;
        const w = openStoreWriter(writerUrl);
        for (const s of w.listSources()) w.removeSource(s.path);
        w.setModel('m', DIM);
        w.ensureRegion('r', 'global');
        const handles: string[] = [];
        sources.forEach((src, si) => {
          const root = join('/tmp/ab-prop', `run${run}`, `s${si}`);
          const s = w.addSource('r', root, 'notes', src.audience);
          src.docs.forEach((d, di) => {
            const chunks: ChunkInput[] = d.chunks.map((c, ci) => ({
              heading: `h${ci}`, text: c.words.join(' '), createdAt: ci, aliases: [`a-${d.title}`],
              ...(c.sig && c.episode ? { episode: { sig: c.sig, head: [], words: c.words, sessionId: 'x', tool: 'Bash', action: 'a', fix: 'f', resolved: true, at: 1 } } : {}),
              ...(c.sig && !c.episode ? { signatures: [{ sig: c.sig, head: [], words: c.words, fix: 'f' }] } : {}),
            }));
            handles.push(...w.replaceDocument({ sourceId: s.id, path: join(root, `${d.title}-${di}.md`), hash: 'h', mtime: 1, size: 1, title: d.title }, chunks, d.chunks.map((c) => Float32Array.from(c.vec))).handles);
          });
        });
        w.close();
        const truth = new Map(admin.query<{ id: number; audience: string }>(`SELECT id, audience FROM active_brain.chunks`).map((r) => [r.id, r.audience]));
        const allIds = [...truth.keys()];
        for (const { user, url } of readerUrls) {
          const r: StoreReader = openStoreReader(url);
          try {
            const check = (ids: number[], what: string) => {
              for (const id of ids) expect(sees(user, truth.get(id) ?? 'missing'), `${user ?? 'team'} got chunk ${id} (${truth.get(id)}) from ${what}`).toBe(true);
            };
            const expected = allIds.filter((id) => sees(user, truth.get(id)!)).sort((a, b) => a - b);
            expect(r.getChunks(allIds).map((c) => c.id).sort((a, b) => a - b)).toEqual(expected);
            check(r.keywordSearch(query.join(' '), 50).map((h) => h.chunkId), 'keywordSearch');
            check(r.vectorSearch([Float32Array.from([1, 0.5, -0.5, 0.2])], 50)[0].map((h) => h.chunkId), 'vectorSearch');
            expect(r.vectorSearch([Float32Array.from([1, 0.5, -0.5, 0.2])], 500)[0].length).toBe(expected.length);
            for (const t of [...WORDS, ...WORDS.map((x) => `a-${x}`)]) check(r.nameSearch(t, 50).map((h) => h.chunkId), 'nameSearch');
            check(handles.map((h) => r.chunkByHandle(h)).filter((c) => c !== null).map((c) => c!.id), 'chunkByHandle');
            check(r.episodesBySignature([...SIGS]).map((e) => e.chunkId), 'episodesBySignature');
            check(r.resolvedEpisodes().map((e) => e.chunkId), 'resolvedEpisodes');
            check(r.episodeIndex().map((e) => e.chunkId), 'episodeIndex');
            expect(r.info().chunks).toBe(expected.length);
          } finally {
            r.close();
          }
        }
      }),
      { numRuns: 8 },
    );
  }, 180_000); // eight runs against a real server (CI: ~17 s of the 60 s default)
});
