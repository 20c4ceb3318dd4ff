/**
 * Offer-building benchmark (issue 4):
 *  1. Candidate build latency — the whole OfferBuilder.build (string extraction, every
 *     small query, fusion, dedup/scope, sufficiency, region rules, typing) over a synthetic
 *     100k-chunk store (10 regions, Zipf pseudo-words with error codes / file names sprinkled
 *     in, random unit vectors of dim 100) built through the real writer; p50/p95 vs the
 *     60 ms target. Turns carry error strings and paths so the extra queries really run.
 *     The pseudo-vocabulary follows Zipf's law of abbreviation (frequent words are short, as
 *     in real text); a worst case made only of the most frequent words is reported too.
 *  2. Multi-query gain on LoCoMo (opts.evalDir): per conversation a store of its turns
 *     (offline model), each non-adversarial question as the "exchange"; Recall@10 of its
 *     evidence turns for the single query (the exchange's keyword + vector lists, fused) vs
 *     the multi-query plan (plus each extracted string's keyword and exact-name lists), both
 *     through retrieval/queries.ts + retrieval/fuse.ts. There is no session in QA, so the
 *     centroid query is not part of this figure.
 *  3. LoCoMo replay through the builder (opts.evalDir): sessions fed in order as a live
 *     conversation, the store holding earlier sessions only (one region per session, so the
 *     region rules have something to work with); EVERY turn is treated as triggered (an
 *     upper bound: the daemon's triggers fire on a fraction of turns). Figures: the share of
 *     builds that end in an offer, and of those, the share whose chunk is gold evidence of a
 *     QA item that also has evidence in the current window (the last REPLAY_WINDOW turns).
 * Stores live in opts.workDir and are deleted afterwards.
 */
import { readFileSync, rmSync, existsSync, appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { quantile } from './stats.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import type { ChunkInput } from '../store/types.js';
import { createOfferBuilder } from '../retrieval/builder.js';
import { extractStrings } from '../retrieval/extract.js';
import { planQueries, runQueries } from '../retrieval/queries.js';
import { fuseQueries } from '../retrieval/fuse.js';
import { ConfigSchema } from '../config/schema.js';
import type { Exchange } from '../shared/types.js';
import type { OfferRequest } from '../retrieval/types.js';
import { createEmbedder } from '../embed/embedder.js';
import { parseLocomo, scoredQuestions } from '../eval/locomo.js';
import { buildTempStore } from '../eval/temp-store.js';
import { prng, randomUnit, syllableVocabulary, zipfSampler } from './synthetic.js';

const DIM = 100;
const REGIONS = 10;
const CHUNKS_PER_DOC = 10;
const WORDS_PER_CHUNK = 80;
const VOCAB_SIZE = 30_000;
const ZIPF_S = 1.07;
const TARGET_P95_MS = 60;
const RECALL_AT = 10;
const ERROR_TOKENS = ['ECONNRESET', 'ETIMEDOUT', 'ENOENT', 'EADDRINUSE', 'TypeError', 'RangeError', 'SyntaxError'];
const FILES = ['pool.ts', 'server.ts', 'config.yaml', 'index.md', 'router.ts', 'Makefile.md'];


const ms = (x: number) => Math.round(x * 100) / 100;

export function buildSynthetic(path: string, chunks: number, words: string[], rand: () => number): void {
  const word = zipfSampler(rand, words.length, ZIPF_S);
  const w = openStoreWriter(path);
  w.setModel('synthetic-100', DIM);
  const sources = Array.from({ length: REGIONS }, (_, r) => {
    const name = `region-${r}`;
    w.ensureRegion(name, r === REGIONS - 1 ? 'project:/work/proj/**' : 'global');
    return w.addSource(name, `/synthetic/${name}`, r % 3 === 0 ? 'transcripts' : 'notes');
  });
  const docs = Math.ceil(chunks / CHUNKS_PER_DOC);
  const DOCS_PER_TX = 200;
  for (let d0 = 0; d0 < docs; d0 += DOCS_PER_TX) {
    w.transaction(() => {
      for (let d = d0; d < Math.min(docs, d0 + DOCS_PER_TX); d++) {
        const cs: ChunkInput[] = [];
        const vs: Float32Array[] = [];
        for (let c = 0; c < CHUNKS_PER_DOC && d * CHUNKS_PER_DOC + c < chunks; c++) {
          const text: string[] = [];
          for (let i = 0; i < WORDS_PER_CHUNK; i++) text.push(words[word()]);
          const err = rand() < 0.05;
          if (err) text.push(ERROR_TOKENS[Math.floor(rand() * ERROR_TOKENS.length)], 'src/' + FILES[Math.floor(rand() * FILES.length)]);
          cs.push({ heading: `${words[word()]} ${words[word()]}`, text: text.join(' '), createdAt: 1_700_000_000_000 + d * 1000, hasError: err, resolved: err && rand() < 0.5 });
          vs.push(randomUnit(rand, DIM));
        }
        const s = sources[d % REGIONS];
        const file = d % 50 === 0 ? FILES[d % FILES.length].replace('.', `-${d}.`) : `doc-${d}.md`;
        w.replaceDocument({ sourceId: s.id, path: `${s.path}/${file}`, hash: `h${d}`, mtime: 0, size: 0, title: `${words[word()]} ${words[word()]}` }, cs, vs);
      }
    });
  }
  w.close();
}

/** Words of the worst-case turns: only the most frequent ones (in nearly every chunk). */
const COMMON_WORDS = 200;

export function syntheticExchange(words: string[], word: () => number, rand: () => number, i: number, worst = false): Exchange {
  const say = (n: number) => Array.from({ length: n }, () => (worst ? words[Math.floor(rand() * COMMON_WORDS)] : words[word()])).join(' ');
  const err = ERROR_TOKENS[i % ERROR_TOKENS.length];
  const file = FILES[i % FILES.length];
  return {
    sessionId: 'bench',
    uuid: `u${i}`,
    index: i,
    startOffset: 0,
    endOffset: 0,
    timestamp: Date.now(),
    cwd: rand() < 0.5 ? '/work/proj' : '/home/someone',
    gitBranch: null,
    entrypoint: 'cli',
    isSidechain: false,
    user: `${say(20)} ${rand() < 0.5 ? 'PostgreSQL' : 'Billing Service'}`,
    assistant: say(60),
    toolCalls: [`Bash: npm test src/${file}`],
    toolErrors: [`${err}: ${say(6)}\n    at handleRequest (/app/src/${file}:12:5)\n    at Router.dispatch (/app/src/router.ts:40:1)`],
    assistantVisible: true,
    injected: false,
  };
}

export async function latency(opts: BenchOptions, figures: Figure[], notes: string[]): Promise<void> {
  const chunks = opts.quick ? 10_000 : 100_000;
  const builds = opts.quick ? 60 : 300;
  const rand = prng(4);
  const words = syllableVocabulary(rand, VOCAB_SIZE, true);
  const word = zipfSampler(rand, words.length, ZIPF_S);
  const path = join(opts.workDir, 'offers-synthetic.sqlite');
  const t0 = performance.now();
  buildSynthetic(path, chunks, words, rand);
  notes.push(`Synthetic store: ${chunks} chunks in ${REGIONS} regions (one project-scoped), written in ${ms((performance.now() - t0) / 1000)} s.`);
  const reader = openStoreReader(path);
  try {
    const config = ConfigSchema.parse({ retrieval: { wanderProbability: 0.1 } });
    const builder = createOfferBuilder({ store: reader, embedder: { modelId: 'synthetic-100', dim: DIM }, config });
    const rng = prng(9);
    const reqs: OfferRequest[] = Array.from({ length: builds + 5 }, (_, i) => {
      const ex = syntheticExchange(words, word, rand, i);
      return { sessionId: 'bench', cwd: ex.cwd, exchange: ex, recent: [], exchangeVector: randomUnit(rand, DIM), centroid: randomUnit(rand, DIM), trigger: i % 3 === 0 ? 'drift' : 'error', excludeChunkIds: [], rng };
    });
    // Warm-up: loads the vector matrix and the scale sample (once per store change).
    const tw = performance.now();
    await builder.build(reqs[0]);
    notes.push(`First build (loads the vector matrix and the similarity-scale sample): ${ms(performance.now() - tw)} ms.`);
    for (let i = 1; i < 5; i++) await builder.build(reqs[i]);
    const times: number[] = [];
    const cpu: number[] = [];
    const queries: number[] = [];
    let offers = 0;
    let skippedBuilds = 0;
    const exclude: number[] = [];
    for (let i = 5; i < reqs.length; i++) {
      const req = { ...reqs[i], excludeChunkIds: exclude.slice(-20) };
      const c = process.cpuUsage();
      const t = performance.now();
      const d = await builder.build(req);
      times.push(performance.now() - t);
      const dc = process.cpuUsage(c);
      cpu.push((dc.user + dc.system) / 1000);
      queries.push(d.figures.queries ?? 0);
      if ((d.figures.queriesSkipped ?? 0) > 0) skippedBuilds++;
      if (d.offer) {
        offers++;
        exclude.push(d.offer.chunkId);
      }
    }
    // Worst case: every word of the turn is among the most frequent (long posting lists).
    const worst: number[] = [];
    for (let i = 0; i < Math.min(60, builds); i++) {
      const ex = syntheticExchange(words, word, rand, i, true);
      const req: OfferRequest = { sessionId: 'bench', cwd: ex.cwd, exchange: ex, recent: [], exchangeVector: randomUnit(rand, DIM), centroid: randomUnit(rand, DIM), trigger: 'error', excludeChunkIds: [], rng };
      const t = performance.now();
      await builder.build(req);
      worst.push(performance.now() - t);
    }
    figures.push({ metric: `candidate build p95, worst case: only the ${COMMON_WORDS} most frequent words (${chunks / 1000}k chunks)`, value: ms(quantile(worst, 0.95)), unit: 'ms' });
    const p95 = quantile(times, 0.95);
    figures.push(
      { metric: `candidate build p50 (${chunks / 1000}k chunks)`, value: ms(quantile(times, 0.5)), unit: 'ms' },
      { metric: `candidate build p95 (${chunks / 1000}k chunks)`, value: ms(p95), unit: 'ms', target: `≤ ${TARGET_P95_MS} ms`, pass: p95 <= TARGET_P95_MS },
      { metric: `candidate build CPU time p50 (${chunks / 1000}k chunks)`, value: ms(quantile(cpu, 0.5)), unit: 'ms' },
      { metric: `candidate build CPU time p95 (${chunks / 1000}k chunks)`, value: ms(quantile(cpu, 0.95)), unit: 'ms' },
      { metric: 'queries per build (median)', value: quantile(queries, 0.5) },
      { metric: `builds that hit the query budget (${config.retrieval.queryBudgetMs} ms) and skipped string queries`, value: Math.round((skippedBuilds / Math.max(1, times.length)) * 1000) / 1000 },
    );
    notes.push(`Load average when measured: ${loadavg().map((x) => x.toFixed(1)).join(' / ')} on ${cpus().length} cores (wall time inflates under load; CPU time much less so).`);
    notes.push(`${times.length} builds; offers on random vectors/text: ${offers} (not a quality figure).`);
  } finally {
    reader.close();
    rmSync(path, { force: true });
    rmSync(path + '-wal', { force: true });
    rmSync(path + '-shm', { force: true });
  }
}

export async function multiQueryGain(opts: BenchOptions, figures: Figure[], notes: string[]): Promise<string | null> {
  const file = opts.evalDir ? join(opts.evalDir, 'locomo', 'locomo-dev.json') : null;
  if (!file || !existsSync(file)) return 'LoCoMo not available (no eval dir): multi-query gain not measured';
  const convs = parseLocomo(JSON.parse(readFileSync(file, 'utf8')));
  const embedder = await createEmbedder(ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } }).embedding);
  const k = ConfigSchema.parse({}).retrieval.k;
  const rrfK = ConfigSchema.parse({}).retrieval.rrfK;
  let n = 0;
  let single = 0;
  let multi = 0;
  let withStrings = 0;
  try {
    for (const conv of opts.quick ? convs.slice(0, 2) : convs) {
      const store = await buildTempStore(
        embedder,
        [...new Set(conv.turns.map((t) => t.session))].map((s) => ({
          name: `session-${s}`,
          title: `session ${s}`,
          items: conv.turns.filter((t) => t.session === s).map((t) => ({ id: t.diaId, heading: t.diaId, text: t.text })),
        })),
        { parent: opts.workDir },
      );
      try {
        const qs = scoredQuestions(conv);
        const vecs = await embedder.embed(qs.map((q) => q.question));
        qs.forEach((q, i) => {
          const ex = { user: q.question, assistant: '', toolErrors: [] };
          const strings = extractStrings(q.question);
          const zero = new Float32Array(embedder.dim);
          const recall = (plan: ReturnType<typeof planQueries>) => {
            const fused = fuseQueries(runQueries(store.reader, plan, k, {}).lists, rrfK).slice(0, RECALL_AT);
            const got = new Set(fused.map((f) => store.idOf(f.chunkId)));
            return q.evidence.filter((e) => got.has(e)).length / q.evidence.length;
          };
          single += recall(planQueries({ exchange: ex, exchangeVector: vecs[i], centroid: zero, dim: embedder.dim }, []));
          multi += recall(planQueries({ exchange: ex, exchangeVector: vecs[i], centroid: zero, dim: embedder.dim }, strings));
          if (strings.length > 0) withStrings++;
          n++;
        });
      } finally {
        store.dispose();
      }
    }
  } finally {
    await embedder.dispose();
  }
  const s = single / Math.max(1, n);
  const m = multi / Math.max(1, n);
  figures.push(
    { metric: `LoCoMo Recall@${RECALL_AT}, single query (keyword+vector)`, value: Math.round(s * 1000) / 1000 },
    { metric: `LoCoMo Recall@${RECALL_AT}, multi-query (+ extracted strings: keyword + exact-name)`, value: Math.round(m * 1000) / 1000 },
    { metric: 'multi-query gain (Recall@10 points)', value: Math.round((m - s) * 1000) / 1000 },
  );
  notes.push(`LoCoMo: ${n} non-adversarial questions over ${opts.quick ? 2 : convs.length} conversations; ${withStrings} had extracted strings (names etc.). k = ${k} per list, weighted RRF (retrieval/fuse.ts LIST_WEIGHTS).`);
  return null;
}

/** Turns in the "current window" for the gold-link figure, and the centroid's EWMA weight. */
const REPLAY_WINDOW = 3;
const REPLAY_ALPHA = 0.3;

export async function replayLocomo(opts: BenchOptions, figures: Figure[], notes: string[]): Promise<void> {
  const file = opts.evalDir ? join(opts.evalDir, 'locomo', 'locomo-dev.json') : null;
  if (!file || !existsSync(file)) {
    notes.push('LoCoMo not available (no eval dir): replay offer rate not measured');
    return;
  }
  const convs = parseLocomo(JSON.parse(readFileSync(file, 'utf8')));
  const embedder = await createEmbedder(ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } }).embedding);
  const config = ConfigSchema.parse({});
  let builds = 0;
  let offers = 0;
  let gold = 0;
  const silences = new Map<string, number>();
  const byType = new Map<string, number>();
  try {
    for (const conv of opts.quick ? convs.slice(0, 2) : convs) {
      const vecs = await embedder.embed(conv.turns.map((t) => t.text));
      const vecOf = new Map(conv.turns.map((t, i) => [t.diaId, vecs[i]]));
      // QA items: for each evidence turn, the other evidence turns of the same item.
      const linked = new Map<string, Set<string>>();
      for (const q of conv.questions) for (const e of q.evidence) for (const o of q.evidence) if (o !== e) (linked.get(e) ?? linked.set(e, new Set()).get(e)!).add(o);
      const sessions = [...new Set(conv.turns.map((t) => t.session))].sort((a, b) => a - b);
      const path = join(opts.workDir, `replay-${conv.id}.sqlite`);
      const w = openStoreWriter(path);
      w.setModel(embedder.modelId, embedder.dim);
      try {
        for (let si = 0; si < sessions.length; si++) {
          const s = sessions[si];
          const turns = conv.turns.filter((t) => t.session === s);
          if (si > 0) {
            const reader = openStoreReader(path);
            try {
              const builder = createOfferBuilder({ store: reader, embedder, config });
              let centroid: Float32Array | null = null;
              const rng = prng(s);
              const exclude: number[] = [];
              const idOf = new Map<number, string>();
              for (let ti = 0; ti < turns.length; ti++) {
                const t = turns[ti];
                const v = vecOf.get(t.diaId)!;
                centroid = centroid ? centroid.map((c, i) => REPLAY_ALPHA * v[i] + (1 - REPLAY_ALPHA) * c) : Float32Array.from(v);
                const norm = Math.hypot(...centroid) || 1;
                const ex: Exchange = { sessionId: conv.id, uuid: t.diaId, index: ti, startOffset: 0, endOffset: 0, timestamp: 0, cwd: null, gitBranch: null, entrypoint: 'cli', isSidechain: false, user: t.text, assistant: '', toolCalls: [], toolErrors: [], assistantVisible: false, injected: false };
                const d = await builder.build({ sessionId: conv.id, cwd: null, exchange: ex, recent: [], exchangeVector: v, centroid: centroid.map((c) => c / norm), trigger: 'stall', excludeChunkIds: exclude.slice(-config.retrieval.dedupWindow), rng });
                builds++;
                // Calibration aid: AB_REPLAY_DUMP=<file> appends each build's numeric figures
                // (no text) and whether its top candidate was gold-linked.
                if (process.env.AB_REPLAY_DUMP) {
                  const window = turns.slice(Math.max(0, ti - REPLAY_WINDOW + 1), ti + 1).map((x) => x.diaId);
                  const top = d.candidates[0];
                  const dia = top ? reader.getChunks([top.chunkId])[0]?.heading : '';
                  const isGold = !!dia && window.some((wd) => linked.get(wd)?.has(dia));
                  appendFileSync(process.env.AB_REPLAY_DUMP, JSON.stringify({ ...d.figures, silence: d.silence, gold: isGold, chunks: reader.info().chunks }) + '\n');
                }
                if (!d.offer) {
                  silences.set(d.silence ?? '?', (silences.get(d.silence ?? '?') ?? 0) + 1);
                  continue;
                }
                offers++;
                byType.set(d.offer.type, (byType.get(d.offer.type) ?? 0) + 1);
                exclude.push(d.offer.chunkId);
                if (!idOf.has(d.offer.chunkId)) idOf.set(d.offer.chunkId, reader.getChunks([d.offer.chunkId])[0]?.heading ?? '');
                const dia = idOf.get(d.offer.chunkId)!;
                const window = turns.slice(Math.max(0, ti - REPLAY_WINDOW + 1), ti + 1).map((x) => x.diaId);
                if (window.some((wd) => linked.get(wd)?.has(dia))) gold++;
              }
            } finally {
              reader.close();
            }
          }
          w.ensureRegion(`session-${s}`, 'global');
          const src = w.addSource(`session-${s}`, join(opts.workDir, conv.id, `session-${s}`), 'notes');
          w.replaceDocument(
            { sourceId: src.id, path: join(opts.workDir, conv.id, `session-${s}`, 'turns.md'), hash: `${conv.id}-${s}`, mtime: 0, size: 0, title: `session ${s}` },
            turns.map((t) => ({ heading: t.diaId, text: t.text, createdAt: 0 })),
            turns.map((t) => vecOf.get(t.diaId)!),
          );
        }
      } finally {
        w.close();
        rmSync(path, { force: true });
        rmSync(path + '-wal', { force: true });
        rmSync(path + '-shm', { force: true });
      }
    }
  } finally {
    await embedder.dispose();
  }
  figures.push(
    { metric: 'LoCoMo replay: offer rate per triggered build (every turn triggered)', value: Math.round((offers / Math.max(1, builds)) * 1000) / 1000 },
    { metric: 'LoCoMo replay: offers whose chunk is gold-linked to the current window', value: Math.round((gold / Math.max(1, offers)) * 1000) / 1000 },
  );
  notes.push(
    `LoCoMo replay: ${builds} builds, ${offers} offers (${[...byType].map(([k, v]) => `${k} ${v}`).join(', ')}); silences: ${[...silences].map(([k, v]) => `${k} ${v}`).join(', ')}. The daemon's fire rate is this times its trigger rate.`,
  );
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const figures: Figure[] = [];
  const notes: string[] = [];
  await latency(opts, figures, notes);
  const skipped = await multiQueryGain(opts, figures, notes);
  if (skipped) notes.push(skipped);
  await replayLocomo(opts, figures, notes);
  return { name: 'offers', about: 'Issue 4: candidate build latency (all queries, fusion, gates) and multi-query gain', figures, notes };
}
