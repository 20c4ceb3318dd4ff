/**
 * `active-brain label [--stats] [--mode NAME]`: a person labels sampled offers useful / not
 * useful. On a TTY it shows the turns before the offer (read live from the transcript), the
 * offer line and the chunk, and reads one key. `--offer ID --verdict useful|not-useful`
 * labels one offer from a script. Labels append to <home>/labels.jsonl.
 */
import { createInterface } from 'node:readline/promises';
import { existsSync } from 'node:fs';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { appendLabel, labelCounts, offeredDecisions, readLabels, reasonSummary, sampleUnlabeled, withheldOffers } from '../../ops/labels.js';
import { usefulnessGate, wilson } from '../../ops/soak-gates.js';
import { exchangesBefore, findTranscript } from '../../ops/transcript-locate.js';
import { formatOfferLine } from '../../shared/offer-format.js';
import { defaultStorePath, defaultTranscriptsRoot } from '../../shared/paths.js';
import type { DecisionRecord } from '../../daemon/logs.js';
import type { Config } from '../../config/schema.js';

/** Exchanges of context shown before an offer. */
const CONTEXT_EXCHANGES = 3;
/** Characters shown of each side of a context exchange, and of the chunk. */
const CONTEXT_CHARS = 400;
const CHUNK_CHARS = 1200;

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

function stats(config: Config, mode: string | undefined, json: boolean): number {
  const labels = readLabels();
  const c = labelCounts(labels, mode);
  const gate = usefulnessGate(c, config.soak, mode ?? 'all');
  const [lo, hi] = wilson(c.useful, c.n);
  const byType: Record<string, { n: number; useful: number }> = {};
  for (const l of labels) {
    const t = (byType[l.type] ??= { n: 0, useful: 0 });
    t.n++;
    if (l.useful) t.useful++;
  }
  if (json) printJson({ labels: c.n, useful: c.useful, share: c.n ? c.useful / c.n : null, ci95: [lo, hi], by_type: byType, gate });
  else process.stdout.write(`${gate.pass ? 'PASS' : 'FAIL'}  ${gate.figure}\n${Object.entries(byType).map(([t, v]) => `  ${t}: ${v.useful}/${v.n} useful`).join('\n')}\n`);
  return gate.pass ? EXIT.OK : EXIT.FAIL;
}

async function show(d: DecisionRecord, config: Config): Promise<void> {
  const out = process.stdout;
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot();
  const path = findTranscript(root, d.sessionId);
  out.write(`\n── offer ${d.offer!.id} · session ${d.sessionId} · turn ${d.turn} · mode ${d.mode ?? '-'} · trigger ${d.trigger ?? '-'}\n`);
  if (path) {
    for (const ex of await exchangesBefore(path, d.offset, CONTEXT_EXCHANGES)) {
      out.write(`  you:   ${clip(ex.user, CONTEXT_CHARS)}\n`);
      if (ex.assistant) out.write(`  agent: ${clip(ex.assistant, CONTEXT_CHARS)}\n`);
    }
  } else out.write('  (transcript not found any more; judging from the offer alone)\n');
  const line = formatOfferLine({ handle: d.offer!.handle, type: d.offer!.type, confidence: d.offer!.confidence, reason: '' }, { maxBytes: config.hook.maxBytes });
  out.write(`\n  offer: ${line?.text ?? d.offer!.handle}\n`);
  const storePath = config.store.path ?? defaultStorePath();
  if (existsSync(storePath)) {
    const { openStoreReader } = await import('../../store/sqlite-store.js');
    const store = openStoreReader(storePath);
    try {
      const c = store.chunkByHandle(d.offer!.handle);
      out.write(c ? `  chunk (${c.region}, ${c.path}):\n    ${clip(c.text, CHUNK_CHARS)}\n` : '  (chunk no longer in the store)\n');
    } finally {
      store.close();
    }
  }
}

export const command: Command = {
  name: 'label',
  summary: 'label sampled offers useful / not useful',
  help: `usage: active-brain label [--mode NAME] [--seed N]
       active-brain label --stats [--mode NAME] [--json]
       active-brain label --offer ID --verdict useful|not-useful

On a terminal: shows sampled would-fire offers not yet labeled — the turns before each one
(read live from its transcript), the offer line and the chunk — and asks
  y = useful, n = not useful, s = skip, q = quit.
--stats: useful share with sample size and a 95% confidence interval; the usefulness gate
passes at ≥ 70% useful over ≥ 50 labels (exit 0 when it passes, 1 when not).
Only explicit verdicts count as labels.`,
  async run(argv) {
    const { values } = parseFlags(argv, {
      stats: { type: 'boolean' },
      mode: { type: 'string' },
      seed: { type: 'string' },
      offer: { type: 'string' },
      verdict: { type: 'string' },
    }, false);
    const { config } = loadConfig({ flags: values.set });
    if (values.stats) return stats(config, values.mode, Boolean(values.json));
    const offers = offeredDecisions();
    if (values.offer) {
      if (values.verdict === undefined) throw new UserError('--offer needs --verdict useful|not-useful', EXIT.USAGE);
      if (values.verdict !== 'useful' && values.verdict !== 'not-useful') throw new UserError(`--verdict must be useful or not-useful (got "${values.verdict}")`, EXIT.USAGE);
      const d = offers.find((o) => o.offer!.id === values.offer);
      if (!d) {
        const held = withheldOffers().find((w) => w.id === values.offer);
        if (held) throw new UserError(`offer ${values.offer} was not shown by the hook (${held.reason}): only offers a person would have seen are labeled.`);
        throw new UserError(`no offer with id ${values.offer} in the decision log. \`active-brain label\` (on a terminal) walks through the ones there are.`);
      }
      appendLabel({ ts: Date.now(), offer_id: d.offer!.id, session: d.sessionId, handle: d.offer!.handle, type: d.offer!.type, mode: d.mode, useful: values.verdict === 'useful' });
      if (values.json) printJson({ labeled: d.offer!.id, useful: values.verdict === 'useful' });
      else process.stdout.write(`labeled ${d.offer!.id}: ${values.verdict}\n`);
      return EXIT.OK;
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UserError('labeling is interactive and needs a terminal. From a script use --offer ID --verdict useful|not-useful, or --stats.', EXIT.USAGE);
    }
    const seed = values.seed ? Number(values.seed) : Date.now();
    const queue = sampleUnlabeled(offers, readLabels(), seed, values.mode);
    if (!queue.length) {
      if (offers.length) process.stdout.write('every offer is labeled. `active-brain label --stats` for the figures.\n');
      else {
        const held = withheldOffers();
        process.stdout.write(
          held.length
            ? `no offers past the hook's gates yet (${held.length} would-fire held back: ${reasonSummary(held)}); only those a person would have seen are labeled. Keep the daemon running in soak.\n`
            : 'no offers yet: keep the daemon running in soak for a while.\n',
        );
      }
      return EXIT.OK;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    let done = 0;
    try {
      for (const d of queue) {
        await show(d, config);
        let a = '';
        while (!['y', 'n', 's', 'q'].includes(a)) a = (await rl.question('  useful? [y]es / [n]o / [s]kip / [q]uit: ')).trim().toLowerCase().slice(0, 1);
        if (a === 'q') break;
        if (a === 's') continue;
        appendLabel({ ts: Date.now(), offer_id: d.offer!.id, session: d.sessionId, handle: d.offer!.handle, type: d.offer!.type, mode: d.mode, useful: a === 'y' });
        done++;
      }
    } finally {
      rl.close();
    }
    const c = labelCounts(readLabels(), values.mode);
    process.stdout.write(`\nlabeled ${done} now; ${c.useful}/${c.n} useful overall.\n`);
    return EXIT.OK;
  },
};
