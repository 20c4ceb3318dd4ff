/**
 * core/pipeline.ts with real parts: the offline model, a real SQLite store (the retrieval
 * fixture), the real offer builder, the real triggers. A control sequence (warm-up, then a
 * new tool error) produces an offer; the same sequence through each safety gate is silent
 * with its reason code while session state is still kept. Decisions carry no text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigSchema, type Config } from '../../config/schema.js';
import { createOfferBuilder } from '../../retrieval/builder.js';
import type { Exchange } from '../../shared/types.js';
import { STORE_DOWN, Pipeline, type Decision, type PipelineDeps } from '../../core/pipeline.js';
import { decisionRecord } from '../../daemon/logs.js';
import { buildStore, exchange, T0, DAY, type TestStore } from '../retrieval/helpers.js';
import { FIXTURE, FILLER, PG_ERROR_TURN } from '../retrieval/fixture.js';
import { loadSchema, validate } from '../helpers/json-schema.js';

let s: TestStore;
beforeAll(async () => {
  s = await buildStore([...FIXTURE, ...FILLER]);
});
afterAll(() => s?.cleanup());

const SENTINEL = 'plover-sentinel-9931';
const WARMUP = [
  'Set up the postgres connection for the api service',
  'Add a health check endpoint that runs a query against postgres',
  'Write a load test for the api with many concurrent requests',
  `Run the ${SENTINEL} load test against the api and the database`,
];

/** The query budget (retrieval.queryBudgetMs) is wall-clock: on a loaded machine it would
 *  skip extracted-string queries and change what is found. These tests are about the
 *  pipeline's decisions, so the budget is out of the way. */
const NO_QUERY_BUDGET = { queryBudgetMs: 60_000 };

function cfg(over: Record<string, unknown> = {}): Config {
  return ConfigSchema.parse({ session: { cooldownSeconds: 0 }, retrieval: NO_QUERY_BUDGET, ...over });
}

function deps(config: Config, over: Partial<PipelineDeps> = {}): PipelineDeps {
  return {
    embedder: s.embedder,
    offerBuilder: createOfferBuilder({ store: s.reader, embedder: s.embedder, config }),
    config,
    home: '/nonexistent/active-brain-home',
    now: () => T0 + 30 * DAY,
    rng: () => 0.99,
    ...over,
  };
}

/** Warm-up exchanges, then the postgres ECONNRESET turn (a new tool error). */
function session(p: Partial<Exchange> = {}): Exchange[] {
  const out: Exchange[] = WARMUP.map((user, i) =>
    exchange({ user, assistant: `Done: ${user.toLowerCase()}.`, index: i, uuid: `u${i}`, endOffset: 100 * (i + 1), timestamp: T0 + 30 * DAY + i * 60_000, ...p }),
  );
  out.push(exchange({ ...PG_ERROR_TURN, index: 4, uuid: 'u4', endOffset: 500, timestamp: T0 + 30 * DAY + 5 * 60_000, ...p }));
  return out;
}

async function run(p: Pipeline, exs: Exchange[], extra: { seed?: boolean; subagent?: boolean; path?: string } = {}): Promise<Decision[]> {
  const out: Decision[] = [];
  for (const ex of exs) out.push(await p.process({ exchange: ex, path: extra.path ?? '/t/s1.jsonl', seed: extra.seed, subagent: extra.subagent }));
  return out;
}

describe('pipeline', () => {
  it('a replay (pastOnly) with its clock before every stored chunk offers nothing from the future (control: the same clock without pastOnly offers)', async () => {
    const early = { now: () => T0 - DAY };
    const live = await run(new Pipeline(deps(cfg(), early)), session());
    expect(live[4].offer).toMatchObject({ type: 'past-fix' });
    const replay = await run(new Pipeline(deps(cfg(), { ...early, pastOnly: true })), session());
    expect(replay[4].trigger).toBe('error');
    expect(replay[4].offer).toBeNull();
    expect(replay[4].silence).toBe('no-candidates');
  });

  it('control: a new tool error after warm-up produces an offer, remembered in the session FIFO', async () => {
    const p = new Pipeline(deps(cfg()));
    const ds = await run(p, session());
    for (const d of ds.slice(0, 4)) {
      expect(d.offer).toBeNull();
      expect(d.cacheable).toBe(true);
    }
    expect(ds[0].silence).toBe('warmup');
    const last = ds[4];
    expect(last.trigger).toBe('error');
    expect(last.silence).toBeNull();
    expect(last.offer).toMatchObject({ type: 'past-fix', trigger: 'error' });
    expect(last.gates.every((g) => g.pass)).toBe(true);
    expect(last).toMatchObject({ turn: 4, exchangeUuid: 'u4', offset: 500, mode: 'default', modeState: 'soak', worker: null });
    expect(last.latency.embed).toBeGreaterThanOrEqual(0);
    expect(last.latency.build).toBeGreaterThanOrEqual(0);
    // the evidence figures are in the record (numbers, prefixed), next to the trigger's; the
    // decisions that never reached the builder have none (control)
    expect(last.triggerValues.build_sufficiency).toBeCloseTo(last.sufficiency!, 9);
    for (const k of ['build_suffSupport', 'build_suffMargin', 'build_topCos', 'build_scaleMedian']) expect(typeof last.triggerValues[k], k).toBe('number');
    expect(Object.keys(ds[0].triggerValues).some((k) => k.startsWith('build_'))).toBe(false);

    // The same error again later: the offered chunk is excluded (FIFO), never offered twice.
    const again = await p.process({
      exchange: exchange({ ...PG_ERROR_TURN, toolErrors: ['Error: connect ECONNRESET 10.0.0.5:5432 at pool.acquire'], index: 8, uuid: 'u8', timestamp: T0 + 31 * DAY }),
      path: '/t/s1.jsonl',
    });
    if (again.offer) expect(again.offer.chunkId).not.toBe(last.offer!.chunkId);

    // Decision records: schema-valid and free of conversation text, but for the offer's own
    // reason line (what the hook prints, kept for label and the report).
    const schema = loadSchema('daemon-decision');
    for (const d of [...ds, again]) {
      const rec = decisionRecord(d, Date.now());
      expect(validate(schema, rec)).toEqual([]);
      expect(rec.offer?.reason).toBe(d.offer?.reason);
      if (d.offer) expect(d.offer.reason.length).toBeGreaterThan(0);
      const json = JSON.stringify({ ...rec, offer: rec.offer && { ...rec.offer, reason: undefined } });
      expect(json).not.toContain(SENTINEL);
      expect(json).not.toContain('ECONNRESET');
      expect(json).not.toContain('load test');
    }
  });

  it('a store loss during the build: no offer, not cacheable, and the chunk is not held back by the FIFO (control: a kept offer is)', async () => {
    const config = cfg({ session: { cooldownSeconds: 0, cooldownTurns: 0 } });
    const real = createOfferBuilder({ store: s.reader, embedder: s.embedder, config });
    /** A pipeline whose first build loses the store connection when `lose`; records each build's FIFO exclusions. */
    const make = (lose: boolean) => {
      let faults = 0;
      let first = true;
      const excluded: number[][] = [];
      const p = new Pipeline(
        deps(config, {
          storeFaults: () => faults,
          offerBuilder: {
            build: async (req) => {
              excluded.push([...req.excludeChunkIds]);
              const out = await real.build(req);
              if (lose && first) faults++; // the connection dropped while this step read the store
              first = false;
              return out;
            },
          },
        }),
      );
      return { p, excluded };
    };
    const next = exchange({ ...PG_ERROR_TURN, toolErrors: ['Error: connect ECONNRESET 10.0.0.5:5432 at pool.acquire'], index: 8, uuid: 'u8', timestamp: T0 + 31 * DAY });
    const lost = make(true);
    const ds = await run(lost.p, session());
    expect(ds[4].trigger).toBe('error');
    expect(ds[4].offer).toBeNull();
    expect(ds[4].silence).toBe(STORE_DOWN);
    expect(ds[4].cacheable).toBe(false);
    await lost.p.process({ exchange: next, path: '/t/s1.jsonl' });
    expect(lost.excluded.at(-1)).toEqual([]); // nothing was remembered from the lost step
    // Control: the same session without the loss offers a chunk, and the next build excludes it.
    const kept = make(false);
    const offer = (await run(kept.p, session()))[4].offer!;
    expect(offer).not.toBeNull();
    await kept.p.process({ exchange: next, path: '/t/s1.jsonl' });
    expect(kept.excluded.at(-1)).toEqual([offer.chunkId]);
  });

  it('provisional decisions: state untouched; a silent early look does not use up the cooldown; an offer does', async () => {
    const config = cfg({ session: { cooldownTurns: 3, cooldownSeconds: 0 } });
    const exs = session();
    const warm = exs.slice(0, 4);
    const errorTurn = exs[4];
    // A builder that finds nothing the first time (an early look at partial text), then the real one.
    const real = createOfferBuilder({ store: s.reader, embedder: s.embedder, config });
    let calls = 0;
    const p = new Pipeline(deps(config, {
      offerBuilder: { build: async (req) => (calls++ === 0 ? { offer: null, silence: 'insufficient-evidence', sufficiency: 0, candidates: [], figures: {} } : real.build(req)) },
    }));
    await run(p, warm);
    const early = await p.process({ exchange: errorTurn, path: '/t/s1.jsonl', provisional: true });
    expect(early).toMatchObject({ provisional: true, trigger: 'error', offer: null, silence: 'insufficient-evidence' });
    // The same exchange, final: not held back by cooldown, and it offers.
    const final = await p.process({ exchange: errorTurn, path: '/t/s1.jsonl' });
    expect(final.provisional).toBe(false);
    expect(final.silence).toBeNull();
    expect(final.offer).toMatchObject({ type: 'past-fix' });
    expect(final.turn).toBe(4);

    // Control: a provisional decision that offers does count — the final one is cooled down.
    const q = new Pipeline(deps(config));
    await run(q, warm);
    const offered = await q.process({ exchange: errorTurn, path: '/t/s1.jsonl', provisional: true });
    expect(offered.offer).not.toBeNull();
    const after = await q.process({ exchange: errorTurn, path: '/t/s1.jsonl' });
    expect(after.silence).toBe('cooldown');
    // And the provisional look did not record the exchange: the final one is still turn 4's first recording.
    expect(after.turn).toBe(4);
  });

  const silent: Array<[string, () => Promise<Decision[]>, string]> = [
    ['worker entrypoint (claude -p)', async () => run(new Pipeline(deps(cfg())), session({ entrypoint: 'sdk-cli' })), 'worker-entrypoint'],
    ['sidechain records', async () => run(new Pipeline(deps(cfg())), session({ isSidechain: true })), 'worker-sidechain'],
    ['subagent file', async () => run(new Pipeline(deps(cfg())), session(), { subagent: true, path: '/t/s1/subagents/agent-a1.jsonl' }), 'worker-subagent'],
    ['seed history', async () => run(new Pipeline(deps(cfg())), session(), { seed: true }), 'seed'],
    ['injected prompt', async () => run(new Pipeline(deps(cfg())), session({ injected: true })), 'injected'],
    ['mode off', async () => run(new Pipeline(deps(cfg({ modes: { default: { state: 'off' } } }))), session()), 'mode-off'],
    ['no mode for this cwd', async () => run(new Pipeline(deps(cfg({ modes: { web: { cwdGlobs: ['/srv/web/**'] } } }))), session()), 'no-mode'],
    ['no store', async () => run(new Pipeline(deps(cfg(), { offerBuilder: null })), session()), 'no-store'],
  ];
  for (const [name, go, reason] of silent) {
    it(`gate: ${name} → silent (${reason}), state still kept`, async () => {
      const ds = await go();
      const last = ds[4];
      expect(last.offer).toBeNull();
      expect(last.silence).toBe(reason);
      expect(last.gates.at(-1)).toMatchObject({ pass: false, reason });
      // The state kept counting turns: the triggers saw a warm session.
      expect(last.triggerValues.error_new).toBe(1);
    });
  }

  it('cooldown: a second trigger right after a build is held back', async () => {
    const config = cfg({ session: { cooldownTurns: 3, cooldownSeconds: 0 } });
    const p = new Pipeline(deps(config));
    const ds = await run(p, session());
    expect(ds[4].offer).not.toBeNull();
    const next = await p.process({
      exchange: exchange({ user: 'still failing', toolErrors: ['TypeError: cannot read properties of undefined (reading pool)'], index: 5, uuid: 'u5', timestamp: T0 + 30 * DAY + 6 * 60_000 }),
      path: '/t/s1.jsonl',
    });
    expect(next.offer).toBeNull();
    expect(next.silence).toBe('cooldown');
  });

  it('sessions are bounded: idle and capacity eviction', async () => {
    let now = T0;
    const config = cfg({ daemon: { maxSessions: 2, sessionIdleEvictMinutes: 1 } });
    const p = new Pipeline(deps(config, { now: () => now }));
    for (const i of [1, 2, 3]) {
      now += 1000;
      await p.process({ exchange: exchange({ user: `hello ${i}`, sessionId: `s${i}` }), path: `/t/s${i}.jsonl` });
    }
    expect(p.sessionCount).toBe(3);
    expect(p.evict(now).map((e) => e.reason)).toEqual(['capacity']);
    expect(p.sessionCount).toBe(2);
    expect(p.evict(now + 2 * 60_000).length).toBe(2);
    expect(p.sessionCount).toBe(0);
  });
});
