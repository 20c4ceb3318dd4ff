/**
 * `active-brain eval pastfix <transcripts dir> [--json]`: the Past fix recurrence benchmark
 * (eval/pastfix.ts) with the effective config; prints a table or one JSON object. Reads the
 * transcripts; writes only a temp dir it removes.
 */
import { parseFlags, printJson, EXIT, UserError } from '../../command.js';
import { loadConfig } from '../../../config/load.js';
import { loadEmbedder } from '../../../eval/load-embedder.js';
import { evalPastfix, type PastfixReport } from '../../../eval/pastfix.js';
import { parseGold } from '../../../eval/pastfix-gold.js';
import { goldFlag, overSessions, seedFlag, transcriptsFolder } from './project-eval.js';
import { PASTFIX_RULES, PASTFIX_VALUES, ablateRules, varyValues } from '../../../shared/pastfix-rules.js';

export const help = `usage: active-brain eval pastfix <transcripts dir> [--gold FILE] [--json] [--model PATH] [--seed N] [--set key=value ...]
                             [--ablate RULE[,RULE…]] [--vary NAME=N[,NAME=N…]]
       active-brain eval pastfix --rules [--json]

The Past fix at the failure, measured on your transcripts in time order. For each project
folder (<dir>/<project>/<session>.jsonl, as under ~/.claude/projects) the sessions are taken
by their first timestamp; before each one the knowledge store holds only the earlier ones,
indexed by the real indexer (exchanges and error episodes); the session is then replayed
through the daemon's pipeline and the hook's gates (both channels; every mode's tool channel
as configured, soak counting as would-fire).
Calls a resumed or forked session file repeats from an earlier one are not replayed through
the hook (Claude Code ran none for them); they count as copied_steps. Its repeated prompts
are history too (the daemon reads them, no hook runs).

--gold FILE: a judged gold for one project of the folder (format: the README of
../shared/eval/claude-code-real). Scores each item: hit (the hook showed, at that call or the
next tool event, an offer whose chunk comes from one of the item's sources), late (only a
later daemon decision found one), miss; and each shown offer: right, wrong-offer,
generic-offer, unconfirmed-offer (from an unconfirmed look-alike), unjudged-offer.
  gold.recall_at_failure   hits / hookable recurrences
  gold.precision           right / (right + wrong + generic) shown offers
  gold.offers_per_100_steps, gold.generic_offers, gold.unjudged_offers, gold.rejection_offers
  gold.events              one per gold item and per other shown offer (--json)
A gold of another project, or one naming a call that does not exist, is an error (exit 2).

Without --gold the gold is self-defined: each tool error the hook sees (PostToolUseFailure;
not a <tool_use_error> rejection, which fires no hook) whose error signature matches an
episode of an earlier session — it cannot count what the signature misses.
  recall      recurrences where the hook would show, at that failure or the next tool event,
              an offer whose chunk is an episode with the same signature
  precision   shown tool-channel offers whose episode has the error's signature
  first_seen_offers   shown Past fixes at errors no earlier session met (target 0)
--json: {"sessions","tool_steps","errors","recurrences","recall","precision",
"offers_per_100_steps","first_seen_offers","latency_ms":{…}, "misses":[…],
"replay_offers":[…] (every offer, keys as replay --json "offers"), …}.
--rules: the rules a Past fix is decided by (id, what it means, where it lives) and the values
that were chosen, with their candidates; --json: {"rules":[{"id","means","where"}],"values":{…}}.
--ablate RULE,…: the same run with those rules off (in this process only: the product always
runs them all), to measure what each does. --vary NAME=N,…: the same run with a chosen value
set otherwise (bench/pastfix-lopo.ts chooses each leave-one-project-out). The JSON then says
"ablated" and "varied".
Options: --model PATH (a local transformers.js model folder), --seed N (default 1).
Exit 0 measured · 2 usage · 3 no transcripts there or the model does not load.`;

function table(r: PastfixReport): string {
  const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
  const lines = [
    `projects ${r.projects} · sessions ${r.sessions} · tool steps ${r.tool_steps} · errors the hook sees ${r.errors}`,
    `recurrences ${r.recurrences} (${r.recurrences_resolved} with a resolved earlier episode) · recalled ${r.recalled}`,
    `recall ${pct(r.recall)} (of resolved: ${pct(r.recall_resolved)}) · precision ${pct(r.precision)} (${r.correct_offers}/${r.offers} shown offers)`,
    `offers per 100 tool steps ${r.offers_per_100_steps} · offers on first-seen errors ${r.first_seen_offers}`,
    `recurrences of errors that fire no hook (<tool_use_error>): ${r.unhookable_recurrences}`,
    `latency ms: decide p50 ${r.latency_ms.decide_p50} / p95 ${r.latency_ms.decide_p95} · hook gates p50 ${r.latency_ms.hook_p50} / p95 ${r.latency_ms.hook_p95} · index one session p50 ${r.latency_ms.index_per_session_p50}`,
  ];
  lines.push(`offers shown in subagent or worker sessions ${r.sidechain_offers} · calls copied from earlier session files ${r.copied_steps} · offers from the session's own lineage ${r.self_lineage_offers}`);
  const g = r.gold;
  if (g) {
    lines.push(
      `judged gold (${g.project}, ${g.items} items): hookable recurrences ${g.hookable_recurrences} · hit at the failure ${g.hits} (${pct(g.recall_at_failure)}) · late ${g.late} · missed ${g.misses}`,
      `shown offers ${g.shown_offers} (${g.offers_per_100_steps} per 100 tool steps): right ${g.right_offers} · wrong ${g.wrong_offers} · generic ${g.generic_offers} · unconfirmed ${g.unconfirmed_offers} · unjudged ${g.unjudged_offers} · precision ${pct(g.precision)} · at user rejections ${g.rejection_offers}`,
    );
    for (const e of g.events) if (e.outcome !== 'silent' && e.outcome !== 'hit') lines.push(`  ${e.outcome}: ${e.session.slice(0, 8)} step ${e.step} ${e.item ?? ''} ${e.handle ? `← ${e.handle}` : ''}`.trimEnd());
    return lines.join('\n');
  }
  for (const m of r.misses) lines.push(`  missed: ${m.session.slice(0, 8)} step ${m.step} (${m.hook ?? 'no hook event'}): ${m.head}`);
  return lines.join('\n');
}

export async function run(argv: string[]): Promise<number> {
  const { values, positionals } = parseFlags(argv, { model: { type: 'string' }, seed: { type: 'string' }, gold: { type: 'string' }, ablate: { type: 'string' }, vary: { type: 'string' }, rules: { type: 'boolean' } });
  if (values.help) {
    process.stdout.write(help + '\n');
    return EXIT.OK;
  }
  if (values.rules) {
    if (values.json) printJson({ rules: PASTFIX_RULES, values: PASTFIX_VALUES });
    else process.stdout.write([...PASTFIX_RULES.map((r) => `${r.id}: ${r.means} (${r.where})`), ...Object.entries(PASTFIX_VALUES).map(([k, v]) => `${k} = ${v.value} (candidates ${v.candidates.join(', ')}): ${v.means}`)].join('\n') + '\n');
    return EXIT.OK;
  }
  const ablated = (values.ablate ?? '').split(',').map((x) => x.trim()).filter(Boolean);
  const varied = (values.vary ?? '').split(',').map((x) => x.trim()).filter(Boolean).map((kv): [string, number] => {
    const [k, v] = kv.split('=');
    return [k ?? '', v === undefined || v.trim() === '' ? NaN : Number(v)];
  });
  try {
    ablateRules(ablated);
    varyValues(varied);
  } catch (e) {
    throw new UserError(`${(e as Error).message} (see active-brain eval pastfix --rules)`, EXIT.USAGE);
  }
  const { dir, projects } = transcriptsFolder('eval pastfix', positionals);
  const seed = seedFlag(values.seed);
  const gold = goldFlag(values.gold, parseGold);
  const { config } = loadConfig({ flags: values.set });
  const embedder = await loadEmbedder(values.model, values.set);
  try {
    const rep = await overSessions(projects, (onSession) => evalPastfix(dir, { config, embedder, seed, gold, onSession }));
    if (values.json) printJson({ ...rep, ...(ablated.length ? { ablated } : {}), ...(varied.length ? { varied: Object.fromEntries(varied) } : {}) });
    else process.stdout.write(table(rep) + '\n');
    return EXIT.OK;
  } finally {
    await embedder.dispose();
  }
}
