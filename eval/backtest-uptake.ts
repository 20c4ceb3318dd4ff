/**
 * Uptake of a backtest's Past fixes (core/uptake.ts) — a usefulness figure before any label:
 * for each Past fix the hook would have shown (printed, or would-fire in soak) in a main
 * session, whether that session then ran the offered fix and got the failing intent through,
 * and the tool steps in between. Inputs: the replay's rows, the replayed files (each file with
 * such an offer is read again for its tool steps: eval/replay-read.ts) and the store's episodes
 * (the offered fix's line, by the offer's chunk). Tool channel: the failing call is the step the
 * offer was made at, the steps after it are the session's next ones. Prompt channel: the
 * failing intent is the episode's own failing call, the steps after the exchange are read.
 */
import type { EpisodeRecord } from '../store/types.js';
import { offeredFix, stepKeys, uptake, type Uptake } from '../core/uptake.js';
import { readTimedExchanges, type TimedStep, type TranscriptFile } from './replay-read.js';
import { hookShows, type ReplayRow } from './replay-rows.js';

export interface RowUptake extends Uptake {
  /** The offered fix's line (the episode's), '' when the store no longer has it. */
  fix: string;
}

export interface UptakeFigures {
  /** Past fixes the hook would have shown in main sessions (the ones judged here). */
  past_fix_offers: number;
  /** Of those, confirmed by the session: it ran the fix and got the failing intent through. */
  confirmed_offers: number;
  /** Tool steps between each confirmed offer and its success, summed: what the offers could
   *  have saved (an upper bound). */
  steps_saved: number;
}

/** The rows uptake judges: shown Past fixes of main sessions. */
export function judgedRow(r: ReplayRow): boolean {
  // A provisional look whose offer the hook showed counts: it is the line that was shown.
  return !!r.offer && r.offer.type === 'past-fix' && hookShows(r.hook) && !r.sidechain;
}

/** The failing call's keys of an episode (`Bash: git push` → `git push`). */
function episodeKeys(ep: EpisodeRecord): string[] {
  const i = ep.action.indexOf(': ');
  return ep.tool ? stepKeys({ name: ep.tool, summary: i >= 0 ? ep.action : `${ep.tool}: ${ep.action}` }) : [];
}

/** Uptake of one row, given its file's steps and its episode. Pure. */
export function rowUptake(r: ReplayRow, steps: readonly TimedStep[], ep: EpisodeRecord | undefined): RowUptake {
  const fixLine = ep?.fix ?? '';
  if (r.channel === 'tool') {
    const at = steps.findIndex((t) => (r.tool_use_id ? t.step.toolUseId === r.tool_use_id : t.step.step === r.step));
    if (at < 0) return { confirmed: false, steps_between: null, fix: fixLine };
    const failing = stepKeys(steps[at].step);
    return { ...uptake({ after: steps.slice(at + 1).map((t) => t.step), fix: offeredFix(fixLine, failing), failing }), fix: fixLine };
  }
  const failing = ep ? episodeKeys(ep) : [];
  const after = steps.filter((t) => t.step.startOffset >= r.offset).map((t) => t.step);
  return { ...uptake({ after, fix: offeredFix(fixLine, failing), failing }), fix: fixLine };
}

/** Uptake of every judged row; files are read again only when they hold one. */
export async function backtestUptake(rows: readonly ReplayRow[], files: readonly TranscriptFile[], episodes: readonly EpisodeRecord[]): Promise<Map<ReplayRow, RowUptake>> {
  const byFile = new Map<string, ReplayRow[]>();
  for (const r of rows) if (judgedRow(r)) byFile.set(r.file, [...(byFile.get(r.file) ?? []), r]);
  const out = new Map<ReplayRow, RowUptake>();
  if (!byFile.size) return out;
  const epOf = new Map(episodes.map((e) => [e.chunkId, e]));
  const pathOf = new Map(files.map((f) => [f.rel, f.path]));
  for (const [file, list] of byFile) {
    const path = pathOf.get(file);
    let steps: TimedStep[] = [];
    try {
      if (path) steps = (await readTimedExchanges(path)).steps;
    } catch {
      // A file that vanished since the replay: its offers are counted, none confirmed.
    }
    for (const r of list) out.set(r, rowUptake(r, steps, epOf.get(r.offer!.chunkId)));
  }
  return out;
}

/** The figures over every judged row. */
export function uptakeFigures(rows: readonly ReplayRow[], uptakes: ReadonlyMap<ReplayRow, RowUptake>): UptakeFigures {
  const judged = rows.filter(judgedRow);
  const confirmed = judged.map((r) => uptakes.get(r)).filter((u): u is RowUptake => !!u?.confirmed);
  return { past_fix_offers: judged.length, confirmed_offers: confirmed.length, steps_saved: confirmed.reduce((n, u) => n + (u.steps_between ?? 0), 0) };
}
