/**
 * Lineage at index time, with real parts (the real indexer, a real SQLite store, the offline
 * model): a session resumed / forked the way Claude Code does it (a new file whose first
 * records repeat the parent's, uuids kept) is recognised — the store remembers both sessions
 * for every shared message, chunks each copied exchange once, and the reader names the two as
 * one lineage; an unrelated session is in no lineage (control). The union-find is checked
 * against a naive connected-components reading (fast-check).
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import Database from 'better-sqlite3';
import { openStoreReader, openStoreWriter, SCHEMA_VERSION } from '../../store/sqlite-store.js';
import type { StoreReader, StoreWriter } from '../../store/types.js';
import { runIndex } from '../../indexer/indexer.js';
import { lineageGroups } from '../../store/lineage-sql.js';
import { splitCopies } from '../../indexer/lineage.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { CountingEmbedder } from './counting-embedder.js';
import { TranscriptBuilder, forkOf, pastFixSession } from './transcript-fixture.js';

const config = ConfigSchema.parse({});
const PARENT = '11111111-1111-4111-8111-111111111111';
const FORK = '22222222-2222-4222-8222-222222222222';
const OTHER = '33333333-3333-4333-8333-333333333333';
let embedder: CountingEmbedder;
let tmp: string;
let storePath: string;
let store: StoreWriter;
let root: string;

beforeAll(async () => {
  embedder = new CountingEmbedder(await offlineEmbedder());
});
beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ab-lineage-ix-'));
  storePath = join(tmp, 'home', 'store.sqlite');
  store = openStoreWriter(storePath);
  root = join(tmp, 'projects');
  mkdirSync(join(root, '-home-dev-api'), { recursive: true });
  store.ensureRegion('sessions', 'global');
  store.addSource('sessions', root, 'transcripts');
});
afterEach(() => {
  store?.close();
  rmSync(tmp, { recursive: true, force: true });
});

function write(b: TranscriptBuilder): void {
  writeFileSync(join(root, '-home-dev-api', `${b.sessionId}.jsonl`), b.text());
}

function withReader<T>(fn: (r: StoreReader) => T): T {
  const r = openStoreReader(storePath);
  try {
    return fn(r);
  } finally {
    r.close();
  }
}

/** Every chunk text of the store with its document's session. */
function chunkTexts(r: StoreReader): Array<{ session: string; text: string }> {
  const all = r.vectorSearch([new Float32Array(r.info().dim!).fill(0.1)], 10_000)[0];
  return r.getChunks(all.map((h) => h.chunkId)).map((c) => ({ session: c.path.split('/').pop()!.replace(/\.jsonl$/, ''), text: c.text }));
}

describe('lineage at index time', () => {
  it('a fork shares its parent messages: both are one lineage, each copied exchange is chunked once; an unrelated session is in none', async () => {
    const parent = pastFixSession(PARENT);
    const fork = forkOf(parent, FORK).prompt('now add a retry to the orders client').tool('Edit', { file_path: 'src/orders/client.ts' }, 'ok').reply('Added a retry with backoff to the orders client; done.').endTurn();
    const other = new TranscriptBuilder(OTHER).prompt('write the release notes for version 2').reply('Wrote the release notes for version 2; done.').endTurn();
    for (const b of [parent, fork, other]) write(b);
    const s = await runIndex({ store, embedder, config });
    expect(s.indexed).toBe(3);
    // The parent's three exchanges are held by one document, not two.
    expect(s.copied_exchanges).toBe(3);
    withReader((r) => {
      const texts = chunkTexts(r);
      const changelog = texts.filter((c) => c.text.includes('update the changelog'));
      expect(changelog).toHaveLength(1);
      // The fork's own exchange is its own.
      expect(texts.filter((c) => c.text.includes('retry to the orders client')).map((c) => c.session)).toEqual([FORK]);
      // Lineage, both ways, by session or by a message uuid the live session holds.
      expect(r.lineage!.lineageOf({ sessions: [FORK] })).toEqual([PARENT, FORK].sort());
      expect(r.lineage!.lineageOf({ sessions: [PARENT] })).toEqual([PARENT, FORK].sort());
      const firstUuid = (JSON.parse(parent.lines[0]) as { uuid: string }).uuid;
      expect(r.lineage!.lineageOf({ uuids: [firstUuid], sessions: ['live-session'] })).toEqual([PARENT, FORK, 'live-session'].sort());
      // Control: the unrelated session has no lineage but itself.
      expect(r.lineage!.lineageOf({ sessions: [OTHER] })).toEqual([OTHER]);
      // The parent's episode carries its lineage (the hook's fixes files name both sessions).
      const eps = r.resolvedEpisodes().filter((e) => e.source === 'episode');
      expect(eps).toHaveLength(1);
      expect(eps[0].lineage).toEqual([PARENT, FORK].sort());
    });
  });

  it('re-indexing keeps one holder: the parent grows, the fork is touched, nothing is chunked twice', async () => {
    const parent = pastFixSession(PARENT);
    const fork = forkOf(parent, FORK).prompt('and the README').reply('Updated the README; done.').endTurn();
    write(parent);
    write(fork);
    await runIndex({ store, embedder, config });
    parent.prompt('one more thing: bump the version').reply('Bumped the version to 1.2.0; done.').endTurn();
    write(parent);
    const s2 = await runIndex({ store, embedder, config });
    expect(s2.indexed).toBe(1);
    withReader((r) => {
      const texts = chunkTexts(r);
      expect(texts.filter((c) => c.text.includes('update the changelog'))).toHaveLength(1);
      expect(texts.filter((c) => c.text.includes('bump the version'))).toHaveLength(1);
      expect(r.lineage!.lineageOf({ sessions: [FORK] })).toEqual([PARENT, FORK].sort());
    });
  });
});

describe('schema v3 → v4', () => {
  it('the writer migrates a v3 store: transcripts are re-read once and their messages recorded (notes untouched)', async () => {
    const parent = pastFixSession(PARENT);
    const fork = forkOf(parent, FORK).prompt('and the README').reply('Updated the README; done.').endTurn();
    write(parent);
    write(fork);
    await runIndex({ store, embedder, config });
    store.close();
    const db = new Database(storePath);
    db.exec(`DROP TABLE messages; UPDATE meta SET value = '3' WHERE key = 'schema_version';`);
    db.close();
    expect(() => openStoreReader(storePath)).toThrow(/migrate/);
    store = openStoreWriter(storePath);
    expect(store.info().schemaVersion).toBe(SCHEMA_VERSION);
    const raw = new Database(storePath, { readonly: true });
    expect(raw.prepare(`SELECT count(*) AS n FROM documents WHERE substr(hash, 1, 1) <> '!'`).get()).toEqual({ n: 0 });
    raw.close();
    const s = await runIndex({ store, embedder, config });
    expect(s.indexed).toBe(2);
    withReader((r) => expect(r.lineage!.lineageOf({ sessions: [FORK] })).toEqual([PARENT, FORK].sort()));
  });
});

describe('lineage groups and copies (pure)', () => {
  /** Naive reading: sessions linked when they share a uuid, closed transitively. */
  function naive(pairs: Array<{ uuid: string; session: string }>): Map<string, string[]> {
    const sessions = [...new Set(pairs.map((p) => p.session))];
    const linked = (a: string, b: string) => pairs.some((p) => p.session === a && pairs.some((q) => q.session === b && q.uuid === p.uuid));
    const out = new Map<string, string[]>();
    for (const s of sessions) {
      const group = new Set([s]);
      let grew = true;
      while (grew) {
        grew = false;
        for (const t of sessions) if (!group.has(t) && [...group].some((g) => linked(g, t))) (group.add(t), (grew = true));
      }
      if (group.size > 1) out.set(s, [...group].sort());
    }
    return out;
  }

  it('union-find equals the naive closure (property)', () => {
    const pair = fc.record({ uuid: fc.constantFrom('u1', 'u2', 'u3', 'u4', 'u5', 'u6'), session: fc.constantFrom('a', 'b', 'c', 'd', 'e') });
    fc.assert(
      fc.property(fc.array(pair, { maxLength: 14 }), (pairs) => {
        expect(Object.fromEntries(lineageGroups(pairs))).toEqual(Object.fromEntries(naive(pairs)));
      }),
      { numRuns: 300 },
    );
  });

  it('splitCopies leaves out exchanges held elsewhere with the tool steps inside them; placeholders are no messages', () => {
    const ex = (uuid: string, start: number, end: number) => ({ uuid, startOffset: start, endOffset: end, isSidechain: false }) as never;
    const step = (start: number) => ({ startOffset: start }) as never;
    const r = splitCopies('S', { exchanges: [ex('m1', 0, 100), ex('offset-100', 100, 200), ex('m3', 200, 300)], steps: [step(50), step(150), step(250)], uuids: ['m1', 'm2', 'm3'] }, new Set(['m1', 'm2']));
    expect(r.exchanges.map((e: { uuid: string }) => e.uuid)).toEqual(['offset-100', 'm3']);
    expect(r.steps.map((s: { startOffset: number }) => s.startOffset)).toEqual([150, 250]);
    expect(r.messages).toEqual({ sessionId: 'S', uuids: ['m1', 'm2', 'm3'], copied: ['m1', 'm2'] });
    expect(r.copiedExchanges).toBe(1);
    // Control: nothing held elsewhere, nothing left out.
    expect(splitCopies('S', { exchanges: [ex('m1', 0, 100)], steps: [step(50)], uuids: ['m1'] }, new Set()).exchanges).toHaveLength(1);
  });
});
