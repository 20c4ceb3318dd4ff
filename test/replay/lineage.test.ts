/**
 * A forked copy of the current session is never offered back; a genuinely earlier session
 * still is (issue 25). Real parts: real-format transcripts written to a temp projects folder
 * (a fork built the way Claude Code does it: a new file whose first records repeat the
 * parent's, uuids kept), the real indexer into a real SQLite store with the offline model, the
 * daemon's pipeline, the hook's gates and the replay's own audit (which reads lineage from the
 * files, not from the store).
 *
 *  - tool channel: the fork meets the parent's error again; the parent's fix (the most recent,
 *    so the first in its fixes file) is never offered, the earlier session's fix is (control).
 *    Bite: the same replay over a store that hides the lineage offers the parent's fix, and the
 *    audit counts it as a self-lineage offer;
 *  - a Claude Code 1.0 continue (copied records re-stamped with the new id, so its head names no
 *    parent) of a parent the store holds, itself not indexed: the daemon's lineage (learnt from
 *    the copied uuids) reaches the hook as its lineage file and the parent's fix is not offered;
 *    bite: a store without lineage offers it;
 *  - prompt channel (the offer builder over a store holding the parent's chunk): the parent's
 *    chunk is never offered to the fork; control: to an unrelated session it is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { StoreReader } from '../../store/types.js';
import { runIndex } from '../../indexer/indexer.js';
import { findTranscripts, readTimedExchanges } from '../../eval/replay-read.js';
import { Pipeline } from '../../core/pipeline.js';
import { offersOf, replayTranscripts } from '../../eval/replay.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import type { Embedder } from '../../embed/types.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { forkOf, pastFixSession } from '../indexer/transcript-fixture.js';
import { buildStore, config as retrievalConfig, exchange, request, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER, PG_ERROR_TURN } from '../retrieval/fixture.js';

const EARLIER = 'aaaaaaaa-0000-4000-8000-000000000001';
const PARENT = 'bbbbbbbb-0000-4000-8000-000000000002';
const FORK = 'cccccccc-0000-4000-8000-000000000003';
const REFUSED = 'FAIL orders.spec.ts\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect';

let tmp: string;
let embedder: Embedder;
let reader: StoreReader;
let forkDir: string;

beforeAll(async () => {
  embedder = await offlineEmbedder();
  tmp = mkdtempSync(join(tmpdir(), 'ab-lineage-replay-'));
  const old = join(tmp, 'projects-old', '-home-dev-old');
  const cur = join(tmp, 'projects', '-home-dev-api');
  mkdirSync(old, { recursive: true });
  mkdirSync(cur, { recursive: true });
  const earlier = pastFixSession(EARLIER, Date.parse('2026-03-01T10:00:00Z'));
  const parent = pastFixSession(PARENT, Date.parse('2026-03-05T10:00:00Z'));
  const fork = forkOf(parent, FORK, Date.parse('2026-03-06T10:00:00Z'))
    .prompt('run the integration tests again after the rebase')
    .tool('Bash', { command: 'npm run test:integration' }, REFUSED, true)
    .reply('Postgres refused the connection again.')
    .endTurn();
  writeFileSync(join(old, `${EARLIER}.jsonl`), earlier.text());
  writeFileSync(join(cur, `${PARENT}.jsonl`), parent.text());
  writeFileSync(join(cur, `${FORK}.jsonl`), fork.text());
  const storePath = join(tmp, 'store.sqlite');
  const w = openStoreWriter(storePath);
  w.ensureRegion('old', 'global');
  w.ensureRegion('sessions', 'global');
  w.addSource('old', join(tmp, 'projects-old'), 'transcripts');
  w.addSource('sessions', join(tmp, 'projects'), 'transcripts');
  await runIndex({ store: w, embedder, config: ConfigSchema.parse({}) });
  w.close();
  reader = openStoreReader(storePath);
  forkDir = join(tmp, 'replay-target');
  mkdirSync(join(forkDir, '-home-dev-api'), { recursive: true });
  // The replayed folder holds the parent and the fork, as ~/.claude/projects would.
  writeFileSync(join(forkDir, '-home-dev-api', `${PARENT}.jsonl`), parent.text());
  writeFileSync(join(forkDir, '-home-dev-api', `${FORK}.jsonl`), fork.text());
});
afterAll(() => {
  reader?.close();
  rmSync(tmp, { recursive: true, force: true });
});

/** The store without its lineage (messages unknown): what the gates did before issue 25. */
function withoutLineage(r: StoreReader): StoreReader {
  const strip = <T extends { lineage?: string[] }>(xs: T[]): T[] => xs.map(({ lineage: _l, ...e }) => e as T);
  return new Proxy(r, {
    get(target, prop) {
      if (prop === 'lineage') return undefined;
      if (prop === 'resolvedEpisodes') return () => strip(target.resolvedEpisodes());
      if (prop === 'fixEpisodes') return () => strip(target.fixEpisodes());
      if (prop === 'episodesBySignature') return (s: string[], f?: never) => strip(target.episodesBySignature(s, f));
      if (prop === 'episodeIndex') return () => strip(target.episodeIndex());
      const v = Reflect.get(target, prop) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

async function replay(store: StoreReader) {
  return replayTranscripts(findTranscripts(forkDir), { config: ConfigSchema.parse({}), embedder, store, seed: 1, home: join(tmp, 'no-home') });
}

const sessionOfHandle = (r: StoreReader, handle: string) => r.chunkByHandle(handle)?.path.split('/').pop()?.replace(/\.jsonl$/, '') ?? null;

describe('lineage: a forked copy of the current session is never offered back', () => {
  it('tool channel: the fork gets the earlier session fix, never its parent; the audit finds no self-lineage offer', async () => {
    const r = await replay(reader);
    const forkTool = offersOf(r.rows).filter((o) => o.channel === 'tool' && o.session === FORK);
    expect(forkTool.length).toBeGreaterThan(0);
    // Control: the genuinely earlier session's fix is offered (and the hook would show it).
    expect(forkTool.map((o) => sessionOfHandle(reader, o.handle))).toContain(EARLIER);
    expect(forkTool.some((o) => o.hook === 'would-fire')).toBe(true);
    for (const o of offersOf(r.rows)) {
      const from = sessionOfHandle(reader, o.handle);
      if (o.session === FORK) expect(from).not.toBe(PARENT);
      if (o.session === PARENT) expect(from).not.toBe(FORK);
      expect(o.self_lineage).toBe(false);
    }
    expect(r.summary.self_lineage_offers).toEqual({ prompt: 0, tool: 0, prompt_shown: 0, tool_shown: 0 });
    // The fork's copied head is its parent's history: no hook ran there (replayed as seed).
    expect(r.summary.copied_exchanges).toBe(3);
    expect(r.summary.copied_tool_steps).toBeGreaterThan(0);
    const forkRows = r.rows.filter((x) => x.session === FORK && x.channel === 'tool');
    expect(forkRows.filter((x) => x.seed && x.offer)).toEqual([]);
    // Control: the fork's own failure is a live event and gets the earlier session's fix.
    expect(forkRows.some((x) => !x.seed && x.offer && x.hook === 'would-fire')).toBe(true);
  });

  it('with the lineage hidden from the store, the fork\'s own transcript head still names its parent (the hook reads it): no echo; bite: rewrite the copied records to the fork\'s id (as Claude Code 1.0 "continue" copies did) and the parent\'s fix comes back, and the audit counts it', async () => {
    const hidden = await replay(withoutLineage(reader));
    const backFromHead = offersOf(hidden.rows).filter((o) => o.channel === 'tool' && o.session === FORK && sessionOfHandle(reader, o.handle) === PARENT);
    expect(backFromHead).toEqual([]);
    // The bite: nothing left that names the parent, neither the store nor the file's head.
    const dir2 = join(tmp, 'replay-rewritten', '-home-dev-api');
    mkdirSync(dir2, { recursive: true });
    writeFileSync(join(dir2, `${PARENT}.jsonl`), readFileSync(join(forkDir, '-home-dev-api', `${PARENT}.jsonl`), 'utf8'));
    writeFileSync(join(dir2, `${FORK}.jsonl`), readFileSync(join(forkDir, '-home-dev-api', `${FORK}.jsonl`), 'utf8').split(PARENT).join(FORK));
    const r = await replayTranscripts(findTranscripts(join(tmp, 'replay-rewritten')), { config: ConfigSchema.parse({}), embedder, store: withoutLineage(reader), seed: 1, home: join(tmp, 'no-home') });
    const back = offersOf(r.rows).filter((o) => o.channel === 'tool' && o.session === FORK && sessionOfHandle(reader, o.handle) === PARENT);
    expect(back.length).toBeGreaterThan(0);
    expect(back.every((o) => o.self_lineage === true)).toBe(true);
    expect(r.summary.self_lineage_offers.tool).toBeGreaterThan(0);
  });
});

describe('lineage the daemon learns from uuids reaches the hook (its lineage file)', () => {
  it('a Claude Code 1.0 continue (copied records re-stamped with the new id) of a session the store holds, itself not indexed: the parent\'s fix is never offered at the failure; control: with no lineage in the store it is', async () => {
    // The store a user has on the day the continued session runs: the earlier sessions and the
    // parent, not the continue itself (so no fix names it, and its head names no parent).
    const root = join(tmp, 'store2');
    const old = join(root, 'old', '-home-dev-old');
    const cur = join(root, 'cur', '-home-dev-api');
    mkdirSync(old, { recursive: true });
    mkdirSync(cur, { recursive: true });
    writeFileSync(join(old, `${EARLIER}.jsonl`), readFileSync(join(tmp, 'projects-old', '-home-dev-old', `${EARLIER}.jsonl`), 'utf8'));
    writeFileSync(join(cur, `${PARENT}.jsonl`), readFileSync(join(forkDir, '-home-dev-api', `${PARENT}.jsonl`), 'utf8'));
    const w = openStoreWriter(join(root, 'store.sqlite'));
    w.ensureRegion('old', 'global');
    w.ensureRegion('sessions', 'global');
    w.addSource('old', join(root, 'old'), 'transcripts');
    w.addSource('sessions', join(root, 'cur'), 'transcripts');
    await runIndex({ store: w, embedder, config: ConfigSchema.parse({}) });
    w.close();
    const store = openStoreReader(join(root, 'store.sqlite'));
    try {
      // The replayed folder holds the parent and the continue, as ~/.claude/projects would.
      const dir = join(root, 'replay', '-home-dev-api');
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `${PARENT}.jsonl`), readFileSync(join(forkDir, '-home-dev-api', `${PARENT}.jsonl`), 'utf8'));
      writeFileSync(join(dir, `${FORK}.jsonl`), readFileSync(join(forkDir, '-home-dev-api', `${FORK}.jsonl`), 'utf8').split(PARENT).join(FORK));
      const run = (s: StoreReader) => replayTranscripts(findTranscripts(join(root, 'replay')), { config: ConfigSchema.parse({}), embedder, store: s, seed: 1, home: join(tmp, 'no-home') });
      const fromParent = (rows: Awaited<ReturnType<typeof run>>['rows']) =>
        offersOf(rows).filter((o) => o.channel === 'tool' && o.session === FORK && o.hook === 'would-fire' && sessionOfHandle(store, o.handle) === PARENT);
      const r = await run(store);
      expect(fromParent(r.rows)).toEqual([]);
      // Control: the same failure still gets the genuinely earlier session's fix.
      expect(offersOf(r.rows).some((o) => o.channel === 'tool' && o.session === FORK && o.hook === 'would-fire' && sessionOfHandle(store, o.handle) === EARLIER)).toBe(true);
      // Bite: a store that cannot tell the uuids apart leaves the hook nothing to know it by.
      expect(fromParent((await run(withoutLineage(store))).rows).length).toBeGreaterThan(0);
    } finally {
      store.close();
    }
  });
});

describe('lineage in the daemon pipeline', () => {
  it('a live session learns its lineage from the copied records it holds; control: an unrelated session learns none', async () => {
    const make = () => new Pipeline({ embedder, offerBuilder: null, config: ConfigSchema.parse({}), episodes: reader, home: join(tmp, 'no-home'), now: () => Date.parse('2026-03-07T00:00:00Z'), rng: () => 0.5 });
    const p = make();
    const path = join(forkDir, '-home-dev-api', `${FORK}.jsonl`);
    const read = await readTimedExchanges(path, { settleMs: null });
    for (const t of read.exchanges) await p.process({ exchange: t.exchange, path, seed: true });
    // The fork's first records carry the parent's id, as real copies do: both ids are this session.
    expect(p.lineageOf(path)).toEqual([PARENT, FORK].sort());
    const other = make();
    const otherPath = join(tmp, 'projects-old', '-home-dev-old', `${EARLIER}.jsonl`);
    for (const t of (await readTimedExchanges(otherPath, { settleMs: null })).exchanges) await other.process({ exchange: t.exchange, path: otherPath, seed: true });
    expect(other.lineageOf(otherPath)).toEqual([EARLIER]);
  });
});

describe('lineage in the offer builder (prompt channel)', () => {
  let s: TestStore;
  const P = 'bbbbbbbb-1111-4111-8111-000000000002';
  beforeAll(async () => {
    // The parent session's chunk: the same error, resolved, more recent than the fixture's.
    s = await buildStore([
      ...FIXTURE,
      ...FILLER,
      {
        region: 'sessions',
        kind: 'transcripts',
        file: `proj-b/${P}.jsonl`,
        title: 'Postgres pool keeps resetting',
        chunks: [{ heading: 'exchange 2', text: 'Postgres pool failing with ECONNRESET under load again. Error: read ECONNRESET at acquireConnection. Fixed by enabling keepAlive on the pool; the resets stopped.', hasError: true, resolved: true, createdAt: Date.UTC(2026, 10, 1) }],
      },
    ]);
  });
  afterAll(() => s?.cleanup());

  it('the parent chunk is never offered to its fork; control: an unrelated session is offered it, and the earlier session is offered to the fork', async () => {
    const b = createOfferBuilder({ store: s.reader, embedder: s.embedder, config: retrievalConfig() });
    const req = await request(s.embedder, exchange({ ...PG_ERROR_TURN, sessionId: 'fork-session' }), { trigger: 'error' });
    const control = await b.build(req);
    expect(control.offer?.handle).toMatch(new RegExp(`^sessions/proj-b/${P}`));
    const fork = await b.build({ ...req, lineage: [P] });
    expect(fork.figures.lineageDropped).toBeGreaterThan(0);
    expect(fork.offer?.handle ?? '').not.toContain(P);
    expect(fork.offer).toMatchObject({ type: 'past-fix', region: 'past-sessions' });
  });
});

