/**
 * Replay benchmark (issue 7): the daemon's pipeline and the hook's gates over the real
 * Claude Code transcripts in `${evalDir}/claude-code` (eval/replay.ts), leave-one-out.
 *
 * A replay with no store is trivially silent, so each main session is replayed against a
 * store of the OTHER main transcripts of that folder (built once through the real indexer,
 * indexer/indexer.ts, one region per transcript so the cross-region rule can pass; then per
 * session a copy with that session's source removed). Its subagent transcripts
 * (`<session>/subagents/*.jsonl`) are replayed against the same store.
 * Targets: zero offers in subagent / sidechain sessions; fire rate ≤ 15% of the exchanges of
 * main sessions. Stores live in opts.workDir.
 */
import { copyFileSync, existsSync } from 'node:fs';
import { basename, join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import { runIndex } from '../indexer/indexer.js';
import { findTranscripts, type TranscriptFile } from '../eval/replay-read.js';
import { replayTranscripts, summarize, type SessionSummary } from '../eval/replay.js';
import type { ReplayRow } from '../eval/replay-rows.js';

/** Target: offers over main-session exchanges. */
export const MAX_FIRE_RATE = 0.15;
const SEED = 1;

/** A region name for one transcript file (the store's name rule: letters, digits, . _ -). */
function regionFor(f: TranscriptFile): string {
  return `t-${basename(f.path, '.jsonl').replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 40)}`;
}

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const base = { name: 'replay', about: 'issue 7: replay of real Claude Code transcripts (leave-one-out store)' };
  const dir = opts.evalDir ? join(opts.evalDir, 'claude-code') : null;
  if (!dir || !existsSync(dir)) {
    return { ...base, figures: [], notes: [], skipped: `Claude Code transcripts not found (${dir ?? 'no eval dir: set ACTIVE_BRAIN_EVAL_DIR or pass --eval-dir'})` };
  }
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  const t0 = performance.now();
  try {
    const files = findTranscripts(dir);
    const mains = files.filter((f) => !f.subagent);
    const subsOf = (m: TranscriptFile) => {
      const prefix = m.rel.replace(/\.jsonl$/, '') + '/subagents/';
      return files.filter((f) => f.subagent && f.rel.startsWith(prefix));
    };
    const orphans = files.filter((f) => f.subagent && !mains.some((m) => subsOf(m).includes(f)));

    // One store of every main transcript, through the real indexer.
    const full = join(opts.workDir, 'all.sqlite');
    const w = openStoreWriter(full);
    let chunks = 0;
    try {
      for (const m of mains) w.addSource(w.ensureRegion(regionFor(m), 'global').name, m.path, 'transcripts');
      const summary = await runIndex({ store: w, embedder, config });
      chunks = summary.chunks_total;
    } finally {
      w.close();
    }
    const indexS = (performance.now() - t0) / 1000;

    const storeChunks: number[] = [];
    const replayAll = async (settleMs: number | null) => {
      const rows: ReplayRow[] = [];
      const perSession: SessionSummary[] = [];
      let synthetic = 0;
      let skipped = 0;
      const replayOne = async (group: TranscriptFile[], storePath: string) => {
        const reader = openStoreReader(storePath);
        try {
          if (settleMs === null) storeChunks.push(reader.info().chunks);
          const r = await replayTranscripts(group, { config, embedder, store: reader, seed: SEED, settleMs, home: join(opts.workDir, 'home') });
          rows.push(...r.rows);
          perSession.push(...r.summary.per_session);
          synthetic += r.summary.synthetic_times;
          skipped += r.summary.skipped_lines;
        } finally {
          reader.close();
        }
      };
      for (const [i, m] of mains.entries()) await replayOne([m, ...subsOf(m)], looStores[i]);
      if (orphans.length > 0) await replayOne(orphans, full);
      return summarize(rows, perSession, { synthetic, skipped, seed: SEED });
    };
    const looStores = mains.map((m, i) => {
      const loo = join(opts.workDir, `loo-${i}.sqlite`);
      copyFileSync(full, loo);
      const lw = openStoreWriter(loo);
      try {
        lw.removeSource(m.path);
      } finally {
        lw.close();
      }
      return loo;
    });
    const s = await replayAll(null);
    const settled = await replayAll(config.daemon.settleMs);
    const totalS = (performance.now() - t0) / 1000;

    const figures: Figure[] = [
      { metric: 'sessions replayed (main / sidechain)', value: `${s.main_sessions} / ${s.sidechain_sessions}` },
      { metric: 'exchanges (main sessions)', value: s.main_exchanges },
      { metric: 'exchanges (sidechain sessions)', value: s.sidechain_exchanges },
      { metric: 'offers in subagent / sidechain sessions', value: s.sidechain_offers, target: '0', pass: s.sidechain_offers === 0 },
      { metric: 'would-fire offers', value: s.would_fire },
      { metric: 'fire rate (would-fire / main-session exchanges)', value: s.fire_rate, target: `≤ ${MAX_FIRE_RATE}`, pass: s.fire_rate <= MAX_FIRE_RATE },
      { metric: "offers past the hook's gates (soak: would-fire)", value: s.printed },
      { metric: 'offers by type', value: Object.entries(s.by_type).map(([k, v]) => `${k} ${v}`).join(', ') },
      { metric: 'triggers fired', value: Object.entries(s.by_trigger).map(([k, v]) => `${k} ${v}`).join(', ') || 'none' },
      { metric: 'silence reasons', value: Object.entries(s.by_silence).map(([k, v]) => `${k} ${v}`).join(', ') || 'none' },
      { metric: `with provisional decisions at settle points (${config.daemon.settleMs} ms): exchanges (main)`, value: settled.main_exchanges },
      { metric: 'with provisional decisions: sidechain offers', value: settled.sidechain_offers, target: '0', pass: settled.sidechain_offers === 0 },
      { metric: 'with provisional decisions: fire rate', value: settled.fire_rate, target: `≤ ${MAX_FIRE_RATE}`, pass: settled.fire_rate <= MAX_FIRE_RATE },
      { metric: 'leave-one-out store size (chunks, min–max)', value: storeChunks.length ? `${Math.min(...storeChunks)}–${Math.max(...storeChunks)}` : '0' },
      { metric: 'replay time (index + all replays)', value: Math.round(totalS * 10) / 10, unit: 's' },
    ];
    const notes = [
      `${mains.length} main transcripts and ${files.length - mains.length} subagent transcripts under ${dir}; model ${embedder.modelId}; seed ${SEED}; default config (every mode in soak).`,
      `Store: all main transcripts indexed once with the real indexer (${chunks} chunks, one region per transcript, ${indexS.toFixed(1)} s); each main session replayed against a copy without its own source (leave-one-out), its subagents against the same copy.`,
      'Main figures: exchanges are whole prompt→reply turns. Real sessions here are long agentic turns: few exchanges, most inside the warm-up, so the fire-rate figure has little power on this folder.',
      `Provisional decisions: where a finished-looking reply pauses longer than daemon.settleMs (by the lines' own timestamps), the live daemon decides on the still-open exchange for the offer cache and keeps it open; the exchange is recorded once, when its turn ends. Triggers over all decisions: ${Object.entries(settled.by_trigger).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
      `Hook verdicts on offers: ${Object.entries(s.by_hook).map(([k, v]) => `${k} ${v}`).join(', ') || 'none'}.`,
      ...(s.synthetic_times ? [`${s.synthetic_times} exchanges had no timestamp (synthetic clock).`] : []),
    ];
    return { ...base, figures, notes };
  } finally {
    await embedder.dispose();
  }
}
