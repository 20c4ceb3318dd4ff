/**
 * `active-brain backtest [--since 14d] [--json] [--html FILE]`: what the product would have
 * said on your own history (eval/backtest.ts: the daemon's pipeline and the hook's gates over
 * the transcripts under the configured root, the configured store and modes). Writes the
 * offers it found to <home>/logs/backtest-offers.jsonl (for `label`, marked as history) and
 * the figures to backtest-summary.json (for `soak report`); the store is opened read-only.
 */
import { resolve } from 'node:path';
import { parseFlags, printJson, EXIT, UserError, type Command } from '../command.js';
import { loadConfig } from '../../config/load.js';
import { createEmbedder } from '../../embed/embedder.js';
import { defaultStorePath, defaultCodexSessionsRoot, defaultTranscriptsRoot, homeDir } from '../../shared/paths.js';
import { openReplayStore } from '../../eval/replay.js';
import { runBacktest, backtestReportModel, backtestOffers, historyFiles } from '../../eval/backtest.js';
import { createProgress } from '../../eval/progress.js';
import { parseDuration } from '../../ops/soak-report.js';
import { writeHistory } from '../../ops/history-offers.js';
import { renderReport } from '../../ops/report-html.js';
import { checkReportPath, writeReport } from './report.js';
import type { RowUptake, UptakeFigures } from '../../eval/backtest-uptake.js';
import { transcriptsRootState, unreadableRootText } from '../../shared/transcripts-root.js';
import { LEGEND, TABLE_HEADER, rowLine, rowsThatMatter, summaryText } from './replay.js';

/** What the uptake mark after a Past fix's line means. */
const UPTAKE_LEGEND = 'Past fix lines end with "confirmed" when the session then ran that fix and got the failing call\'s intent through (within 40 tool steps), with the steps in between.';

function uptakeNote(u: RowUptake | undefined): string {
  if (!u) return '';
  return u.confirmed ? `  confirmed by the session (${u.steps_between} step(s) between)` : '  not confirmed';
}

/** The uptake summary line: a usefulness figure before any label. */
export function uptakeText(f: UptakeFigures): string {
  if (!f.past_fix_offers) return 'Past fixes confirmed by the session: none shown';
  return `Past fixes confirmed by the session (ran the fix, then got through): ${f.confirmed_offers} of ${f.past_fix_offers} · ${f.steps_saved} tool step(s) between those offers and their success (an upper bound of what they could have saved)`;
}

/** Default window: the last two weeks of sessions. */
export const DEFAULT_SINCE = '14d';

const HELP = `usage: active-brain backtest [--since 14d|all] [--json] [--html FILE] [--seed N] [--set key=value ...]

Runs the daemon's own pipeline and the hook's gates over your own Claude Code history (the
transcripts under the configured root written within --since; default ${DEFAULT_SINCE}; Codex CLI
rollouts under codexSessionsRoot too, when it exists), with the
configured knowledge store and modes, both channels (at the prompt and at tool failures).
A session is never offered its own transcript. Nothing is printed to Claude Code and the
store is only read. The offers the hook would have shown become labelable
("active-brain label", marked as from history) and "active-brain soak report" shows the
history's figures beside the live soak's.

Options:
  --since D      only transcripts written in the last D (30m, 12h, 14d; "all" for everything)
  --html FILE    also write the report page: first the lines it would have said, how often,
                 and which Past fixes the sessions confirmed; then a timeline per session
                 with an offer (the others folded)
  --json         one JSON object with replay's keys: {"sessions","exchanges","would_fire",
                 "fire_rate","by_type","sidechain_offers","offers":[{"file","session",
                 "channel","turn","step","tool_use_id","trigger","type","confidence",
                 "handle","hook","confirmed","steps_saved"}], …} and the uptake of the
                 Past fixes shown: "past_fix_offers", "confirmed_offers" (the session then
                 ran the fix and got the failing intent through), "steps_saved" (tool steps
                 between those offers and their success, summed: an upper bound)
  --seed N       rng seed of the wander step (default 1)
Exit 0 done · 2 usage · 3 no transcripts there, or the model does not load.`;

export const command: Command = {
  name: 'backtest',
  summary: 'what it would have said on your own history (both channels, your store and modes)',
  help: HELP,
  async run(argv) {
    const { values } = parseFlags(argv, { since: { type: 'string' }, html: { type: 'string' }, seed: { type: 'string' } }, false);
    const sinceRaw = values.since ?? DEFAULT_SINCE;
    const parsed = sinceRaw === 'all' ? null : parseDuration(sinceRaw);
    if (sinceRaw !== 'all' && !(typeof parsed === 'number' && parsed > 0)) throw new UserError(`--since must be a duration like 30m, 12h or 14d, or "all" (got "${sinceRaw}")`, EXIT.USAGE);
    const sinceMs = sinceRaw === 'all' ? null : (parsed as number);
    const seed = values.seed === undefined ? 1 : Number(values.seed);
    if (!Number.isInteger(seed) || seed < 0) throw new UserError(`--seed must be a non-negative integer (got "${values.seed}")`, EXIT.USAGE);
    if (values.html) checkReportPath(values.html); // before minutes of replay, not after
    const { config } = loadConfig({ flags: values.set });
    const root = config.transcriptsRoot ?? defaultTranscriptsRoot();
    const extraRoots = [config.codexSessionsRoot ?? defaultCodexSessionsRoot()]; // Codex CLI rollouts too (docs/CODEX.md)
    const now = Date.now();
    const rootState = transcriptsRootState(root);
    if (rootState.state === 'unreadable') throw new UserError(unreadableRootText(root, rootState.code), EXIT.ENV);
    let files;
    try {
      files = historyFiles(root, sinceMs, now, extraRoots);
    } catch (e) {
      throw new UserError(`cannot read the transcripts root ${root} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message}): set ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" to where Claude Code writes sessions`, EXIT.ENV);
    }
    if (!files.length) {
      throw new UserError(
        sinceMs === null
          ? `no transcripts (<project>/<session>.jsonl) under ${root}: point ACTIVE_BRAIN_TRANSCRIPTS or "transcriptsRoot" at the folder Claude Code writes sessions to`
          : `no transcripts under ${root} written in the last ${sinceRaw}: try --since all, or point ACTIVE_BRAIN_TRANSCRIPTS at your sessions`,
        EXIT.ENV,
      );
    }
    const storePath = resolve(config.store.path ?? defaultStorePath());
    const embedder = await createEmbedder(config.embedding);
    const opened = openReplayStore(storePath, embedder);
    try {
      if (!opened.store) process.stderr.write(`active-brain: ${opened.problem ?? `no knowledge store at ${storePath}`} — every trigger ends in silence; index your notes and past sessions first ("active-brain setup" or "active-brain index add …").\n`);
      const progress = createProgress('transcripts', files.length);
      const b = await runBacktest({
        config, embedder, store: opened.store, noStoreReason: opened.status === 'ok' ? undefined : opened.status,
        root, extraRoots, sinceMs, now, home: homeDir(), seed, onFile: (n) => progress.update(n),
      });
      progress.done();
      writeHistory(b.history.offers, b.history.summary);
      const page = values.html ? writeReport(values.html, renderReport(backtestReportModel(b, config, now))) : null;
      if (values.json) {
        printJson({ ...b.summary, ...b.uptakeFigures, offers: backtestOffers(b), history_offers: b.history.offers.length, ...(page ? { html: page } : {}), store: { path: storePath, status: opened.status } });
      } else {
        const lines = rowsThatMatter(b.rows);
        const line = (r: (typeof lines)[number]) => rowLine(r) + uptakeNote(b.uptake.get(r));
        process.stdout.write([LEGEND, UPTAKE_LEGEND, '', TABLE_HEADER, ...lines.map(line), ''].join('\n') + '\n');
        process.stdout.write(summaryText(b.summary, opened.store ? `store ${storePath}` : 'NO STORE') + '\n');
        process.stdout.write(uptakeText(b.uptakeFigures) + '\n');
        process.stdout.write(`\n${b.history.offers.length} offer(s) the hook would have shown are now labelable: active-brain label\n`);
        if (page) process.stdout.write(`report: ${page.path} (${Math.round(page.bytes / 1024)} KB)\n`);
      }
      return EXIT.OK;
    } finally {
      opened.store?.close();
      await embedder.dispose();
    }
  },
};
