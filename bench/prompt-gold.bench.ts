/**
 * The prompt channel on other people's projects, scored against a judged prompt gold (issue
 * 39): for every project of <eval>/claude-code-real/projects that has a
 * prompt-gold/<project>.json, the same procedure as `active-brain eval prompts <project> --gold
 * <gold> --json` (eval/prompts.ts: sessions in time order, each replayed live through the
 * daemon's pipeline and the hook's gates against a store of only the earlier sessions, read at
 * each prompt the hook runs for) with the default config and the offline model. Figures per
 * project against the targets: recall of the prompts that need the past, precision of
 * shown offers at judged prompts, offers per typed prompt, offers from the own lineage; and the
 * three pooled. Reads the eval set; writes only its work dir. Skipped (with a note) when the set
 * is absent.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BenchOptions, BenchResult, Figure } from './types.js';
import { ConfigSchema } from '../config/schema.js';
import { createEmbedder } from '../embed/embedder.js';
import { evalPrompts } from '../eval/prompts.js';
import { parsePromptGold } from '../eval/prompt-gold.js';

/** Issue 39's targets. */
const TARGET_RECALL = 0.5;
const TARGET_PRECISION = 0.7;
const TARGET_OFFER_RATE = 0.08;

const ratio = (a: number, b: number) => (b ? Math.round((a / b) * 10000) / 10000 : 0);

export async function run(opts: BenchOptions): Promise<BenchResult> {
  const about = 'issue 39: the prompt channel on real projects of other people, scored against a judged prompt gold (eval prompts --gold)';
  const base = opts.evalDir ? join(opts.evalDir, 'claude-code-real') : null;
  if (!base || !existsSync(join(base, 'prompt-gold'))) {
    return { name: 'prompt-gold', about, figures: [], notes: [], skipped: 'claude-code-real/prompt-gold absent (set ACTIVE_BRAIN_EVAL_DIR or --eval-dir)' };
  }
  const golds = readdirSync(join(base, 'prompt-gold')).filter((f) => f.endsWith('.json')).sort();
  const config = ConfigSchema.parse({ embedding: { localModelPath: opts.modelPath } });
  const embedder = await createEmbedder(config.embedding);
  const figures: Figure[] = [];
  const notes: string[] = [];
  const pool = { needs: 0, hits: 0, right: 0, wrong: 0, shown: 0, typed: 0, unjudged: 0 };
  try {
    for (const g of golds) {
      const gold = parsePromptGold(readFileSync(join(base, 'prompt-gold', g), 'utf8'), g);
      const dir = join(base, 'projects', gold.project);
      if (!existsSync(dir)) {
        notes.push(`${gold.project}: no transcripts folder, skipped`);
        continue;
      }
      const t0 = performance.now();
      const r = await evalPrompts(dir, { config, embedder, seed: 1, gold, workParent: opts.workDir });
      const s = r.gold!;
      const p = gold.project;
      pool.needs += s.needs_past;
      pool.hits += s.hits;
      pool.right += s.right_offers;
      pool.wrong += s.wrong_offers;
      pool.shown += r.shown_offers;
      pool.typed += r.typed_prompts;
      pool.unjudged += s.unjudged_offers;
      const judged = s.right_offers + s.wrong_offers;
      figures.push(
        { metric: `${p}: sessions / typed prompts / judged prompts / prompts that need the past`, value: `${r.sessions} / ${r.typed_prompts} / ${s.judged_prompts} / ${s.needs_past}` },
        { metric: `${p}: recall of the prompts that need the past (hit / miss)`, value: `${s.recall} (${s.hits} / ${s.misses})`, target: `≥ ${TARGET_RECALL}`, pass: s.recall >= TARGET_RECALL },
        { metric: `${p}: precision of shown offers at judged prompts (right / wrong)`, value: judged ? `${s.precision} (${s.right_offers} / ${s.wrong_offers})` : 'no offer shown', target: `≥ ${TARGET_PRECISION}`, pass: judged ? s.precision >= TARGET_PRECISION : undefined },
        { metric: `${p}: shown offers per typed prompt (shown / unjudged)`, value: `${r.offer_rate} (${r.shown_offers} / ${s.unjudged_offers})`, target: `≤ ${TARGET_OFFER_RATE}`, pass: r.offer_rate <= TARGET_OFFER_RATE },
        { metric: `${p}: shown offers from the session's own lineage`, value: r.self_lineage_offers, target: '0', pass: r.self_lineage_offers === 0 },
        { metric: `${p}: the hook at the prompts that need the past (reason; daemon silence)`, value: missReasons(s.events) },
        { metric: `${p}: whole run`, value: Math.round(performance.now() - t0), unit: 'ms' },
      );
    }
  } finally {
    await embedder.dispose();
  }
  if (pool.typed) {
    const judged = pool.right + pool.wrong;
    figures.push(
      { metric: 'pooled: recall (hit / need the past)', value: `${ratio(pool.hits, pool.needs)} (${pool.hits} / ${pool.needs})`, target: `≥ ${TARGET_RECALL}`, pass: ratio(pool.hits, pool.needs) >= TARGET_RECALL },
      { metric: 'pooled: precision (right / wrong)', value: judged ? `${ratio(pool.right, judged)} (${pool.right} / ${pool.wrong})` : 'no offer shown', target: `≥ ${TARGET_PRECISION}`, pass: judged ? ratio(pool.right, judged) >= TARGET_PRECISION : undefined },
      { metric: 'pooled: shown offers per typed prompt (shown / typed, unjudged)', value: `${ratio(pool.shown, pool.typed)} (${pool.shown} / ${pool.typed}, ${pool.unjudged})`, target: `≤ ${TARGET_OFFER_RATE}`, pass: ratio(pool.shown, pool.typed) <= TARGET_OFFER_RATE },
    );
  }
  notes.push(
    'Procedure: each session replayed as live against a store of only the earlier ones; at each prompt the hook runs for, what it would show (printed live, or would-fire in soak) or its reason; scored as claude-code-real/prompt-gold/README.md says. Reproduce one: active-brain eval prompts <eval>/claude-code-real/projects/<p> --gold <eval>/claude-code-real/prompt-gold/<p>.json --json --model .models/offline-glove-sif',
    'The gold is small (14 prompts that need the past over the three projects, 10 of them in one session of -home-ken): a count, not a rate. docs/OFFERS.md "Prompt offers" says what was measured and why the channel stays silent.',
  );
  return { name: 'prompt-gold', about, figures, notes };
}

/** "reason; daemon silence × n" over the gold prompts that need the past and were missed. */
function missReasons(events: ReadonlyArray<{ outcome: string; needs_past: boolean | null; reason: string | null; daemon: string | null }>): string {
  const n = new Map<string, number>();
  for (const e of events) {
    if (!e.needs_past || e.outcome === 'hit') continue;
    const k = e.daemon ? `${e.reason}; ${e.daemon}` : (e.reason ?? 'shown, wrong');
    n.set(k, (n.get(k) ?? 0) + 1);
  }
  return [...n].sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} × ${v}`).join(', ') || '—';
}
