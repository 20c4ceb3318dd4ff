/**
 * `active-brain replay <transcript.jsonl | dir>`: the daemon's pipeline and the hook's gates
 * over recorded transcripts (eval/replay.ts). Reads the transcripts and the store (read-only);
 * writes only stdout (and a progress bar on a TTY's stderr). Never writes caches, logs or
 * hook state.
 */
import { toolErrorsText } from '../../eval/tool-error-kinds.js';
import { resolve } from 'node:path';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { createEmbedder } from '../../embed/embedder.js';
import { homeDir } from '../../shared/paths.js';
import { displayLocation, storeLocation } from '../../store/location.js';
import { isPostgresUrl } from '../../store/pg-sync.js';
import { sanitizeLine } from '../../shared/escape.js';
import { findTranscripts } from '../../eval/replay-read.js';
import { offersOf, openReplayStore, replayTranscripts, type ReplaySummary } from '../../eval/replay.js';
import type { ReplayRow } from '../../eval/replay-rows.js';
import { createProgress } from '../../eval/progress.js';

/** Default seed of the replay's rng (wander step). */
export const DEFAULT_SEED = 1;

const HELP = `usage: active-brain replay <transcript.jsonl | dir> [--json] [--store PATH] [--model PATH] [--seed N] [--final-only] [--set key=value ...]

Runs the daemon's own pipeline over recorded Claude Code transcripts, offline and
deterministically: exchanges → embedding → session state → triggers → retrieval → offer
(the same code as the daemon), then the hook's gates at the next prompt (confidence,
session budget, minimum gap) with a simulated hook state. A folder is searched recursively
for *.jsonl; files under <session>/subagents/ are sidechain sessions (never offered to).
A resumed or forked session's records copied from its parent get no hook (Claude Code ran
none there): the parent is looked for among the replayed files and the other sessions of
their folders, so replaying one file of a project folder finds it (docs/REPLAY.md).
The clock is the transcripts' own timestamps; the wander step uses a seeded rng; the
reasoner is never called. Nothing is written: no cache, no log, no hook state.

Both channels: at each prompt (UserPromptSubmit) and at each tool result (PostToolUseFailure /
PostToolUse: the Past fix from the store's resolved error episodes, as the daemon's fixes
files would hold them, or the daemon's own decision at an earlier failure).
Prints a legend, then one line per offer, and per silence that matters (a trigger that fired,
a tool error) — not one per provisional look — and a summary per channel whose counts add up.

Options:
  --store PATH     knowledge store (default: the configured store); opened read-only.
                   Missing → replay runs without retrieval (every trigger silent: no-store)
  --model PATH     a local transformers.js model folder (must be the store's model)
  --final-only     only the final decisions on whole prompt→reply turns. By default replay
                   also makes the daemon's provisional decisions, as the live daemon does:
                   where a reply paused longer than daemon.settleMs after text (by the lines'
                   timestamps) it decides on the still-open exchange for the offer cache
  --seed N         rng seed (default ${DEFAULT_SEED}); the same input and seed give the same output
  --json           one JSON object: {"sessions","exchanges","would_fire","fire_rate",
                   "by_type": {…}, "sidechain_offers", "printed", "by_silence", "by_hook",
                    "tool_steps", "tool_errors", "tool_errors_by_kind", "tool_would_fire", "typed_prompts",
                    "printed_per_typed_prompt", "self_lineage_offers", "already_in_session_offers",
                    "per_session",
                   "offers": [{"file","session","channel","turn","step","tool_use_id",
                   "trigger","type","confidence","handle","hook","evidence","self_lineage",
                   "already_in_session"}], "decisions": […], …}.
                   fire_rate = would_fire over the exchanges of main (non-sidechain) sessions
  --set key=value  config override (e.g. modes.default.minConfidence=0.6)

Exit codes: 0 replayed · 2 usage · 3 no transcripts there, model unavailable.`;

function parseSeed(raw: string | undefined): number {
  if (raw === undefined) return DEFAULT_SEED;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0 || n > 0xffffffff) throw new UserError(`--seed must be an integer from 0 to 4294967295 (got "${raw}")`, EXIT.USAGE);
  return n;
}

/** Silences that say nothing about this session (no trigger, warm-up, a successful call). */
const QUIET_SILENCES = new Set(['no-trigger', 'warmup', 'no-error', 'seed', 'injected', 'cooldown', 'no-mode', 'mode-off']);

/** Rows worth a line: every offer, and a silence where a trigger fired or a tool failed.
 *  Provisional looks are folded into their exchange (an offer they made is shown once). */
export function rowsThatMatter(rows: readonly ReplayRow[]): ReplayRow[] {
  const out: ReplayRow[] = [];
  const shownTurn = new Set<string>();
  for (const r of rows) {
    const key = `${r.file}\u0000${r.turn}`;
    if (r.channel === 'prompt') {
      if (r.offer) {
        if (shownTurn.has(key)) continue;
        shownTurn.add(key);
        out.push(r);
      } else if (!r.provisional && !shownTurn.has(key) && r.trigger && !QUIET_SILENCES.has(r.silence ?? '')) out.push(r);
      continue;
    }
    if (r.offer || (r.tool_error && !QUIET_SILENCES.has(r.silence ?? ''))) out.push(r);
  }
  return out;
}

export const TABLE_HEADER = `${'session'.padEnd(8)} ch ${'turn'.padStart(4)} ${'step'.padStart(4)} ${'trigger'.padEnd(7)} ${'what'.padEnd(44)} ${'conf'.padStart(4)}  hook`;

export const LEGEND = [
  'ch: P = at the prompt (UserPromptSubmit), T = at a tool result (PostToolUseFailure / PostToolUse).',
  'turn: exchange number in the session; step: tool call number among its main-lane calls.',
  'what: the offer (type and handle), or the silence: why nothing was offered.',
  'hook: what the hook would have done — printed (live), would-fire (soak: logged, not shown), or why it held the offer back.',
].join('\n');

/** One table line for a row (handles escaped; rows hold no conversation text). */
export function rowLine(r: ReplayRow): string {
  const session = r.session.slice(0, 8).padEnd(8);
  const ch = r.channel === 'tool' ? 'T' : 'P';
  const turn = String(r.turn).padStart(4);
  const step = (r.step === null ? '' : String(r.step)).padStart(4);
  const trigger = (r.trigger ?? '-').padEnd(7);
  const side = r.sidechain ? '  [sidechain]' : '';
  if (!r.offer) return `${session} ${ch}  ${turn} ${step} ${trigger} ${('silent: ' + (r.silence ?? 'unknown')).padEnd(44)} ${''.padStart(4)}  -${side}`;
  const o = r.offer;
  const what = `${o.type} ${sanitizeLine(o.handle)}${o.wildcard ? ' (wildcard)' : ''}`;
  return `${session} ${ch}  ${turn} ${step} ${trigger} ${what.padEnd(44)} ${o.confidence.toFixed(2)}  ${r.hook ?? 'unknown'}${side}`;
}

function counts(o: Record<string, number>): string {
  const e = Object.entries(o);
  return e.length ? e.map(([k, v]) => `${k} ${v}`).join(', ') : 'none';
}

export function summaryText(s: ReplaySummary, store: string): string {
  const silent = Object.values(s.by_silence).reduce((a, b) => a + b, 0);
  return [
    `replayed ${s.sessions} sessions (${s.main_sessions} main, ${s.sidechain_sessions} sidechain); ${store}`,
    `prompt channel: ${s.exchanges} exchanges (${s.main_exchanges} in main sessions) = ${s.would_fire} with an offer + ${silent} silent`,
    `  offers: ${s.would_fire} (${(s.fire_rate * 100).toFixed(1)}% of main-session exchanges) · by type: ${counts(s.by_type)} · past the hook's gates: ${s.printed} · hook verdicts: ${counts(s.by_hook)}`,
    `  silent exchanges by reason: ${counts(s.by_silence)}`,
    `tool channel: ${s.tool_steps} tool steps, ${toolErrorsText(s)} · past the hook's gates: ${s.tool_would_fire} (${s.tool_offers_per_100_steps} per 100 steps) · hook verdicts: ${counts(s.tool_by_hook)}`,
    `  silent errors by reason: ${counts(s.tool_by_silence)}`,
    `sidechain offers: ${s.sidechain_offers} · triggers: ${counts(s.by_trigger)}`,
    ...(s.unreadable_files?.length ? [`skipped ${s.unreadable_files.length} unreadable files: ${s.unreadable_files.map(sanitizeLine).join('; ')}`] : []),
    ...(s.synthetic_times ? [`${s.synthetic_times} exchanges had no timestamp (synthetic time used)`] : []),
  ].join('\n');
}

export const command: Command = {
  name: 'replay',
  summary: 'the daemon pipeline over recorded transcripts (offline, deterministic)',
  help: HELP,
  async run(argv) {
    const { values, positionals } = parseFlags(argv, { store: { type: 'string' }, model: { type: 'string' }, seed: { type: 'string' }, 'final-only': { type: 'boolean' } });
    if (positionals.length !== 1) throw new UserError('replay needs one transcript file or folder: active-brain replay <transcript.jsonl | dir>. Run with --help for usage.', EXIT.USAGE);
    const seed = parseSeed(values.seed);
    const target = positionals[0];
    let files;
    try {
      files = findTranscripts(target);
    } catch (e) {
      throw new UserError(`cannot read ${target}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}. Give a transcript .jsonl file or a folder of them.`, EXIT.ENV);
    }
    if (files.length === 0) throw new UserError(`no *.jsonl transcripts under ${target}: point replay at a transcript file or a Claude Code projects folder`, EXIT.ENV);

    const { config } = loadConfig({ flags: values.set });
    const embedding = values.model ? { ...config.embedding, url: undefined, localModelPath: resolve(values.model) } : config.embedding;
    const location = values.store ?? storeLocation(config);
    const storePath = isPostgresUrl(location) ? location : resolve(location);
    const shownStore = displayLocation(storePath);
    const embedder = await createEmbedder(embedding);
    const opened = openReplayStore(storePath, embedder);
    try {
      let storeNote: string;
      if (opened.store) storeNote = `store ${shownStore} (${opened.store.info().chunks} chunks)`;
      else {
        storeNote = `NO STORE (${opened.status}): every trigger ends in silence`;
        const why = opened.problem ?? `no knowledge store at ${shownStore}`;
        process.stderr.write(`active-brain: ${why} — replaying without retrieval (${opened.status}). Pass --store PATH or build one with \`active-brain index add <path> --region <name>\`.\n`);
      }
      const progress = createProgress('transcripts', files.length);
      const result = await replayTranscripts(files, {
        config: { ...config, embedding },
        embedder,
        store: opened.store,
        noStoreReason: opened.status === 'ok' ? undefined : opened.status,
        seed,
        settleMs: values['final-only'] ? null : config.daemon.settleMs,
        home: homeDir(),
        onFile: (n) => progress.update(n),
      });
      progress.done();
      if (values.json) {
        printJson({
          ...result.summary,
          offers: offersOf(result.rows),
          store: { path: shownStore, status: opened.status, chunks: opened.store?.info().chunks ?? 0 },
          model: embedder.modelId,
          settle_ms: values['final-only'] ? null : config.daemon.settleMs,
          decisions: result.rows,
        });
      } else {
        const lines = rowsThatMatter(result.rows);
        const out = [LEGEND, '', TABLE_HEADER, ...lines.map(rowLine)];
        if (!lines.length) out.push('(no offers, and no silence after a trigger or a tool error)');
        process.stdout.write(out.join('\n') + '\n\n' + summaryText(result.summary, storeNote) + '\n');
      }
      return EXIT.OK;
    } finally {
      opened.store?.close();
      await embedder.dispose();
    }
  },
};
