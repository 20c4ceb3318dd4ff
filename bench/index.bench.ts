/**
 * Indexing benchmark (issue 2 target: ≥ 200 chunks/s with the offline model; report peak
 * RSS). A generated Markdown corpus (2,000 notes; 300 with --quick) is indexed through the
 * real indexer, store writer and embedder: cold index (chunks/s), then a no-change re-run
 * (the incremental fast path, files/s), then 10% of the files edited (re-index of changes).
 * When the eval data is present, the real Claude Code transcripts in
 * `${evalDir}/claude-code/projects` are indexed too. Everything is written under
 * opts.workDir and removed afterwards.
 */
import { mkdirSync, rmSync, utimesSync, writeFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cpus, loadavg } from 'node:os';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema, type Config } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import type { Embedder } from '../embed/types.js';
import { openStoreWriter } from '../store/sqlite-store.js';
import { runIndex, type IndexSummary } from '../indexer/indexer.js';
import { prng } from './synthetic.js';

const NOTES_FULL = 2000;
const NOTES_QUICK = 300;
const TARGET_CHUNKS_PER_S = 200;
/** Share of notes edited for the "changed files" pass. */
const EDIT_SHARE = 0.1;

const WORDS = (
  'postgres pool connection timeout idle keepalive socket reset retry backoff migration index table schema query ' +
  'react hook effect state render memo component props router cache invalidate docker image layer build compose ' +
  'volume network port container registry deploy kubernetes pod service ingress test fixture assertion coverage ' +
  'flaky snapshot runner parallel pipeline artifact release typescript generic interface union compiler module ' +
  'bundle python virtualenv package wheel dependency lockfile version upgrade resolver rust borrow lifetime trait ' +
  'async future channel mutex thread panic auth token session cookie oauth refresh scope permission role log ' +
  'metric trace span alert dashboard latency throughput error rate memory leak heap profile git branch merge'
).split(' ');


/** A note of 2–6 sections with paragraphs of varied length, sometimes a code fence. */
function note(i: number, rnd: () => number): string {
  const w = () => WORDS[Math.floor(rnd() * WORDS.length)];
  const sentence = () => {
    const n = 6 + Math.floor(rnd() * 14);
    const s = Array.from({ length: n }, w).join(' ');
    return s[0].toUpperCase() + s.slice(1) + '.';
  };
  const para = () => Array.from({ length: 1 + Math.floor(rnd() * 5) }, sentence).join(' ');
  const parts = [`# Note ${i}: ${w()} ${w()}`, '', para(), ''];
  const sections = 2 + Math.floor(rnd() * 5);
  for (let s = 0; s < sections; s++) {
    parts.push(`## ${w()} ${w()}`, '');
    const paras = 1 + Math.floor(rnd() * 4);
    for (let p = 0; p < paras; p++) parts.push(para(), '');
    if (rnd() < 0.2) parts.push('```sh', `${w()} --${w()} ${w()}`, `${w()} ${w()}`, '```', '');
  }
  return parts.join('\n');
}

export function writeCorpus(dir: string, n: number): void {
  const rnd = prng(42);
  for (let i = 0; i < n; i++) {
    const sub = join(dir, `area-${i % 20}`);
    mkdirSync(sub, { recursive: true });
    writeFileSync(join(sub, `note-${i}.md`), note(i, rnd));
  }
}

const rssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** One indexer run, plus the CPU seconds it used (user + system: independent of machine load). */
async function indexOnce(storePath: string, embedder: Embedder, config: Config): Promise<IndexSummary & { cpu_s: number }> {
  const store = openStoreWriter(storePath);
  const cpu0 = process.cpuUsage();
  try {
    const s = await runIndex({ store, embedder, config });
    const cpu = process.cpuUsage(cpu0);
    return { ...s, cpu_s: (cpu.user + cpu.system) / 1e6 };
  } finally {
    store.close();
  }
}

const perCpuSecond = (chunks: number, cpu: number) => (cpu > 0 ? Math.round(chunks / cpu) : 0);

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const dir = join(opts.workDir, 'index-bench');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const notesDir = join(dir, 'notes');
  const n = opts.quick ? NOTES_QUICK : NOTES_FULL;
  writeCorpus(notesDir, n);
  const rssBefore = rssMb();
  const embedder = await createEmbedder(config.embedding);
  const rssModel = rssMb();
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    const storePath = join(dir, 'notes.sqlite');
    const store = openStoreWriter(storePath);
    store.ensureRegion('notes', 'global');
    store.addSource('notes', notesDir, 'notes');
    store.close();

    const cold = await indexOnce(storePath, embedder, config);
    figures.push(
      { metric: `cold index: ${cold.indexed} notes → ${cold.chunks_added} chunks`, value: cold.chunks_per_s, unit: 'chunks/s', target: `≥ ${TARGET_CHUNKS_PER_S}`, pass: cold.chunks_per_s >= TARGET_CHUNKS_PER_S },
      { metric: 'cold index: wall time', value: cold.seconds, unit: 's' },
      { metric: 'cold index: chunks per CPU-second (load-independent)', value: perCpuSecond(cold.chunks_added, cold.cpu_s), unit: 'chunks/CPU-s' },
    );
    const noop = await indexOnce(storePath, embedder, config);
    figures.push({ metric: `no-change re-run (${noop.unchanged} unchanged)`, value: noop.seconds, unit: 's' });

    const rnd = prng(7);
    const edited = Math.round(n * EDIT_SHARE);
    const later = new Date(Date.now() + 60_000);
    for (let k = 0; k < edited; k++) {
      const i = Math.floor((k / edited) * n);
      const file = join(notesDir, `area-${i % 20}`, `note-${i}.md`);
      writeFileSync(file, note(i, rnd) + `\n## Edit ${k}\n\nChanged in the benchmark.\n`);
      utimesSync(file, later, later);
    }
    const changed = await indexOnce(storePath, embedder, config);
    figures.push({ metric: `${changed.indexed} changed notes re-indexed (${changed.unchanged} unchanged)`, value: changed.seconds, unit: 's' });

    const projects = opts.evalDir ? join(opts.evalDir, 'claude-code', 'projects') : null;
    if (projects && existsSync(projects)) {
      const tPath = join(dir, 'transcripts.sqlite');
      const ts = openStoreWriter(tPath);
      ts.ensureRegion('sessions', 'global');
      ts.addSource('sessions', projects, 'transcripts');
      ts.close();
      const t = await indexOnce(tPath, embedder, config);
      figures.push(
        { metric: `real transcripts: ${t.indexed} sessions → ${t.chunks_added} chunks`, value: t.chunks_per_s, unit: 'chunks/s' },
        { metric: 'real transcripts: wall time (incl. parsing)', value: t.seconds, unit: 's' },
      );
      if (Object.keys(t.warnings).length) notes.push(`transcripts warnings: ${JSON.stringify(t.warnings)}`);
    } else {
      notes.push('real transcripts: skipped (eval data absent: set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)');
    }
    figures.push({ metric: 'peak RSS (whole process, model loaded)', value: rssMb(), unit: 'MB' });
    notes.push(
      `corpus: ${n} generated Markdown notes (2–6 sections, varied paragraphs, some code fences), seed 42`,
      `RSS before model ${rssBefore} MB, after model load ${rssModel} MB (process.resourceUsage().maxRSS)`,
      `config: maxChunkChars ${config.indexer.maxChunkChars}, embedding.batchSize ${config.embedding.batchSize}, indexer.embedFlushChunks ${config.indexer.embedFlushChunks}`,
      'chunks/s = chunks written / wall time of the run (walk, read, hash, chunk, embed, store); on a shared, loaded machine the wall figure falls with the CPU share the process gets, so chunks per CPU-second (process.cpuUsage) is reported too',
      `load average at the end: ${loadavg().map((l) => l.toFixed(1)).join(' ')} on ${cpus().length} cores`,
    );
  } finally {
    await embedder.dispose();
    rmSync(dir, { recursive: true, force: true });
  }
  return { name: 'index', about: 'issue 2: incremental indexer throughput with the offline model', figures, notes };
}
