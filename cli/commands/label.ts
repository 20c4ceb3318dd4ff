/**
 * `active-brain label [--stats] [--mode NAME] [--channel prompt|tool]`: a person labels
 * sampled offers of either channel useful / not useful (ops/labels.ts). On a TTY it shows
 * what surrounded the offer, read live from the transcript — the turns before a prompt
 * offer; the failing tool call and the calls around it for a tool offer — then the offer
 * line and the chunk, and reads one key. `--offer ID --verdict useful|not-useful` labels one
 * offer from a script. Labels append to <home>/labels.jsonl, each with its channel.
 */
import { createInterface, type Interface } from 'node:readline/promises';
import { existsSync } from 'node:fs';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { appendLabel, labelCounts, labelFor, offeredSamples, readLabels, reasonSummary, sampleUnlabeled, withheldOffers, type OfferSample } from '../../ops/labels.js';
import { usefulnessGate, wilson } from '../../ops/soak-gates.js';
import { exchangesBefore, findTranscript, toolStepsAround } from '../../ops/transcript-locate.js';
import { judgedChannels, parseChannelFlag } from '../../ops/channel-state.js';
import { channelOf } from '../../ops/channel-records.js';
import { formatOfferLine } from '../../shared/offer-format.js';
import { defaultTranscriptsRoot } from '../../shared/paths.js';
import { storeLocation, storePresent } from '../../store/location.js';
import type { Channel } from '../../shared/vocabulary.js';
import type { Config } from '../../config/schema.js';

/** Exchanges of context shown before a prompt offer. */
const CONTEXT_EXCHANGES = 3;
/** Characters shown of each side of a context exchange, and of the chunk. */
const CONTEXT_CHARS = 400;
const CHUNK_CHARS = 1200;
/** Tool calls shown before and after the one a tool offer was made at. With the call
 *  summaries (≤ 160 characters each, transcript/records.ts), the failing call's error and the
 *  agent's note (CONTEXT_CHARS each) and the other calls' error heads (STEP_ERROR_CHARS) this
 *  shows at most ~2,100 characters of the conversation, under the ~2,400 of a prompt offer. */
const CONTEXT_STEPS_BEFORE = 2;
const CONTEXT_STEPS_AFTER = 2;
const STEP_ERROR_CHARS = 120;

function clip(s: string, n: number): string {
  const t = s.replace(/\s+/g, ' ').trim();
  return t.length > n ? t.slice(0, n - 1) + '…' : t;
}

function stats(config: Config, channels: Channel[], mode: string | undefined, json: boolean): number {
  const labels = readLabels();
  const per = {} as Partial<Record<Channel, object>>;
  const lines: string[] = [];
  let pass = channels.length > 0;
  for (const c of channels) {
    const n = labelCounts(labels, { channel: c, mode });
    const gate = usefulnessGate(n, config.soak, c, mode);
    const [lo, hi] = wilson(n.useful, n.n);
    const byType: Record<string, { n: number; useful: number }> = {};
    for (const l of labels) {
      if (channelOf(l) !== c || (mode && l.mode !== mode)) continue;
      const t = (byType[l.type] ??= { n: 0, useful: 0 });
      t.n++;
      if (l.useful) t.useful++;
    }
    per[c] = { labels: n.n, useful: n.useful, share: n.n ? n.useful / n.n : null, ci95: [lo, hi], by_type: byType, gate };
    pass &&= gate.pass;
    lines.push(`${gate.pass ? 'PASS' : 'FAIL'}  ${c.padEnd(6)} ${gate.figure}`);
    for (const [t, v] of Object.entries(byType)) lines.push(`        ${t}: ${v.useful}/${v.n} useful`);
  }
  const all = labelCounts(labels.filter((l) => channels.includes(channelOf(l)!)), { mode });
  if (json) printJson({ labels: all.n, useful: all.useful, channels: per, pass });
  else process.stdout.write(lines.join('\n') + '\n');
  return pass ? EXIT.OK : EXIT.FAIL;
}

async function showPromptContext(s: OfferSample, path: string): Promise<void> {
  for (const ex of await exchangesBefore(path, s.offset ?? 0, CONTEXT_EXCHANGES)) {
    process.stdout.write(`  you:   ${clip(ex.user, CONTEXT_CHARS)}\n`);
    if (ex.assistant) process.stdout.write(`  agent: ${clip(ex.assistant, CONTEXT_CHARS)}\n`);
  }
}

async function showToolContext(s: OfferSample, path: string): Promise<void> {
  const out = process.stdout;
  const around = await toolStepsAround(path, { toolUseId: s.toolUseId, step: s.step }, CONTEXT_STEPS_BEFORE, CONTEXT_STEPS_AFTER);
  if (!around) {
    out.write('  (that tool call is not in the transcript any more; judging from the offer alone)\n');
    return;
  }
  if (around.matchedBy === 'step') out.write(`  (found by step number ${s.step}: the tool call id was not in the transcript)\n`);
  around.steps.forEach((st, i) => {
    const here = i === around.target;
    const status = st.isError ? `FAILED: ${clip(st.resultText, here ? CONTEXT_CHARS : STEP_ERROR_CHARS)}` : 'ok';
    out.write(`${here ? '▶' : ' '} #${st.step} ${clip(st.summary, CONTEXT_CHARS)} — ${status}\n`);
    if (here && st.note) out.write(`    agent before it: ${clip(st.note, CONTEXT_CHARS)}\n`);
  });
}

async function show(s: OfferSample, config: Config): Promise<void> {
  const out = process.stdout;
  const root = config.transcriptsRoot ?? defaultTranscriptsRoot();
  const path = s.path && existsSync(s.path) ? s.path : findTranscript(root, s.session);
  const where = s.channel === 'prompt' ? `turn ${s.turn ?? '-'}` : `tool step ${s.step ?? '-'}`;
  const from = s.history ? ' · from history (backtest)' : '';
  out.write(`\n── ${s.channel} offer ${s.offerId} · session ${s.session} · ${where} · mode ${s.mode ?? '-'} · trigger ${s.trigger ?? '-'}${from}\n`);
  if (!path) out.write('  (transcript not found any more; judging from the offer alone)\n');
  else if (s.channel === 'prompt') await showPromptContext(s, path);
  else await showToolContext(s, path);
  // The line as the hook printed it (or would have): its reason is what Claude was told.
  const line = formatOfferLine({ handle: s.handle, type: s.type, confidence: s.confidence, reason: s.reason ?? '' }, { maxBytes: config.hook.maxBytes, maxTokens: config.hook.tokenCeiling });
  out.write(`\n  offer: ${line?.text ?? s.handle}\n`);
  if (!s.reason) out.write('  (its reason line is not in the logs — recorded before they kept it, or its fix was rebuilt since)\n');
  // The store the daemon reads: store.url (team store on PostgreSQL) or store.path.
  const storePath = storeLocation(config);
  if (storePresent(storePath)) {
    const { openStoreReader, StoreError } = await import('../../store/sqlite-store.js');
    let store;
    try {
      store = openStoreReader(storePath);
    } catch (e) {
      // The offer can still be judged from the transcript; say why the chunk is not shown.
      if (!(e instanceof StoreError)) throw e;
      out.write(`  (chunk not shown: ${e.message})\n`);
      return;
    }
    try {
      const c = store.chunkByHandle(s.handle);
      out.write(c ? `  chunk (${c.region}, ${c.path}):\n    ${clip(c.text, CHUNK_CHARS)}\n` : '  (chunk no longer in the store)\n');
    } finally {
      store.close();
    }
  }
}

/** One answer; Ctrl-C or Ctrl-D (the signal aborted, the input closed) reads as q. */
async function ask(rl: Interface, question: string, signal: AbortSignal): Promise<string> {
  if (signal.aborted) return 'q';
  try {
    return await rl.question(question, { signal });
  } catch (e) {
    if ((e as { code?: string }).code === 'ABORT_ERR' || (e as Error).name === 'AbortError') {
      process.stdout.write('\n');
      return 'q';
    }
    throw e;
  }
}

/** The one offer `--offer ID [--session S]` names, or a user error saying why not. */
function pickOffer(samples: OfferSample[], id: string, session: string | undefined, channel: Channel | undefined): OfferSample {
  const hits = samples.filter((s) => s.offerId === id && (!session || s.session === session) && (!channel || s.channel === channel));
  if (hits.length === 1) return hits[0];
  if (hits.length > 1) {
    throw new UserError(
      `offer ${id} was shown in ${hits.length} sessions (${hits.map((h) => h.session).join(', ')}): add --session SESSION to say which one you judge.`,
      EXIT.USAGE,
    );
  }
  const held = withheldOffers().find((w) => w.id === id && (!channel || w.channel === channel));
  if (held) throw new UserError(`offer ${id} was not shown by the hook (${held.reason}): only offers a person would have seen are labeled.`);
  throw new UserError(`no offer with id ${id}${session ? ` in session ${session}` : ''} in the logs. \`active-brain label\` (on a terminal) walks through the ones there are.`);
}

export const command: Command = {
  name: 'label',
  summary: 'label sampled offers useful / not useful, per channel',
  help: `usage: active-brain label [--channel prompt|tool] [--mode NAME] [--seed N]
       active-brain label --stats [--channel prompt|tool] [--mode NAME] [--json]
       active-brain label --offer ID [--session S] --verdict useful|not-useful

On a terminal: shows sampled offers not yet labeled, of either channel (or the one
--channel names), that the hook printed or in soak would have — for a prompt offer the turns
before it, for a tool offer the failing tool call and the calls around it (read live from
its transcript) — then the offer line and the chunk, and asks
  y = useful, n = not useful, s = skip, q = quit (Ctrl-C and Ctrl-D quit too, keeping
  the labels given so far).
--stats: per channel, the useful share with sample size and a 95% confidence interval; each
channel's usefulness gate passes at ≥ 70% useful over ≥ 50 of its own labels (exit 0 when
every channel shown passes, 1 when not). A channel off in every mode is not shown unless
--channel names it. Labels written before channels existed count as prompt.
--session S: a Past fix keeps its offer id across sessions; say which session you judge.
Only explicit verdicts count as labels.`,
  async run(argv) {
    const { values } = parseFlags(argv, {
      stats: { type: 'boolean' },
      mode: { type: 'string' },
      channel: { type: 'string' },
      seed: { type: 'string' },
      offer: { type: 'string' },
      session: { type: 'string' },
      verdict: { type: 'string' },
    }, false);
    const asked = parseChannelFlag(values.channel);
    if ('error' in asked) throw new UserError(`${asked.error}. Run \`active-brain label --help\`.`, EXIT.USAGE);
    const channel = values.channel ? asked.channels[0] : undefined;
    const { config } = loadConfig({ flags: values.set });
    if (values.mode && !config.modes[values.mode]) {
      throw new UserError(`unknown mode "${values.mode}"; configured modes: ${Object.keys(config.modes).join(', ')}`, EXIT.USAGE);
    }
    if (values.stats) return stats(config, judgedChannels(config, { channels: channel ? [channel] : undefined, mode: values.mode }), values.mode, Boolean(values.json));
    const samples = offeredSamples();
    if (values.offer) {
      if (values.verdict === undefined) throw new UserError('--offer needs --verdict useful|not-useful', EXIT.USAGE);
      if (values.verdict !== 'useful' && values.verdict !== 'not-useful') throw new UserError(`--verdict must be useful or not-useful (got "${values.verdict}")`, EXIT.USAGE);
      const s = pickOffer(samples, values.offer, values.session, channel);
      appendLabel(labelFor(s, values.verdict === 'useful'));
      if (values.json) printJson({ labeled: s.offerId, session: s.session, channel: s.channel, useful: values.verdict === 'useful' });
      else process.stdout.write(`labeled ${s.channel} offer ${s.offerId}: ${values.verdict}\n`);
      return EXIT.OK;
    }
    if (!process.stdin.isTTY || !process.stdout.isTTY) {
      throw new UserError('labeling is interactive and needs a terminal. From a script use --offer ID --verdict useful|not-useful, or --stats.', EXIT.USAGE);
    }
    const seed = values.seed ? Number(values.seed) : Date.now();
    const filter = { mode: values.mode, channel };
    const queue = sampleUnlabeled(samples, readLabels(), seed, filter);
    if (!queue.length) {
      const mine = samples.filter((s) => (!channel || s.channel === channel) && (!values.mode || s.mode === values.mode));
      if (mine.length) process.stdout.write('every offer is labeled. `active-brain label --stats` for the figures.\n');
      else {
        const held = withheldOffers().filter((w) => !channel || w.channel === channel);
        process.stdout.write(
          held.length
            ? `no offers past the hook's gates yet (${held.length} would-fire held back: ${reasonSummary(held)}); only those a person would have seen are labeled. Keep the daemon running in soak.\n`
            : 'no offers yet: keep the daemon running in soak for a while.\n',
        );
      }
      return EXIT.OK;
    }
    const rl = createInterface({ input: process.stdin, output: process.stdout });
    // Ctrl-C and Ctrl-D end the session as q does: the labels given so far are kept. (A
    // question pending when the interface closes never settles by itself: abort it.)
    const stop = new AbortController();
    rl.on('SIGINT', () => stop.abort());
    rl.on('close', () => stop.abort());
    let done = 0;
    try {
      for (const s of queue) {
        await show(s, config);
        let a = '';
        while (!['y', 'n', 's', 'q'].includes(a)) a = (await ask(rl, '  useful? [y]es / [n]o / [s]kip / [q]uit: ', stop.signal)).trim().toLowerCase().slice(0, 1);
        if (a === 'q') break;
        if (a === 's') continue;
        appendLabel(labelFor(s, a === 'y'));
        done++;
      }
    } finally {
      rl.close();
    }
    const c = labelCounts(readLabels(), filter);
    process.stdout.write(`\nlabeled ${done} now; ${c.useful}/${c.n} useful overall${channel ? ` on the ${channel} channel` : ''}.\n`);
    return EXIT.OK;
  },
};
