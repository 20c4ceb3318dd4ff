/**
 * One engine (issue 37): `replay` of each session after an index of the earlier ones gives the
 * offers `eval pastfix` gives that session — what a user's own history shows and what the
 * benchmark scores are one simulation. Real parts: real-format transcripts in a temp project
 * folder (an earlier fix, a parent with its own fix, a resumed copy of the parent that meets
 * the error again, a later session that meets it too), the real indexer into a real SQLite
 * store grown session by session (copies dated back to their last record, as a finished
 * session's file is), the replay as `active-brain replay <file>` runs it, and eval pastfix.
 * Bite: the resumed copy replayed from a folder without its parent runs the hook at the calls
 * it copied (Claude Code ran none there) and the offers differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ConfigSchema } from '../../config/schema.js';
import { openStoreWriter } from '../../store/sqlite-store.js';
import { runIndex } from '../../indexer/indexer.js';
import { findTranscripts, readTimedExchanges } from '../../eval/replay-read.js';
import { offersOf, openReplayStore, replayTranscripts, type ReplayOffer } from '../../eval/replay.js';
import { bySessionStart, evalPastfix, sessionStart, PASTFIX_REGION } from '../../eval/pastfix.js';
import type { Embedder } from '../../embed/types.js';
import { offlineEmbedder } from '../helpers/embedder.js';
import { forkOf, pastFixSession, TranscriptBuilder } from '../indexer/transcript-fixture.js';

const EARLIER = 'aaaaaaaa-0000-4000-8000-000000000001';
const PARENT = 'bbbbbbbb-0000-4000-8000-000000000002';
const FORK = 'cccccccc-0000-4000-8000-000000000003';
const LATER = 'dddddddd-0000-4000-8000-000000000004';
const PROJECT = '-home-dev-api';
const REFUSED = 'FAIL orders.spec.ts\nError: connect ECONNREFUSED 127.0.0.1:5432\n    at TCPConnectWrap.afterConnect';
const config = ConfigSchema.parse({});

let tmp: string;
let project: string;
let embedder: Embedder;
const files = new Map<string, { path: string; last: number }>();

/** What both sides are compared on: every key replay --json gives but the file label. */
const key = (o: ReplayOffer) => JSON.stringify([o.session, o.channel, o.turn, o.step, o.tool_use_id, o.trigger, o.type, o.confidence, o.handle, o.hook]);
const shownPastFixes = (xs: ReplayOffer[]) => xs.filter((o) => o.channel === 'tool' && (o.hook === 'printed' || o.hook === 'would-fire'));

beforeAll(async () => {
  embedder = await offlineEmbedder();
  tmp = mkdtempSync(join(tmpdir(), 'ab-pastfix-parity-'));
  project = join(tmp, 'projects', PROJECT);
  mkdirSync(project, { recursive: true });
  const earlier = pastFixSession(EARLIER, Date.parse('2026-03-01T10:00:00Z'));
  const parent = pastFixSession(PARENT, Date.parse('2026-03-05T10:00:00Z'));
  const fork = forkOf(parent, FORK, Date.parse('2026-03-06T10:00:00Z'))
    .prompt('run the integration tests again after the rebase')
    .tool('Bash', { command: 'npm run test:integration' }, REFUSED, true)
    .reply('Postgres refused the connection again.')
    .endTurn();
  const later = new TranscriptBuilder(LATER, false, Date.parse('2026-03-08T10:00:00Z'))
    .prompt('run the integration tests for the orders service before the release')
    .tool('Bash', { command: 'npm run test:integration' }, REFUSED, true)
    .reply('The tests cannot reach Postgres.')
    .endTurn();
  for (const [id, b] of [[EARLIER, earlier], [PARENT, parent], [FORK, fork], [LATER, later]] as const) {
    const path = join(project, `${id}.jsonl`);
    writeFileSync(path, b.text());
    const last = Math.max(...b.lines.map((l) => Date.parse((JSON.parse(l) as { timestamp?: string }).timestamp ?? '') || 0));
    utimesSync(path, new Date(last), new Date(last));
    files.set(id, { path, last });
  }
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The sessions in the order eval pastfix runs them (start time, then path). */
async function inOrder(): Promise<Array<{ path: string; last: number }>> {
  const xs = [];
  for (const f of files.values()) xs.push({ ...f, first: sessionStart(await readTimedExchanges(f.path, { settleMs: config.daemon.settleMs })) });
  return xs.sort(bySessionStart);
}

/** Replay one file as `active-brain replay <file>` does, against the store at `storePath`. */
async function replayFile(path: string, storePath: string): Promise<ReplayOffer[]> {
  const opened = openReplayStore(storePath, embedder);
  try {
    const r = await replayTranscripts(findTranscripts(path), { config, embedder, store: opened.store, noStoreReason: opened.status, seed: 1, home: join(tmp, 'home') });
    return offersOf(r.rows);
  } finally {
    opened.store?.close();
  }
}

describe('replay after index, session by session, gives what eval pastfix gives', () => {
  it('every offer of every session the same, Past fixes shown among them; the resumed copy offered nothing at the calls it copied', async () => {
    const rep = await evalPastfix(join(tmp, 'projects'), { config, embedder, seed: 1, project: PROJECT, workParent: tmp });
    const history = join(tmp, 'history', PROJECT);
    mkdirSync(history, { recursive: true });
    const storePath = join(tmp, 'store.sqlite');
    const w = openStoreWriter(storePath);
    w.ensureRegion(PASTFIX_REGION, 'global');
    w.addSource(PASTFIX_REGION, join(tmp, 'history'), 'transcripts');
    w.close();
    const ordered = await inOrder();
    expect(ordered.map((f) => basename(f.path, '.jsonl'))).toEqual([EARLIER, PARENT, FORK, LATER]);
    const got: ReplayOffer[] = [];
    for (const [i, f] of ordered.entries()) {
      if (i > 0) {
        const prev = ordered[i - 1];
        const dest = join(history, basename(prev.path));
        copyFileSync(prev.path, dest);
        utimesSync(dest, new Date(prev.last), new Date(prev.last));
        const writer = openStoreWriter(storePath);
        try {
          await runIndex({ store: writer, embedder, config });
        } finally {
          writer.close();
        }
      }
      got.push(...(await replayFile(f.path, storePath)));
    }
    expect(got.map(key).sort()).toEqual(rep.replay_offers.map(key).sort());
    // Not vacuous: every session after the first met the error and got a Past fix, the fork
    // never from its own lineage.
    const shown = shownPastFixes(got);
    expect(new Set(shown.map((o) => o.session))).toEqual(new Set([PARENT, FORK, LATER]));
    expect(shown.find((o) => o.session === FORK)!.handle).toContain(EARLIER);
    // The fork's copied head (its parent's failure at step 1) got no hook.
    expect(got.filter((o) => o.session === FORK && o.step === 1 && o.hook !== null && o.hook !== 'not-at-failure')).toEqual([]);
  });

  it('bite: the resumed copy replayed alone, its parent not beside it, runs the hook at the failure it copied', async () => {
    const alone = join(tmp, 'alone', PROJECT);
    mkdirSync(alone, { recursive: true });
    const lonely = join(alone, `${FORK}.jsonl`);
    copyFileSync(files.get(FORK)!.path, lonely);
    const storePath = join(tmp, 'store.sqlite'); // after the first test: every session indexed
    const withParent = await replayFile(files.get(FORK)!.path, storePath);
    const withoutParent = await replayFile(lonely, storePath);
    const hooked = (xs: ReplayOffer[]) => xs.filter((o) => o.channel === 'tool' && o.step === 1 && o.hook !== null && o.hook !== 'not-at-failure');
    expect(hooked(withParent)).toEqual([]);
    expect(hooked(withoutParent).length).toBeGreaterThan(0);
  });
});
