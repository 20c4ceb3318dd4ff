/**
 * Knowledge-store benchmark (issue 2 item 3): builds synthetic stores (10k and 100k chunks;
 * Zipf-distributed pseudo-words, random unit vectors of dim 100 and 384) through the real
 * writer, then measures through the real reader: keyword search (FTS5 BM25), vector search
 * (in-memory Float32 matrix scan; single query and 4 queries in one pass) and, for the
 * record, the sqlite-vec alternatives (vec_distance_cosine over BLOBs, vec0 KNN).
 * Figures go to docs/BENCHMARKS.md via bench/run-all.ts; the decision is in docs/STORE.md.
 * Stores live in opts.workDir and are deleted afterwards.
 */
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { quantile } from './stats.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import { openVecProbe } from '../store/sqlite-vec-probe.js';
import { ftsRecallProbe, type ProbeDoc, type ProbeQuery, type QueryMode } from '../store/tokenizer-probe.js';
import { existsSync, readFileSync } from 'node:fs';
import type { ChunkInput, Hit } from '../store/types.js';
import { cpuPer, prng, randomUnit, syllableVocabulary, zipfSampler } from './synthetic.js';

/** Words in the synthetic vocabulary and their Zipf exponent (close to English text). */
const VOCAB_SIZE = 30_000;
const ZIPF_S = 1.07;
const WORDS_PER_CHUNK = 90;
const CHUNKS_PER_DOC = 10;
const K = 10;
const KEYWORD_QUERIES = 300;
const VECTOR_QUERIES = 160;
const BATCH = 4;
/** The most frequent ranks stand in for English stop-words, which queries never contain
 *  (store/fts-query.ts drops them); queries sample words below this rank. */
const STOPWORD_RANKS = 150;
/** The slow alternatives get fewer queries (they only need a median for the decision record). */
const SQLITE_VEC_SCAN_QUERIES = 8;
const VEC0_QUERIES = 60;
const JS_FALLBACK_QUERIES = 40;
/** Targets from issue 2 (hybrid = keyword + vector + fusion, so each arm must leave room). */
const TARGET_P50_MS = 20;
const TARGET_P95_MS = 50;


function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

const ms = (x: number) => Math.round(x * 100) / 100;

/** Build a synthetic store through the real writer; returns the ms it took. */
export function buildSyntheticStore(path: string, chunks: number, dim: number, words: string[], seed: number): number {
  const rand = prng(seed);
  const word = zipfSampler(rand, words.length, ZIPF_S);
  const w = openStoreWriter(path);
  w.setModel(`synthetic-${dim}`, dim);
  w.ensureRegion('notes', 'global');
  w.ensureRegion('proj', 'project:/work/proj/**');
  const src = [w.addSource('notes', '/synthetic/notes', 'notes'), w.addSource('proj', '/synthetic/proj', 'notes')];
  const t0 = performance.now();
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
          cs.push({ heading: `${words[word()]} ${words[word()]}`, text: text.join(' '), createdAt: 1_700_000_000_000 + d * 1000 });
          vs.push(randomUnit(rand, dim));
        }
        const s = src[d % 5 === 0 ? 1 : 0];
        w.replaceDocument({ sourceId: s.id, path: `${s.path}/doc-${d}.md`, hash: `h${d}`, mtime: 0, size: 0, title: `${words[word()]} ${words[word()]}` }, cs, vs);
      }
    });
  }
  const took = performance.now() - t0;
  w.close();
  return took;
}

function overlap(a: Hit[], b: Hit[]): number {
  const s = new Set(a.map((h) => h.chunkId));
  return b.filter((h) => s.has(h.chunkId)).length / Math.max(1, a.length);
}

/** The tokenizer comparison on LoCoMo (each conversation indexed alone, answerable questions). */
const TOKENIZERS = ['unicode61 remove_diacritics 2', 'porter unicode61 remove_diacritics 2'];

interface LocomoTurn { speaker: string; dia_id: string; text: string }
interface LocomoConv { conversation: Record<string, unknown>; qa: Array<{ question: unknown; evidence?: string[]; category?: number }> }

function tokenizerFigures(evalDir: string | null, figures: Figure[], notes: string[]): void {
  const file = evalDir ? join(evalDir, 'locomo', 'locomo-dev.json') : '';
  if (!evalDir || !existsSync(file)) {
    notes.push('Tokenizer comparison skipped: locomo/locomo-dev.json not found in the eval dir.');
    return;
  }
  const convs = JSON.parse(readFileSync(file, 'utf8')) as LocomoConv[];
  const sets = convs.map((c) => {
    const docs: ProbeDoc[] = [];
    for (const [key, turns] of Object.entries(c.conversation)) {
      if (!/^session_\d+$/.test(key) || !Array.isArray(turns)) continue;
      for (const t of turns as LocomoTurn[]) docs.push({ id: t.dia_id, text: `${t.speaker}: ${t.text}` });
    }
    const ids = new Set(docs.map((d) => d.id));
    const queries: ProbeQuery[] = c.qa
      .filter((q) => q.category !== 5)
      .map((q) => ({ text: String(q.question), relevant: (q.evidence ?? []).filter((e) => ids.has(e)) }))
      .filter((q) => q.relevant.length > 0);
    return { docs, queries };
  });
  const n = sets.reduce((a, s) => a + s.queries.length, 0);
  for (const tok of TOKENIZERS) {
    for (const mode of ['stopwords-dropped', 'all-words'] as QueryMode[]) {
      let r5 = 0;
      let r10 = 0;
      for (const s of sets) {
        const r = ftsRecallProbe(s.docs, s.queries, tok, mode);
        r5 += r.r5;
        r10 += r.r10;
      }
      const name = `${tok.startsWith('porter') ? 'porter' : 'unicode61'}, ${mode}`;
      figures.push({ metric: `LoCoMo BM25 R@5 (${name})`, value: Math.round((r5 / n) * 1000) / 1000 });
      figures.push({ metric: `LoCoMo BM25 R@10 (${name})`, value: Math.round((r10 / n) * 1000) / 1000 });
    }
  }
  notes.push(`Tokenizer comparison: ${n} answerable LoCoMo questions over ${sets.length} conversations, turns indexed as "speaker: text"; the store uses porter + stop-words dropped.`);
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const figures: Figure[] = [];
  const notes: string[] = [
    `Synthetic chunks: ${WORDS_PER_CHUNK} Zipf(${ZIPF_S}) words from a ${VOCAB_SIZE}-word pseudo-vocabulary, ${CHUNKS_PER_DOC} chunks per document, random unit vectors; k = ${K}.`,
    `Keyword queries: 2–8 words drawn from the same Zipf distribution, skipping the ${STOPWORD_RANKS} most frequent words (real queries lose their stop-words in store/fts-query.ts).`,
    'Vector = the store\'s method (WebAssembly SIMD scan over one Float32 matrix loaded once); "JS fallback" = the same scan in plain JS; "sqlite-vec scan" = vec_distance_cosine over the BLOB column; "vec0" = sqlite-vec virtual table KNN (built in a scratch file).',
  ];
  const rand = prng(42);
  const words = syllableVocabulary(rand, VOCAB_SIZE);
  const word = zipfSampler(rand, words.length, ZIPF_S);
  const sizes = opts.quick ? [10_000] : [10_000, 100_000];
  const dims = [100, 384];
  for (const n of sizes) {
    for (const dim of dims) {
      const tag = `${n / 1000}k×${dim}`;
      process.stderr.write(`[bench store] ${tag}: building …\n`);
      const path = join(opts.workDir, `store-${n}-${dim}.sqlite`);
      rmSync(path, { force: true });
      const buildMs = buildSyntheticStore(path, n, dim, words, n + dim);
      figures.push({ metric: `build ${tag}`, value: Math.round(n / (buildMs / 1000)), unit: 'chunks/s (writer, no embedding)' });
      figures.push({ metric: `store size ${tag}`, value: Math.round(statSync(path).size / 1e6), unit: 'MB' });
      const reader = openStoreReader(path);
      // Keyword (only once per size: the text does not depend on dim).
      if (dim === dims[0]) {
        const kw: number[] = [];
        const kwFiltered: number[] = [];
        const kwTexts: string[] = [];
        for (let q = 0; q < KEYWORD_QUERIES; q++) {
          const len = 2 + Math.floor(rand() * 7);
          const text = Array.from({ length: len }, () => {
            let w = word();
            while (w < STOPWORD_RANKS) w = word();
            return words[w];
          }).join(' ');
          kwTexts.push(text);
          kw.push(time(() => reader.keywordSearch(text, K))[1]);
          // The daemon always passes its session's cwd: project regions outside it are filtered in SQL.
          kwFiltered.push(time(() => reader.keywordSearch(text, K, { cwd: '/elsewhere', excludeChunkIds: [1, 2, 3] }))[1]);
        }
        figures.push({ metric: `keyword p50 ${n / 1000}k`, value: ms(quantile(kw, 0.5)), unit: 'ms', target: `≤ ${TARGET_P50_MS} ms (hybrid)`, pass: quantile(kw, 0.5) <= TARGET_P50_MS });
        figures.push({ metric: `keyword p95 ${n / 1000}k`, value: ms(quantile(kw, 0.95)), unit: 'ms', target: `≤ ${TARGET_P95_MS} ms (hybrid)`, pass: quantile(kw, 0.95) <= TARGET_P95_MS });
        figures.push({ metric: `keyword CPU per query ${n / 1000}k`, value: ms(cpuPer(kwTexts, (q) => reader.keywordSearch(q, K))), unit: 'ms CPU (mean)' });
        figures.push({ metric: `keyword filtered p50 ${n / 1000}k`, value: ms(quantile(kwFiltered, 0.5)), unit: 'ms (scope filter + excludes)' });
        figures.push({ metric: `keyword filtered p95 ${n / 1000}k`, value: ms(quantile(kwFiltered, 0.95)), unit: 'ms (scope filter + excludes)' });
      }
      // Vector: the store's matrix scan.
      const queries = Array.from({ length: VECTOR_QUERIES }, () => randomUnit(rand, dim));
      const [, loadMs] = time(() => reader.vectorSearch([queries[0]], K));
      figures.push({ metric: `vector matrix load ${tag}`, value: ms(loadMs), unit: 'ms (first search after open / after a re-index)' });
      const single = queries.map((q) => time(() => reader.vectorSearch([q], K))[1]);
      const batched: number[] = [];
      for (let i = 0; i + BATCH <= queries.length; i += BATCH) batched.push(time(() => reader.vectorSearch(queries.slice(i, i + BATCH), K))[1]);
      const filtered = queries.slice(0, 50).map((q) => time(() => reader.vectorSearch([q], K, { cwd: '/elsewhere', excludeChunkIds: [1, 2, 3] }))[1]);
      figures.push({ metric: `vector p50 ${tag}`, value: ms(quantile(single, 0.5)), unit: 'ms', target: `≤ ${TARGET_P50_MS} ms (hybrid)`, pass: quantile(single, 0.5) <= TARGET_P50_MS });
      figures.push({ metric: `vector p95 ${tag}`, value: ms(quantile(single, 0.95)), unit: 'ms', target: `≤ ${TARGET_P95_MS} ms (hybrid)`, pass: quantile(single, 0.95) <= TARGET_P95_MS });
      figures.push({ metric: `vector ${BATCH} queries p50 ${tag}`, value: ms(quantile(batched, 0.5)), unit: 'ms' });
      figures.push({ metric: `vector ${BATCH} queries p95 ${tag}`, value: ms(quantile(batched, 0.95)), unit: 'ms' });
      figures.push({ metric: `vector CPU per query ${tag}`, value: ms(cpuPer(queries, (q) => reader.vectorSearch([q], K))), unit: 'ms CPU (mean)' });
      const groups: Float32Array[][] = [];
      for (let i = 0; i + BATCH <= queries.length; i += BATCH) groups.push(queries.slice(i, i + BATCH));
      figures.push({ metric: `vector CPU per ${BATCH}-query call ${tag}`, value: ms(cpuPer(groups, (g) => reader.vectorSearch(g, K))), unit: 'ms CPU (mean)' });
      figures.push({ metric: `vector filtered p50 ${tag}`, value: ms(quantile(filtered, 0.5)), unit: 'ms (scope filter + excludes)' });
      // The plain-JS fallback of the same scan.
      const js = openStoreReader(path, { scanMethod: 'js' });
      js.vectorSearch([queries[0]], K);
      const jsSingle = queries.slice(0, JS_FALLBACK_QUERIES).map((q) => time(() => js.vectorSearch([q], K))[1]);
      const jsBatched: number[] = [];
      for (let i = 0; i + BATCH <= JS_FALLBACK_QUERIES; i += BATCH) jsBatched.push(time(() => js.vectorSearch(queries.slice(i, i + BATCH), K))[1]);
      figures.push({ metric: `vector (JS fallback) CPU per query ${tag}`, value: ms(cpuPer(queries.slice(0, JS_FALLBACK_QUERIES / 2), (q) => js.vectorSearch([q], K))), unit: 'ms CPU (mean)' });
      figures.push({ metric: `vector (JS fallback) p50 ${tag}`, value: ms(quantile(jsSingle, 0.5)), unit: 'ms' });
      figures.push({ metric: `vector (JS fallback) ${BATCH} queries p50 ${tag}`, value: ms(quantile(jsBatched, 0.5)), unit: 'ms' });
      js.close();
      // sqlite-vec alternatives, for the decision record.
      process.stderr.write(`[bench store] ${tag}: sqlite-vec alternatives …\n`);
      const probe = openVecProbe(path, dim, join(opts.workDir, `vec0-${n}-${dim}.sqlite`));
      try {
        const scans = queries.slice(0, SQLITE_VEC_SCAN_QUERIES).map((q) => time(() => probe.scanBlobs([q], K))[1]);
        figures.push({ metric: `sqlite-vec scan p50 ${tag}`, value: ms(quantile(scans, 0.5)), unit: 'ms' });
        const buildVec0 = probe.buildVec0();
        figures.push({ metric: `vec0 build ${tag}`, value: ms(buildVec0), unit: 'ms' });
        const v0 = queries.slice(0, VEC0_QUERIES).map((q) => time(() => probe.knnVec0([q], K))[1]);
        const v0b: number[] = [];
        for (let i = 0; i + BATCH <= VEC0_QUERIES / 2; i += BATCH) v0b.push(time(() => probe.knnVec0(queries.slice(i, i + BATCH), K))[1]);
        figures.push({ metric: `vec0 CPU per query ${tag}`, value: ms(cpuPer(queries.slice(0, VEC0_QUERIES / 2), (q) => probe.knnVec0([q], K))), unit: 'ms CPU (mean)' });
        figures.push({ metric: `vec0 p50 ${tag}`, value: ms(quantile(v0, 0.5)), unit: 'ms' });
        figures.push({ metric: `vec0 p95 ${tag}`, value: ms(quantile(v0, 0.95)), unit: 'ms' });
        figures.push({ metric: `vec0 ${BATCH} queries p50 ${tag}`, value: ms(quantile(v0b, 0.5)), unit: 'ms' });
        // Same answers? (sanity: both are exact brute force)
        const agree = queries.slice(0, 10).map((q) => overlap(probe.knnVec0([q], K)[0], reader.vectorSearch([q], K)[0]));
        figures.push({ metric: `matrix vs vec0 top-${K} agreement ${tag}`, value: ms(agree.reduce((a, b) => a + b, 0) / agree.length), unit: 'fraction' });
      } finally {
        probe.close();
      }
      reader.close();
      rmSync(path, { force: true });
      for (const s of ['-wal', '-shm']) rmSync(path + s, { force: true });
    }
  }
  tokenizerFigures(opts.evalDir, figures, notes);
  const cpu = process.cpuUsage();
  figures.push({ metric: 'peak RSS', value: Math.round(process.resourceUsage().maxRSS / 1024), unit: 'MB' });
  figures.push({ metric: 'CPU time (user + system)', value: Math.round((cpu.user + cpu.system) / 1e6), unit: 's' });
  notes.push('Latencies are wall-clock on a shared 2-core machine: compare methods within one run; CPU time says how much of the wall time was this process.');
  return { name: 'store', about: 'issue 2 item 3: knowledge store search latency (keyword, vector) and the vector-method decision', figures, notes };
}
