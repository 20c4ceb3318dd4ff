/**
 * Transcripts through the real indexer, store and offline model: the fixture transcripts
 * give exchange chunks plus error-episode chunks found by signature (never from subagent
 * files or sidechain records; `active-brain recall <handle>` prints one); notes quoting an
 * error are found the same way; a growing transcript is re-indexed embedding only its new
 * chunks (a real embedder wrapped to count), old handles and chunk ids stay, and an open
 * last turn is held back until it closes or goes quiet.
 */
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { appendFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreReader, openStoreWriter } from '../../store/sqlite-store.js';
import type { ChunkRecord, StoreReader, StoreWriter } from '../../store/types.js';
import { runIndex } from '../../indexer/indexer.js';
import { EPISODE_RULES_VERSION } from '../../indexer/episodes.js';
import Database from 'better-sqlite3';
import { OPEN_TURN_QUIET_MS } from '../../indexer/transcript-file.js';
import { errorSignature } from '../../shared/error-signature.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { repoRoot } from '../helpers/model.js';
import { CountingEmbedder } from './counting-embedder.js';
import { TranscriptBuilder } from './transcript-fixture.js';

const config = ConfigSchema.parse({});
const NO_UPSTREAM = 'Exit code 128\nfatal: The current branch topic-a has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n';
let embedder: CountingEmbedder;
let tmp: string;
let storePath: string;
let store: StoreWriter;

beforeAll(async () => {
  embedder = new CountingEmbedder(await offlineEmbedder());
});

beforeEach(() => {
  tmp = mkdtempSync(join(tmpdir(), 'ab-episodes-ix-'));
  storePath = join(tmp, 'home', 'store.sqlite');
  store = openStoreWriter(storePath);
  store.ensureRegion('past', 'global');
  embedder.reset();
});

afterEach(() => {
  store?.close();
  rmSync(tmp, { recursive: true, force: true });
});

const index = () => runIndex({ store, embedder, config });

function withReader<T>(fn: (r: StoreReader) => T): T {
  const r = openStoreReader(storePath);
  try {
    return fn(r);
  } finally {
    r.close();
  }
}

/** Every chunk of a document, by handle order. */
function chunksOf(handlePrefix: string): ChunkRecord[] {
  return withReader((r) => {
    const out: ChunkRecord[] = [];
    for (let i = 0; ; i++) {
      const c = r.chunkByHandle(`${handlePrefix}#${i}`);
      if (!c) return out;
      out.push(c);
    }
  });
}

const age = (path: string, ms: number) => {
  const t = new Date(Date.now() - ms);
  utimesSync(path, t, t);
};

describe('transcript episodes through the indexer', () => {
  it('indexes the fixture transcripts: episodes with their fixes, none from subagents or sidechain records; recall prints one', async () => {
    const root = join(tmp, 'projects');
    cpSync(join(repoRoot, 'test', 'fixtures', 'transcripts', 'projects'), root, { recursive: true });
    store.addSource('past', root, 'transcripts');
    const s = await index();
    expect(s.episodes_added).toBe(2);
    expect(s.chunks_embedded).toBe(s.chunks_added);
    const push = errorSignature('fatal: The current branch x has no upstream branch.\nTo push the current branch and set the remote as upstream, use')!.sig;
    const eps = withReader((r) => r.episodesBySignature([push, ...r.episodeIndex().map((e) => e.sig)]));
    expect(eps.map((e) => e.fix).sort()).toEqual(['git push --set-upstream origin <branch>', 'mix format; then git commit succeeded']);
    expect(eps.every((e) => e.source === 'episode' && e.resolved && e.sessionId === '22222222-3333-4444-8555-666666666666')).toBe(true);
    const texts = withReader((r) => r.getChunks(eps.map((e) => e.chunkId)).map((c) => c.text)).join('\n');
    expect(texts).not.toMatch(/worker-only|subagent-only|Sibling/);
    expect(eps.find((e) => e.fix.startsWith('mix format'))!.note).toBe('The hook wants formatted code: formatting, then committing again.');
    // BM25 finds the episode too
    const hit = withReader((r) => r.getChunks(r.keywordSearch('no upstream branch set-upstream', 3).map((h) => h.chunkId)));
    expect(hit.some((c) => c.chunkKind === 'episode')).toBe(true);
    // recall shows it, as a user runs it
    const handle = eps.find((e) => e.fix.startsWith('git push'))!.handle;
    store.close();
    const r = spawnSync(process.execPath, [resolve(repoRoot, 'bin/active-brain.js'), 'recall', handle], {
      encoding: 'utf8',
      env: { ...process.env, ACTIVE_BRAIN_HOME: join(tmp, 'home'), ACTIVE_BRAIN_STORE: '' },
      timeout: 30_000,
    });
    store = openStoreWriter(storePath);
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('Fix: git push --set-upstream origin <branch>');
    expect(r.stdout).toContain('Error episode (resolved)');
  });

  it('a store whose episodes were cut by other rules has every document re-read once, their signatures re-made, vectors reused (control: same rules, nothing re-read)', async () => {
    const root = join(tmp, 'projects');
    cpSync(join(repoRoot, 'test', 'fixtures', 'transcripts', 'projects'), root, { recursive: true });
    store.addSource('past', root, 'transcripts');
    const first = await index();
    expect(first.episodes_recut).toBe(false); // an empty store has nothing to re-cut
    expect(store.episodeRules()).toBe(EPISODE_RULES_VERSION);
    const sigs = () => withReader((r) => r.episodeIndex().map((e) => e.sig).sort());
    const good = sigs();
    // An older active-brain's store: other signatures, another rules version recorded.
    const raw = new Database(storePath);
    raw.prepare(`UPDATE episodes SET sig = 'aaaaaaaaaaaaaa'`).run();
    raw.prepare(`UPDATE chunks SET row_key = 'older' WHERE chunk_kind = 'episode'`).run(); // what the older rules stored
    raw.close();
    // Control: with the same rules, the unchanged files are not read again and the stale
    // signatures stay (what an upgrade without this rule would have left).
    const same = await index();
    expect(same).toMatchObject({ episodes_recut: false, indexed: 0 });
    expect(sigs().every((s) => s === 'aaaaaaaaaaaaaa')).toBe(true);
    store.setEpisodeRules('older');
    embedder.reset();
    const again = await index();
    expect(again.episodes_recut).toBe(true);
    expect(again.indexed).toBe(first.indexed);
    expect(embedder.texts).toEqual([]); // unchanged chunks keep their vectors
    expect(sigs()).toEqual(good);
    expect(store.episodeRules()).toBe(EPISODE_RULES_VERSION);
    expect((await index()).episodes_recut).toBe(false); // once
  });

  it('a note quoting the error is found by the same signature as the episode', async () => {
    const notes = join(tmp, 'notes');
    mkdirSync(notes);
    writeFileSync(join(notes, 'git.md'), '# Git\n\n## New branches\n\n```\nfatal: The current branch my-topic has no upstream branch.\nTo push the current branch and set the remote as upstream, use\n```\n\nPush once with `-u origin HEAD`.\n');
    store.ensureRegion('notes', 'global');
    store.addSource('notes', notes, 'notes');
    const dir = join(tmp, 'projects', 'p');
    mkdirSync(dir, { recursive: true });
    const b = new TranscriptBuilder('sess-note').prompt('push it').tool('Bash', { command: 'git push' }, NO_UPSTREAM, true).tool('Bash', { command: 'git push -u origin topic-a' }, 'ok').reply('Pushed.').endTurn();
    writeFileSync(join(dir, 'sess-note.jsonl'), b.text());
    store.addSource('past', join(tmp, 'projects'), 'transcripts');
    await index();
    const sig = errorSignature(NO_UPSTREAM)!.sig;
    const got = withReader((r) => r.episodesBySignature([sig]));
    expect(got.map((e) => e.source).sort()).toEqual(['episode', 'note']);
    expect(got.find((e) => e.source === 'note')!.fix).toBe('Push once with `-u origin HEAD`.');
    expect(got.find((e) => e.source === 'episode')!.fix).toBe('git push -u origin <branch>');
  });

  it('a growing transcript: only new chunks are embedded, old handles and ids stay; an open last turn waits', async () => {
    const dir = join(tmp, 'projects', 'p');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'sess-grow.jsonl');
    store.addSource('past', join(tmp, 'projects'), 'transcripts');
    const b = new TranscriptBuilder('sess-grow')
      .prompt('push the topic branch')
      .tool('Bash', { command: 'git push' }, NO_UPSTREAM, true)
      .tool('Bash', { command: 'git push --set-upstream origin topic-a' }, 'ok')
      .reply('Pushed with upstream set.')
      .endTurn()
      .prompt('now run the unit tests for the pricing module please')
      .tool('Bash', { command: 'npm test -- pricing' }, 'Tests: 12 passed')
      .reply('All 12 pricing tests pass.')
      .endTurn();
    writeFileSync(file, b.text());
    const first = await index();
    expect(first).toMatchObject({ indexed: 1, episodes_added: 1 });
    expect(embedder.texts.length).toBe(first.chunks_added);
    const before = chunksOf('past/p/sess-grow.jsonl');
    expect(before.length).toBe(first.chunks_added);

    // Grows by a closed turn with a new failure and its fix.
    const n0 = b.lines.length;
    b.prompt('deploy the staging build to the cluster now')
      .tool('Bash', { command: 'kubectl apply -f k8s/staging.yaml' }, 'error: the server doesn\'t have a resource type "ingressroute"', true)
      .tool('Bash', { command: 'kubectl apply -f k8s/crds.yaml' }, 'customresourcedefinition created')
      .tool('Bash', { command: 'kubectl apply -f k8s/staging.yaml' }, 'deployment.apps/api configured')
      .reply('Installed the CRDs first; staging is deployed.')
      .endTurn();
    appendFileSync(file, b.lines.slice(n0).join('\n') + '\n');
    embedder.reset();
    const second = await index();
    const after = chunksOf('past/p/sess-grow.jsonl');
    const oldTexts = new Set(before.map((c) => `${c.heading}\n${c.text}`));
    const fresh = after.filter((c) => !oldTexts.has(`${c.heading}\n${c.text}`));
    expect(second).toMatchObject({ indexed: 1, chunks_embedded: fresh.length });
    expect(fresh.length).toBeGreaterThanOrEqual(2); // the new exchange and its episode
    expect(embedder.texts.length).toBe(fresh.length);
    expect(fresh.some((c) => c.chunkKind === 'episode' && c.text.includes('kubectl apply -f k8s/crds.yaml'))).toBe(true);
    for (const c of before) {
      const now = after.find((a) => a.handle === c.handle)!;
      expect(now.text).toBe(c.text);
      expect(now.id).toBe(c.id);
    }

    // An open last turn (no turn end, just written): not indexed, nothing embedded …
    const n1 = b.lines.length;
    b.prompt('rotate the staging database password').tool('Bash', { command: 'vault write -f db/rotate-root/staging' }, 'Success');
    appendFileSync(file, b.lines.slice(n1).join('\n') + '\n');
    embedder.reset();
    const third = await index();
    expect(third).toMatchObject({ indexed: 1, chunks_embedded: 0 });
    expect(chunksOf('past/p/sess-grow.jsonl').map((c) => c.text).join('\n')).not.toContain('rotate the staging database');
    // … and the next run reads the file again (stale), still holding it back while it is fresh.
    expect(store.getDocument(file)!.hash.startsWith('!')).toBe(true);
    expect(await index()).toMatchObject({ indexed: 0, unchanged: 1, chunks_embedded: 0 });

    // Control: once the turn closes it is indexed, embedding only its own chunk(s).
    const n2 = b.lines.length;
    b.reply('Rotated.').endTurn();
    appendFileSync(file, b.lines.slice(n2).join('\n') + '\n');
    embedder.reset();
    const fourth = await index();
    expect(fourth.chunks_embedded).toBeGreaterThanOrEqual(1);
    expect(fourth.chunks_embedded).toBeLessThanOrEqual(2);
    expect(chunksOf('past/p/sess-grow.jsonl').map((c) => c.text).join('\n')).toContain('rotate the staging database');
    expect(store.getDocument(file)!.hash.startsWith('!')).toBe(false);
    expect(await index()).toMatchObject({ indexed: 0, unchanged: 1 });
  });

  it('an open last turn in a file quiet for longer than OPEN_TURN_QUIET_MS is final and indexed', async () => {
    const dir = join(tmp, 'projects', 'p');
    mkdirSync(dir, { recursive: true });
    const file = join(dir, 'sess-quiet.jsonl');
    store.addSource('past', join(tmp, 'projects'), 'transcripts');
    writeFileSync(file, new TranscriptBuilder('sess-quiet').prompt('compile the protobuf definitions').tool('Bash', { command: 'make proto' }, 'done').text());
    age(file, OPEN_TURN_QUIET_MS + 60_000);
    await index();
    expect(chunksOf('past/p/sess-quiet.jsonl').map((c) => c.text).join('\n')).toContain('compile the protobuf');
    expect(store.getDocument(file)!.hash.startsWith('!')).toBe(false);
  });
});
