/**
 * `active-brain eval prompts <transcripts dir> [--gold FILE] [--json]`: the prompt channel
 * measured on transcripts in time order (eval/prompts.ts) with the effective config; prints a
 * table or one JSON object. Reads the transcripts; writes only a temp dir it removes.
 */
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import { loadConfig } from '../../../config/load.js';
import { loadEmbedder } from '../../../eval/load-embedder.js';
import { evalPrompts, type PromptsReport } from '../../../eval/prompts.js';
import { parsePromptGold } from '../../../eval/prompt-gold.js';
import { goldFlag, overSessions, seedFlag, transcriptsFolder } from './project-eval.js';

export const help = `usage: active-brain eval prompts <transcripts dir> [--gold FILE] [--json] [--model PATH] [--seed N] [--set key=value ...]

The prompt channel, measured on your transcripts in time order: the same replay as
eval pastfix (per project folder, the sessions by their first timestamp, each against a
store of only the earlier ones, through the daemon's pipeline and the hook's gates; soak
counts as would-fire), read at each prompt the hook runs for: the offer it would show there,
or its reason for silence (and, when the cache held no offer, the daemon's silence).
Prompts a resumed or forked session file repeats from an earlier one are history: no hook.

--gold FILE: a judged prompt gold for one project of the folder (format, scoring and rubric:
../shared/eval/claude-code-real/prompt-gold/README.md). Each gold prompt is scored: hit (an
offer shown there whose chunk comes from one of its sources, not from a candidate judged N),
miss, silent (needs nothing, nothing shown), wrong-offer; each other shown offer is
unjudged-offer.
  gold.recall       hits / prompts that need the past
  gold.precision    right / (right + wrong) shown offers at judged prompts (0 when none)
  gold.offer_rate   shown offers / typed prompts (all prompts of the project, not only judged)
  gold.events       one per gold prompt and per other shown offer, with the hook's reason
                    when silent (--json)
A gold of another project, or naming a prompt that does not exist, is an error (exit 2).

--json: {"projects","sessions","typed_prompts","hooked_prompts","shown_offers","offer_rate",
"by_type","by_reason","by_daemon_silence","self_lineage_offers","offers":[…],"gold":{…}|null}.
Options: --model PATH (a local transformers.js model folder), --seed N (default 1).
Exit 0 measured · 2 usage · 3 no transcripts there or the model does not load.`;

function table(r: PromptsReport): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const kv = (m: Record<string, number>) => Object.entries(m).sort((a, b) => b[1] - a[1]).map(([k, v]) => `${k} ${v}`).join(' · ') || '—';
  const lines = [
    `projects ${r.projects} · sessions ${r.sessions} · typed prompts ${r.typed_prompts} (hook ran at ${r.hooked_prompts})`,
    `shown offers ${r.shown_offers} (${pct(r.offer_rate)} of typed prompts) · by type: ${kv(r.by_type)} · from the own lineage ${r.self_lineage_offers}`,
    `the hook at prompts: ${kv(r.by_reason)}`,
    `behind an empty cache, the daemon: ${kv(r.by_daemon_silence)}`,
  ];
  const g = r.gold;
  if (g) {
    lines.push(
      `judged gold (${g.project}, ${g.items} prompts): need the past ${g.needs_past} · hit ${g.hits} (recall ${pct(g.recall)}) · missed ${g.misses}`,
      `shown offers ${g.shown_offers}: right ${g.right_offers} · wrong ${g.wrong_offers} · unjudged ${g.unjudged_offers} · precision ${g.right_offers + g.wrong_offers ? pct(g.precision) : '— (no offer at a judged prompt)'}`,
    );
    for (const e of g.events) {
      if (e.outcome === 'silent') continue;
      const why = e.handle ? `← ${e.handle}` : `(${e.reason ?? '?'}${e.daemon ? `; daemon ${e.daemon}` : ''})`;
      lines.push(`  ${e.outcome}: ${e.session.slice(0, 8)} ${e.item ?? e.uuid.slice(0, 8)} ${why}`);
    }
  } else for (const o of r.offers) lines.push(`  shown: ${o.session.slice(0, 8)} ${o.uuid.slice(0, 8)} ← ${o.handle} (${o.type} ${o.confidence})`);
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { model: { type: 'string' }, seed: { type: 'string' }, gold: { type: 'string' } });
  if (values.help) {
    process.stdout.write(help + '\n');
    return EXIT.OK;
  }
  const { dir, projects } = transcriptsFolder('eval prompts', positionals);
  const seed = seedFlag(values.seed);
  const gold = goldFlag(values.gold, parsePromptGold);
  const { config } = loadConfig({ flags: values.set });
  const embedder = await loadEmbedder(values.model, values.set);
  try {
    const rep = await overSessions(projects, (onSession) => evalPrompts(dir, { config, embedder, seed, gold, onSession }));
    if (values.json) printJson(rep);
    else process.stdout.write(table(rep) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}
