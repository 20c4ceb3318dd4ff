/**
 * Uptake without labels on real projects (issue 37): for every project of
 * <eval>/claude-code-real/projects, the project's whole history indexed by the real indexer
 * into a temp store, then `backtest --since all` over it (eval/backtest.ts runBacktest: the
 * daemon's pipeline and the hook's gates; a Past fix only from episodes met before the step)
 * with the default config and the offline model. Figures: the Past fixes the hook would have
 * shown, how many the session then confirmed (ran the offered fix and got the failing intent
 * through: core/uptake.ts) and the tool steps between (an upper bound of what the offers
 * could have saved) — beside a control: the same offers judged against another offer's fix
 * (what "confirmed" gives by chance). Reads the eval set; writes only its work dir. Skipped
 * (with a note) when the set is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { runIndex } from '../indexer/indexer.js';
import { openStoreReader, openStoreWriter } from '../store/sqlite-store.js';
import { runBacktest } from '../eval/backtest.js';
import { judgedRow, rowUptake } from '../eval/backtest-uptake.js';
import { readTimedExchanges } from '../eval/replay-read.js';
import { offeredFix } from '../core/uptake.js';
import { handleSession, parseGold, type GoldItem } from '../eval/pastfix-gold.js';

const median = (xs: number[]) => {
  if (!xs.length) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const about = 'issue 37: uptake without labels — Past fixes the session then confirmed (ran the fix, got the failing intent through), backtest --since all on real projects';
  const base = opts.evalDir ? join(opts.evalDir, 'claude-code-real', 'projects') : null;
  if (!base || !existsSync(base)) return { name: 'uptake', about, figures: [], notes: [], skipped: 'claude-code-real absent (set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)' };
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  const figures: Figure[] = [];
  const notes: string[] = [];
  try {
    for (const p of readdirSync(base).sort()) {
      const dir = join(base, p);
      const t0 = performance.now();
      const storePath = join(opts.workDir, `${p}.sqlite`);
      const w = openStoreWriter(storePath);
      w.ensureRegion('history', 'global');
      w.addSource('history', dir, 'transcripts');
      try {
        // Every session of the set has ended (the copy's mtimes say nothing about that).
        await runIndex({ store: w, embedder, config, now: () => Number.MAX_SAFE_INTEGER });
      } finally {
        w.close();
      }
      const store = openStoreReader(storePath);
      try {
        const b = await runBacktest({ config, embedder, store, root: dir, sinceMs: null, now: Date.now(), home: join(opts.workDir, 'home'), seed: 1 });
        const f = b.uptakeFigures;
        const judged = b.rows.filter(judgedRow);
        const steps = judged.map((r) => b.uptake.get(r)).filter((u) => u?.confirmed).map((u) => u!.steps_between ?? 0);
        const byChannel = (c: string) => {
          const rs = judged.filter((r) => r.channel === c);
          return `${rs.filter((r) => b.uptake.get(r)?.confirmed).length} / ${rs.length}`;
        };
        // Control: each offer judged against the next offer's fix that is other advice — other
        // acting keys and another place (rotated).
        const episodes = store.fixEpisodes();
        const epOf = new Map(episodes.map((e) => [e.chunkId, e]));
        const advice = (fix: string) => {
          const f = offeredFix(fix, []);
          return `${[...f.keys].sort().join('|')}\u0000${f.place ?? ''}`;
        };
        const otherAdvice = (a: string, b: string) => {
          const [ka, pa] = a.split('\u0000');
          const [kb, pb] = b.split('\u0000');
          return ka !== kb && pa !== pb;
        };
        let control = 0;
        let controlled = 0;
        const stepsByFile = new Map<string, Awaited<ReturnType<typeof readTimedExchanges>>['steps']>();
        for (const [i, r] of judged.entries()) {
          const own = epOf.get(r.offer!.chunkId);
          const other = judged.map((_, k) => judged[(i + 1 + k) % judged.length]).map((x) => epOf.get(x.offer!.chunkId)).find((e) => e && own && otherAdvice(advice(e.fix), advice(own.fix)));
          if (!other) continue;
          const path = b.files.find((x) => x.rel === r.file)?.path;
          if (!path) continue;
          if (!stepsByFile.has(r.file)) stepsByFile.set(r.file, (await readTimedExchanges(path)).steps);
          controlled++;
          if (rowUptake(r, stepsByFile.get(r.file)!, other).confirmed) control++;
        }
        // Against the judged gold (claude-code-real/gold): confirmed among the offers the
        // reviewer judged right (a recurrence, the fix from one of its sources) and wrong.
        const goldFile = join(opts.evalDir!, 'claude-code-real', 'gold', `${p}.json`);
        let goldLine = 'no gold';
        if (existsSync(goldFile)) {
          const items = new Map<string, GoldItem>(parseGold(readFileSync(goldFile, 'utf8'), goldFile).items.map((it) => [it.tool_use_id, it]));
          const tally = { right: 0, rightConfirmed: 0, wrong: 0, wrongConfirmed: 0, unjudged: 0, unjudgedConfirmed: 0 };
          for (const r of judged.filter((x) => x.channel === 'tool')) {
            const it = r.tool_use_id ? items.get(r.tool_use_id) : undefined;
            const c = b.uptake.get(r)?.confirmed ? 1 : 0;
            const src = handleSession(r.offer!.handle);
            const fromSource = !!it && it.sources.some((x) => x.session === src);
            const kind = !it ? 'unjudged' : it.verdict === 'recurrence' && fromSource ? 'right' : it.verdict === 'recurrence' && it.look_alikes.includes(src) ? 'unjudged' : 'wrong';
            tally[kind]++;
            tally[`${kind}Confirmed`] += c;
          }
          goldLine = `${tally.rightConfirmed} / ${tally.right} · ${tally.wrongConfirmed} / ${tally.wrong} · ${tally.unjudgedConfirmed} / ${tally.unjudged}`;
        }
        figures.push(
          { metric: `${p}: transcripts / main sessions / tool steps`, value: `${b.files.length} / ${b.summary.main_sessions} / ${b.summary.tool_steps}` },
          { metric: `${p}: Past fixes shown (prompt + tool channel) → confirmed by the session`, value: `${f.confirmed_offers} / ${f.past_fix_offers} (${f.past_fix_offers ? Math.round((100 * f.confirmed_offers) / f.past_fix_offers) : 0}%)` },
          { metric: `${p}: confirmed / shown, tool channel · prompt channel`, value: `${byChannel('tool')} · ${byChannel('prompt')}` },
          { metric: `${p}: control — the same offers judged against another offer's fix → confirmed`, value: `${control} / ${controlled}` },
          { metric: `${p}: confirmed among the tool offers the gold judges right · wrong · not judged (or from an unconfirmed look-alike)`, value: goldLine },
          { metric: `${p}: steps between offer and success, confirmed offers (sum · median): an upper bound of steps saved`, value: `${f.steps_saved} · ${median(steps)}` },
          { metric: `${p}: index + backtest`, value: Math.round(performance.now() - t0), unit: 'ms' },
        );
      } finally {
        store.close();
      }
    }
  } finally {
    await embedder.dispose();
  }
  notes.push(
    'Procedure: the whole project indexed into one store, then backtest --since all over it (eval/backtest.ts runBacktest); a Past fix is offered only from episodes met before the step, a session never its own. "Confirmed by the session": within 40 tool steps after the offer the session ran the offered fix\'s acting keys (a place fix: the failing intent in that place) and the failing intent then succeeded (core/uptake.ts). In history nobody saw the offers: a confirmed offer is one whose advice the session found on its own — the figure says the offer was right for that session, and the steps between are what it could have saved at most.',
    'Against the gold (claude-code-real/gold/<project>.json, a reviewer\'s judgement of each recurring failure): a right offer is one at a `recurrence` whose fix comes from one of the item\'s source sessions; wrong, at any other judged verdict. Confirmation is no label: a right offer can go unconfirmed (the session took another way), a wrong one confirmed (the same command happened to succeed).',
    'Control: each offer judged against another shown offer\'s fix that is other advice (the next one with other acting keys and another place): how often "confirmed" happens by chance in the same sessions. Offers with no such other offer in the project are left out of it.',
  );
  return { name: 'uptake', about, figures, notes };
}
